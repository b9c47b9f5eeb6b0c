// Error handling shared by the CUDA backend: every CUDA call and launch is checked
// and its status returned (the device API returns cudaError_t, as CUB does).
#pragma once

#include <cuda_runtime_api.h>

#include <string>

namespace kselect::cuda_detail {

/// Records why the current call is rejected; read by device::last_error_message().
void set_error_message(std::string msg);
void clear_error_message();

/// Where a pointer lives, as far as kernels and the host can read it.
enum class memory_kind { host, device, managed };

/// cudaPointerGetAttributes, with unknown pointers (plain host memory) as host.
inline memory_kind memory_kind_of(const void* p) {
  cudaPointerAttributes attr{};
  if (p == nullptr || cudaPointerGetAttributes(&attr, p) != cudaSuccess) {
    cudaGetLastError();  // an unknown pointer leaves an error behind; clear it
    return memory_kind::host;
  }
  if (attr.type == cudaMemoryTypeDevice) return memory_kind::device;
  if (attr.type == cudaMemoryTypeManaged) return memory_kind::managed;
  return memory_kind::host;
}

/// Kernels can read p (device or managed memory).
inline bool is_device_accessible(const void* p) { return memory_kind_of(p) != memory_kind::host; }

/// Returns cudaErrorInvalidValue after recording `msg`.
inline cudaError_t invalid(std::string msg) {
  set_error_message(std::move(msg));
  return cudaErrorInvalidValue;
}

}  // namespace kselect::cuda_detail

/// Evaluates a cudaError_t expression and returns it from the enclosing function on failure.
#define KSELECT_CUDA_TRY(expr)                      \
  do {                                              \
    const cudaError_t kselect_status_ = (expr);     \
    if (kselect_status_ != cudaSuccess) return kselect_status_; \
  } while (0)

/// Checks the launch just made (configuration errors surface here).
#define KSELECT_LAUNCH_CHECK() KSELECT_CUDA_TRY(cudaPeekAtLastError())
