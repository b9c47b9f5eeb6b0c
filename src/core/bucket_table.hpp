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
#include <span>
#include <type_traits>
#include <vector>

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

/// A lookup of a round's intervals by the high bits of the key, so that a pass finds a
/// key's interval with one load and (on most keys) no search: slot j covers the keys
/// [base + j * 2^shift, base + (j + 1) * 2^shift), and entry[j] is the last interval
/// whose lo is at most the slot's first key (0 when none), for j in [0, slots]. The
/// interval holding a key of slot j, if any, is then among entry[j] .. entry[j + 1].
/// The slots span the intervals but a wide first or last one (the first round's tails
/// below and above the sample, which hold few keys): keys outside the slots take the
/// search over every interval.
template <class U>
struct interval_directory {
  U base = 0;
  int shift = 0;
  int slots = 0;                     ///< 0: no directory (every key takes the full search)
  std::vector<std::uint32_t> entry;  ///< slots + 1
};

/// The directory of ascending, disjoint intervals [lo[i], hi[i]] with at most
/// max(max_slots, 2) slots (two halves of the key range at the coarsest).
template <class U>
interval_directory<U> make_interval_directory(std::span<const U> lo, std::span<const U> hi, int max_slots) {
  interval_directory<U> d;
  const std::size_t ni = lo.size();
  if (ni == 0) return d;
  max_slots = max_slots < 2 ? 2 : max_slots;
  // The span covered: every interval but a first or last one wider than the others together.
  std::size_t first = 0, last = ni - 1;
  if (ni >= 3) {
    const U inner = static_cast<U>(hi[ni - 2] - lo[1]);
    if (static_cast<U>(hi[0] - lo[0]) > inner) first = 1;
    if (static_cast<U>(hi[ni - 1] - lo[ni - 1]) > inner) last = ni - 2;
  }
  d.base = lo[first];
  const U span = static_cast<U>(hi[last] - d.base);
  constexpr int bits = 8 * sizeof(U);
  while (d.shift < bits - 1 && (span >> d.shift) >= static_cast<U>(max_slots)) ++d.shift;
  d.slots = static_cast<int>(span >> d.shift) + 1;
  d.entry.resize(static_cast<std::size_t>(d.slots) + 1);
  std::size_t at = 0;  // last interval with lo <= the slot's first key: non-decreasing in j
  for (int j = 0; j <= d.slots; ++j) {
    const U offset = static_cast<U>(static_cast<U>(j) << d.shift);
    const bool beyond = j > 0 && (offset >> d.shift) != static_cast<U>(j);  // j << shift overflowed
    const U start = beyond || offset > static_cast<U>(~d.base) ? static_cast<U>(~U(0)) : static_cast<U>(d.base + offset);
    while (at + 1 < ni && lo[at + 1] <= start) ++at;
    d.entry[static_cast<std::size_t>(j)] = static_cast<std::uint32_t>(at);
  }
  return d;
}

/// last_interval_at_most(lo, count, key) through a directory's arrays (entry with
/// slots + 1 values; slots = 0: none).
template <class U>
KSELECT_HD int directory_lookup(const U* lo, int count, const std::uint32_t* entry, int slots, U base, int shift,
                                U key) {
  const U slot = static_cast<U>(static_cast<U>(key - base) >> shift);
  if (key >= base && slot < static_cast<U>(slots)) {
    const int first = static_cast<int>(entry[slot]);
    return first + last_interval_at_most(lo + first, static_cast<int>(entry[slot + 1]) - first + 1, key);
  }
  return last_interval_at_most(lo, count, key);
}

}  // namespace kselect::core
