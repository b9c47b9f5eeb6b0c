// The kernels that answer a whole segment where its keys fit in registers: the
// tiny tier (one key per lane of a warp, ranks by counting), the warp tier and the
// block tier (group_radix.cuh). Each walks its tier's list (plan_kernels.cuh), so
// one launch serves any number of segments. Selections write the key at each rank
// to tables::answers; top-k writes the chosen keys and their local indices, in
// index order, to tables::topk_keys / topk_index (topk_finish.cuh sorts and gathers).
#pragma once

#include <cub/block/block_radix_sort.cuh>

#include "core/key_traits.hpp"
#include "cuda/segmented/group_radix.cuh"
#include "cuda/segmented/warp_rank.cuh"

namespace kselect::cuda::segmented {

/// Key of x in the selection's order: for the largest, the reversed order, so that
/// NaN (the largest key) comes first.
template <class T>
__device__ __forceinline__ core::key_t<T> order_key(T x, bool largest) {
  const core::key_t<T> u = core::key_traits<T>::to_key(x);
  return largest ? static_cast<core::key_t<T>>(~u) : u;
}

/// Top-k of one segment (or tile) from its keys in registers: the keys below the
/// threshold, and of those equal to it the first `need` in index order, counting
/// equal_before equal keys ahead of this group's; writes them in index order at
/// chosen_before + their place.
template <int G, int ITEMS, int RANKS, class U>
__device__ void write_topk(const U (&keys)[ITEMS], std::int64_t len, bool take_all, U threshold, std::int64_t need,
                           std::int64_t equal_before, std::int64_t chosen_before, std::int64_t index_base,
                           U* out_keys, std::int64_t* out_index, group_storage<G, ITEMS, RANKS, U>& sh) {
  const int t = group_thread<G>();
  auto valid = [&](int i) { return std::int64_t(i) * G + t < len; };
  auto equal = [&](int i) { return valid(i) && !take_all && keys[i] == threshold; };
  index_order<G, ITEMS, RANKS, U> equals{sh, sh.order};
  equals.scan_flags(equal);
  auto chosen = [&](int i) {
    const bool eq = equal(i);
    const std::int64_t place = equal_before + equals.position(i, eq);
    return valid(i) && (take_all || keys[i] < threshold || (eq && place < need));
  };
  index_order<G, ITEMS, RANKS, U> chosen_order{sh, sh.order_more};
  chosen_order.scan_flags(chosen);
#pragma unroll
  for (int i = 0; i < ITEMS; ++i) {
    const bool c = chosen(i);
    const std::int64_t at = chosen_before + chosen_order.position(i, c);
    if (!c) continue;
    out_keys[at] = keys[i];
    out_index[at] = index_base + std::int64_t(i) * G + t;
  }
  group_sync<G>();
}

/// What a block tier keeps in shared memory: the radix rounds' storage, or, for a
/// segment with more ranks than one round takes, a block radix sort of its keys and
/// the sorted keys (dynamic shared memory: the sort needs more than 48 KiB).
template <int G, int ITEMS, int RANKS, class U>
union block_storage {
  using sort = cub::BlockRadixSort<U, G, ITEMS>;
  group_storage<G, ITEMS, RANKS, U> radix;
  typename sort::TempStorage sorting;
  U sorted[G * ITEMS];
};

/// Many ranks of one segment: sort the keys (keys past the end sort last), then read
/// each rank's key.
template <int G, int ITEMS, int RANKS, class U>
__device__ void select_by_sorting(const U (&keys)[ITEMS], std::int64_t len, const std::int64_t* ranks, int count,
                                  U* answers, block_storage<G, ITEMS, RANKS, U>& sh) {
  U sorting[ITEMS];
#pragma unroll
  for (int i = 0; i < ITEMS; ++i) sorting[i] = std::int64_t(i) * G + threadIdx.x < len ? keys[i] : U(~U(0));
  typename block_storage<G, ITEMS, RANKS, U>::sort(sh.sorting).Sort(sorting);
  __syncthreads();
#pragma unroll
  for (int i = 0; i < ITEMS; ++i) sh.sorted[threadIdx.x * ITEMS + i] = sorting[i];
  __syncthreads();
  for (int e = threadIdx.x; e < count; e += G) answers[e] = sh.sorted[ranks[e]];
  __syncthreads();
}

/// One segment of at most G * ITEMS keys, by one group.
template <int G, int ITEMS, int RANKS, class T>
__device__ void answer_segment(const T* in, const request& req, const tables<core::key_t<T>>& t, std::int64_t s,
                               group_storage<G, ITEMS, RANKS, core::key_t<T>>& sh,
                               block_storage<G, ITEMS, RANKS, core::key_t<T>>* many = nullptr) {
  using U = core::key_t<T>;
  const core::segment_bounds b = req.bounds(s);
  const std::int64_t len = b.length();
  const bool largest = req.op == op_kind::topk && req.topk_largest;
  const int th = group_thread<G>();
  U keys[ITEMS];
#pragma unroll
  for (int i = 0; i < ITEMS; ++i) {
    const std::int64_t at = std::int64_t(i) * G + th;
    keys[i] = at < len ? order_key(in[b.begin + at], largest) : U(0);
  }
  const int count = t.valid_ranks[s];
  U* answers = t.answers + s * t.width;
  if constexpr (G > 32) {
    if (many && count > RANKS) {  // never top-k: it has one rank
      select_by_sorting(keys, len, t.ranks + s * t.width, count, answers, *many);
      return;
    }
  }
  select_ranks(keys, len, t.ranks + s * t.width, count, answers, sh);
  if (req.op != op_kind::topk) return;
  const bool take_all = count == 0;  // k > len
  const U threshold = take_all ? U(0) : sh.prefix[0];
  const std::int64_t need = take_all ? 0 : sh.rem[0] + 1;
  write_topk(keys, len, take_all, threshold, need, 0, 0, 0, t.topk_keys + s * t.k, t.topk_index + s * t.k, sh);
}

/// The warp tiers: each warp of the block answers segments of the list in turn.
template <class T, int ITEMS, int MIN_BLOCKS, tier TIER>
__global__ void __launch_bounds__(256, MIN_BLOCKS) warp_tier_kernel(const T* in, request req,
                                                                    tables<core::key_t<T>> t) {
  using U = core::key_t<T>;
  using storage = group_storage<32, ITEMS, warp_ranks_per_round, U>;
  __shared__ storage sh[8];
  const int warp = threadIdx.x / 32;
  const int count = t.counters[TIER];
  const int* list = t.lists + TIER * t.m;
  for (int i = blockIdx.x * 8 + warp; i < count; i += gridDim.x * 8)
    answer_segment<32, ITEMS, warp_ranks_per_round>(in, req, t, list[i], sh[warp]);
}

/// The block tiers: one segment per block at a time, THREADS * ITEMS keys at most;
/// launched with sizeof(block_storage) bytes of dynamic shared memory.
template <class T, int THREADS, int ITEMS, int MIN_BLOCKS, tier TIER>
__global__ void __launch_bounds__(THREADS, MIN_BLOCKS) block_tier_kernel(const T* in, request req,
                                                                         tables<core::key_t<T>> t) {
  using U = core::key_t<T>;
  using storage = block_storage<THREADS, ITEMS, block_ranks_per_round, U>;
  extern __shared__ __align__(16) unsigned char dynamic_shared[];
  storage& sh = *reinterpret_cast<storage*>(dynamic_shared);
  const int count = t.counters[TIER];
  const int* list = t.lists + TIER * t.m;
  for (int i = blockIdx.x; i < count; i += gridDim.x) {
    answer_segment<THREADS, ITEMS, block_ranks_per_round>(in, req, t, list[i], sh.radix, &sh);
    __syncthreads();
  }
}

/// The tiny tier: a segment of at most 32 * tiny_items keys per warp, each lane
/// ranking its keys against all the others ((key, index) order, one shuffle per key),
/// so any number of ranks costs one sweep and no synchronisation.
template <class T>
__global__ void tiny_tier_kernel(const T* in, request req, tables<core::key_t<T>> t) {
  using U = core::key_t<T>;
  const int lane = threadIdx.x & 31;
  const int warps = gridDim.x * (blockDim.x / 32);
  const int count = t.counters[tier_tiny];
  const int* list = t.lists + tier_tiny * t.m;
  const bool largest = req.op == op_kind::topk && req.topk_largest;
  for (int i = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32; i < count; i += warps) {
    const std::int64_t s = list[i];
    const core::segment_bounds b = req.bounds(s);
    const int len = static_cast<int>(b.length());
    U key[tiny_items];
#pragma unroll
    for (int h = 0; h < tiny_items; ++h) key[h] = h * 32 + lane < len ? order_key(in[b.begin + h * 32 + lane], largest) : U(0);
    int rank[tiny_items];
    rank_by_counting(key, len, rank);
    if (req.op != op_kind::topk) {
      const int ranks = t.valid_ranks[s];
      const std::int64_t* row = t.ranks + s * t.width;
#pragma unroll
      for (int h = 0; h < tiny_items; ++h) {
        if (h * 32 + lane >= len) continue;
        for (int e = entry_of_rank(row, ranks, rank[h]); e < ranks && row[e] == rank[h]; ++e)
          t.answers[s * t.width + e] = key[h];
      }
      continue;
    }
    int before = 0;  // chosen keys of the earlier items, in index order
#pragma unroll
    for (int h = 0; h < tiny_items; ++h) {
      const bool chosen = h * 32 + lane < len && rank[h] < req.k;
      const unsigned ballot = __ballot_sync(0xffffffffu, chosen);
      if (chosen) {
        const int pos = before + __popc(ballot & ((1u << lane) - 1u));
        t.topk_keys[s * t.k + pos] = key[h];
        t.topk_index[s * t.k + pos] = h * 32 + lane;
      }
      before += __popc(ballot);
    }
  }
}

}  // namespace kselect::cuda::segmented
