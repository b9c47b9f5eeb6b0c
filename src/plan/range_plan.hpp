// Planning of a rank-range selection (top-k is the range [0, k)), shared by the
// CUDA kernels and the CPU tests that check it.
//
// Order: the keys of plan::key_traits, XOR `flip` (all ones for descending
// order, 0 for ascending), ties by ascending input index: "position p" below is
// a position in that stable sort, and the range asks for positions [lo, hi).
//
// One pass classifies every key against two key windows predicted from a sorted
// sample, one around position lo and one around position hi - 1 (paper section
// 4.10, kernel fusion: the buckets wholly inside the range are copied in the same
// pass that finds the boundary buckets):
//
//   below | lo window | inside            | hi window | above
//   ------+-----------+-------------------+-----------+------
//   count | candidate | copied to output  | candidate | -
//
// When the windows touch they merge into one candidate window and nothing is
// "inside". The candidates (key, index) are sorted afterwards; the range's
// boundary elements are a contiguous run of them (range_pick).
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>

#include "hd.hpp"
#include "key_traits.hpp"
#include "sampling.hpp"

namespace kselect::plan {

/// A closed interval of pre-keys tested with one subtraction and one compare:
/// x is in it iff enabled && pre(x) - first <= span (unsigned, wrapping).
template <class K>
struct key_interval {
  K first = 0, span = 0;
  bool enabled = false;
  KSELECT_HD bool contains(K p) const { return enabled && static_cast<K>(p - first) <= span; }
};

/// The classification of one range pass, on pre-keys XOR flip (see
/// range_pre_key): below (counted), lo_window and hi_window (candidates; lo_window
/// is also counted apart), inside (copied).
template <class K>
struct range_tests {
  K flip = 0;
  key_interval<K> below, lo_window, hi_window, inside;
};

/// Order keys of [a, b] (inclusive, in flipped order) as an interval of flipped
/// pre-keys of values read as Src. Empty when a > b.
template <class Src, class K>
KSELECT_HD key_interval<K> pre_interval(K a, K b, K flip) {
  using traits = key_traits<Src>;
  key_interval<K> r;
  if (a > b) return r;
  // In unflipped keys the interval is [a ^ flip, b ^ flip] or, flipped, [b ^ flip, a ^ flip].
  K lo_key = a ^ flip, hi_key = b ^ flip;
  if (flip) {
    const K t = lo_key;
    lo_key = hi_key;
    hi_key = t;
  }
  // Keys to_key never produces (below -inf's, and between +inf's and the NaN
  // key, for floats) stand for no value, and their pre-keys are NaN patterns
  // that would overlap other intervals: clamp the ends to producible keys.
  constexpr bool is_float = std::numeric_limits<Src>::has_infinity;
  const K least = traits::to_key(is_float ? -std::numeric_limits<Src>::infinity() : std::numeric_limits<Src>::lowest());
  const K greatest_number = traits::to_key(is_float ? std::numeric_limits<Src>::infinity() : std::numeric_limits<Src>::max());
  constexpr K nan_key = static_cast<K>(~K(0));
  if (hi_key < least) return r;
  if (lo_key < least) lo_key = least;
  if (lo_key > greatest_number) lo_key = nan_key;
  if (hi_key > greatest_number && hi_key < nan_key) hi_key = greatest_number;
  if (lo_key > hi_key) return r;
  // The last pre-key below the next key's first: a key to_key never produces
  // (the bits of -0.0, which becomes +0.0's key) has pre_key_last(k) equal to
  // the next key's first pre-key, which would overlap the next interval.
  K first = traits::pre_key_first(lo_key);
  K last = hi_key < greatest_number ? static_cast<K>(traits::pre_key_first(static_cast<K>(hi_key + 1)) - 1)
                                    : traits::pre_key_last(hi_key);
  if (flip) {  // pre-keys flip too, and the interval's ends swap
    const K t = first;
    first = static_cast<K>(~last);
    last = static_cast<K>(~t);
  }
  r.first = first;
  r.span = static_cast<K>(last - first);
  r.enabled = true;
  return r;
}

/// The pre-key of x in flipped order (descending: every comparison reverses).
template <class Src, class K>
KSELECT_HD K range_pre_key(Src x, K flip) {
  return static_cast<K>(key_traits<Src>::pre_key(x) ^ flip);
}

/// Window bounds in flipped keys. A window [w0, w1] exists only for the
/// boundary it serves (lo > 0, hi < n); an absent bound is the smallest or
/// largest key.
template <class K>
struct range_windows {
  bool has_lo = false, has_hi = false;
  K lo0 = 0, lo1 = 0, hi0 = 0, hi1 = 0;
};

/// The tests of a pass over keys read as Src. Keys below lo0 are counted;
/// [lo0, lo1] and [hi0, hi1] are candidates; between them, inside; above hi1,
/// dropped. Overlapping or touching windows merge.
template <class Src, class K>
KSELECT_HD range_tests<K> make_range_tests(const range_windows<K>& w, K flip) {
  constexpr K max = static_cast<K>(~K(0));
  range_tests<K> t;
  t.flip = flip;
  if (!w.has_lo && !w.has_hi) {  // the whole input
    t.inside = pre_interval<Src>(K(0), max, flip);
    return t;
  }
  if (w.has_lo && w.lo0 > 0) t.below = pre_interval<Src>(K(0), static_cast<K>(w.lo0 - 1), flip);
  const bool merged = w.has_lo && w.has_hi && (w.lo1 == max || w.hi0 <= static_cast<K>(w.lo1 + 1));
  if (merged) {
    t.lo_window = pre_interval<Src>(w.lo0, w.hi1 > w.lo1 ? w.hi1 : w.lo1, flip);
    return t;
  }
  if (w.has_lo) t.lo_window = pre_interval<Src>(w.lo0, w.lo1, flip);
  if (w.has_hi) t.hi_window = pre_interval<Src>(w.hi0, w.hi1, flip);
  // Inside: strictly between the windows (an absent window is the end of the keys).
  if (w.has_lo && w.lo1 == max) return t;
  const K in_first = w.has_lo ? static_cast<K>(w.lo1 + 1) : K(0);
  if (w.has_hi && w.hi0 == 0) return t;
  const K in_last = w.has_hi ? static_cast<K>(w.hi0 - 1) : max;
  t.inside = pre_interval<Src>(in_first, in_last, flip);
  return t;
}

/// Counts of one pass.
struct range_counts {
  std::uint64_t below = 0;    ///< keys before the lo window
  std::uint64_t lo_cand = 0;  ///< candidates in the lo window (or the merged one)
  std::uint64_t cand = 0;     ///< all candidates
  std::uint64_t inside = 0;   ///< keys copied to the output
};

/// Where the range's boundary elements lie among the candidates once they are
/// sorted by (key, index): candidates [first, last) fill output positions
/// [inside, hi - lo). ok is false when a prediction missed (a boundary outside its
/// window) or a buffer overflowed; then the caller selects exactly instead.
struct range_pick {
  bool ok = false;
  std::int64_t first = 0, last = 0;
};

KSELECT_HD range_pick locate_range(std::int64_t lo, std::int64_t hi, const range_counts& c,
                                   std::int64_t cand_capacity) {
  range_pick p;
  const auto below = static_cast<std::int64_t>(c.below), lo_cand = static_cast<std::int64_t>(c.lo_cand),
             cand = static_cast<std::int64_t>(c.cand), inside = static_cast<std::int64_t>(c.inside);
  if (cand > cand_capacity || inside > hi - lo) return p;
  // Sorted candidates: the lo window's at positions below + j, the hi window's
  // (j >= lo_cand) at below + inside + j. With nothing inside (merged windows)
  // every candidate j is at below + j, whichever window it came from.
  if (below > lo || hi > below + inside + cand) return p;
  if (inside > 0 && (lo > below + lo_cand || hi < below + lo_cand + inside)) return p;
  p.ok = true;
  p.first = lo - below;
  p.last = hi - below - inside;
  return p;
}

/// Candidates a pass may produce, as the plan kernel predicts its windows: for
/// each boundary window, twice the keys its sample interval spans, plus slack.
/// More candidates than this make the call take the exact path, so this trades
/// memory against rare extra passes, never correctness. All n for inputs up to
/// `all_candidates_max` keys (every key is a candidate there).
inline std::int64_t range_candidate_capacity(std::int64_t n, std::int64_t lo, std::int64_t hi,
                                             std::int64_t sample_size, double sigmas, double margin,
                                             std::int64_t all_candidates_max) {
  if (n <= all_candidates_max) return n;
  std::int64_t cap = 2 * sample_size;
  auto add_window = [&](std::int64_t position) {
    const sample_window w = predict_window(position, n, sample_size, sigmas, margin);
    const std::int64_t spanned = std::min(w.last, sample_size) - std::max<std::int64_t>(w.first, 0) + 2;
    cap += static_cast<std::int64_t>(2.0 * static_cast<double>(spanned) / static_cast<double>(sample_size) *
                                     static_cast<double>(n));
  };
  if (lo > 0 && lo < hi) add_window(lo);
  if (hi < n && lo < hi) add_window(hi - 1);
  return std::min(cap, n);
}

/// The ascending ranks whose keys are the range's boundary keys (positions lo
/// and hi - 1; a descending position p holds the key of ascending rank n - 1 - p,
/// whatever the ties), as multiselection takes them: ascending and unique. The
/// key of position lo is the answer to ranks[lo_slot], that of hi - 1 to
/// ranks[hi_slot]. Requires lo < hi.
struct boundary_ranks {
  std::int64_t ranks[2];
  int count;
  int lo_slot, hi_slot;
};

inline boundary_ranks range_boundary_ranks(std::int64_t n, std::int64_t lo, std::int64_t hi, bool descending) {
  const std::int64_t r_lo = descending ? n - 1 - lo : lo;
  const std::int64_t r_hi = descending ? n - hi : hi - 1;
  boundary_ranks b{{std::min(r_lo, r_hi), std::max(r_lo, r_hi)}, 0, 0, 0};
  b.count = b.ranks[0] == b.ranks[1] ? 1 : 2;
  b.lo_slot = r_lo == b.ranks[0] ? 0 : 1;
  b.hi_slot = r_hi == b.ranks[0] ? 0 : 1;
  return b;
}

}  // namespace kselect::plan
