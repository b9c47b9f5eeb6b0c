// State of a rank-range selection's fused pass, in device memory: the tests the
// plan kernel sets (range_plan_kernel, narrowed by range_refine_kernels), the
// counters the pass adds to (range_pass_kernel); the host copies the counters
// back once.
#pragma once

#include "core/range_plan.hpp"

namespace kselect::cuda {

template <class K>
struct range_state {
  // Read back by the host: keep first and together (one copy).
  unsigned long long below, lo_cand, cand, inside;
  core::range_tests<K> tests;
  // The windows the tests come from: range_plan_kernel's, narrowed by
  // range_refine_plan_kernel (until then, the first round's, which the second
  // round's gather reads). Of the second sample: the keys below each window and
  // the keys kept (in the windows).
  core::range_windows<K> windows;
  unsigned long long refine_below[2], refine_kept;
};

}  // namespace kselect::cuda
