// CUDA implementation of gpu.hpp (compiled only in CUDA builds).
#include <cuda_runtime.h>

#include <algorithm>
#include <climits>
#include <cub/device/device_radix_sort.cuh>
#include <string>
#include <utility>

#include "demo_data.hpp"
#include "gpu.hpp"
#include "kselect/types.hpp"

namespace kselect_cli::gpu {
namespace {

void check(cudaError_t err, const char* what) {
  if (err != cudaSuccess)
    throw kselect::error(std::string(what) + ": " + cudaGetErrorName(err) + ": " +
                         cudaGetErrorString(err));
}

__global__ void fill_uniform_kernel(float* out, std::int64_t n, std::uint64_t seed) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += stride)
    out[i] = demo_value(seed, static_cast<std::uint64_t>(i));
}

/// Two CUDA events, destroyed on scope exit.
class event_pair {
 public:
  event_pair() {
    check(cudaEventCreate(&start_), "cudaEventCreate");
    if (cudaError_t err = cudaEventCreate(&stop_); err != cudaSuccess) {
      cudaEventDestroy(start_);
      check(err, "cudaEventCreate");
    }
  }
  ~event_pair() {
    cudaEventDestroy(start_);
    cudaEventDestroy(stop_);
  }
  event_pair(const event_pair&) = delete;
  event_pair& operator=(const event_pair&) = delete;

  void start() { check(cudaEventRecord(start_), "cudaEventRecord"); }
  double stop_ms() {
    check(cudaEventRecord(stop_), "cudaEventRecord");
    check(cudaEventSynchronize(stop_), "cudaEventSynchronize");
    float ms = 0;
    check(cudaEventElapsedTime(&ms, start_, stop_), "cudaEventElapsedTime");
    return ms;
  }

 private:
  cudaEvent_t start_ = nullptr;
  cudaEvent_t stop_ = nullptr;
};

}  // namespace

bool built_with_cuda() noexcept { return true; }

void initialize() { check(cudaFree(nullptr), "creating the CUDA context"); }

int bind_device(int local_rank) {
  int count = 0;
  check(cudaGetDeviceCount(&count), "cudaGetDeviceCount");
  if (count <= 0) throw kselect::error("no CUDA device found");
  const int device = (local_rank < 0 ? 0 : local_rank) % count;
  check(cudaSetDevice(device), ("cudaSetDevice(" + std::to_string(device) + ")").c_str());
  return device;
}

std::string device_name() {
  int dev = 0;
  check(cudaGetDevice(&dev), "cudaGetDevice");
  cudaDeviceProp prop{};
  check(cudaGetDeviceProperties(&prop, dev), "cudaGetDeviceProperties");
  return std::string(prop.name) + " (device " + std::to_string(dev) + ")";
}

device_buffer::device_buffer(std::size_t bytes) : bytes_(bytes) {
  check(cudaMalloc(&ptr_, bytes == 0 ? 1 : bytes),
        ("cudaMalloc of " + std::to_string(bytes) + " bytes").c_str());
}

device_buffer::~device_buffer() {
  if (ptr_) cudaFree(ptr_);
}

device_buffer::device_buffer(device_buffer&& other) noexcept
    : ptr_(std::exchange(other.ptr_, nullptr)), bytes_(std::exchange(other.bytes_, 0)) {}

device_buffer& device_buffer::operator=(device_buffer&& other) noexcept {
  if (this != &other) {
    if (ptr_) cudaFree(ptr_);
    ptr_ = std::exchange(other.ptr_, nullptr);
    bytes_ = std::exchange(other.bytes_, 0);
  }
  return *this;
}

void device_buffer::upload(const void* host, std::size_t bytes) {
  if (bytes > bytes_) throw kselect::error("device_buffer::upload: more bytes than the buffer holds");
  check(cudaMemcpy(ptr_, host, bytes, cudaMemcpyHostToDevice), "cudaMemcpy to the device");
}

void device_buffer::download(void* host, std::size_t offset, std::size_t bytes) const {
  if (offset > bytes_ || bytes > bytes_ - offset)
    throw kselect::error("device_buffer::download: range outside the buffer");
  check(cudaMemcpy(host, static_cast<const char*>(ptr_) + offset, bytes, cudaMemcpyDeviceToHost),
        "cudaMemcpy to the host");
}

void fill_uniform(device_buffer& buf, std::int64_t n, std::uint64_t seed) {
  if (static_cast<std::size_t>(n) * sizeof(float) > buf.bytes())
    throw kselect::error("fill_uniform: buffer too small");
  constexpr int block = 256;
  const int grid = static_cast<int>(std::min<std::int64_t>((n + block - 1) / block, 65536));
  if (n > 0) fill_uniform_kernel<<<grid, block>>>(static_cast<float*>(buf.get()), n, seed);
  check(cudaGetLastError(), "fill_uniform_kernel launch");
  check(cudaDeviceSynchronize(), "fill_uniform_kernel");
}

double sort_floats(const device_buffer& in, device_buffer& out, std::int64_t n) {
  if (static_cast<std::size_t>(n) * sizeof(float) > in.bytes())
    throw kselect::error("sort_floats: input buffer too small");
  if (n > static_cast<std::int64_t>(INT32_MAX))
    throw kselect::error("sort_floats: more than 2^31-1 values");
  out = device_buffer(static_cast<std::size_t>(n) * sizeof(float));
  const auto* d_in = static_cast<const float*>(in.get());
  auto* d_out = static_cast<float*>(out.get());
  const int count = static_cast<int>(n);
  std::size_t temp_bytes = 0;
  check(cub::DeviceRadixSort::SortKeys(nullptr, temp_bytes, d_in, d_out, count),
        "cub::DeviceRadixSort::SortKeys (size query)");
  device_buffer temp(temp_bytes);
  // Once untimed (the first launch also loads the kernels), then timed.
  check(cub::DeviceRadixSort::SortKeys(temp.get(), temp_bytes, d_in, d_out, count),
        "cub::DeviceRadixSort::SortKeys");
  event_pair timer;
  timer.start();
  check(cub::DeviceRadixSort::SortKeys(temp.get(), temp_bytes, d_in, d_out, count),
        "cub::DeviceRadixSort::SortKeys");
  check(cudaGetLastError(), "cub::DeviceRadixSort::SortKeys");
  return timer.stop_ms();
}

}  // namespace kselect_cli::gpu
