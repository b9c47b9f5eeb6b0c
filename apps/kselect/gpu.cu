// CUDA implementation of gpu.hpp (compiled only in CUDA builds).
#include <cuda_runtime.h>

#include <algorithm>
#include <atomic>
#include <climits>
#include <cstdint>
#include <cub/device/device_radix_sort.cuh>
#include <exception>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "demo_data.hpp"
#include "gpu.hpp"
#include "kselect/device.hpp"
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

/// One reader's share of device_buffer::fill_staged: two pinned host buffers
/// (one is read into while the other's copy runs), a stream and an event per
/// buffer. The destructor waits for the copies before freeing the buffers.
class staging_pair {
 public:
  explicit staging_pair(std::size_t chunk_bytes) {
    check(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreate");
    for (int i = 0; i < 2; ++i) {
      check(cudaEventCreateWithFlags(&copied_[i], cudaEventDisableTiming), "cudaEventCreate");
      check(cudaHostAlloc(&host_[i], chunk_bytes, cudaHostAllocDefault),
            ("cudaHostAlloc of " + std::to_string(chunk_bytes) + " bytes of pinned staging memory").c_str());
    }
  }
  ~staging_pair() {
    if (stream_) cudaStreamSynchronize(stream_);
    for (int i = 0; i < 2; ++i) {
      if (host_[i]) cudaFreeHost(host_[i]);
      if (copied_[i]) cudaEventDestroy(copied_[i]);
    }
    if (stream_) cudaStreamDestroy(stream_);
  }
  staging_pair(const staging_pair&) = delete;
  staging_pair& operator=(const staging_pair&) = delete;

  /// Buffer i, once its last copy to the device is done.
  void* ready(int i) {
    check(cudaEventSynchronize(copied_[i]), "waiting for a staged copy");
    return host_[i];
  }
  /// Queues the copy of buffer i's first `len` bytes to `dst`.
  void copy(int i, void* dst, std::size_t len) {
    check(cudaMemcpyAsync(dst, host_[i], len, cudaMemcpyHostToDevice, stream_), "cudaMemcpyAsync to the device");
    check(cudaEventRecord(copied_[i], stream_), "cudaEventRecord");
  }
  void finish() { check(cudaStreamSynchronize(stream_), "a staged copy to the device"); }

 private:
  cudaStream_t stream_ = nullptr;
  cudaEvent_t copied_[2] = {nullptr, nullptr};
  void* host_[2] = {nullptr, nullptr};
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

std::size_t free_memory() {
  std::size_t free_bytes = 0, total_bytes = 0;
  check(cudaMemGetInfo(&free_bytes, &total_bytes), "cudaMemGetInfo");
  return free_bytes;
}

std::size_t selection_workspace_bytes(dtype t, std::int64_t n, std::int64_t num_ranks) {
  return visit_dtype(t, [&](auto tag) -> std::size_t {
    using T = typename decltype(tag)::type;
    if constexpr (kselect::is_supported_key_v<T>) {
      // A call never selects more distinct ranks than there are values.
      const std::int64_t ranks = std::min(num_ranks, n);
      std::size_t bytes = 0;
      check(kselect::device::multiselect<T>(nullptr, bytes, nullptr, nullptr, n, nullptr, ranks),
            "the selection's workspace query");
      return bytes;
    } else {
      throw kselect::error("no selection of " + std::string(dtype_name(t)) + " values");
    }
  });
}

namespace {

cudaMemPool_t default_pool() {
  int device = 0;
  check(cudaGetDevice(&device), "cudaGetDevice");
  cudaMemPool_t pool = nullptr;
  check(cudaDeviceGetDefaultMemPool(&pool, device), "cudaDeviceGetDefaultMemPool");
  return pool;
}

}  // namespace

void map_pool_memory(std::size_t bytes) {
  cudaMemPool_t pool = default_pool();
  std::uint64_t keep = ~std::uint64_t{0};
  check(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep), "cudaMemPoolSetAttribute");
  if (bytes == 0) return;
  void* p = nullptr;
  check(cudaMallocAsync(&p, bytes, nullptr), ("cudaMallocAsync of " + std::to_string(bytes) + " bytes").c_str());
  check(cudaFreeAsync(p, nullptr), "cudaFreeAsync");
  check(cudaStreamSynchronize(nullptr), "cudaStreamSynchronize");
}

std::size_t pool_reserved_bytes() {
  std::uint64_t bytes = 0;
  check(cudaMemPoolGetAttribute(default_pool(), cudaMemPoolAttrReservedMemCurrent, &bytes), "cudaMemPoolGetAttribute");
  return static_cast<std::size_t>(bytes);
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

void device_buffer::fill_staged(std::size_t bytes, const chunk_reader& read) {
  if (bytes > bytes_) throw kselect::error("device_buffer::fill_staged: more bytes than the buffer holds");
  if (bytes == 0) return;
  // Staging parameters: 16 MiB chunks are large enough for a copy to run at the
  // link's full speed, and 4 readers as byte_reader.cpp reads files (past that
  // the host's memory bus, not the cores, limits a read from the page cache):
  // 128 MiB of pinned memory at most, allocated per call.
  constexpr std::size_t chunk_max = std::size_t{16} << 20;
  constexpr std::size_t readers_max = 4;
  const std::size_t cores = std::max(1u, std::thread::hardware_concurrency());
  const std::size_t readers_wanted = std::min(readers_max, cores);
  // Small inputs: a chunk per reader, rounded up to 64 KiB.
  const std::size_t per_reader = (bytes + readers_wanted - 1) / readers_wanted;
  const std::size_t chunk = std::min(chunk_max, (per_reader + 0xffff) & ~std::size_t{0xffff});
  const std::size_t chunks = (bytes + chunk - 1) / chunk;
  const std::size_t readers = std::min(readers_wanted, chunks);
  int device = 0;
  check(cudaGetDevice(&device), "cudaGetDevice");

  std::atomic<std::size_t> next{0};
  std::atomic<bool> failed{false};
  std::vector<std::exception_ptr> errors(readers);
  auto reader = [&](std::size_t r) {
    try {
      check(cudaSetDevice(device), "cudaSetDevice");  // a new thread starts on device 0
      staging_pair staging(chunk);
      for (int slot = 0;; slot ^= 1) {
        const std::size_t i = next.fetch_add(1, std::memory_order_relaxed);
        if (i >= chunks || failed.load(std::memory_order_relaxed)) break;
        const std::size_t offset = i * chunk, len = std::min(chunk, bytes - offset);
        void* host = staging.ready(slot);
        read(host, offset, len);
        staging.copy(slot, static_cast<char*>(ptr_) + offset, len);
      }
      staging.finish();
    } catch (...) {
      errors[r] = std::current_exception();
      failed = true;
    }
  };
  std::vector<std::thread> threads;
  try {
    for (std::size_t r = 1; r < readers; ++r) threads.emplace_back(reader, r);
  } catch (const std::system_error&) {
    // Fewer threads: the chunks go to those that started, and to this one.
  }
  reader(0);
  for (auto& t : threads) t.join();
  for (const auto& e : errors)
    if (e) std::rethrow_exception(e);
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
