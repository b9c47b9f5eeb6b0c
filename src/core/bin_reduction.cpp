#include "bin_reduction.hpp"

#include <algorithm>

#include "bin_map.hpp"
#include "buckets.hpp"

namespace kselect::core {

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
  for (std::int64_t k = 0; k < static_cast<std::int64_t>(ranks.size()); ++k)
    kept += predicted_sample_keys(bins_of_sample.data(), s, ranks.data(), k, n);
  return static_cast<double>(kept) / static_cast<double>(s);
}

}  // namespace kselect::core
