// State of a rank-range selection's fused pass, in device memory: the tests the
// plan kernel sets (range_plan_kernel, narrowed by range_refine_kernels), the
// counters the pass adds to (range_pass_kernel); the host copies the counters
// back once.
#pragma once

#include "plan/range_plan.hpp"

namespace kselect::cuda_detail {

template <class K>
struct range_state {
  // Read back by the host: keep first and together (one copy).
  unsigned long long below, lo_cand, cand, inside;
  plan::range_tests<K> tests;
  // The second sampling round: the first round's windows, and of the second
  // sample the keys below each window and the keys kept (in the windows).
  plan::range_windows<K> coarse;
  unsigned long long refine_below[2], refine_kept;
};

}  // namespace kselect::cuda_detail
