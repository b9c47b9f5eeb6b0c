// What every file of the CUDA backend uses: every CUDA call and launch is checked
// and its status returned (the device API returns cudaError_t, as CUB does), and a
// rejected argument is reported through kselect::detail::reject_argument, the same
// way as the header-only device filters do.
#pragma once

#include <cuda_runtime_api.h>

#include "kselect/detail/cuda_support.hpp"
#include "kselect/detail/rejection.hpp"

namespace kselect::cuda {

using kselect::detail::clear_rejection;
using kselect::detail::is_device_accessible;
using kselect::detail::memory_kind;
using kselect::detail::memory_kind_of;
using kselect::detail::reject_argument;
using kselect::detail::reject_if;
using kselect::detail::workspace_protocol;

}  // namespace kselect::cuda
