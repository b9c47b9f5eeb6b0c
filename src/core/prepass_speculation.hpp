// The multiselection pre-pass's speculative copy (docs/algorithms.md, "2 to 512
// ranks: the bin pre-pass"). The count pass reads every key, and the filter then
// reads every key again to copy the few bins that hold ranks. Where the ranks
// that need a copy (those whose expected bin holds more than one key) are all
// expected in one narrow run of bins, the count pass also copies that run's keys
// as it reads them, each thread into a slice of its own, and the filter reads
// that copy instead of the input, provided every selected bin lies in the run and
// no slice overflowed (else it reads the input, as without the copy). The sample
// places the run: a window of sample positions around each such rank's expected
// one (core::predict_window).
#pragma once

#include <cstdint>

#include "bin_map.hpp"
#include "hd.hpp"
#include "int_math.hpp"
#include "sampling.hpp"

namespace kselect::core {

/// The run of bins [first, first + span] the count pass copies; span
/// no_speculation: no copy.
inline constexpr std::uint32_t no_speculation = 0xffffffffu;

/// The copy may hold at most 1/speculation_max_share of the sample's keys: a
/// larger one would cost the count pass (bound by issued instructions) more than
/// the filter's read of the input saves.
inline constexpr std::int64_t speculation_max_share = 32;

/// A rank's window of sample positions (core::predict_window): four standard
/// deviations of a binomial position and four positions either side of the
/// expected one; it misses the rank's key in rare cases, which the check catches.
inline constexpr double speculation_sigmas = 4.0;
inline constexpr double speculation_margin = 4.0;

/// Rank k's run of bins, in [*first, *last], if it needs a copy (its expected bin
/// holds more than one key); `sample_bins`: the sorted sample keys' bins. A window
/// reaching the sample's first or last key reaches bin 0 or the last bin (keys
/// beyond the sample). Bins of one key never need a copy (their ranks are
/// answered from the map), so a window that ends in a dense range of such bins
/// ends before it, one that starts in one starts after it: a rank just below a
/// repeated value would otherwise copy all of it.
template <class K, class B>
KSELECT_HD bool speculation_bins_of_rank(const bin_map<K>& m, const B* sample_bins, std::int64_t sample_count,
                                         const std::int64_t* ranks, std::int64_t k, std::int64_t n,
                                         std::uint32_t* first, std::uint32_t* last) {
  const B expected = sample_bins[expected_sample_index(ranks[k], n, sample_count)];
  if (bin_holds_one_key(m, static_cast<std::uint32_t>(expected))) return false;
  const sample_window w = predict_window(ranks[k], n, sample_count, speculation_sigmas, speculation_margin);
  std::uint32_t lo = w.first <= 0 ? 0u : static_cast<std::uint32_t>(sample_bins[w.first]);
  std::uint32_t hi = w.last >= sample_count - 1 ? m.num_bins - 1 : static_cast<std::uint32_t>(sample_bins[w.last]);
  const int range_lo = dense_range_of_bin(m, lo), range_hi = dense_range_of_bin(m, hi);
  if (range_lo >= 0 && m.dense_one_key[range_lo] != 0)
    lo = m.dense_base[range_lo] + dense_bins(m, static_cast<std::uint32_t>(range_lo));  // the slot bin after it
  if (range_hi >= 0 && m.dense_one_key[range_hi] != 0) hi = m.dense_base[range_hi] - 1u;
  *first = lo;
  *last = hi;
  return lo <= hi;
}

/// The run [first, last] the ranks' runs span (any: some rank needs a copy), as
/// (first, span), and the sample keys in it; no_speculation and 0 where no rank
/// needs a copy, or where the run holds more than 1/speculation_max_share of the sample.
template <class B>
KSELECT_HD std::int64_t speculation_run(const B* sample_bins, std::int64_t sample_count, std::uint32_t first,
                                        std::uint32_t last, bool any, std::uint32_t* run_first,
                                        std::uint32_t* run_span) {
  *run_first = 0;
  *run_span = no_speculation;
  if (!any) return 0;
  const std::int64_t held = partition_point(sample_count, [&](std::int64_t i) { return sample_bins[i] <= last; }) -
                            partition_point(sample_count, [&](std::int64_t i) { return sample_bins[i] < first; });
  if (held * speculation_max_share > sample_count) return 0;
  *run_first = first;
  *run_span = last - first;
  return held;
}

/// The host's version of bin_map_kernel's run (the union of the ranks' runs).
template <class K, class B>
std::int64_t plan_speculation(const bin_map<K>& m, const B* sample_bins, std::int64_t sample_count,
                              const std::int64_t* ranks, std::int64_t num_ranks, std::int64_t n,
                              std::uint32_t* run_first, std::uint32_t* run_span) {
  std::uint32_t first = no_speculation, last = 0;
  bool any = false;
  for (std::int64_t k = 0; k < num_ranks; ++k) {
    std::uint32_t f = 0, l = 0;
    if (!speculation_bins_of_rank(m, sample_bins, sample_count, ranks, k, n, &f, &l)) continue;
    any = true;
    first = f < first ? f : first;
    last = l > last ? l : last;
  }
  return speculation_run(sample_bins, sample_count, first, last, any, run_first, run_span);
}

/// Slots of a thread's slice of the copy: the first holds the count (32 bits),
/// the rest the keys; a slice needs room for at least one key.
inline constexpr std::int64_t speculation_min_slice = 2;

}  // namespace kselect::core
