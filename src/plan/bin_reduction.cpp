#include "bin_reduction.hpp"

#include <algorithm>

#include "buckets.hpp"

namespace kselect::plan {

bin_reduction reduce_to_bins(std::span<const std::uint64_t> hist, std::span<const std::int64_t> ranks) {
  bin_reduction out;
  out.selected.assign((hist.size() + 31) / 32, 0u);
  out.ranks.resize(ranks.size());
  for (const bucket_ranks& g : locate_ranks(hist, ranks)) {
    out.selected[static_cast<std::size_t>(g.bucket) / 32] |= 1u << (g.bucket % 32);
    for (std::int64_t r = g.first_rank; r < g.end_rank; ++r)
      out.ranks[static_cast<std::size_t>(r)] = ranks[static_cast<std::size_t>(r)] - g.offset + out.kept;
    out.kept += g.size;
  }
  return out;
}

double predict_kept_fraction(std::span<const std::uint32_t> bins_of_sample, std::span<const std::int64_t> ranks,
                             std::int64_t n) {
  const auto s = static_cast<std::int64_t>(bins_of_sample.size());
  if (s == 0 || n <= 0) return 1.0;
  std::int64_t kept = 0;
  std::int64_t last_bin = -1;
  for (const std::int64_t r : ranks) {
    const std::int64_t i = std::min<std::int64_t>(s - 1, static_cast<std::int64_t>(
                                                             static_cast<double>(r) / static_cast<double>(n) * s));
    const std::int64_t bin = bins_of_sample[static_cast<std::size_t>(i)];
    if (bin == last_bin) continue;  // ranks are sorted, so a bin's ranks are adjacent
    last_bin = bin;
    const auto lo = std::lower_bound(bins_of_sample.begin(), bins_of_sample.end(), static_cast<std::uint32_t>(bin));
    const auto hi = std::upper_bound(lo, bins_of_sample.end(), static_cast<std::uint32_t>(bin));
    kept += hi - lo;
  }
  return static_cast<double>(kept) / static_cast<double>(s);
}

}  // namespace kselect::plan
