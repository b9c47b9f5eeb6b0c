// The large tier: segments longer than a block holds, cut into tiles that every
// block shares, so one long segment beside many short ones spreads over the whole
// GPU. Radix selection as in group_radix.cuh, with the histograms in global memory:
// per round of up to large_ranks_per_round ranks, `passes` launches of count_pass
// (each tile adds its keys' digits) and choose_pass (a warp per rank picks the bin).
// Top-k then counts each tile's keys below and at the threshold, scans the counts
// per segment, and writes the chosen keys in index order.
#pragma once

#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>

#include "cuda/segmented/segment_kernels.cuh"

namespace kselect::cuda::segmented {

template <class U>
__device__ __forceinline__ unsigned* large_hist(const tables<U>& t, int parity, std::int64_t e, int j) {
  return t.large_hist + ((std::int64_t(parity) * t.large_max + e) * large_ranks_per_round + j) * radix_bins;
}

/// The ranks of round `base` for every large segment; clears histogram 0.
template <class U>
__global__ void large_round_kernel(tables<U> t, int base) {
  const int count = t.counters[tier_large];
  for (int e = blockIdx.x; e < count; e += gridDim.x) {
    const std::int64_t s = t.large[e].segment;
    if (threadIdx.x < large_ranks_per_round) {
      const int r = base + threadIdx.x;
      t.large_prefix[e * large_ranks_per_round + threadIdx.x] = 0;
      t.large_rem[e * large_ranks_per_round + threadIdx.x] = r < t.valid_ranks[s] ? t.ranks[s * t.width + r] : -1;
    }
    for (int i = threadIdx.x; i < large_ranks_per_round * radix_bins; i += blockDim.x)
      large_hist(t, 0, e, 0)[i] = 0;
  }
}

/// The number of ranks of entry e still active in this round (they come first).
template <class U>
__device__ __forceinline__ int active_ranks(const tables<U>& t, std::int64_t e) {
  int active = 0;
  while (active < large_ranks_per_round && t.large_rem[e * large_ranks_per_round + active] >= 0) ++active;
  return active;
}

/// One pass: every tile adds the digit at `shift` of its keys that share a rank's prefix.
template <class T>
__global__ void __launch_bounds__(block_threads) large_count_kernel(const T* in, request req,
                                                                    tables<core::key_t<T>> t, int pass, int parity) {
  using U = core::key_t<T>;
  constexpr int bits = sizeof(U) * 8;
  const int shift = bits - radix_bits * (pass + 1);
  __shared__ unsigned hist[large_ranks_per_round][radix_bins];
  __shared__ U prefix[large_ranks_per_round];
  __shared__ int active;
  const bool largest = req.op == op_kind::topk && req.topk_largest;
  const int tiles = t.counters[tier_count];
  for (int tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
    const int e = t.tile_owner[tile];
    const large_entry entry = t.large[e];
    if (threadIdx.x == 0) active = active_ranks(t, e);
    if (threadIdx.x < large_ranks_per_round) prefix[threadIdx.x] = t.large_prefix[e * large_ranks_per_round + threadIdx.x];
    for (int i = threadIdx.x; i < large_ranks_per_round * radix_bins; i += blockDim.x) (&hist[0][0])[i] = 0;
    __syncthreads();
    const core::segment_bounds b = req.bounds(entry.segment);
    const std::int64_t begin = b.begin + (tile - entry.first_tile) * tile_size;
    const std::int64_t end = begin + tile_size < b.end ? begin + tile_size : b.end;
    if (active > 0) {
#pragma unroll 4
      for (int item = 0; item < tile_items; ++item) {
        const std::int64_t i = begin + std::int64_t(item) * block_threads + threadIdx.x;
        const U key = i < end ? order_key(in[i], largest) : U(0);
        const U high = pass == 0 ? U(0) : static_cast<U>(key >> (shift + radix_bits));
        const int s = lower_slot(prefix, active, high);
        if (i < end && s < active && prefix[s] == high) atomicAdd(&hist[s][(key >> shift) & (radix_bins - 1)], 1u);
      }
    }
    __syncthreads();
    for (int i = threadIdx.x; i < active * radix_bins; i += blockDim.x) {
      const unsigned c = (&hist[0][0])[i];
      if (c) atomicAdd(large_hist(t, parity, e, 0) + i, c);
    }
    __syncthreads();
  }
}

/// One block per large segment, a warp per rank: the bin holding the rank; clears the
/// other histogram for the next pass. After the last pass the prefixes are the keys.
template <class U>
__global__ void large_choose_kernel(tables<U> t, int pass, int parity, int base, bool last) {
  __shared__ int slot[large_ranks_per_round];
  __shared__ U prefix[large_ranks_per_round];
  const int count = t.counters[tier_large];
  const int warp = threadIdx.x / 32;
  for (int e = blockIdx.x; e < count; e += gridDim.x) {
    const int active = active_ranks(t, e);
    if (threadIdx.x < large_ranks_per_round) prefix[threadIdx.x] = t.large_prefix[e * large_ranks_per_round + threadIdx.x];
    __syncthreads();
    if (threadIdx.x < active) slot[threadIdx.x] = lower_slot(prefix, active, prefix[threadIdx.x]);
    __syncthreads();
    if (warp < active) {
      U p = prefix[warp];
      std::int64_t rem = t.large_rem[e * large_ranks_per_round + warp];
      choose_bin(large_hist(t, parity, e, slot[warp]), p, rem);
      if ((threadIdx.x & 31) == 0) {
        t.large_prefix[e * large_ranks_per_round + warp] = p;
        t.large_rem[e * large_ranks_per_round + warp] = rem;
        if (last) t.answers[t.large[e].segment * t.width + base + warp] = p;
      }
    }
    for (int i = threadIdx.x; i < large_ranks_per_round * radix_bins; i += blockDim.x)
      large_hist(t, parity ^ 1, e, 0)[i] = 0;
    __syncthreads();
  }
}

/// Top-k, step 1: keys below the threshold and equal to it, per tile.
template <class T>
__global__ void __launch_bounds__(block_threads) large_topk_count_kernel(const T* in, request req,
                                                                         tables<core::key_t<T>> t) {
  using U = core::key_t<T>;
  using reduce = cub::BlockReduce<int, block_threads>;
  __shared__ typename reduce::TempStorage storage;
  const int tiles = t.counters[tier_count];
  for (int tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
    const large_entry entry = t.large[t.tile_owner[tile]];
    const bool take_all = t.valid_ranks[entry.segment] == 0;
    const U threshold = take_all ? U(0) : t.answers[entry.segment * t.width];
    const core::segment_bounds b = req.bounds(entry.segment);
    const std::int64_t begin = b.begin + (tile - entry.first_tile) * tile_size;
    const std::int64_t end = begin + tile_size < b.end ? begin + tile_size : b.end;
    int less = 0, equal = 0;
    for (std::int64_t i = begin + threadIdx.x; i < end; i += block_threads) {
      const U key = order_key(in[i], req.topk_largest);
      less += take_all || key < threshold;
      equal += !take_all && key == threshold;
    }
    const int tile_less = reduce(storage).Sum(less);
    __syncthreads();
    const int tile_equal = reduce(storage).Sum(equal);
    if (threadIdx.x == 0) {
      t.tile_less[tile] = tile_less;
      t.tile_equal[tile] = tile_equal;
    }
    __syncthreads();
  }
}

/// Top-k, step 2: per large segment, the counts become exclusive bases over its tiles.
template <class U>
__global__ void __launch_bounds__(block_threads) large_topk_scan_kernel(tables<U> t) {
  using scan = cub::BlockScan<std::int64_t, block_threads>;
  __shared__ typename scan::TempStorage storage;
  const int count = t.counters[tier_large];
  for (int e = blockIdx.x; e < count; e += gridDim.x) {
    const large_entry entry = t.large[e];
    std::int64_t carry_less = 0, carry_equal = 0;
    for (std::int64_t first = 0; first < entry.tiles; first += block_threads) {
      const std::int64_t at = entry.first_tile + first + threadIdx.x;
      const bool inside = first + threadIdx.x < entry.tiles;
      const std::int64_t less = inside ? t.tile_less[at] : 0, equal = inside ? t.tile_equal[at] : 0;
      std::int64_t less_before, equal_before, less_total, equal_total;
      scan(storage).ExclusiveSum(less, less_before, less_total);
      __syncthreads();
      scan(storage).ExclusiveSum(equal, equal_before, equal_total);
      __syncthreads();
      if (inside) {
        t.tile_less[at] = carry_less + less_before;
        t.tile_equal[at] = carry_equal + equal_before;
      }
      carry_less += less_total;
      carry_equal += equal_total;
    }
  }
}

/// Top-k, step 3: each tile writes its chosen keys where index order puts them.
template <class T>
__global__ void __launch_bounds__(block_threads) large_topk_write_kernel(const T* in, request req,
                                                                         tables<core::key_t<T>> t) {
  using U = core::key_t<T>;
  using storage = group_storage<block_threads, tile_items, 1, U>;
  __shared__ storage sh;
  const int tiles = t.counters[tier_count];
  for (int tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
    const int e = t.tile_owner[tile];
    const large_entry entry = t.large[e];
    const std::int64_t s = entry.segment;
    const bool take_all = t.valid_ranks[s] == 0;
    const U threshold = take_all ? U(0) : t.answers[s * t.width];
    const std::int64_t need = take_all ? 0 : t.large_rem[e * large_ranks_per_round] + 1;
    const core::segment_bounds b = req.bounds(s);
    const std::int64_t offset = (tile - entry.first_tile) * tile_size;
    const std::int64_t len = (b.length() - offset) < tile_size ? b.length() - offset : tile_size;
    U keys[tile_items];
#pragma unroll
    for (int i = 0; i < tile_items; ++i) {
      const std::int64_t at = std::int64_t(i) * block_threads + threadIdx.x;
      keys[i] = at < len ? order_key(in[b.begin + offset + at], req.topk_largest) : U(0);
    }
    const std::int64_t equal_before = t.tile_equal[tile];
    const std::int64_t chosen_before = t.tile_less[tile] + (equal_before < need ? equal_before : need);
    write_topk(keys, len, take_all, threshold, need, equal_before, chosen_before, offset, t.topk_keys + s * t.k,
               t.topk_index + s * t.k, sh);
  }
}

}  // namespace kselect::cuda::segmented
