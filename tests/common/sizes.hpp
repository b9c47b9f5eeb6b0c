// Input sizes and rank lists the suites sweep.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "common/rng.hpp"

namespace kselect::test {

/// 0, 1, n/2, n - 1 and `random_count` random ranks: sorted, unique, each in [0, n).
/// Empty for n <= 0.
inline std::vector<std::int64_t> standard_ranks(std::int64_t n, int random_count, std::uint64_t seed) {
  std::vector<std::int64_t> ranks;
  if (n <= 0) return ranks;
  for (const std::int64_t r : {std::int64_t{0}, std::int64_t{1}, n / 2, n - 1})
    if (r < n) ranks.push_back(r);
  for (int i = 0; i < random_count; ++i)
    ranks.push_back(static_cast<std::int64_t>(random_word(seed, static_cast<std::uint64_t>(i)) %
                                              static_cast<std::uint64_t>(n)));
  std::sort(ranks.begin(), ranks.end());
  ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
  return ranks;
}

/// 0, 1, 2, 3, 31, 32, 33, then 2^k - 1, 2^k, 2^k + 1 for k >= 6, and max itself:
/// every size <= max, ascending.
inline std::vector<std::int64_t> test_sizes(std::int64_t max) {
  std::vector<std::int64_t> sizes = {0, 1, 2, 3, 31, 32, 33};
  for (int k = 6; k < 62 && (std::int64_t{1} << k) - 1 <= max; ++k)
    for (const std::int64_t d : {-1, 0, 1}) sizes.push_back((std::int64_t{1} << k) + d);
  if (max >= 0) sizes.push_back(max);
  sizes.erase(std::remove_if(sizes.begin(), sizes.end(), [max](std::int64_t s) { return s > max; }),
              sizes.end());
  std::sort(sizes.begin(), sizes.end());
  sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
  return sizes;
}

}  // namespace kselect::test
