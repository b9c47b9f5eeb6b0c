// The second sampling round of a rank-range plan (core::refine_sample_size):
// range_plan_kernel's 4096-key sample predicts windows of ~6% of the input
// around the median and of 2^16 keys or more around a small k, so the pass
// wrote millions of candidates (k = n/2), or one in every few warp tiles had a
// candidate to write (k = 1024). A second stratified sample, up to 2^18 keys
// drawn by the whole grid, of which only the keys in the first windows are kept
// (about 2048) and sorted in one block, narrows the windows by the square root
// of the sample ratio.
//
//   range_refine_gather_kernel  grid: draw, keep the keys in the windows, count
//                               the keys below each window
//   range_refine_plan_kernel    1 block: sort the kept keys, narrowed windows,
//                               the pass's tests (unchanged if too many were kept)
#pragma once

#include <cstdint>

#include "cuda/kernels/block_sort.cuh"
#include "cuda/kernels/load_tile.cuh"
#include "cuda/kernels/range_state.cuh"
#include "cuda/kernels/warp_stage.cuh"
#include "cuda/tuning.hpp"
#include "core/range_plan.hpp"
#include "core/sampling.hpp"

namespace kselect::cuda {

/// Each thread draws refine_items keys of the sample of `sample_size`.
template <class T>
__global__ void __launch_bounds__(tuning::sample_threads)
    range_refine_gather_kernel(range_state<core::key_t<T>>* st, const T* input, std::int64_t n,
                               std::int64_t sample_size, std::uint64_t seed, core::key_t<T> flip,
                               core::key_t<T>* kept) {
  using K = core::key_t<T>;
  constexpr int items = tuning::refine_items;
  const core::range_windows<K> w = st->windows;
  const std::int64_t first_j = (static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) * items;
  std::int64_t pos[items];
#pragma unroll
  for (int i = 0; i < items; ++i)
    pos[i] = first_j + i < sample_size ? core::sample_position(first_j + i, sample_size, n, seed) : -1;
  T raw[items];
#pragma unroll
  for (int i = 0; i < items; ++i) raw[i] = pos[i] >= 0 ? load_readonly(input + pos[i]) : T{};
  unsigned below_lo = 0, below_hi = 0;
#pragma unroll
  for (int i = 0; i < items; ++i) {
    if (pos[i] < 0) continue;
    const K k = core::range_key(raw[i], flip);
    below_lo += w.has_lo && k < w.lo0;
    below_hi += w.has_hi && k < w.hi0;
    const bool keep = (w.has_lo && k >= w.lo0 && k <= w.lo1) || (w.has_hi && k >= w.hi0 && k <= w.hi1);
    if (keep) {  // rare (about 2048 of the sample): one atomic a key
      const unsigned long long at = atomicAdd(&st->refine_kept, 1ull);
      if (at < static_cast<unsigned long long>(tuning::refine_capacity)) kept[at] = k;
    }
  }
  const unsigned long long bl = warp_sum(below_lo), bh = warp_sum(below_hi);
  if (threadIdx.x % 32 == 0) {
    if (bl) atomicAdd(&st->refine_below[0], bl);
    if (bh) atomicAdd(&st->refine_below[1], bh);
  }
}

template <class T>
__global__ void __launch_bounds__(tuning::sample_threads)
    range_refine_plan_kernel(range_state<core::key_t<T>>* st, const core::key_t<T>* kept, std::int64_t n,
                             std::int64_t lo, std::int64_t hi, std::int64_t sample_size, core::key_t<T> flip) {
  using K = core::key_t<T>;
  constexpr int threads = tuning::sample_threads;
  constexpr int items = tuning::sample_items;
  static_assert(threads * items == tuning::refine_capacity, "the kept keys fill one block sort");
  using sorter = block_sorter<K, threads, items>;
  __shared__ typename sorter::storage smem;
  const unsigned long long count = st->refine_kept;
  if (count > static_cast<unsigned long long>(tuning::refine_capacity)) return;  // keep the first round's tests
  K keys[items];
#pragma unroll
  for (int i = 0; i < items; ++i) {
    const unsigned long long at = static_cast<unsigned long long>(threadIdx.x) * items + i;
    keys[i] = at < count ? kept[at] : static_cast<K>(~K(0));
  }
  sorter::sort(keys, smem);
  if (threadIdx.x != 0) return;
  const auto c = static_cast<std::int64_t>(count);
  auto lower_bound = [&](K key) {
    std::int64_t a = 0, b = c;
    while (a < b) {
      const std::int64_t m = (a + b) / 2;
      if (smem.sorted[m] < key) a = m + 1;
      else b = m;
    }
    return a;
  };
  auto slice_of = [&](K w0, K w1, unsigned long long below) {
    core::refine_slice s;
    s.below = static_cast<std::int64_t>(below);
    s.first = lower_bound(w0);
    const std::int64_t end = w1 == static_cast<K>(~K(0)) ? c : lower_bound(static_cast<K>(w1 + 1));
    s.count = end - s.first;
    return s;
  };
  core::range_windows<K> w = st->windows;
  if (w.has_lo)
    core::refine_window(lo, n, sample_size, tuning::window_sigmas, tuning::window_margin, smem.sorted,
                        slice_of(w.lo0, w.lo1, st->refine_below[0]), w.lo0, w.lo1);
  if (w.has_hi)
    core::refine_window(hi - 1, n, sample_size, tuning::window_sigmas, tuning::window_margin, smem.sorted,
                        slice_of(w.hi0, w.hi1, st->refine_below[1]), w.hi0, w.hi1);
  st->tests = core::make_range_tests<T>(w, flip);
  st->windows = w;
}

}  // namespace kselect::cuda
