// The pass of one window level: every key of the task is read once, counted
// against the window's bounds and, if inside the window, copied out.
//
// Why it looks like this (the H100 measurements behind each point: docs/performance.md):
//  - the general count kernel's window path spent ~58 instructions per key, so the
//    pass was compute-bound at 1.5x the read floor. Here a key costs its pre-key
//    (3 integer operations, key_traits::pre_key) and one subtract-and-compare per
//    counted class; to_key runs only on the keys copied out;
//  - the walk of stream_tiles.cuh: 16-byte loads, round-robin tiles (a sorted
//    input's window is spread over every block);
//  - a warp stages its window keys in shared memory with one ballot per key
//    (no shared atomics, no block barrier) and writes them out with one global
//    atomic per few hundred keys.
#pragma once

#include <cstdint>
#include <type_traits>

#include "cuda/kernels/stream_tiles.cuh"
#include "cuda/kernels/warp_stage.cuh"
#include "cuda/kernels/window_state.cuh"
#include "cuda/tuning.hpp"
#include "core/key_traits.hpp"
#include "core/window.hpp"

namespace kselect::cuda {

constexpr int window_pass_warps = tuning::stream_threads / 32;
/// A warp of window_pass_kernel flushes its stage past this many keys; 64-bit
/// keys sooner, so the block stays within 48 KiB of static shared memory.
template <class K>
constexpr int window_flush_at = sizeof(K) == 8 ? 128 : 256;

/// One thread's counts of a window pass, and its warp's stage of window keys.
template <class Src, bool equality>
struct window_counter {
  using K = core::key_t<Src>;
  using traits = core::key_traits<Src>;
  core::window_tests<K> t;
  // 32-bit per thread: a thread reads at most n / (3 blocks x 256 threads) < 2^32 keys.
  unsigned below = 0, at_lo = 0, at_hi = 0;
  Src* stage;  ///< window keys as read; to_key at the flush
  int staged = 0;

  __device__ __forceinline__ void add(Src x, bool valid) {
    const K p = traits::pre_key(x);
    below += valid && p < t.below_end;
    if constexpr (equality) {
      at_lo += valid && static_cast<K>(p - t.lo_first) < t.lo_count;
      at_hi += valid && static_cast<K>(p - t.hi_first) < t.hi_count;
    }
    const bool in = valid && static_cast<K>(p - t.in_first) < t.in_count;
    const unsigned mask = __ballot_sync(0xffffffffu, in);
    stage_by_ballot(in, x, stage, staged);
  }
};

template <class T, bool first_level>
__global__ void __launch_bounds__(tuning::stream_threads, tuning::stream_min_blocks)
    window_pass_kernel(window_state<core::key_t<T>>* st, std::int64_t capacity) {
  using K = core::key_t<T>;
  using Src = std::conditional_t<first_level, T, K>;
  constexpr int warps = window_pass_warps, flush_at = window_flush_at<K>;
  __shared__ Src stage[warps][warp_stage_capacity<flush_at>];
  if (st->status != window_status::running) return;
  const Src* src = static_cast<const Src*>(st->src);
  const std::int64_t size = st->size;
  K* dst = st->dst;
  const core::window_bounds<K> bounds = st->bounds;
  const int warp = threadIdx.x / 32;
  const auto to_key = [](Src x) { return core::key_traits<Src>::to_key(x); };

  const core::window_tests<K> tests = core::make_window_tests<Src>(bounds);

  auto run = [&](auto equality_tag) {
    constexpr bool equality = decltype(equality_tag)::value;
    window_counter<Src, equality> c;
    c.t = tests;
    c.stage = stage[warp];
    stream_tiles(
        src, size, [&](Src x, bool valid) { c.add(x, valid); },
        [&] {
          if (c.staged > flush_at) flush_warp_stage(c.stage, c.staged, &st->inside, dst, capacity, to_key);
        });
    if (c.staged > 0) flush_warp_stage(c.stage, c.staged, &st->inside, dst, capacity, to_key);
    const unsigned long long below = warp_sum(c.below);
    const unsigned long long at_lo = equality ? warp_sum(c.at_lo) : 0;
    const unsigned long long at_hi = equality ? warp_sum(c.at_hi) : 0;
    if ((threadIdx.x & 31) == 0) {
      if (below) atomicAdd(&st->below, below);
      if (at_lo) atomicAdd(&st->at_lo, at_lo);
      if (at_hi) atomicAdd(&st->at_hi, at_hi);
    }
  };
  // Equality counts only where a bound has a pre-key interval to count (see
  // make_window_tests: a plain window over every key becomes an equality one).
  if ((tests.lo_count | tests.hi_count) != 0) run(std::true_type{});
  else run(std::false_type{});
}

}  // namespace kselect::cuda
