#include "approx.hpp"

namespace kselect::plan {

std::string approx_argument_error(std::int64_t n, std::int64_t num_ranks, std::int64_t max_rank_error,
                                  int buckets) {
  if (n <= 0) return "kselect: empty input (n = " + std::to_string(n) + ")";
  if (n >= (std::int64_t(1) << 40)) return "kselect: n = " + std::to_string(n) + " exceeds 2^40";
  if (num_ranks < 0) return "kselect: num_ranks is negative";
  if (max_rank_error < 0)
    return "kselect: max_rank_error is negative (" + std::to_string(max_rank_error) + ")";
  if (buckets < approx_min_buckets || buckets > approx_max_buckets)
    return "kselect: buckets = " + std::to_string(buckets) + " is outside [" + std::to_string(approx_min_buckets) +
           ", " + std::to_string(approx_max_buckets) + "]";
  return {};
}

std::vector<std::int64_t> approx_keys_below(std::span<const std::uint64_t> counts) {
  std::vector<std::int64_t> below(counts.size() / 2);
  std::uint64_t sum = 0;
  for (std::size_t b = 0; b < counts.size(); ++b) {
    if (b % 2 == 1) below[b / 2] = static_cast<std::int64_t>(sum);
    sum += counts[b];
  }
  return below;
}

approx_fallback collect_fallback(std::span<const std::uint8_t> needs_exact, std::span<const std::int64_t> ranks) {
  approx_fallback f;
  for (std::size_t i = 0; i < needs_exact.size(); ++i) {
    if (needs_exact[i] == 0) continue;
    f.index.push_back(static_cast<std::int64_t>(i));
    f.ranks.push_back(ranks[i]);
  }
  return f;
}

}  // namespace kselect::plan
