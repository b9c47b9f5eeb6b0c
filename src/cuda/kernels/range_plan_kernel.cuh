// Plans a rank-range pass in one block: samples the input, sorts the sample and
// predicts a key window around each boundary position of the range (lo and
// hi - 1), as window_plan_kernel does for one rank; a window whose sample keys are
// all one key is that key alone (core::tie_window); a high window whose sample keys
// are exactly two is flagged (core::two_key_window). Small inputs skip the sample:
// every key becomes a candidate, so the pass plus the candidate sort answer them
// exactly.
#pragma once

#include <cstdint>

#include "cuda/kernels/block_sort.cuh"
#include "cuda/kernels/gather_sample.cuh"
#include "cuda/kernels/range_state.cuh"
#include "cuda/tuning.hpp"
#include "core/range_plan.hpp"
#include "core/sampling.hpp"

namespace kselect::cuda {

template <class T>
__global__ void __launch_bounds__(tuning::sample_threads)
    range_plan_kernel(range_state<core::key_t<T>>* st, const T* input, std::int64_t n, std::int64_t lo,
                      std::int64_t hi, core::key_t<T> flip, std::uint64_t seed) {
  using K = core::key_t<T>;
  constexpr int threads = tuning::sample_threads;
  constexpr int items = tuning::sample_items;
  constexpr int S = tuning::sample_size;
  constexpr K max = static_cast<K>(~K(0));
  using sorter = block_sorter<K, threads, items>;
  __shared__ typename sorter::storage smem;

  core::range_windows<K> w;
  if (n <= tuning::range_all_candidates_max) {
    // One window over every key: all candidates.
    w.has_lo = w.has_hi = true;
    w.lo0 = 0;
    w.lo1 = max;
    w.hi0 = 0;
    w.hi1 = max;
  } else {
    K keys[items];
    gather_sample<items, threads, S>(input, n, seed, keys);
#pragma unroll
    for (int i = 0; i < items; ++i) keys[i] ^= flip;
    sorter::sort(keys, smem);
    if (threadIdx.x != 0) return;
    auto window = [&](std::int64_t position, K& w0, K& w1) {
      const core::sample_window sw =
          core::predict_window(position, n, S, tuning::window_sigmas, tuning::window_margin);
      w0 = sw.first >= 0 ? smem.sorted[sw.first] : K(0);
      w1 = sw.last < S ? smem.sorted[sw.last] : max;
      core::tie_window(smem.sorted, S, sw, w0, w1);
      return sw;
    };
    w.has_lo = lo > 0;
    w.has_hi = hi < n;
    if (w.has_lo) window(lo, w.lo0, w.lo1);
    if (w.has_hi) w.hi_two_keys = core::two_key_window(smem.sorted, S, window(hi - 1, w.hi0, w.hi1));
  }
  if (threadIdx.x != 0) return;
  st->tests = core::make_range_tests<T>(w, flip);
  st->windows = w;
  st->refine_below[0] = st->refine_below[1] = st->refine_kept = 0;
  st->below = 0;
  st->lo_cand = 0;
  st->cand = 0;
  st->inside = 0;
}

}  // namespace kselect::cuda
