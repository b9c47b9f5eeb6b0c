// The cut of a top-k (range_dispatch.cuh, range_driver::take_cut): where
// output position k - 1 lies among the ties of a known boundary key, the output
// is every key below it and its first `needed` ties in input order.
//   range_cut_count_kernel     one read: the keys below, equal to and between two
//                              candidate boundary keys a <= b, and per 4096-key
//                              tile the ties of each
//   (the boundary's tile counts scanned, cub::DeviceScan)
//   range_cut_position_kernel  the input position of the last tie taken
//   the filters' single pass (kselect/detail/filter_dispatch.cuh) with
//   range_cut_selector writes the output, in input order.
#pragma once

#include <cub/block/block_scan.cuh>

#include <cstdint>
#include <cstring>

#include "cuda/kernels/load_tile.cuh"
#include "cuda/kernels/warp_stage.cuh"
#include "cuda/tuning.hpp"
#include "core/key_traits.hpp"
#include "core/range_plan.hpp"

namespace kselect::cuda {

/// A key of the output: below the boundary key (flipped), or one of its ties at
/// or before input position *last_tie.
template <class T>
struct range_cut_selector {
  core::key_t<T> boundary, flip;
  const std::int64_t* last_tie;
  __device__ __forceinline__ bool operator()(T x, std::int64_t i) const {
    const core::key_t<T> u = core::range_key(x, flip);
    return u < boundary || (u == boundary && i <= *last_tie);
  }
};

/// The cut's totals: keys below a, equal to a, strictly between a and b, equal to b.
struct cut_totals {
  unsigned long long below, eq_a, between, eq_b;
};

/// The cut's words in the workspace: the totals the count adds to, the input
/// position of the last tie taken, and the filter's count of the keys written.
struct cut_words {
  cut_totals totals;
  std::int64_t last_tie, written;
};

/// A warp per 4096-key tile (grid-stride): each key classified against a <= b
/// (flipped keys; a == b: one key, whose ties both tallies count); the tile's
/// ties of a and of b to tile_eq_a[tile] and tile_eq_b[tile] (entry [tiles]
/// zeroed, for an exclusive scan's total), the totals added to *totals (zeroed
/// before). A warp-wide reduction a tile, no block barrier; 16-byte loads, eight
/// in flight a lane, where `vectors` (the input 16-byte aligned).
template <class T>
__global__ void __launch_bounds__(tuning::stream_threads)
    range_cut_count_kernel(const T* src, std::int64_t size, const T* key_a, const T* key_b, core::key_t<T> flip,
                           bool vectors, unsigned long long* tile_eq_a, unsigned long long* tile_eq_b,
                           cut_totals* totals) {
  using K = core::key_t<T>;
  constexpr std::int64_t tile = tuning::tile_keys;
  constexpr int per_vec = 16 / static_cast<int>(sizeof(T));
  constexpr int lane_vecs = static_cast<int>(tile) / per_vec / 32;  // a lane's vectors in a full tile
  constexpr int batch = 8;
  static_assert(lane_vecs % batch == 0, "whole batches of vectors");
  const K a = core::range_key(*key_a, flip), b = core::range_key(*key_b, flip);
  const int lane = static_cast<int>(threadIdx.x % 32);
  const std::int64_t warps = static_cast<std::int64_t>(gridDim.x) * (blockDim.x / 32);
  const std::int64_t tiles = (size + tile - 1) / tile;
  unsigned long long below = 0, between = 0, all_a = 0, all_b = 0;
  for (std::int64_t tl = (static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) / 32; tl < tiles;
       tl += warps) {
    const std::int64_t first = tl * tile;
    unsigned lt = 0, eq_a = 0, btw = 0, eq_b = 0;  // at most 128 keys a lane
    const auto classify = [&](T x) {
      const K u = core::range_key(x, flip);
      lt += u < a;
      eq_a += u == a;
      btw += (u > a) & (u < b);
      eq_b += u == b;
    };
    if (vectors && first + tile <= size) {
      const int4* v = reinterpret_cast<const int4*>(src + first);
      for (int j = 0; j < lane_vecs; j += batch) {
        int4 raw[batch];
#pragma unroll
        for (int q = 0; q < batch; ++q) raw[q] = __ldg(v + (j + q) * 32 + lane);
#pragma unroll
        for (int q = 0; q < batch; ++q) {
          T x[per_vec];
          std::memcpy(x, &raw[q], sizeof raw[q]);
#pragma unroll
          for (int c = 0; c < per_vec; ++c) classify(x[c]);
        }
      }
    } else {
      const std::int64_t last = first + tile < size ? first + tile : size;
      for (std::int64_t i = first + lane; i < last; i += 32) classify(load_readonly(src + i));
    }
    const unsigned tile_a = __reduce_add_sync(0xffffffffu, eq_a), tile_b = __reduce_add_sync(0xffffffffu, eq_b);
    if (lane == 0) {
      tile_eq_a[tl] = tile_a;
      tile_eq_b[tl] = tile_b;
    }
    below += lt;
    between += btw;
    all_a += eq_a;
    all_b += eq_b;
  }
  if (blockIdx.x == 0 && threadIdx.x == 0) tile_eq_a[tiles] = tile_eq_b[tiles] = 0;
  const unsigned long long sums[4] = {warp_sum(below), warp_sum(all_a), warp_sum(between), warp_sum(all_b)};
  if (lane == 0) {
    unsigned long long* const out[4] = {&totals->below, &totals->eq_a, &totals->between, &totals->eq_b};
#pragma unroll
    for (int c = 0; c < 4; ++c)
      if (sums[c]) atomicAdd(out[c], sums[c]);
  }
}

/// One block: the input position of the needed-th (from 1) key equal to
/// `boundary`, in input order, to *last_tie. tie_prefix: the ties before each
/// 4096-key tile (an exclusive scan of the per-tile counts; entry [tiles] the
/// total, at least `needed`).
template <class T>
__global__ void __launch_bounds__(tuning::stream_threads)
    range_cut_position_kernel(const T* src, std::int64_t size, const unsigned long long* tie_prefix,
                              std::int64_t tiles, core::key_t<T> boundary, core::key_t<T> flip,
                              unsigned long long needed, std::int64_t* last_tie) {
  constexpr int threads = tuning::stream_threads;
  constexpr int items = tuning::stream_items;
  constexpr std::int64_t tile = tuning::tile_keys;
  using scan_t = cub::BlockScan<int, threads>;
  __shared__ typename scan_t::TempStorage scan_storage;
  __shared__ std::int64_t found_tile;
  if (threadIdx.x == 0) {  // the last tile with fewer than `needed` ties before it
    std::int64_t lo = 0, hi = tiles - 1;
    while (lo < hi) {
      const std::int64_t mid = lo + (hi - lo + 1) / 2;
      if (tie_prefix[mid] < needed) lo = mid;
      else hi = mid - 1;
    }
    found_tile = lo;
  }
  __syncthreads();
  const std::int64_t tl = found_tile;
  const auto wanted = static_cast<int>(needed - tie_prefix[tl]);  // from 1, within the tile
  // Blocked: thread t holds the tile's keys t * items .. t * items + items - 1, so
  // the scan's order is the input's.
  const std::int64_t first = tl * tile + static_cast<std::int64_t>(threadIdx.x) * items;
  bool tie[items];
  int count = 0;
#pragma unroll
  for (int i = 0; i < items; ++i) {
    tie[i] = first + i < size && core::range_key(load_readonly(src + first + i), flip) == boundary;
    count += tie[i];
  }
  int before = 0;
  scan_t(scan_storage).ExclusiveSum(count, before);
  if (before >= wanted || before + count < wanted) return;
  int seen = before;
#pragma unroll
  for (int i = 0; i < items; ++i) {
    if (tie[i] && ++seen == wanted) *last_tie = first + i;
  }
}

}  // namespace kselect::cuda
