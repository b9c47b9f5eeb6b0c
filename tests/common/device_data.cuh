// Device-side helpers shared by the GPU tests and the GPU benchmark: an owning
// device buffer, a CUDA check that throws, and input generators that run on the
// GPU (so 2^28+ element inputs cost milliseconds, not seconds of host time).
#pragma once

#include <cuda_runtime_api.h>

#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/sampling.hpp"

namespace kselect::test {

inline void cuda_check(cudaError_t status, const char* what) {
  if (status != cudaSuccess)
    throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(status));
}

/// Owning device array (cudaMalloc / cudaFree).
template <class T>
class device_buffer {
 public:
  device_buffer() = default;
  explicit device_buffer(std::size_t count) : count_(count) {
    if (count) cuda_check(cudaMalloc(&ptr_, count * sizeof(T)), "cudaMalloc");
  }
  explicit device_buffer(const std::vector<T>& host) : device_buffer(host.size()) {
    if (count_) cuda_check(cudaMemcpy(ptr_, host.data(), count_ * sizeof(T), cudaMemcpyHostToDevice), "copy to device");
  }
  ~device_buffer() {
    if (ptr_) cudaFree(ptr_);
  }
  device_buffer(device_buffer&& o) noexcept : ptr_(o.ptr_), count_(o.count_) { o.ptr_ = nullptr; o.count_ = 0; }
  device_buffer& operator=(device_buffer&& o) noexcept {
    std::swap(ptr_, o.ptr_);
    std::swap(count_, o.count_);
    return *this;
  }
  device_buffer(const device_buffer&) = delete;
  device_buffer& operator=(const device_buffer&) = delete;

  T* data() const { return ptr_; }
  std::size_t size() const { return count_; }
  std::vector<T> to_host() const {
    std::vector<T> h(count_);
    if (count_) cuda_check(cudaMemcpy(h.data(), ptr_, count_ * sizeof(T), cudaMemcpyDeviceToHost), "copy to host");
    return h;
  }

 private:
  T* ptr_ = nullptr;
  std::size_t count_ = 0;
};

/// Distributions the benchmark and the large GPU tests generate on the device.
enum class device_dist { uniform, normal, all_equal, sixteen_values, sorted, reversed, clustered, shared_prefix };

inline const char* device_dist_name(device_dist d) {
  switch (d) {
    case device_dist::uniform: return "uniform";
    case device_dist::normal: return "normal";
    case device_dist::all_equal: return "all_equal";
    case device_dist::sixteen_values: return "sixteen_values";
    case device_dist::sorted: return "sorted";
    case device_dist::reversed: return "reversed";
    case device_dist::clustered: return "clustered";
    case device_dist::shared_prefix: return "shared_prefix";
  }
  return "?";
}

template <class T>
__global__ void generate_kernel(T* out, std::int64_t n, device_dist d, std::uint64_t seed) {
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < n;
       i += std::int64_t(gridDim.x) * blockDim.x) {
    const std::uint64_t h = core::mix64(seed ^ static_cast<std::uint64_t>(i));
    const double u = static_cast<double>(h >> 11) * 0x1.0p-53;  // [0, 1)
    double v = 0;
    switch (d) {
      case device_dist::uniform: v = u; break;
      case device_dist::normal: {
        const double u2 = static_cast<double>(core::mix64(h) >> 11) * 0x1.0p-53;
        v = sqrt(-2.0 * log(u + 0x1.0p-60)) * cos(6.283185307179586 * u2);
        break;
      }
      case device_dist::all_equal: v = 42; break;
      case device_dist::sixteen_values: v = static_cast<double>(h % 16); break;
      case device_dist::sorted: v = static_cast<double>(i) / static_cast<double>(n); break;
      case device_dist::reversed: v = static_cast<double>(n - i) / static_cast<double>(n); break;
      case device_dist::clustered: v = static_cast<double>(h % 64) * 1000.0 + u * 1e-3; break;
      case device_dist::shared_prefix: v = 1.0 + u * 0x1.0p-10; break;
    }
    if constexpr (std::is_integral_v<T>) {
      // Spread over the type's range where the distribution is continuous.
      if (d == device_dist::uniform) out[i] = static_cast<T>(h);
      else if (d == device_dist::normal) out[i] = static_cast<T>(static_cast<std::int64_t>(v * 1e6));
      else if (d == device_dist::sorted || d == device_dist::reversed) out[i] = static_cast<T>(d == device_dist::sorted ? i : n - i);
      else if (d == device_dist::clustered) out[i] = static_cast<T>((h % 64) * 1000000 + (h >> 40) % 1000);
      else if (d == device_dist::shared_prefix) out[i] = static_cast<T>((std::uint64_t(1) << 30) + (h >> 54));
      else out[i] = static_cast<T>(v);
    } else {
      out[i] = static_cast<T>(v);
    }
  }
}

template <class T>
void generate_on_device(T* out, std::int64_t n, device_dist d, std::uint64_t seed, cudaStream_t stream = nullptr) {
  if (n == 0) return;
  const int threads = 256;
  const auto blocks = static_cast<unsigned>(std::min<std::int64_t>((n + threads - 1) / threads, 132 * 32));
  generate_kernel<T><<<blocks, threads, 0, stream>>>(out, n, d, seed);
  cuda_check(cudaPeekAtLastError(), "generate_kernel");
}

}  // namespace kselect::test
