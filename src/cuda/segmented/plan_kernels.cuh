// The segmented call's planning on the device: the ranks each segment needs, the
// tier that answers it (by length), the large segments' tiles; and, for
// nanquantile, the NaNs per segment first. The host never looks at a segment.
#pragma once

#include <cub/block/block_scan.cuh>

#include "core/key_traits.hpp"
#include "cuda/segmented/tables.cuh"

namespace kselect::cuda::segmented {

/// NaNs per segment (nanquantile): only NaN elements look their segment up.
template <class T>
__global__ void count_nan_kernel(const T* in, std::int64_t n, request req, std::int64_t* nan_count) {
  using traits = core::key_traits<T>;
  static_assert(is_floating_key_v<T>, "only floating keys hold NaN");
  const std::int64_t stride = std::int64_t(gridDim.x) * blockDim.x;
  for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    if (traits::to_key(in[i]) != traits::nan_key) continue;
    std::int64_t s;
    if (req.offsets) {  // the last segment whose start is <= i (skips empty segments)
      std::int64_t lo = 0, hi = req.m;
      while (hi - lo > 1) {
        const std::int64_t mid = (lo + hi) / 2;
        (req.offsets[mid] <= i ? lo : hi) = mid;
      }
      s = lo;
    } else {
      s = i / req.row_length;
    }
    atomicAdd(reinterpret_cast<unsigned long long*>(nan_count + s), 1ull);
  }
}

/// The sorted ranks of segment s (length len, nans of them NaN) into row; returns
/// how many are inside the segment. Ranks outside it make the segment invalid.
template <class U>
__device__ int plan_ranks(const request& req, std::int64_t s, std::int64_t len, std::int64_t nans,
                          std::int64_t* row, bool& invalid) {
  int count = 0;
  invalid = false;
  switch (req.op) {
    case op_kind::select:
    case op_kind::select_each: {
      const std::int64_t k = req.op == op_kind::select ? req.k : req.ks[s];
      if (k >= 0 && k < len) row[count++] = k;
      else invalid = true;
      break;
    }
    case op_kind::multiselect:
      for (int e = 0; e < req.list.entries; ++e) {
        if (req.list.ranks[e] >= len) {
          invalid = true;
          break;
        }
        row[count++] = req.list.ranks[e];
      }
      break;
    case op_kind::quantile: {
      const std::int64_t valid = req.ignore_nan ? len - nans : len;
      if (valid <= 0) break;
      // The low neighbours and the high ones are each sorted (qs are, and every method's
      // ranks rise with q: QuantileMath.RanksRiseWithQ); merge them.
      int a = 0, b = 0;
      const int q = req.list.entries;
      while (a < q || b < q) {
        const std::int64_t lo = a < q ? core::quantile_point_of(valid, req.list.qs[a], req.method).lo : INT64_MAX;
        const std::int64_t hi = b < q ? core::quantile_point_of(valid, req.list.qs[b], req.method).hi : INT64_MAX;
        if (lo <= hi) {
          row[count++] = lo;
          ++a;
        } else {
          row[count++] = hi;
          ++b;
        }
      }
      if (req.floating && !req.ignore_nan) row[count++] = len - 1;  // NaN present iff the maximum is NaN
      break;
    }
    case op_kind::topk:
      if (req.k >= 1 && req.k <= len) row[count++] = req.k - 1;  // k > len takes the whole segment
      break;
  }
  return count;
}

/// Which tier answers a segment of this length.
template <class U>
__device__ int tier_of(std::int64_t len, bool few_segments) {
  if (len <= tiny_max) return tier_tiny;
  if (len <= wide_warp_max && few_segments) return tier_small_block;  // tables.cuh: few_segments_max
  if (len <= warp_max) return tier_warp;
  if (len <= wide_warp_max) return tier_wide_warp;
  if (len <= small_block_max) return tier_small_block;
  if (len <= block_max<U>) return tier_block;
  return tier_large;
}

/// One thread per segment: ranks, then an append to its tier's list. Appends are
/// counted per block first, so each block makes one global atomic per tier.
template <class U>
__global__ void plan_kernel(request req, tables<U> t, std::int64_t* first_invalid) {
  __shared__ int block_count[tier_count];
  __shared__ int block_base[tier_count];
  const std::int64_t stride = std::int64_t(gridDim.x) * blockDim.x;
  for (std::int64_t start = std::int64_t(blockIdx.x) * blockDim.x; start < req.m; start += stride) {
    if (threadIdx.x < tier_count) block_count[threadIdx.x] = 0;
    __syncthreads();
    const std::int64_t s = start + threadIdx.x;
    int my_tier = -1, my_slot = 0;
    std::int64_t len = 0;
    if (s < req.m) {
      len = req.bounds(s).length();
      bool invalid;
      const std::int64_t nans = t.nan_count ? t.nan_count[s] : 0;
      const int count = plan_ranks<U>(req, s, len, nans, t.ranks + s * t.width, invalid);
      t.valid_ranks[s] = count;
      if (invalid) atomicMin(reinterpret_cast<long long*>(first_invalid), static_cast<long long>(s));
      const bool has_work = req.op == op_kind::topk ? (len > 0 && req.k > 0) : count > 0;
      if (has_work) {
        my_tier = tier_of<U>(len, req.few_segments);
        my_slot = atomicAdd(&block_count[my_tier], 1);
      }
    }
    __syncthreads();
    if (threadIdx.x < tier_count) block_base[threadIdx.x] = atomicAdd(&t.counters[threadIdx.x], block_count[threadIdx.x]);
    __syncthreads();
    if (my_tier >= 0) {
      const int at = block_base[my_tier] + my_slot;
      if (my_tier == tier_large) {
        const std::int64_t tiles = (len + tile_size - 1) / tile_size;
        const int first = atomicAdd(&t.counters[tier_count], static_cast<int>(tiles));
        t.large[at] = large_entry{s, first, tiles};
        t.lists[tier_large * t.m + at] = at;
      } else {
        t.lists[my_tier * t.m + at] = static_cast<int>(s);
      }
    }
    __syncthreads();
  }
}

/// Each large segment's tiles learn their owner (one block per large segment).
template <class U>
__global__ void tile_owner_kernel(tables<U> t) {
  const int count = t.counters[tier_large];
  for (int e = blockIdx.x; e < count; e += gridDim.x) {
    const large_entry entry = t.large[e];
    for (std::int64_t i = threadIdx.x; i < entry.tiles; i += blockDim.x) t.tile_owner[entry.first_tile + i] = e;
  }
}

}  // namespace kselect::cuda::segmented
