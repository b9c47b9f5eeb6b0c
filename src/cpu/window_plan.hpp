// Windows for the CPU selection's one-pass path: from a sample, for each target
// rank, two sample order statistics that bracket the rank's key with high
// probability. One streaming pass then counts the keys below each window and copies
// the keys inside it; a rank whose window missed is selected again by the bucket
// path (exact either way, only slower).
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
  K lo, hi;                 ///< pre-keys, inclusive; lo = 0 / hi = max: open
  std::int64_t first_rank;  ///< the ranks [first_rank, end_rank) of the rank list
  std::int64_t end_rank;
  double fraction;  ///< the sample's share inside [lo, hi] (all keys equal
                    ///< to an end included: a value heavy in the input is)
};

struct window_settings {
  double sigmas;  ///< half-width in standard deviations of a sample rank
  double margin;  ///< plus this many sample positions
};

/// Windows for sorted unique `ranks` of an n-key level, from `sample`: runs of g
/// consecutive keys (cpu::sample_runs; the order is used, then lost). Disjoint and
/// ascending in pre-key order; each holds the ranks whose predicted sample
/// position it covers.
///
/// The width comes from the binomial spread of a sample rank, sqrt(s p (1 - p)),
/// times the design effect of sampling runs: keys of one run are not independent
/// when the input has local order (sorted stretches, repeated values), and the
/// spread of the runs' shares below the rank's key measures by how much.
/// Independent keys give 1, runs of equal keys g.
template <class K>
std::vector<key_window<K>> plan_windows(std::vector<K>& sample, int g, std::int64_t n,
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

  struct span_of_sample {
    std::int64_t first, last;  // sample positions, may lie outside [0, s)
  };
  std::vector<span_of_sample> spans(ranks.size());
  std::vector<std::int64_t> ends;
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    const double p = (static_cast<double>(ranks[i]) + 0.5) / static_cast<double>(n);
    double deff = 1.0;
    if (g > 1) {
      const K x = ord[static_cast<std::size_t>(at[i])];
      double sum = 0, sum_sq = 0;
      for (std::int64_t r = 0; r < runs; ++r) {
        int below = 0;
        for (int u = 0; u < g; ++u) below += sample[static_cast<std::size_t>(r * g + u)] < x ? 1 : 0;
        const double share = static_cast<double>(below) / g;
        sum += share;
        sum_sq += share * share;
      }
      const double mean = sum / static_cast<double>(runs);
      const double var = sum_sq / static_cast<double>(runs) - mean * mean;
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
  select_positions(ord.data(), s, std::span<const std::int64_t>(ends));

  // One window per rank, then merged where their keys meet (windows must be
  // disjoint in pre-key order for the pass's boundaries to ascend).
  std::vector<key_window<K>> out;
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    const span_of_sample sp = spans[i];
    key_window<K> w{sp.first >= 0 ? ord[static_cast<std::size_t>(sp.first)] : K(0),
                    sp.last < s ? ord[static_cast<std::size_t>(sp.last)] : std::numeric_limits<K>::max(),
                    static_cast<std::int64_t>(i), static_cast<std::int64_t>(i) + 1, 0.0};
    // Centres ascend with the ranks, but a wider later window may reach below an
    // earlier one: absorb every window it overlaps.
    while (!out.empty() && w.lo <= out.back().hi) {
      w.lo = std::min(w.lo, out.back().lo);
      w.hi = std::max(w.hi, out.back().hi);
      w.first_rank = out.back().first_rank;
      out.pop_back();
    }
    out.push_back(w);
  }
  for (key_window<K>& w : out) {
    const auto inside = std::count_if(sample.begin(), sample.end(), [&](K k) { return w.lo <= k && k <= w.hi; });
    w.fraction = static_cast<double>(inside) / static_cast<double>(s);
  }
  return out;
}

}  // namespace kselect::cpu
