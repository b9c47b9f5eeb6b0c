// How every device-API entry point, compiled (src/cuda) or header-only
// (kselect/device_filter.cuh), reports a rejected argument: a thread-local message,
// read by device::last_error_message(), and cudaErrorInvalidValue.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <string>

namespace kselect::detail {

/// Records why a call is rejected and returns cudaErrorInvalidValue.
cudaError_t reject_argument(const std::string& reason);
/// Empties last_error_message() at the start of a call.
void clear_rejection() noexcept;

/// cudaSuccess for an empty `problem` (the string checks of kselect/detail/arguments.hpp
/// and core), else reject_argument(problem).
inline cudaError_t reject_if(const std::string& problem) {
  return problem.empty() ? cudaSuccess : reject_argument(problem);
}

/// CUB's two-phase protocol, for every device-API entry point. A null workspace is
/// the size query: the bytes `needed` go to workspace_bytes and `answered` is set;
/// otherwise a workspace smaller than `needed` is rejected with both sizes.
inline cudaError_t workspace_protocol(const void* d_workspace, std::size_t& workspace_bytes, std::size_t needed,
                                      bool& answered) {
  answered = d_workspace == nullptr;
  if (answered) {
    workspace_bytes = needed;
    return cudaSuccess;
  }
  if (workspace_bytes < needed)
    return reject_argument("kselect: workspace too small: " + std::to_string(workspace_bytes) + " bytes given, " +
                           std::to_string(needed) + " needed");
  return cudaSuccess;
}

}  // namespace kselect::detail
