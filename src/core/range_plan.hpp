// Planning of a rank-range selection (top-k is the range [0, k)), shared by the
// CUDA kernels and the CPU tests that check it.
//
// Order: the keys of core::key_traits, XOR `flip` (all ones for descending
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
#include "int_math.hpp"
#include "key_traits.hpp"
#include "sampling.hpp"

namespace kselect::core {

/// A closed interval of pre-keys tested with one subtraction and one compare:
/// x is in it iff enabled && pre(x) - first <= span (unsigned, wrapping).
template <class K>
struct key_interval {
  K first = 0, span = 0;
  bool enabled = false;
  KSELECT_HD bool contains(K p) const { return enabled && static_cast<K>(p - first) <= span; }
};

/// Top-k's form of the classification (nothing below, no low window; inside
/// and the high window adjacent): one subtraction and two compares a key,
/// half the generic tests' work, in a pass bound by integer throughput.
/// With d = pre - first (wrapping): inside iff d < split; candidate iff
/// split <= d <= last.
template <class K>
struct split_test {
  bool enabled = false;
  K first = 0, split = 0, last = 0;
};

/// The classification of one range pass, on pre-keys XOR flip (see
/// range_pre_key): below (counted), lo_window and hi_window (candidates; lo_window
/// is also counted apart), inside (copied). `split` is the same classification
/// in top-k's cheaper form when it applies (make_range_tests).
template <class K>
struct range_tests {
  K flip = 0;
  key_interval<K> below, lo_window, hi_window, inside;
  split_test<K> split;
};

/// The split form of t, when nothing is below, there is no low window and the
/// high window follows the inside interval (or there is nothing inside).
template <class K>
KSELECT_HD split_test<K> make_split_test(const range_tests<K>& t) {
  split_test<K> s;
  if (t.below.enabled || t.lo_window.enabled || !t.hi_window.enabled) return s;
  if (!t.inside.enabled) {
    s.first = t.hi_window.first;
    s.split = 0;
    s.last = t.hi_window.span;
  } else {
    // Adjacent, and the union does not wrap onto itself.
    if (static_cast<K>(t.inside.first + t.inside.span + 1) != t.hi_window.first) return s;
    if (t.inside.span == static_cast<K>(~K(0))) return s;
    const K split = static_cast<K>(t.inside.span + 1);
    if (t.hi_window.span > static_cast<K>(static_cast<K>(~K(0)) - split)) return s;
    s.first = t.inside.first;
    s.split = split;
    s.last = static_cast<K>(split + t.hi_window.span);
  }
  s.enabled = true;
  return s;
}

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

/// The ordered key of x (key_traits::to_key: -0.0 and +0.0 apart, NaNs last) in
/// flipped order: what the exact path compares and the finishes sort by.
template <class Src, class K>
KSELECT_HD K range_key(Src x, K flip) {
  return static_cast<K>(key_traits<Src>::to_key(x) ^ flip);
}

/// Window bounds in flipped keys. A window [w0, w1] exists only for the
/// boundary it serves (lo > 0, hi < n); an absent bound is the smallest or
/// largest key.
template <class K>
struct range_windows {
  bool has_lo = false, has_hi = false;
  K lo0 = 0, lo1 = 0, hi0 = 0, hi1 = 0;
  /// The sample's keys in the high window are exactly two, hi0 and hi1
  /// (two_key_window; set by the first sample only).
  bool hi_two_keys = false;
};

/// A window whose sample keys are all one key (heavy ties around the position:
/// all equal keys, few distinct values) becomes that key alone, [v, v]: the keys
/// below it are then counted or written to the output and only its ties are
/// candidates, so a top-k whose boundary falls among them is complete with the
/// ties the pass copied (range_dispatch.cuh, take_kept_ties). `sorted`: the
/// sample's `count` sorted keys; [w0, w1]: the window of sample positions
/// [sw.first, sw.last] (which may lie past either end).
template <class K>
KSELECT_HD void tie_window(const K* sorted, std::int64_t count, const sample_window& sw, K& w0, K& w1) {
  const auto clamp = [&](std::int64_t i) { return i < 0 ? 0 : i >= count ? count - 1 : i; };
  const K a = sorted[clamp(sw.first)], b = sorted[clamp(sw.last)];
  if (a == b) w0 = w1 = a;
}

/// Whether a window's sample keys, positions [sw.first, sw.last] of the `count`
/// sorted keys, are exactly two keys, the window lying inside the sample: the
/// boundary position then lies, with the window's confidence, in one of two
/// runs of ties or where one ends and the other begins (few distinct values),
/// and a pass that keeps candidates does not narrow them. A top-k then counts
/// the two keys' ties and takes the boundary's run by position (plan_tie_cut;
/// range_dispatch.cuh, the tie cut).
template <class K>
KSELECT_HD bool two_key_window(const K* sorted, std::int64_t count, const sample_window& sw) {
  if (sw.first < 0 || sw.last >= count || sw.first >= sw.last) return false;
  const K a = sorted[sw.first], b = sorted[sw.last];
  if (a == b) return false;
  // The first position in the window whose key is above a: the window holds two
  // keys where that key is b.
  const std::int64_t above_a =
      sw.first + partition_point(sw.last - sw.first, [&](std::int64_t i) { return sorted[sw.first + i] == a; });
  return sorted[above_a] == b;
}

/// A top-k's tie cut, from exact counts against two candidate boundary keys a
/// <= b (flipped keys): `below` keys lie below a, eq_a equal a, between lie
/// strictly between a and b, eq_b equal b (0 when a == b). Where output
/// position k - 1 lies among a's or b's ties, the output is every key below
/// that key (`before` of them) and its first `needed` ties in input order;
/// otherwise (ok false) the counts refute the sample and the call takes its
/// usual pass.
struct tie_cut {
  bool ok = false;
  bool high_key = false;  ///< the boundary is b (else a)
  std::uint64_t before = 0, needed = 0;
};

KSELECT_HD tie_cut plan_tie_cut(std::uint64_t k, std::uint64_t below, std::uint64_t eq_a, std::uint64_t between,
                                std::uint64_t eq_b) {
  if (below < k && k <= below + eq_a) return {true, false, below, k - below};
  const std::uint64_t before_b = below + eq_a + between;
  if (eq_b > 0 && before_b < k && k <= before_b + eq_b) return {true, true, before_b, k - before_b};
  return {};
}

/// The tests of a pass over keys read as Src. Keys below lo0 are counted;
/// [lo0, lo1] and [hi0, hi1] are candidates; between them, inside; above hi1,
/// dropped. Overlapping or touching windows merge.
template <class Src, class K>
KSELECT_HD range_tests<K> make_generic_range_tests(const range_windows<K>& w, K flip) {
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

/// The tests, with the split form where it applies.
template <class Src, class K>
KSELECT_HD range_tests<K> make_range_tests(const range_windows<K>& w, K flip) {
  range_tests<K> t = make_generic_range_tests<Src>(w, flip);
  t.split = make_split_test(t);
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

/// A second sampling round narrows the windows (range_refine_kernels.cuh): a
/// sample `refine_size` times larger than the first, of which only the keys
/// inside the first round's windows are kept and sorted. Its size is chosen so
/// that about `target_kept` keys fall into the windows; 0 when the first
/// sample already covers the input (all candidates) or a second would not
/// narrow the windows at least twofold (windows shrink as 1/sqrt(sample)).
inline std::int64_t refine_sample_size(std::int64_t n, std::int64_t lo, std::int64_t hi, std::int64_t sample_size,
                                       double sigmas, double margin, std::int64_t all_candidates_max,
                                       std::int64_t target_kept, std::int64_t max_size) {
  if (n <= all_candidates_max || lo >= hi) return 0;
  std::int64_t spanned = 0;  // sample positions the windows cover
  auto add_window = [&](std::int64_t position) {
    const sample_window w = predict_window(position, n, sample_size, sigmas, margin);
    spanned += std::min(w.last, sample_size) - std::max<std::int64_t>(w.first, 0) + 1;
  };
  if (lo > 0) add_window(lo);
  if (hi < n) add_window(hi - 1);
  if (spanned == 0) return 0;
  const std::int64_t size = std::min(max_size, target_kept * sample_size / spanned);
  return size >= 4 * sample_size ? size : 0;
}

/// Candidates a top-k's (lo = 0) pass is expected to leave: the sample positions
/// its window spans in the last sample the plan draws (the second, when
/// refine_sample_size plans one), scaled to n. A window reaching the sample's
/// first key starts at the least key (every key up to its last is a candidate);
/// one past the sample's last key ends at the greatest. All n at inputs up to
/// all_candidates_max. The stream-ordered top-k finishes in one block when this
/// is small (dispatch/choose.hpp).
inline std::int64_t expected_topk_candidates(std::int64_t n, std::int64_t k, std::int64_t sample_size, double sigmas,
                                             double margin, std::int64_t all_candidates_max,
                                             std::int64_t target_kept, std::int64_t max_refine) {
  if (n <= all_candidates_max) return n;
  if (k <= 0 || k >= n) return 0;  // no boundary: nothing is a candidate
  const std::int64_t refine =
      refine_sample_size(n, 0, k, sample_size, sigmas, margin, all_candidates_max, target_kept, max_refine);
  const std::int64_t s = refine > 0 ? refine : sample_size;
  const sample_window w = predict_window(k - 1, n, s, sigmas, margin);
  const std::int64_t first = std::max<std::int64_t>(w.first, 0), last = std::min(w.last, s);
  const double share = static_cast<double>(last - first + 1) / static_cast<double>(s);
  return std::min(n, static_cast<std::int64_t>(share * static_cast<double>(n)));
}

/// The candidate buffer of the stream-ordered top-k's grid finish for
/// `expected` candidates (expected_topk_candidates) of n keys: twice the
/// expectation plus `slack`, at most n. The count's spread is that of the keys
/// between two sample keys some sample positions apart: about 1/sqrt(positions)
/// of it (6% at k = 2^20 of 2^28), far inside the factor 2; more candidates
/// send the call on to the exact path, never to a wrong answer.
constexpr std::int64_t take_candidate_capacity(std::int64_t n, std::int64_t expected, std::int64_t slack) {
  return std::min(n, 2 * expected + slack);
}

/// Where a first-round window's keys lie in the second sample: `below` of the
/// second sample's keys are below the window's first key; its keys are
/// kept[first, first + count) of the sorted kept keys.
struct refine_slice {
  std::int64_t below = 0;
  std::int64_t first = 0, count = 0;
};

/// The window of the second sample (size refine_size) around `position`, as
/// keys [w0, w1]. Each end stays the first round's where the prediction falls
/// outside the keys kept (the first round's window bounds the second's).
template <class K>
KSELECT_HD void refine_window(std::int64_t position, std::int64_t n, std::int64_t refine_size, double sigmas,
                              double margin, const K* kept, const refine_slice& slice, K& w0, K& w1) {
  const sample_window sw = predict_window(position, n, refine_size, sigmas, margin);
  const std::int64_t a = sw.first - slice.below, b = sw.last - slice.below;
  if (a >= slice.count || b < 0) return;  // the second sample disagrees: keep the first window
  if (sw.first >= 0 && a >= 0) w0 = kept[slice.first + a];
  if (sw.last < refine_size && b < slice.count) w1 = kept[slice.first + b];
}

/// The low key bits that order a pass's candidates: their flipped keys lie in
/// the windows' hull, so they share every bit above the highest bit in which
/// the hull's ends differ. A radix sort of the candidates sorts only these
/// (at k = n/2 the last candidates span ~20 bits: one pass of four saved).
template <class K>
KSELECT_HD int candidate_key_bits(const range_windows<K>& w) {
  if (!w.has_lo && !w.has_hi) return 8 * static_cast<int>(sizeof(K));
  const K first = w.has_lo ? w.lo0 : w.hi0;
  const K last = w.has_hi ? (w.has_lo && w.lo1 > w.hi1 ? w.lo1 : w.hi1) : w.lo1;
  const int bits = bit_width_of(static_cast<K>(first ^ last));
  return bits > 0 ? bits : 1;
}

/// Deterministic ties after the candidates are sorted by key alone: positions
/// [first, last) of the sorted candidates are the range's, but where the run of
/// candidates equal to an end's key straddles that end, which of the run's
/// elements the range takes is decided by index, the smaller first (as the
/// stable sort does). A run: sorted positions [first, last), empty if none.
struct sorted_run {
  std::int64_t first = 0, last = 0;
  KSELECT_HD bool empty() const { return last <= first; }
};

/// The run elements a range takes: those whose index ranks ascending in
/// [rank_first, rank_last) among the run's, written from output position
/// `out_offset` (relative to the range's first output slot).
struct tie_take {
  sorted_run run;
  std::int64_t rank_first = 0, rank_last = 0;
  std::int64_t out_offset = 0;
};
struct tie_takes {
  int count = 0;
  tie_take take[2];
};

/// The takes of the run straddling `first` (lo_run: it holds positions first - 1
/// and first, or is empty) and of the one straddling `last` (hi_run: last - 1
/// and last, or empty); one run may straddle both. Positions of [first, last)
/// outside both runs are taken as they are, to out_offset = position - first.
KSELECT_HD tie_takes plan_tie_takes(std::int64_t first, std::int64_t last, sorted_run lo_run, sorted_run hi_run) {
  tie_takes t;
  if (!lo_run.empty() && !hi_run.empty() && lo_run.first == hi_run.first) {
    t.take[t.count++] = {lo_run, first - lo_run.first, last - lo_run.first, 0};
    return t;
  }
  if (!lo_run.empty()) t.take[t.count++] = {lo_run, first - lo_run.first, lo_run.last - lo_run.first, 0};
  if (!hi_run.empty()) t.take[t.count++] = {hi_run, 0, last - hi_run.first, hi_run.first - first};
  return t;
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

/// range_boundary_ranks for the GPU's exact path, which needs no key for
/// position lo = 0 (a top-k): nothing lies before it, so the least key stands in
/// for it, and only the key of position hi - 1 is selected (lo_slot = -1).
inline boundary_ranks range_selected_boundaries(std::int64_t n, std::int64_t lo, std::int64_t hi, bool descending) {
  if (lo != 0) return range_boundary_ranks(n, lo, hi, descending);
  const std::int64_t r_hi = descending ? n - hi : hi - 1;
  return boundary_ranks{{r_hi, r_hi}, 1, -1, 0};
}

}  // namespace kselect::core
