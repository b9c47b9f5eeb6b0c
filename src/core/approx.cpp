#include "approx.hpp"

#include <algorithm>

namespace kselect::core {

std::string approx_argument_error(std::int64_t n, std::int64_t num_ranks, std::int64_t max_rank_error,
                                  int buckets) {
  if (std::string problem = kselect::detail::input_size_error(n); !problem.empty()) return problem;
  if (num_ranks < 0) return "kselect: num_ranks is negative";
  if (max_rank_error < 0)
    return "kselect: max_rank_error is negative (" + std::to_string(max_rank_error) + ")";
  if (buckets < approx_min_buckets || buckets > approx_max_buckets)
    return "kselect: buckets = " + std::to_string(buckets) + " is outside [" + std::to_string(approx_min_buckets) +
           ", " + std::to_string(approx_max_buckets) + "]";
  return {};
}

sample_window approx_ranks_window(std::int64_t n, std::span<const std::int64_t> ranks) {
  constexpr std::int64_t s = approx_sample_size;
  sample_window hull{s, -1};
  for (const std::int64_t r : ranks) {
    const sample_window w = predict_window(r, n, s, approx_window_sigmas, approx_window_margin);
    hull.first = std::min(hull.first, w.first);
    hull.last = std::max(hull.last, w.last);
  }
  hull.first = std::clamp<std::int64_t>(hull.first, 0, s - 1);
  hull.last = std::clamp<std::int64_t>(hull.last, hull.first, s - 1);
  return hull;
}

std::int64_t approx_window_step(std::int64_t n, std::int64_t max_rank_error) {
  // max_rank_error / 2 ranks, in sample positions of n / sample ranks each; an
  // error above n means nothing more (n < 2^40: the product stays below 2^55).
  const std::int64_t bound = std::min(max_rank_error, n);
  return std::max<std::int64_t>(1, bound * approx_sample_size / (2 * n));
}

approx_candidates approx_choose_candidates(std::int64_t n, std::span<const std::int64_t> ranks,
                                           std::int64_t max_rank_error, int buckets, bool allow_window) {
  const approx_candidates histogram = approx_histogram_candidates(buckets);
  if (!allow_window || ranks.empty() || max_rank_error <= 0 || n <= 0) return histogram;
  const sample_window w = approx_ranks_window(n, ranks);
  const std::int64_t width = w.last - w.first;
  if (width > approx_window_max_width) return histogram;
  const std::int64_t step = approx_window_step(n, max_rank_error);
  const std::int64_t wanted = (width + step - 1) / step + 1;
  const auto count = static_cast<std::int32_t>(std::min<std::int64_t>(wanted, buckets - 1));
  return {w.first, width, count, true};
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

}  // namespace kselect::core
