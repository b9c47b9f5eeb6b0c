// One level of single-rank window selection, as plain functions shared by the
// CUDA kernels (which run them on the device, one block planning each level) and
// the CPU tests that check them.
//
// A level predicts, from a sorted sample, two keys s0 <= s1 that bracket the
// target rank with high probability. One pass over the task's keys counts
//   below : keys < s0
//   at_lo : keys == s0            (equality mode only)
//   inside: keys in the window    (and copies them out)
//   at_hi : keys == s1            (equality mode only)
// The window is [s0, s1] in plain mode and (s0, s1) in equality mode. Equality
// mode is chosen when the sample repeats a bound: then the keys equal to it may
// be many (all-equal input, few distinct values), and a rank among them is
// answered at once instead of copied out and recursed into.
#pragma once

#include <cmath>
#include <cstdint>

#include "hd.hpp"
#include "key_traits.hpp"

namespace kselect::core {

/// The bounds of a window level: splitters as keys, and which of them exist
/// (a rank near either end of the task needs no bound on that side).
template <class K>
struct window_bounds {
  K s0, s1;
  bool has_lo, has_hi;
  bool equality;  ///< equality mode (see the file comment)
};

/// The same bounds as pre-key tests (key_traits::pre_key) for keys read as type
/// Src; every test is one subtraction and one unsigned compare:
///   below : pre <  below_end
///   at_lo : pre - lo_first < lo_count
///   inside: pre - in_first < in_count
///   at_hi : pre - hi_first < hi_count
template <class U>
struct window_tests {
  U below_end;
  U lo_first, lo_count;
  U in_first, in_count;
  U hi_first, hi_count;
};

/// Requires has_lo || has_hi (a window over every key is no selection; the
/// caller falls back instead). Counts of 0 make a test always false. A plain
/// window that would hold every key (its pre-key count would wrap to 0) is made
/// an equality window, which locate_in_window reads the same way.
template <class Src, class K>
KSELECT_HD window_tests<K> make_window_tests(const window_bounds<K>& b) {
  using traits = key_traits<Src>;
  constexpr K max = static_cast<K>(~K(0));
  window_tests<K> t{};
  const K lo_first = b.has_lo ? traits::pre_key_first(b.s0) : K(0);
  const K lo_last = b.has_lo ? traits::pre_key_last(b.s0) : K(0);
  const K hi_first = b.has_hi ? traits::pre_key_first(b.s1) : max;
  const K hi_last = b.has_hi ? traits::pre_key_last(b.s1) : max;
  t.below_end = b.has_lo ? lo_first : K(0);
  t.lo_first = lo_first;
  t.hi_first = hi_first;
  const K plain_count = static_cast<K>(hi_last - t.below_end + 1);
  if (!b.equality && plain_count != 0) {
    t.lo_count = 0;
    t.hi_count = 0;
    t.in_first = t.below_end;
    t.in_count = plain_count;
    return t;
  }
  const bool same = b.has_lo && b.has_hi && b.s0 == b.s1;
  t.lo_count = b.has_lo ? static_cast<K>(lo_last - lo_first + 1) : K(0);
  t.hi_count = b.has_hi && !same ? static_cast<K>(hi_last - hi_first + 1) : K(0);
  // Strictly between the bounds: empty when s0 is the largest key.
  if (b.has_lo && lo_last == max) {
    t.in_first = max;
    t.in_count = 0;
    return t;
  }
  t.in_first = b.has_lo ? static_cast<K>(lo_last + 1) : K(0);
  if (b.has_hi) t.in_count = hi_first > t.in_first ? static_cast<K>(hi_first - t.in_first) : K(0);
  else t.in_count = static_cast<K>(max - t.in_first + 1);  // in_first >= 1 here: no wrap
  return t;
}

/// Counts of one window pass.
struct window_counts {
  std::uint64_t below, at_lo, inside, at_hi;
};

/// Where the target rank fell.
enum class window_step {
  missed,     ///< outside the window: the prediction failed, fall back
  answer_lo,  ///< the rank's key is s0
  answer_hi,  ///< the rank's key is s1
  descend,    ///< inside the window, at rank_inside among its keys
};

KSELECT_HD window_step locate_in_window(std::int64_t rank, const window_counts& c,
                                               std::int64_t& rank_inside) {
  auto r = static_cast<std::uint64_t>(rank);
  if (r < c.below) return window_step::missed;
  r -= c.below;
  if (r < c.at_lo) return window_step::answer_lo;
  r -= c.at_lo;
  if (r < c.inside) {
    rank_inside = static_cast<std::int64_t>(r);
    return window_step::descend;
  }
  r -= c.inside;
  if (r < c.at_hi) return window_step::answer_hi;
  return window_step::missed;
}

/// Window levels a task of `size` keys needs until it fits the base case, if
/// every prediction holds and the window is as wide as for the median: the
/// number of levels the host queues before it first checks on the device.
KSELECT_HD int expected_window_levels(std::int64_t size, std::int64_t sample_size, double sigmas,
                                             double margin, std::int64_t base_case_max) {
  const double keep = (2.0 * (sigmas * 0.5 * sqrt(static_cast<double>(sample_size)) + margin) + 2.0) /
                      static_cast<double>(sample_size);
  int levels = 0;
  double s = static_cast<double>(size);
  while (s > static_cast<double>(base_case_max) && levels < 64) {
    s = ceil(s * keep);
    ++levels;
  }
  return levels;
}

}  // namespace kselect::core
