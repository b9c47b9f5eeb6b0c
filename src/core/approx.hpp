// Approximate multiselection (the approximate SampleSelect of Ribizel & Anzt,
// sections 2.3 and 5.8 of the paper): the rules both backends share.
//
// One level of SampleSelect and no recursion: a sorted sample, `buckets - 1`
// splitters spread evenly over it, one counting pass that gives every splitter
// s_j its exact rank interval [#(x < s_j), #(x <= s_j)), and for each requested
// rank r the splitter whose interval is nearest. The answer is that splitter (an
// input element, bit for bit as the sample read it) and its exact rank
// r' = clamp(r, #(x < s_j), #(x <= s_j) - 1). Ties matter: a splitter that many
// keys equal answers every rank of its run exactly (all-equal input: every rank
// from one splitter, error 0). A rank whose error |r - r'| exceeds the caller's
// bound is selected exactly instead (the backends' exact multiselect), r' = r.
//
// What the error is: for r between two splitters' intervals it is the distance
// to the nearer one, so at most half the gap between consecutive splitters. With
// the sample spacing k = sample/buckets sample keys between splitters, a gap
// holds about k/sample of the keys (a Gamma(k) spread for random sampling); see
// docs/algorithms.md, "Approximate selection" (the measured errors: docs/performance.md).
//
// Here: argument checks, the inverse of the pre-key map (the sample is sorted by
// pre-key so that each splitter's value is recovered bit for bit), the choice of
// splitters from the sorted sample, their pre-key boundaries (what the counting
// pass classifies against: core/approx_lookup.hpp), the nearest-splitter choice
// and the error bookkeeping. KSELECT_HD functions run on the host (CPU backend,
// tests) and in the CUDA kernels alike.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "approx_lookup.hpp"
#include "hd.hpp"
#include "int_math.hpp"
#include "key_traits.hpp"
#include "kselect/detail/arguments.hpp"  // default_seed: both backends' sample by default
#include "sampling.hpp"

namespace kselect::core {

// These are rules both backends share (the same sample, candidates and answers
// for one seed), not per-architecture tuning: the CUDA backend's launch shapes
// for them are tuning::approx_policy (cuda/tuning.hpp).

/// Bucket counts accepted (splitters + 1). The upper limit keeps the counting
/// pass's per-block histogram (2 * 4095 + 1 32-bit counters, 32 KiB) and lookup
/// table in shared memory with two blocks per SM on the H100.
inline constexpr int approx_min_buckets = 2;
inline constexpr int approx_max_buckets = 4096;
inline constexpr int approx_max_splitters = approx_max_buckets - 1;

/// Sample keys drawn (both backends draw the same positions, core::sample_position,
/// so for one seed they choose the same splitters and give the same answers).
/// 16384 rather than the exact driver's 4096: a rank's error is its distance to the
/// nearest splitter, and 16 sample keys per gap at 1024 buckets make a rank with
/// no splitter near it (which costs an exact selection) rare, for a slightly longer
/// sort in the plan kernel (a Poisson model of the sample ranks: docs/algorithms.md,
/// "Approximate selection").
inline constexpr int approx_sample_size = 16384;

/// Why (n, num_ranks, max_rank_error, buckets) is not a valid call, or "" if it is.
/// The messages start "kselect: " like the device API's other messages.
std::string approx_argument_error(std::int64_t n, std::int64_t num_ranks, std::int64_t max_rank_error,
                                  int buckets);

/// The value whose key_traits<T>::pre_key is `pre`. Pre-keys are a bijection of the
/// bit patterns (floats: an xor that depends only on the sign, then a constant
/// subtraction), so a sample sorted as pre-keys still holds every value bit for
/// bit: -0.0 stays -0.0 and a NaN keeps its payload.
template <class T>
KSELECT_HD T value_of_pre_key(key_t<T> pre) {
  using traits = key_traits<T>;
  using K = key_t<T>;
  if constexpr (std::is_floating_point_v<T>) {
    // pre = (u ^ flip(u)) - mantissa_mask, where flip is sign_bit for a clear sign
    // bit of u and all ones for a set one; the xor's result has the opposite sign.
    const K v = static_cast<K>(pre + traits::mantissa_mask);
    const K u = (v & traits::sign_bit) ? static_cast<K>(v ^ traits::sign_bit) : static_cast<K>(~v);
    return traits::from_bits(u);
  } else {
    return traits::from_key(pre);
  }
}

/// Sorted-sample index of splitter candidate j (0 <= j < buckets - 1): evenly
/// spread at the middles of buckets - 1 equal parts of the sample, (j + 1/2) *
/// sample / (buckets - 1). The paper's j * sample / buckets leaves the ranks below
/// the first splitter (and above the last) a whole gap from it; centred, every
/// rank is within about half a gap, n / (2 (buckets - 1)), of a splitter.
KSELECT_HD std::int64_t approx_candidate_index(std::int64_t j, std::int64_t buckets, std::int64_t sample_size) {
  return (2 * j + 1) * sample_size / (2 * (buckets - 1));
}

/// Narrow-window mode. When the requested ranks are few and close, splitters
/// spread over the whole sample are mostly wasted: the ones far from every rank
/// answer nothing. Instead the candidates are packed into the stretch of the
/// sorted sample that holds the ranks' predicted sample positions (the union of
/// core::predict_window over the ranks, which must span at most
/// approx_window_max_width sample positions), spaced so that consecutive
/// splitters are about max_rank_error / 2 apart in expected rank (at most
/// buckets - 1 of them). The counting pass then tests each key against the two
/// ends of the window (the first and the last boundary) and only counts the
/// keys outside it (bucket 0 and the last bucket), classifying only the few
/// inside. Correctness does not depend on the window: a rank the sample
/// mispredicts lies outside it, its nearest splitter is a window end far from
/// it, and the exact fallback answers it like any rank over the bound.
///
/// Half-width of a rank's window in standard deviations of its sample position
/// (binomial; the jittered stratified sample is tighter), plus a margin in
/// sample positions: the exact driver's window prediction (cuda/tuning.hpp,
/// common_policy). At 4 sigma a rank misses its window with probability about
/// 6e-5, and then costs an exact selection.
inline constexpr double approx_window_sigmas = 4.0;
inline constexpr double approx_window_margin = 2.0;
/// Window mode only when the window spans at most this many sample positions
/// (1/8 of the sample: about 1/8 of the keys are classified, the rest only
/// compared). One rank's window is at most 2 * (4 * 64 + 2) + 1 = 517 wide.
inline constexpr std::int64_t approx_window_max_width = approx_sample_size / 8;

/// Which sorted-sample indices the plan takes as splitter candidates.
///   histogram mode (window false): count = buckets - 1, spread over the whole
///     sample (approx_candidate_index);
///   window mode: count candidates from index first to first + width, evenly,
///     both ends included (one candidate: the middle).
struct approx_candidates {
  std::int64_t first;  ///< window mode: first sample index (histogram mode: 0)
  std::int64_t width;  ///< window mode: last - first (histogram mode: sample size)
  std::int32_t count;  ///< candidates, 1 .. approx_max_splitters
  bool window;
};

/// Sorted-sample index of candidate j (0 <= j < c.count), strictly increasing in j.
KSELECT_HD std::int64_t approx_candidate_at(const approx_candidates& c, std::int64_t j) {
  if (!c.window) return approx_candidate_index(j, std::int64_t(c.count) + 1, approx_sample_size);
  if (c.count <= 1) return c.first + c.width / 2;
  return c.first + j * c.width / (c.count - 1);
}

/// Fine slots of the counting pass's table for these candidates (the budget
/// approx_fine_budget gives their bucket count: for the histogram mode, the
/// buckets asked for).
KSELECT_HD int approx_table_budget(const approx_candidates& c) { return approx_fine_budget(c.count + 1); }

/// The histogram mode's candidates for `buckets` (2 .. approx_max_buckets).
KSELECT_HD approx_candidates approx_histogram_candidates(int buckets) {
  return {0, approx_sample_size, static_cast<std::int32_t>(buckets - 1), false};
}

/// The window of sample indices, clamped to the sample, that holds the
/// predicted sample positions of every rank (sorted, in [0, n)): the hull of
/// core::predict_window(rank, n, approx_sample_size, approx_window_sigmas,
/// approx_window_margin). The ranks may be in any order.
sample_window approx_ranks_window(std::int64_t n, std::span<const std::int64_t> ranks);

/// Sample positions between consecutive window candidates: about
/// max_rank_error / 2 in expected rank (a sample position stands for
/// n / approx_sample_size ranks), at least 1.
std::int64_t approx_window_step(std::int64_t n, std::int64_t max_rank_error);

/// The candidates of a call: window mode if `allow_window`, at least one rank
/// and max_rank_error > 0 (0 is the exact path) and the ranks' window spans at
/// most approx_window_max_width sample positions; else the histogram mode.
/// In window mode, ceil(width / step) + 1 candidates (approx_window_step), at
/// most buckets - 1: more buckets than needed buy nothing, fewer widen the gaps.
approx_candidates approx_choose_candidates(std::int64_t n, std::span<const std::int64_t> ranks,
                                           std::int64_t max_rank_error, int buckets, bool allow_window);

/// Candidate j becomes a splitter unless its key equals candidate j - 1's (the
/// sample is sorted by pre-key, so keys never decrease: equal keys are adjacent
/// and the first of them is kept, so each key is one splitter).
template <class K>
KSELECT_HD bool approx_keeps_candidate(std::int64_t j, K key, K previous_key) {
  return j == 0 || key != previous_key;
}

/// What the counting pass classifies against: each splitter's key as the interval
/// of pre-keys that map to it (-0.0 and +0.0 share a key; so do all NaNs).
/// Splitter j contributes the boundaries first_j and last_j + 1; a pre-key p's
/// bucket is the number of boundaries <= p, which is core/buckets.hpp's layout
/// (2j: between s_{j-1} and s_j, 2j + 1: equal to s_j). The last splitter has no
/// end boundary when its interval reaches the largest pre-key (the NaN key, or
/// the largest integer).
template <class T>
struct splitter_bounds {
  key_t<T> first;   ///< smallest pre-key of the splitter's key
  key_t<T> end;     ///< largest pre-key + 1 (valid when has_end)
  bool has_end;
};

template <class T>
KSELECT_HD splitter_bounds<T> approx_splitter_bounds(key_t<T> key) {
  using traits = key_traits<T>;
  using K = key_t<T>;
  const K last = traits::pre_key_last(key);
  return {traits::pre_key_first(key), static_cast<K>(last + 1), last != static_cast<K>(~K(0))};
}

/// The choice for one rank.
struct approx_choice {
  std::int64_t splitter;  ///< index of the splitter answering, -1 if none can
  std::int64_t rank;      ///< its exact rank r' (valid when splitter >= 0)
  std::int64_t error;     ///< |r - r'|; INT64_MAX when splitter < 0
};

/// The splitter whose rank interval [below(j), below(j) + equal(j)) lies nearest
/// to rank r, among m splitters. below(j) = keys < s_j is strictly increasing
/// in j because equal(j) >= 1 for every splitter that is an input element; a
/// splitter counted with equal(j) == 0 (which only a broken count could give) is
/// never chosen, and if none is left the result has splitter -1. On equal
/// distances the lower splitter answers.
template <class Below, class Equal>
KSELECT_HD approx_choice nearest_splitter(std::int64_t r, std::int64_t m, Below below, Equal equal) {
  constexpr std::int64_t none = INT64_MAX;
  approx_choice best{-1, r, none};
  // j: the last splitter with below(j) <= r (its interval starts at or before r).
  const std::int64_t j = partition_point(m, [&](std::int64_t i) { return below(i) <= r; }) - 1;
  if (j >= 0) {
    const std::int64_t eq = equal(j);
    if (eq > 0) {
      const std::int64_t last = below(j) + eq - 1;
      const std::int64_t at = r < last ? r : last;
      best = {j, at, r - at};
    }
  }
  if (j + 1 < m && equal(j + 1) > 0) {
    const std::int64_t at = below(j + 1);  // > r
    if (at - r < best.error) best = {j + 1, at, at - r};
  }
  return best;
}

/// A rank the approximate pass cannot answer within the bound: selected exactly.
KSELECT_HD bool approx_needs_exact(const approx_choice& c, std::int64_t max_rank_error) {
  return c.splitter < 0 || c.error > max_rank_error;
}

/// True when no answer can be further than max_rank_error from its rank: every
/// rank of sorted ranks [first_rank .. last_rank] of n keys is within the bound
/// of both ends. The CUDA backend then skips reading the per-rank verdicts back
/// (the host round trip), since no rank can need the exact fallback.
KSELECT_HD bool approx_error_always_within(std::int64_t n, std::int64_t first_rank, std::int64_t last_rank,
                                           std::int64_t max_rank_error) {
  return last_rank <= max_rank_error && n - 1 - first_rank <= max_rank_error;
}

/// Per splitter, the keys below it, from the counting pass's 2m + 1 bucket counts
/// (core/buckets.hpp layout): below[j] = sum of counts[0 .. 2j]. Host version of
/// the device's block scan.
std::vector<std::int64_t> approx_keys_below(std::span<const std::uint64_t> counts);

/// Indices i (ascending) of ranks whose verdict needs_exact[i] is set, and their
/// ranks (ascending, since `ranks` is): the exact fallback's input.
struct approx_fallback {
  std::vector<std::int64_t> index;
  std::vector<std::int64_t> ranks;
};
approx_fallback collect_fallback(std::span<const std::uint8_t> needs_exact, std::span<const std::int64_t> ranks);

}  // namespace kselect::core
