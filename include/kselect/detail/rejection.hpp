// How the header-only parts of the device API (kselect/device_filter.cuh) report a
// rejected argument: through the kselect library's thread-local message, read by
// device::last_error_message().
#pragma once

#include <cuda_runtime_api.h>

#include <string>

namespace kselect::device::detail {

/// Records why a call is rejected and returns cudaErrorInvalidValue.
cudaError_t reject_argument(const std::string& reason);
/// Empties last_error_message() at the start of a call.
void clear_rejection() noexcept;

}  // namespace kselect::device::detail
