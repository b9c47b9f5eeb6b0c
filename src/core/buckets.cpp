#include "buckets.hpp"

#include <stdexcept>

namespace kselect::core {

std::vector<bucket_ranks> locate_ranks(std::span<const std::uint64_t> counts,
                                       std::span<const std::int64_t> ranks) {
  std::vector<bucket_ranks> out;
  std::int64_t bucket_begin = 0;
  std::size_t r = 0;
  for (std::size_t b = 0; b < counts.size() && r < ranks.size(); ++b) {
    const std::int64_t bucket_end = bucket_begin + static_cast<std::int64_t>(counts[b]);
    if (ranks[r] < bucket_end) {
      bucket_ranks g{static_cast<int>(b), static_cast<std::int64_t>(r), 0, bucket_begin,
                     bucket_end - bucket_begin};
      while (r < ranks.size() && ranks[r] < bucket_end) ++r;
      g.end_rank = static_cast<std::int64_t>(r);
      out.push_back(g);
    }
    bucket_begin = bucket_end;
  }
  if (r != ranks.size())
    throw std::logic_error("kselect: bucket counts sum to less than a target rank");
  return out;
}

}  // namespace kselect::core
