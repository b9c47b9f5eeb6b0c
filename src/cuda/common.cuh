// Error handling shared by the CUDA backend: every CUDA call and launch is checked
// and its status returned (the device API returns cudaError_t, as CUB does).
#pragma once

#include <cuda_runtime_api.h>

#include <string>

namespace kselect::cuda_detail {

/// Records why the current call is rejected; read by device::last_error_message().
void set_error_message(std::string msg);
void clear_error_message();

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
