// The exact path of a rank-range selection, taken when the fused pass's
// prediction missed or its candidates overflowed (heavy ties at a boundary: all
// equal keys, few distinct values). The boundary keys are known exactly (an
// exact multiselection of positions lo and hi - 1); then
//   range_exact_count_kernel  per tile: keys equal to the low boundary, strictly
//                             between the boundaries, equal to the high one;
//                             and, in all, the keys below the low boundary;
//   (exclusive scans of the per-tile counts, cub::DeviceScan)
//   range_exact_write_kernel  writes the chosen keys in input order per class:
//                             [low ties][inside][high ties], so that of the keys
//                             equal to a boundary the ones with the smaller
//                             indices are taken (deterministic ties).
#pragma once

#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>

#include <cstdint>

#include "cuda/kernels/load_tile.cuh"
#include "cuda/kernels/range_pass_kernel.cuh"
#include "cuda/tuning.hpp"
#include "core/key_traits.hpp"

namespace kselect::cuda {

/// Per-tile counts of the exact path, one array per class, each with one more
/// entry than tiles (the scan's last entry is the total).
struct range_tile_counts {
  unsigned long long* eq_lo;
  unsigned long long* inside;
  unsigned long long* eq_hi;
};

/// The class of key u (flipped order) against the boundary keys: 0 below, 1 equal
/// to the low boundary, 2 inside, 3 equal to the high boundary (only when the
/// boundaries differ), 4 above.
template <class K>
__device__ __forceinline__ int exact_class(K u, K klo, K khi) {
  if (u < klo) return 0;
  if (u == klo) return 1;
  if (u < khi) return 2;
  if (u == khi) return 3;
  return 4;
}

/// The low boundary's key; thr_lo null: the least key (a top-k, where nothing
/// lies below position 0: core::range_selected_boundaries).
template <class T>
__device__ __forceinline__ core::key_t<T> low_boundary_key(const T* thr_lo, core::key_t<T> flip) {
  return thr_lo ? core::range_key(*thr_lo, flip) : core::key_t<T>(0);
}

/// The exact path's boundary ranks written to the workspace for the
/// stream-ordered multiselection (kernel arguments are captured by value in a
/// CUDA graph, a host array would not be). A template, so that every translation
/// unit including this has its own.
template <int = 0>
__global__ void range_store_ranks_kernel(std::int64_t* ranks, std::int64_t first, std::int64_t second) {
  ranks[0] = first;
  ranks[1] = second;
}

/// Class c's contribution to three 21-bit counters packed in one word (classes
/// 1 to 3; a tile's counts stay below 2^21), so one block reduction or scan
/// counts all three.
__device__ __forceinline__ unsigned long long packed_class_count(int c) {
  return c >= 1 && c <= 3 ? 1ull << (21 * (c - 1)) : 0ull;
}

template <class T>
__global__ void __launch_bounds__(tuning::stream_threads)
    range_exact_count_kernel(const T* src, std::int64_t size, const T* thr_lo, const T* thr_hi,
                             core::key_t<T> flip, range_tile_counts counts, unsigned long long* below) {
  using K = core::key_t<T>;
  constexpr int threads = tuning::stream_threads;
  constexpr int items = tuning::stream_items;
  constexpr std::int64_t tile = tuning::tile_keys;
  using reduce_t = cub::BlockReduce<unsigned long long, threads>;
  __shared__ typename reduce_t::TempStorage reduce_storage;
  const K klo = low_boundary_key(thr_lo, flip), khi = core::range_key(*thr_hi, flip);
  const std::int64_t tiles = (size + tile - 1) / tile;
  unsigned long long my_below = 0;
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    counts.eq_lo[tiles] = 0;
    counts.inside[tiles] = 0;
    counts.eq_hi[tiles] = 0;
  }
  for (std::int64_t tl = blockIdx.x; tl < tiles; tl += gridDim.x) {
    T vals[items];
    load_tile<items, threads>(src, tl * tile, size, vals);
    unsigned long long packed = 0;
#pragma unroll
    for (int i = 0; i < items; ++i) {
      if (tl * tile + i * threads + threadIdx.x >= size) continue;
      const int c = exact_class(core::range_key(vals[i], flip), klo, khi);
      my_below += c == 0;
      packed += packed_class_count(c);
    }
    const unsigned long long sum = reduce_t(reduce_storage).Sum(packed);
    if (threadIdx.x == 0) {
      counts.eq_lo[tl] = sum & 0x1fffffull;
      counts.inside[tl] = (sum >> 21) & 0x1fffffull;
      counts.eq_hi[tl] = (sum >> 42) & 0x1fffffull;
    }
    __syncthreads();  // reduce_storage is reused by the next tile
  }
  const unsigned long long b = warp_sum(my_below);
  if (threadIdx.x % 32 == 0 && b) atomicAdd(below, b);
}

/// After the scans: counts.* hold each tile's exclusive prefix, and entry [tiles]
/// the total.
template <class T>
__global__ void __launch_bounds__(tuning::stream_threads)
    range_exact_write_kernel(const T* src, std::int64_t size, const T* thr_lo, const T* thr_hi,
                             core::key_t<T> flip, range_tile_counts prefix, const unsigned long long* below_count,
                             std::int64_t lo, std::int64_t hi, T* out_keys, void* out_indices, int index_bytes) {
  using K = core::key_t<T>;
  constexpr int threads = tuning::stream_threads;
  constexpr int items = tuning::stream_items;
  constexpr std::int64_t tile = tuning::tile_keys;
  using scan_t = cub::BlockScan<unsigned long long, threads>;
  __shared__ typename scan_t::TempStorage scan_storage;
  const K klo = low_boundary_key(thr_lo, flip), khi = core::range_key(*thr_hi, flip);
  const std::int64_t tiles = (size + tile - 1) / tile;
  const auto below = static_cast<std::int64_t>(*below_count);
  const auto total_lo = static_cast<std::int64_t>(prefix.eq_lo[tiles]);
  const auto total_in = static_cast<std::int64_t>(prefix.inside[tiles]);
  // Output: [low ties taken][inside][high ties taken]; with equal boundaries, the
  // ties at positions [lo, hi).
  const std::int64_t taken_lo = klo == khi ? 0 : below + total_lo - lo;
  for (std::int64_t tl = blockIdx.x; tl < tiles; tl += gridDim.x) {
    // Blocked: thread t holds keys t * items .. t * items + items - 1, so the
    // scan's order is the input's order.
    const std::int64_t first = tl * tile + static_cast<std::int64_t>(threadIdx.x) * items;
    T vals[items];
    int cls[items];
    unsigned long long packed = 0;
#pragma unroll
    for (int i = 0; i < items; ++i) {
      const bool valid = first + i < size;
      vals[i] = valid ? load_readonly(src + first + i) : T{};
      cls[i] = valid ? exact_class(core::range_key(vals[i], flip), klo, khi) : 4;
      packed += packed_class_count(cls[i]);
    }
    unsigned long long offsets = 0;
    scan_t(scan_storage).ExclusiveSum(packed, offsets);
    __syncthreads();
    std::int64_t g_lo = static_cast<std::int64_t>(prefix.eq_lo[tl] + (offsets & 0x1fffffull));
    std::int64_t g_in = static_cast<std::int64_t>(prefix.inside[tl] + ((offsets >> 21) & 0x1fffffull));
    std::int64_t g_hi = static_cast<std::int64_t>(prefix.eq_hi[tl] + (offsets >> 42));
#pragma unroll
    for (int i = 0; i < items; ++i) {
      std::int64_t at = -1;
      if (cls[i] == 1) {
        const std::int64_t pos = below + g_lo++;  // its position in the stable sort
        if (pos >= lo && pos < hi) at = pos - lo;
      } else if (cls[i] == 2) {
        at = taken_lo + g_in++;
      } else if (cls[i] == 3) {
        const std::int64_t pos = below + total_lo + total_in + g_hi;
        if (pos < hi) at = taken_lo + total_in + g_hi;
        ++g_hi;
      }
      if (at >= 0) {
        out_keys[at] = vals[i];
        if (out_indices) store_index(out_indices, index_bytes, at, first + i);
      }
    }
  }
}

}  // namespace kselect::cuda
