// A group of G threads (one warp, or a 512-thread block) holding one segment's keys
// in registers, ITEMS per thread in striped order (key i*G + t is thread t's item i):
//  - select_ranks: the key at each of a segment's sorted ranks by radix selection,
//    8 bits a pass, the ranks of one round sharing one pass over the registers: a
//    rank's histogram counts only the keys that share its prefix so far, and ranks
//    with the same prefix share a histogram;
//  - index_order: for a flag per key, how many flagged keys come before it
//    in index order (top-k writes its output in index order).
#pragma once

#include <cub/block/block_scan.cuh>

#include "cuda/segmented/tables.cuh"

namespace kselect::cuda::segmented {

template <int G, int ITEMS, int RANKS, class U>
struct group_storage {
  static constexpr int warps = G / 32;
  unsigned hist[RANKS][radix_bins];
  unsigned first_hist[radix_bins];  ///< the first digit of every key: the same for every round of ranks
  U prefix[RANKS];
  std::int64_t rem[RANKS];  ///< the rank among the keys that share prefix
  int slot[RANKS];          ///< the histogram a rank reads: the first rank with its prefix
  int order[ITEMS * warps];
  int order_more[ITEMS * warps];
  typename cub::BlockScan<int, G>::TempStorage scan;  // G = 512 only
};

template <int G>
__device__ __forceinline__ void group_sync() {
  if constexpr (G == 32) __syncwarp();
  else __syncthreads();
}

template <int G>
__device__ __forceinline__ int group_thread() {
  if constexpr (G == 32) return threadIdx.x & 31;
  else return threadIdx.x;
}

/// The first index in prefix[0..count) whose value is >= key.
template <class U>
__device__ __forceinline__ int lower_slot(const U* prefix, int count, U key) {
  int lo = 0, hi = count;
  while (lo < hi) {
    const int mid = (lo + hi) / 2;
    if (prefix[mid] < key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/// One warp finds the bin of `hist` that holds rank `rem` and moves the rank into it.
template <class U>
__device__ __forceinline__ void choose_bin(const unsigned* hist, U& prefix, std::int64_t& rem) {
  constexpr int per_lane = radix_bins / 32;
  const int lane = threadIdx.x & 31;
  unsigned own = 0;
#pragma unroll
  for (int d = 0; d < per_lane; ++d) own += hist[lane * per_lane + d];
  unsigned inclusive = own;
#pragma unroll
  for (int delta = 1; delta < 32; delta *= 2) {
    const unsigned up = __shfl_up_sync(0xffffffffu, inclusive, delta);
    if (lane >= delta) inclusive += up;
  }
  const std::int64_t before = inclusive - own;
  const bool mine = rem >= before && rem < static_cast<std::int64_t>(inclusive);
  const unsigned owner_mask = __ballot_sync(0xffffffffu, mine);
  const int owner = __ffs(owner_mask) - 1;
  int bin = 0;
  std::int64_t new_rem = 0;
  if (mine) {
    std::int64_t acc = before;
    for (int d = 0; d < per_lane; ++d) {
      const unsigned h = hist[lane * per_lane + d];
      if (rem < acc + h) {
        bin = lane * per_lane + d;
        new_rem = rem - acc;
        break;
      }
      acc += h;
    }
  }
  bin = __shfl_sync(0xffffffffu, bin, owner);
  new_rem = __shfl_sync(0xffffffffu, new_rem, owner);
  prefix = static_cast<U>((static_cast<U>(prefix) << radix_bits) | static_cast<U>(bin));
  rem = new_rem;
}

/// The keys at ranks[0..count) (sorted) of the group's len keys, into answers[0..count);
/// leaves the last round's remaining ranks in storage.rem (top-k reads rem[0]).
template <int G, int ITEMS, int RANKS, class U>
__device__ void select_ranks(const U (&keys)[ITEMS], std::int64_t len, const std::int64_t* ranks, int count,
                             U* answers, group_storage<G, ITEMS, RANKS, U>& sh) {
  constexpr int bits = sizeof(U) * 8;
  constexpr int passes = bits / radix_bits;
  constexpr int warps = G / 32;
  const int t = group_thread<G>();
  const int warp = t / 32;
  for (int base = 0; base < count; base += RANKS) {
    const int round = count - base < RANKS ? count - base : RANKS;
    if (t < round) {
      sh.prefix[t] = 0;
      sh.rem[t] = ranks[base + t];
    }
    if (base > 0) group_sync<G>();  // the first round syncs before its first count
    for (int pass = 0; pass < passes; ++pass) {
      const int shift = bits - radix_bits * (pass + 1);
      const bool first_again = pass == 0 && base > 0;  // rounds after the first reuse the first digit's counts
      if (!first_again) {
        for (int i = t; i < round * radix_bins; i += G) (&sh.hist[0][0])[i] = 0;
        group_sync<G>();
        if (t < round) sh.slot[t] = lower_slot(sh.prefix, round, sh.prefix[t]);
#pragma unroll
        for (int i = 0; i < ITEMS; ++i) {
          const U high = pass == 0 ? U(0) : static_cast<U>(keys[i] >> (shift + radix_bits));
          const int s = lower_slot(sh.prefix, round, high);
          if (std::int64_t(i) * G + t < len && s < round && sh.prefix[s] == high)
            atomicAdd(&sh.hist[s][(keys[i] >> shift) & (radix_bins - 1)], 1u);
        }
        group_sync<G>();
        if (pass == 0 && count > RANKS)
          for (int i = t; i < radix_bins; i += G) sh.first_hist[i] = sh.hist[0][i];
      }
      for (int j = warp; j < round; j += warps) {
        U prefix = sh.prefix[j];
        std::int64_t rem = sh.rem[j];
        choose_bin(first_again ? sh.first_hist : sh.hist[sh.slot[j]], prefix, rem);
        if ((threadIdx.x & 31) == 0) {
          sh.prefix[j] = prefix;
          sh.rem[j] = rem;
        }
      }
      group_sync<G>();
    }
    if (t < round) answers[base + t] = sh.prefix[t];
    group_sync<G>();
  }
}

/// Index order of flagged keys, without arrays of flags or positions (registers are
/// the keys'): `flag(i)` tells whether item i is flagged and may be called again.
/// scan_flags stores, per (item, warp), the flagged keys before that warp's keys of
/// that item; position(i) then gives item i's place among the flagged keys.
template <int G, int ITEMS, int RANKS, class U>
struct index_order {
  static constexpr int warps = G / 32;
  static constexpr int entries = ITEMS * warps;
  static_assert(entries <= G, "one scan entry per thread");
  group_storage<G, ITEMS, RANKS, U>& sh;
  int* order;  ///< sh.order or sh.order_more

  template <class Flag>
  __device__ int scan_flags(Flag&& flag) {
    const int t = group_thread<G>();
    const int lane = t & 31, warp = t / 32;
#pragma unroll
    for (int i = 0; i < ITEMS; ++i) {
      const unsigned ballot = __ballot_sync(0xffffffffu, flag(i));
      if (lane == 0) order[i * warps + warp] = __popc(ballot);
    }
    group_sync<G>();
    const int value = t < entries ? order[t] : 0;
    int exclusive, total;
    if constexpr (G == 32) {
      int inclusive = value;
#pragma unroll
      for (int delta = 1; delta < 32; delta *= 2) {
        const int up = __shfl_up_sync(0xffffffffu, inclusive, delta);
        if (lane >= delta) inclusive += up;
      }
      exclusive = inclusive - value;
      total = __shfl_sync(0xffffffffu, inclusive, 31);
    } else {
      cub::BlockScan<int, G>(sh.scan).ExclusiveSum(value, exclusive, total);
    }
    group_sync<G>();
    if (t < entries) order[t] = exclusive;
    group_sync<G>();
    return total;
  }

  /// Item i's place among the flagged keys (meaningful where flagged); all threads call it.
  __device__ int position(int i, bool flagged) const {
    const int t = group_thread<G>();
    const unsigned ballot = __ballot_sync(0xffffffffu, flagged);
    return __popc(ballot & ((1u << (t & 31)) - 1u)) + order[i * warps + t / 32];
  }
};

}  // namespace kselect::cuda::segmented
