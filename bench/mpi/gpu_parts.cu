// kselect-mpi-bench's CUDA parts (gpu_parts.hpp): built only with CUDA.
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_reduce.cuh>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "gpu_parts.hpp"

namespace kselect::mpi_bench::gpu {
namespace {

void check(cudaError_t status, const char* what) {
  if (status != cudaSuccess)
    throw std::runtime_error(std::string(what) + ": " + cudaGetErrorName(status) + " (" +
                             cudaGetErrorString(status) + ")");
}

cudaStream_t as_stream(void* s) { return static_cast<cudaStream_t>(s); }

template <class T>
__global__ void generate_kernel(T* out, std::int64_t count, std::int64_t offset, std::int64_t global_n, dist d,
                                std::uint64_t seed) {
  for (std::int64_t j = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; j < count;
       j += std::int64_t(gridDim.x) * blockDim.x)
    out[j] = key_value<T>(d, offset + j, global_n, seed);
}

/// A pair of CUDA events around `runs` calls of fn (after `warmup` untimed ones).
template <class F>
timing time_with_events(cudaStream_t stream, int runs, int warmup, F&& fn) {
  cudaEvent_t start = nullptr, stop = nullptr;
  check(cudaEventCreate(&start), "cudaEventCreate");
  check(cudaEventCreate(&stop), "cudaEventCreate");
  std::vector<double> ms;
  try {
    for (int i = 0; i < warmup; ++i) fn();
    for (int i = 0; i < runs; ++i) {
      check(cudaEventRecord(start, stream), "cudaEventRecord");
      fn();
      check(cudaEventRecord(stop, stream), "cudaEventRecord");
      check(cudaEventSynchronize(stop), "cudaEventSynchronize");
      float t = 0;
      check(cudaEventElapsedTime(&t, start, stop), "cudaEventElapsedTime");
      ms.push_back(t);
    }
  } catch (...) {
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
    throw;
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  return summarize(std::move(ms));
}

/// Device memory freed on scope exit.
struct device_block {
  void* p = nullptr;
  explicit device_block(std::size_t bytes) { check(cudaMalloc(&p, std::max<std::size_t>(bytes, 1)), "cudaMalloc"); }
  ~device_block() { cudaFree(p); }
  device_block(const device_block&) = delete;
  device_block& operator=(const device_block&) = delete;
};

}  // namespace

bool built() { return true; }

device_info bind(int local_rank) {
  device_info info;
  if (cudaGetDeviceCount(&info.count) != cudaSuccess || info.count == 0)
    throw std::runtime_error("no CUDA device (cudaGetDeviceCount found none)");
  info.ordinal = local_rank % info.count;
  check(cudaSetDevice(info.ordinal), "cudaSetDevice");
  cudaDeviceProp prop{};
  check(cudaGetDeviceProperties(&prop, info.ordinal), "cudaGetDeviceProperties");
  info.name = prop.name;
  info.memory_bytes = prop.totalGlobalMem;
  info.major = prop.major;
  info.minor = prop.minor;
  char bus[32] = {};
  if (cudaDeviceGetPCIBusId(bus, sizeof bus, info.ordinal) == cudaSuccess) info.pci_bus_id = bus;
  check(cudaRuntimeGetVersion(&info.runtime_version), "cudaRuntimeGetVersion");
  check(cudaDriverGetVersion(&info.driver_version), "cudaDriverGetVersion");
  check(cudaFree(nullptr), "context creation");  // the context now, not inside the first timed call
  return info;
}

void* create_stream() {
  cudaStream_t s = nullptr;
  check(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "cudaStreamCreateWithFlags");
  return s;
}

void destroy_stream(void* stream) {
  if (stream) cudaStreamDestroy(as_stream(stream));
}

void synchronize(void* stream) { check(cudaStreamSynchronize(as_stream(stream)), "cudaStreamSynchronize"); }

void* allocate(std::size_t bytes) {
  void* p = nullptr;
  check(cudaMalloc(&p, std::max<std::size_t>(bytes, 1)), "cudaMalloc");
  return p;
}

void release(void* p) noexcept {
  if (p) cudaFree(p);
}

void copy_to_host(void* host, const void* device, std::size_t bytes) {
  if (bytes) check(cudaMemcpy(host, device, bytes, cudaMemcpyDeviceToHost), "cudaMemcpy to the host");
}

void copy_to_device(void* device, const void* host, std::size_t bytes) {
  if (bytes) check(cudaMemcpy(device, host, bytes, cudaMemcpyHostToDevice), "cudaMemcpy to the device");
}

template <class T>
void generate(T* out, std::int64_t count, std::int64_t offset, std::int64_t global_n, dist d, std::uint64_t seed,
              void* stream) {
  if (count <= 0) return;
  constexpr int threads = 256;
  const auto blocks = static_cast<unsigned>(std::min<std::int64_t>((count + threads - 1) / threads, 132 * 32));
  generate_kernel<T><<<blocks, threads, 0, as_stream(stream)>>>(out, count, offset, global_n, d, seed);
  check(cudaPeekAtLastError(), "generate_kernel");
}

template <class T>
struct reducer<T>::impl {
  const T* in;
  std::int64_t n;
  cudaStream_t stream;
  device_block sum{sizeof(T)};
  std::size_t bytes = 0;
  std::unique_ptr<device_block> workspace;

  impl(const T* in_, std::int64_t n_, cudaStream_t s) : in(in_), n(n_), stream(s) {
    check(cub::DeviceReduce::Sum(nullptr, bytes, in, static_cast<T*>(sum.p), n, stream), "cub::DeviceReduce::Sum query");
    workspace = std::make_unique<device_block>(bytes);
  }
  void launch() {
    std::size_t b = bytes;
    check(cub::DeviceReduce::Sum(workspace->p, b, in, static_cast<T*>(sum.p), n, stream), "cub::DeviceReduce::Sum");
  }
};

template <class T>
reducer<T>::reducer(const T* in, std::int64_t n, void* stream) : p_(std::make_unique<impl>(in, n, as_stream(stream))) {}

template <class T>
reducer<T>::~reducer() = default;

template <class T>
void reducer<T>::run_and_wait() {
  p_->launch();
  check(cudaStreamSynchronize(p_->stream), "cudaStreamSynchronize");
}

template <class T>
timing reducer<T>::time_events(int runs, int warmup) {
  return time_with_events(p_->stream, runs, warmup, [&] { p_->launch(); });
}

template <class T>
timing radix_sort_time(const T* in, std::int64_t n, void* stream, int runs, int warmup) {
  const cudaStream_t s = as_stream(stream);
  device_block out(static_cast<std::size_t>(n) * sizeof(T));
  std::size_t bytes = 0;
  check(cub::DeviceRadixSort::SortKeys(nullptr, bytes, in, static_cast<T*>(out.p), n, 0, int(sizeof(T) * 8), s),
        "cub::DeviceRadixSort::SortKeys query");
  device_block workspace(bytes);
  return time_with_events(s, runs, warmup, [&] {
    std::size_t b = bytes;
    check(cub::DeviceRadixSort::SortKeys(workspace.p, b, in, static_cast<T*>(out.p), n, 0, int(sizeof(T) * 8), s),
          "cub::DeviceRadixSort::SortKeys");
  });
}

#define KSELECT_MPI_BENCH_GPU(T)                                                                      \
  template void generate<T>(T*, std::int64_t, std::int64_t, std::int64_t, dist, std::uint64_t, void*); \
  template class reducer<T>;                                                                          \
  template timing radix_sort_time<T>(const T*, std::int64_t, void*, int, int);
KSELECT_MPI_BENCH_GPU(float)
KSELECT_MPI_BENCH_GPU(double)
#undef KSELECT_MPI_BENCH_GPU

}  // namespace kselect::mpi_bench::gpu
