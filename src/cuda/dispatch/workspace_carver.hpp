// The workspace carver lives with the public headers (the header-only device filters
// use it too); the CUDA backend knows it by its old name.
#pragma once

#include "kselect/detail/workspace_carver.hpp"

namespace kselect::cuda_detail {
using kselect::detail::workspace_carver;
}  // namespace kselect::cuda_detail
