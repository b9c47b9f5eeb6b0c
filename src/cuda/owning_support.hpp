// What the owning API's CUDA glue (owning_backend.cu, owning_range.cu,
// owning_approx.cu) shares: turning a device-API status into an exception, and
// stream-ordered device buffers.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <string>

#include "kselect/device.hpp"
#include "kselect/types.hpp"

namespace kselect::cuda_backend {

/// Throws kselect::error: a rejected call's reason (device::last_error_message),
/// else the CUDA error's name after `what`.
inline void check(cudaError_t status, const char* what) {
  if (status == cudaSuccess) return;
  // The exception reports it: the runtime's last-error state must not report it
  // again to the caller's next, unrelated call.
  cudaGetLastError();
  if (status == cudaErrorInvalidValue && *device::last_error_message() != '\0')
    throw error(device::last_error_message());
  throw error(std::string("kselect: ") + what + ": " + cudaGetErrorString(status));
}

/// Device memory released on scope exit, on the stream it was taken on; from the
/// current device's default memory pool, or from `pool` when given.
class stream_buffer {
 public:
  stream_buffer(std::size_t bytes, cudaStream_t stream, cudaMemPool_t pool = nullptr) : stream_(stream) {
    if (bytes == 0) return;
    if (pool) check(cudaMallocFromPoolAsync(&ptr_, bytes, pool, stream), "cudaMallocFromPoolAsync");
    else check(cudaMallocAsync(&ptr_, bytes, stream), "cudaMallocAsync");
  }
  ~stream_buffer() { release(); }
  stream_buffer(const stream_buffer&) = delete;
  stream_buffer& operator=(const stream_buffer&) = delete;
  stream_buffer(stream_buffer&& other) noexcept : ptr_(other.ptr_), stream_(other.stream_) { other.ptr_ = nullptr; }
  stream_buffer& operator=(stream_buffer&& other) noexcept {
    if (this != &other) {
      release();
      ptr_ = other.ptr_;
      stream_ = other.stream_;
      other.ptr_ = nullptr;
    }
    return *this;
  }
  void* get() const { return ptr_; }

 private:
  void release() noexcept {
    if (ptr_) cudaFreeAsync(ptr_, stream_);
    ptr_ = nullptr;
  }
  void* ptr_ = nullptr;
  cudaStream_t stream_;
};

}  // namespace kselect::cuda_backend
