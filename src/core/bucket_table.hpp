// The buckets of one DIBMS round, shared by the planner (host) and the backends that
// count keys into them (CPU and CUDA).
//
// Keys are the order-preserving unsigned keys of core/key_traits.hpp. A round has
// `intervals`: disjoint, ascending, inclusive key ranges [lo, hi]. Interval i owns
// buckets [first, first + count) of the round's bucket array. A key inside interval i
// goes to bucket first + offset(key - lo): a fixed-point linear projection (the
// paper's slope * (x - left), done on the integer keys so that every bucket is an
// exact, non-empty key range and the planner can name each bucket's range without
// rounding). Keys outside every interval are not counted: they are out of contention.
//
// offset(d) = d                      when scale == 0 (the interval has at most `count` keys)
//           = floor(d * scale / 2^W) otherwise, with scale = floor(count * 2^W / width),
// W the key's width in bits and width = hi - lo + 1. Then offset is non-decreasing,
// offset(width - 1) < count, and every bucket of the interval holds at least one key
// value, so each bucket is strictly narrower than its interval (rounds always progress).
#pragma once

#include <cstdint>
#include <type_traits>

#include "hd.hpp"

namespace kselect::core {

template <class U>
struct bucket_interval {
  U lo;                 ///< first key of the interval
  U hi;                 ///< last key of the interval (inclusive)
  U scale;              ///< fixed-point slope; 0: one bucket per key value
  std::uint32_t first;  ///< the interval's first bucket in the round's bucket array
  std::uint32_t count;  ///< the interval's buckets
};

/// floor(a * b / 2^W) for W-bit unsigned a, b.
template <class U>
KSELECT_HD U mul_hi(U a, U b) {
  static_assert(std::is_same_v<U, std::uint32_t> || std::is_same_v<U, std::uint64_t> ||
                std::is_same_v<U, std::uint16_t>);
  if constexpr (sizeof(U) <= 4) {
    return static_cast<U>((static_cast<std::uint64_t>(a) * b) >> (8 * sizeof(U)));
  } else {
#if defined(__CUDA_ARCH__)
    return __umul64hi(a, b);
#else
    return static_cast<U>((static_cast<unsigned __int128>(a) * b) >> 64);
#endif
  }
}

/// The bucket of `key` within interval `iv` (key in [iv.lo, iv.hi]), relative to iv.first.
template <class U>
KSELECT_HD std::uint32_t bucket_offset(const bucket_interval<U>& iv, U key) {
  const U d = static_cast<U>(key - iv.lo);
  return static_cast<std::uint32_t>(iv.scale == 0 ? d : mul_hi(d, iv.scale));
}

/// The last of lo[0..count) (ascending, count >= 1) that is at most `key`, or 0 when
/// none is: a search of fixed depth ceil(log2(count)) with a select per step instead
/// of a branch, so that a CPU core does not mispredict on random keys and the lanes of
/// a GPU warp never diverge. The caller checks lo[i] <= key <= hi[i].
template <class U>
KSELECT_HD int last_interval_at_most(const U* lo, int count, U key) {
  int i = 0;
  for (int len = count; len > 1;) {
    const int half = len / 2;
    i = lo[i + half] <= key ? i + half : i;
    len -= half;
  }
  return i;
}

/// Index of the interval holding `key` among intervals[0..count) (ascending, disjoint),
/// or -1 when no interval holds it. lo_keys[i] == intervals[i].lo (a separate array so
/// a kernel can keep it in shared memory).
template <class U>
KSELECT_HD int find_interval(const U* lo_keys, const bucket_interval<U>* intervals, int count, U key) {
  if (count <= 0) return -1;
  const int i = last_interval_at_most(lo_keys, count, key);
  return (lo_keys[i] <= key && key <= intervals[i].hi) ? i : -1;
}

}  // namespace kselect::core
