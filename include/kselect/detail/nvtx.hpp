// NVTX ranges, so that profilers (Nsight Systems) show each kselect call: one range
// per device-API and owning-API call, named after the function ("kselect::select",
// "kselect::device::topk"), in the NVTX domain "kselect". NVTX v3 is header-only (the
// CUDA toolkit's nvtx3/); with no tool attached a range costs a check of a function
// pointer. Without CUDA (the CPU-only build), or with NVTX_DISABLE defined, the macro
// is empty.
#pragma once

#if (defined(KSELECT_WITH_CUDA) || defined(__CUDACC__)) && !defined(NVTX_DISABLE)
#if __has_include(<nvtx3/nvtx3.hpp>)
#define KSELECT_NVTX 1
#endif
#endif

#ifdef KSELECT_NVTX
#include <nvtx3/nvtx3.hpp>

namespace kselect::detail {
struct nvtx_domain {
  static constexpr const char* name{"kselect"};
};
}  // namespace kselect::detail

/// A range named `label` (a string literal) from here to the end of the scope. The
/// name is registered once per call site, so a range passes a handle, not a string.
#define KSELECT_NVTX_RANGE(label)                                                                   \
  static const ::nvtx3::registered_string_in<::kselect::detail::nvtx_domain> kselect_nvtx_name_{label}; \
  const ::nvtx3::scoped_range_in<::kselect::detail::nvtx_domain> kselect_nvtx_range_ { kselect_nvtx_name_ }
#else
#define KSELECT_NVTX_RANGE(label) static_assert(true, label)
#endif
