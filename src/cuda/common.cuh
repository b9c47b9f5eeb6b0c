// Error handling shared by the CUDA backend: every CUDA call and launch is checked
// and its status returned (the device API returns cudaError_t, as CUB does).
#pragma once

#include <cuda_runtime_api.h>

#include <string>

#include "kselect/detail/cuda_support.hpp"
#include "kselect/detail/rejection.hpp"

namespace kselect::cuda {

/// Records why the current call is rejected; read by device::last_error_message().
void set_error_message(std::string msg);
void clear_error_message();

using kselect::detail::is_device_accessible;
using kselect::detail::memory_kind;
using kselect::detail::memory_kind_of;

/// Returns cudaErrorInvalidValue after recording `msg`.
inline cudaError_t invalid(const std::string& msg) { return kselect::device::detail::reject_argument(msg); }

}  // namespace kselect::cuda

/// Checks the launch just made (configuration errors surface here).
#define KSELECT_LAUNCH_CHECK() KSELECT_CUDA_TRY(cudaPeekAtLastError())
