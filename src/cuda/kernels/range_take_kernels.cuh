// The stream-ordered top-k's write, when ties may be taken in any order (not
// deterministic): one read of the input after the boundary key is known,
// instead of the exact path's count, scans and write (range_exact_kernels.cuh).
//
//   range_take_kernel         keys below the boundary (position k - 1's key) to
//                             the output, at offsets handed out per tile by one
//                             atomic add; the positions of keys equal to it to
//                             the tie buffer (the first k of them)
//   range_take_finish_kernel  the ties the output still needs (k minus the keys
//                             below), from the tie buffer
//   range_take_all_kernel     k = n, unsorted: the input as it is (no selection)
//
// The keys below number at most k - 1 and the ties at least the rest, so both
// fit; which ties are taken depends on the blocks' timing.
#pragma once

#include <cub/block/block_scan.cuh>

#include <cstdint>

#include "cuda/kernels/load_tile.cuh"
#include "cuda/kernels/range_pass_kernel.cuh"
#include "cuda/tuning.hpp"
#include "core/key_traits.hpp"

namespace kselect::cuda {

/// Keys handed out so far: [0] below the boundary, [1] equal to it.
struct range_take_counters {
  unsigned long long below, ties;
};

template <class T>
__global__ void __launch_bounds__(tuning::stream_threads)
    range_take_kernel(const T* src, std::int64_t size, const T* boundary, core::key_t<T> flip,
                      range_take_counters* counters, std::int64_t* tie_positions, std::int64_t k, T* out_keys,
                      void* out_indices, int index_bytes) {
  using K = core::key_t<T>;
  constexpr int threads = tuning::stream_threads;
  constexpr int items = tuning::stream_items;
  constexpr std::int64_t tile = tuning::tile_keys;
  using scan_t = cub::BlockScan<unsigned long long, threads>;
  __shared__ typename scan_t::TempStorage scan_storage;
  __shared__ unsigned long long base[2];
  const K khi = core::range_key(*boundary, flip);
  const std::int64_t tiles = (size + tile - 1) / tile;
  for (std::int64_t tl = blockIdx.x; tl < tiles; tl += gridDim.x) {
    T vals[items];
    load_tile<items, threads>(src, tl * tile, size, vals);
    // Per thread: keys below in the low 32 bits, ties in the high.
    unsigned long long packed = 0;
#pragma unroll
    for (int i = 0; i < items; ++i) {
      if (tl * tile + i * threads + threadIdx.x >= size) continue;
      const K u = core::range_key(vals[i], flip);
      packed += u < khi ? 1ull : (u == khi ? 1ull << 32 : 0ull);
    }
    unsigned long long offsets = 0, total = 0;
    scan_t(scan_storage).ExclusiveSum(packed, offsets, total);
    if (threadIdx.x == 0) {
      base[0] = (total & 0xffffffffull) ? atomicAdd(&counters->below, total & 0xffffffffull) : 0;
      base[1] = (total >> 32) ? atomicAdd(&counters->ties, total >> 32) : 0;
    }
    __syncthreads();
    std::int64_t below_at = static_cast<std::int64_t>(base[0] + (offsets & 0xffffffffull));
    std::int64_t tie_at = static_cast<std::int64_t>(base[1] + (offsets >> 32));
#pragma unroll
    for (int i = 0; i < items; ++i) {
      const std::int64_t pos = tl * tile + i * threads + threadIdx.x;
      if (pos >= size) continue;
      const K u = core::range_key(vals[i], flip);
      if (u < khi) {
        out_keys[below_at] = vals[i];
        if (out_indices) store_index(out_indices, index_bytes, below_at, pos);
        ++below_at;
      } else if (u == khi) {
        if (tie_at < k) tie_positions[tie_at] = pos;
        ++tie_at;
      }
    }
    __syncthreads();  // scan_storage and base are reused by the next tile
  }
}

/// Output [below, k): the first k - below tie positions' keys (and positions).
template <class T>
__global__ void range_take_finish_kernel(const T* src, const range_take_counters* counters,
                                         const std::int64_t* tie_positions, std::int64_t k, T* out_keys,
                                         void* out_indices, int index_bytes) {
  const auto below = static_cast<std::int64_t>(counters->below);
  for (std::int64_t j = below + blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; j < k;
       j += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    const std::int64_t pos = tie_positions[j - below];
    out_keys[j] = load_readonly(src + pos);
    if (out_indices) store_index(out_indices, index_bytes, j, pos);
  }
}

/// An unsorted top-k of every key (k = n): the input in its own order, which is
/// also the deterministic order. Keys and positions (either may be null).
template <class T>
__global__ void range_take_all_kernel(const T* src, std::int64_t n, T* out_keys, void* out_indices, int index_bytes) {
  for (std::int64_t j = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; j < n;
       j += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    if (out_keys) out_keys[j] = load_readonly(src + j);
    if (out_indices) store_index(out_indices, index_bytes, j, j);
  }
}

}  // namespace kselect::cuda
