// Plans one level of a single-rank window selection in one block: reads the
// counts of the previous level's pass, decides where the rank went
// (core::locate_in_window), and either answers it (equality bound, or a task small
// enough to sort in the block) or samples the new task, sorts the sample and sets
// the next window. Launched after every pass, so levels chain on the device.
#pragma once

#include "cuda/kernels/block_sort.cuh"
#include "cuda/kernels/gather_sample.cuh"
#include "cuda/kernels/window_state.cuh"
#include "cuda/tuning.hpp"
#include "core/key_traits.hpp"
#include "core/sampling.hpp"
#include "core/window.hpp"

namespace kselect::cuda {

/// Knobs of the window prediction (tuning.hpp's values in production; tests
/// narrow the window to force the fallback path).
struct window_params {
  double sigmas = tuning::window_sigmas;
  double margin = tuning::window_margin;
  std::int64_t capacity = 0;  ///< keys each of the two buffers holds
  int max_levels = 64;
};

/// window_plan_kernel's first thread: starts the state (first level; the rank is
/// *rank_ptr when that is not null, for ranks in device memory), or reads
/// the previous pass's counts and moves to the rank's new task, answers the rank,
/// or gives up (fallback). Returns whether the level goes on (samples the task).
template <class T, bool first_level>
__device__ __forceinline__ int window_plan_advance(window_state<core::key_t<T>>* st, const T* input, std::int64_t n,
                                                   std::int64_t rank, const std::int64_t* rank_ptr,
                                                   core::key_t<T>* buffer0, core::key_t<T>* buffer1,
                                                   const window_params& params, T* out) {
  if constexpr (first_level) {
    st->status = window_status::running;
    st->level = 0;
    st->src = input;
    st->size = n;
    st->rank = rank_ptr != nullptr ? *rank_ptr : rank;
    st->dst = buffer0;
    return 1;
  } else {
    if (st->status != window_status::running) return 0;
    const core::window_counts c{st->below, st->at_lo, st->inside, st->at_hi};
    std::int64_t inside_rank = 0;
    const core::window_step step = core::locate_in_window(st->rank, c, inside_rank);
    if (step == core::window_step::answer_lo || step == core::window_step::answer_hi) {
      out[0] = core::key_traits<T>::from_key(step == core::window_step::answer_lo ? st->bounds.s0 : st->bounds.s1);
      st->status = window_status::done;
      return 0;
    }
    if (step == core::window_step::missed || c.inside > static_cast<std::uint64_t>(params.capacity) ||
        st->level + 1 >= params.max_levels) {
      st->status = window_status::fallback;
      return 0;
    }
    st->src = st->dst;
    st->size = static_cast<std::int64_t>(c.inside);
    st->rank = inside_rank;
    st->dst = st->dst == buffer0 ? buffer1 : buffer0;
    st->level += 1;
    return 1;
  }
}

/// first_level: the task is the T input (no previous pass); otherwise its keys
/// are the K window the previous pass copied out.
template <class T, bool first_level>
__global__ void __launch_bounds__(tuning::sample_threads)
    window_plan_kernel(window_state<core::key_t<T>>* st, const T* input, std::int64_t n, std::int64_t rank,
                       const std::int64_t* rank_ptr, core::key_t<T>* buffer0, core::key_t<T>* buffer1,
                       window_params params, std::uint64_t seed, T* out) {
  using K = core::key_t<T>;
  using Src = std::conditional_t<first_level, T, K>;
  constexpr int threads = tuning::sample_threads;
  constexpr int items = tuning::sample_items;
  constexpr int S = tuning::sample_size;
  static_assert(tuning::base_case_max == S, "the base case reuses the sample sort");
  using sorter = block_sorter<K, threads, items>;
  __shared__ typename sorter::storage smem;
  __shared__ int proceed;

  if (threadIdx.x == 0)
    proceed = window_plan_advance<T, first_level>(st, input, n, rank, rank_ptr, buffer0, buffer1, params, out);
  __syncthreads();
  if (!proceed) return;

  const Src* src = static_cast<const Src*>(st->src);
  const std::int64_t size = st->size, target = st->rank;
  const int level = st->level;
  K keys[items];
  if (size <= tuning::base_case_max) sorter::load_padded(src, size, keys);  // base case: sort the whole task
  else gather_sample<items, threads, S>(src, size, seed + level * 7919ull, keys);
  sorter::sort(keys, smem);
  if (threadIdx.x != 0) return;

  if (size <= tuning::base_case_max) {
    out[0] = core::key_traits<T>::from_key(smem.sorted[target]);
    st->status = window_status::done;
    return;
  }
  const core::sample_window w = core::predict_window(target, size, S, params.sigmas, params.margin);
  core::window_bounds<K> b{};
  b.has_lo = w.first >= 0;
  b.has_hi = w.last < S;
  if (!b.has_lo && !b.has_hi) {  // no narrowing possible (only with test-sized windows)
    st->status = window_status::fallback;
    return;
  }
  const int first = b.has_lo ? static_cast<int>(w.first) : 0;
  const int last = b.has_hi ? static_cast<int>(w.last) : S - 1;
  b.s0 = b.has_lo ? smem.sorted[first] : K(0);
  b.s1 = b.has_hi ? smem.sorted[last] : static_cast<K>(~K(0));
  // A bound the sample holds twice is a frequent key: count it apart (equality mode).
  auto repeated = [&](int i) {
    return (i > 0 && smem.sorted[i - 1] == smem.sorted[i]) || (i + 1 < S && smem.sorted[i + 1] == smem.sorted[i]);
  };
  b.equality = (b.has_lo && repeated(first)) || (b.has_hi && repeated(last));
  st->bounds = b;
  st->below = 0;
  st->at_lo = 0;
  st->inside = 0;
  st->at_hi = 0;
}

}  // namespace kselect::cuda
