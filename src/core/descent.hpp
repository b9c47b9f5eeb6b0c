// The exact radix descent of the stream-ordered selections (cuda/kernels/
// descent_kernels.cuh), as plain functions the CUDA kernels run and the CPU
// tests check: how many buckets a group of ranks gets, the shift that maps a
// group's keys to its buckets, and the most rounds a descent can take, which
// the host needs to queue a fixed list of launches before anything has run.
//
// A round counts every key of the active groups (disjoint key intervals
// [lo, hi], one per bucket that holds a target rank) into descent_buckets
// buckets shared by the groups, and records each bucket's smallest and largest
// key. A rank's next group is its bucket's [min, max]: that interval is at most
// 2^shift - 1 wide, so each round takes group_bits bits off every group's
// width, and a rank whose bucket holds one distinct key is answered.
#pragma once

#include <cstdint>

#include "hd.hpp"
#include "int_math.hpp"

namespace kselect::core {

/// Buckets of one descent round, shared by its groups (shared-memory counters,
/// minima and maxima per block: 48 KiB for 32-bit keys, 80 KiB for 64-bit).
inline constexpr int descent_bucket_bits = 12;
inline constexpr int descent_buckets = 1 << descent_bucket_bits;
/// Ranks (so groups) one descent takes; more ranks run as several descents.
/// 512 groups leave each 8 buckets, so a round takes at least 3 bits.
inline constexpr std::int64_t descent_max_ranks = 512;

/// Inputs up to this size skip the sampled fast path and the descent: one
/// launch, a thread-block cluster per rank (cuda/kernels/cluster_select_kernel.cuh),
/// which re-reads the input from L2 instead of paying for several launches.
inline constexpr std::int64_t small_select_max = std::int64_t(1) << 17;

/// Smallest b with 2^b >= x (x >= 1).
KSELECT_HD int ceil_log2(std::int64_t x) {
  int b = 0;
  while ((std::int64_t(1) << b) < x) ++b;
  return b;
}

/// Bits of buckets per group when `groups` (1..descent_max_ranks) share the round.
KSELECT_HD int descent_group_bits(std::int64_t groups) { return descent_bucket_bits - ceil_log2(groups); }

/// Shift of a group [lo, hi] with 2^group_bits buckets: (x - lo) >> shift < 2^group_bits
/// for every x in [lo, hi].
template <class K>
KSELECT_HD int descent_shift(K lo, K hi, int group_bits) {
  const int width = bit_width_of(static_cast<K>(hi - lo));
  return width > group_bits ? width - group_bits : 0;
}

/// The most rounds a descent of `num_ranks` ranks over keys of `key_bits` bits
/// can take: the first round (one group over every key) takes
/// descent_bucket_bits bits, each later one at least descent_group_bits(ranks).
KSELECT_HD int descent_max_rounds(int key_bits, std::int64_t num_ranks) {
  const std::int64_t groups = num_ranks < descent_max_ranks ? num_ranks : descent_max_ranks;
  const int per_round = descent_group_bits(groups < 1 ? 1 : groups);
  const int rest = key_bits - descent_bucket_bits;
  return 1 + (rest + per_round - 1) / per_round;
}

}  // namespace kselect::core
