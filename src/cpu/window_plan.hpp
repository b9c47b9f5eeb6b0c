// Windows for the CPU selection's one-pass path: from a sample, for each target
// rank, two sample order statistics that bracket the rank's key with high
// probability. One streaming pass then counts the keys below each window and copies
// the keys inside it; a rank no window holds is selected again by the bucket path
// (exact either way, only slower).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <span>
#include <vector>

#include "cpu/level_keys.hpp"

namespace kselect::cpu {

template <class K>
struct key_window {
  K lo, hi;                                ///< pre-keys, inclusive; lo = 0 / hi = max: open
  double fraction;                         ///< the sample's share inside [lo, hi]
  bool point() const { return lo == hi; }  ///< one key value: counted, never copied
};

struct window_settings {
  double sigmas;  ///< half-width in standard deviations of a sample rank
  double margin;  ///< plus this many sample positions
};

/// Windows for sorted unique `ranks` of an n-key level, from `sample`: runs of g
/// consecutive keys, one run per stratum in stratum order (cpu::sample_runs).
/// Disjoint and ascending in pre-key order.
///
/// The half-width is the binomial spread of a sample rank, sqrt(s p (1 - p)), times
/// the root of the design effect of sampling runs: the keys of a run are not
/// independent where the input has local structure (runs of repeated values), and
/// the spread of the runs' shares below the rank's key measures by how much. The
/// spread is taken between neighbouring strata (half the mean squared successive
/// difference), so order across the input (sorted data), which stratification
/// already removes, does not count: independent keys and sorted input give 1, runs
/// of equal keys g.
///
/// A window end that the sample holds more than once is a heavy key: it becomes a
/// window of its own, counted and not copied, so that a copy never holds a run of
/// equal keys (two_values: the median's window would otherwise copy half the input).
template <class K>
std::vector<key_window<K>> plan_windows(const std::vector<K>& sample, int g, std::int64_t n,
                                        std::span<const std::int64_t> ranks, const window_settings& ws) {
  const auto s = static_cast<std::int64_t>(sample.size());
  const std::int64_t runs = s / g;
  std::vector<K> ord(sample);
  // Each rank's predicted sample position and the key there.
  std::vector<double> center(ranks.size());
  std::vector<std::int64_t> at(ranks.size());
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    center[i] = (static_cast<double>(ranks[i]) + 0.5) / static_cast<double>(n) * static_cast<double>(s);
    at[i] = std::clamp<std::int64_t>(static_cast<std::int64_t>(center[i]), 0, s - 1);
  }
  std::vector<std::int64_t> unique_at(at);
  unique_at.erase(std::unique(unique_at.begin(), unique_at.end()), unique_at.end());
  select_positions(ord.data(), s, std::span<const std::int64_t>(unique_at));

  struct sample_span {
    std::int64_t first, last;  // sample positions, may lie outside [0, s)
  };
  std::vector<sample_span> spans(ranks.size());
  std::vector<std::int64_t> ends;
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    const double p = (static_cast<double>(ranks[i]) + 0.5) / static_cast<double>(n);
    double deff = 1.0;
    if (g > 1 && runs > 1) {
      const K x = ord[static_cast<std::size_t>(at[i])];
      double below_all = 0, diff_sq = 0, previous = 0;
      for (std::int64_t r = 0; r < runs; ++r) {
        int below = 0;
        for (int u = 0; u < g; ++u) below += sample[static_cast<std::size_t>(r * g + u)] < x ? 1 : 0;
        const double share = static_cast<double>(below) / g;
        below_all += share;
        if (r > 0) diff_sq += (share - previous) * (share - previous);
        previous = share;
      }
      const double mean = below_all / static_cast<double>(runs);
      const double var = diff_sq / (2.0 * static_cast<double>(runs - 1));
      const double independent = mean * (1.0 - mean) / g;
      if (independent > 0) deff = std::clamp(var / independent, 1.0, static_cast<double>(g));
    }
    const double half = ws.sigmas * std::sqrt(deff * static_cast<double>(s) * p * (1.0 - p)) + ws.margin;
    spans[i] = {static_cast<std::int64_t>(std::floor(center[i] - half)),
                static_cast<std::int64_t>(std::ceil(center[i] + half))};
    if (spans[i].first >= 0) ends.push_back(spans[i].first);
    if (spans[i].last < s) ends.push_back(spans[i].last);
  }
  std::sort(ends.begin(), ends.end());
  ends.erase(std::unique(ends.begin(), ends.end()), ends.end());
  select_positions(ord.data(), s, std::span<const std::int64_t>(ends), std::span<const std::int64_t>(unique_at));

  // One window per rank, merged where their keys meet (the windows must be disjoint
  // in pre-key order for the pass's boundaries to ascend).
  std::vector<key_window<K>> merged;
  for (const sample_span sp : spans) {
    key_window<K> w{sp.first >= 0 ? ord[static_cast<std::size_t>(sp.first)] : K(0),
                    sp.last < s ? ord[static_cast<std::size_t>(sp.last)] : std::numeric_limits<K>::max(), 0.0};
    // Centres ascend with the ranks, but a wider later window may reach below an
    // earlier one: absorb every window it overlaps.
    while (!merged.empty() && w.lo <= merged.back().hi) {
      w.lo = std::min(w.lo, merged.back().lo);
      w.hi = std::max(w.hi, merged.back().hi);
      merged.pop_back();
    }
    merged.push_back(w);
  }
  auto sample_count = [&](K lo, K hi) {
    return static_cast<std::int64_t>(
        std::count_if(sample.begin(), sample.end(), [&](K k) { return lo <= k && k <= hi; }));
  };
  std::vector<key_window<K>> out;
  auto emit = [&](K lo, K hi, std::int64_t count) {
    out.push_back({lo, hi, static_cast<double>(count) / static_cast<double>(s)});
  };
  for (const key_window<K>& w : merged) {
    K lo = w.lo, hi = w.hi;
    if (lo == hi) {
      emit(lo, hi, sample_count(lo, hi));
      continue;
    }
    const std::int64_t heavy_lo = sample_count(lo, lo), heavy_hi = sample_count(hi, hi);
    if (heavy_lo > 1) emit(lo, lo, heavy_lo);
    if (heavy_lo > 1) ++lo;
    if (heavy_hi > 1) --hi;
    if (lo <= hi) emit(lo, hi, sample_count(lo, hi));
    if (heavy_hi > 1) emit(static_cast<K>(hi + 1), static_cast<K>(hi + 1), heavy_hi);
  }
  return out;
}

}  // namespace kselect::cpu
