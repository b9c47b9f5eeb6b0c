#include "ranks.hpp"

#include <algorithm>
#include <numeric>
#include <stdexcept>
#include <string>

namespace kselect::core {

void check_rank(std::int64_t rank, std::size_t index, std::int64_t n) {
  if (rank >= 0 && rank < n) return;
  throw std::invalid_argument("kselect: ranks[" + std::to_string(index) + "] = " +
                              std::to_string(rank) + " is outside [0, n) for n = " +
                              std::to_string(n));
}

std::string sorted_ranks_error(const std::int64_t* ranks, std::int64_t num_ranks, std::int64_t n) {
  for (std::int64_t i = 0; i < num_ranks; ++i) {
    if (ranks[i] < 0 || ranks[i] >= n)
      return "kselect: rank " + std::to_string(ranks[i]) + " (ranks[" + std::to_string(i) + "]) is outside [0, " +
             std::to_string(n) + ")";
    if (i > 0 && ranks[i] <= ranks[i - 1])
      return "kselect: ranks must be sorted ascending without duplicates (ranks[" + std::to_string(i - 1) +
             "] = " + std::to_string(ranks[i - 1]) + ", ranks[" + std::to_string(i) + "] = " +
             std::to_string(ranks[i]) + ")";
  }
  return {};
}

rank_set normalize_ranks(std::span<const std::int64_t> ranks, std::int64_t n) {
  rank_set set;
  const std::size_t r = ranks.size();
  bool ascending_unique = true;
  for (std::size_t i = 0; i < r; ++i) {
    check_rank(ranks[i], i, n);
    if (i > 0 && ranks[i] <= ranks[i - 1]) ascending_unique = false;
  }
  set.slot.resize(r);
  if (ascending_unique) {  // the common case: nothing to sort
    set.sorted.assign(ranks.begin(), ranks.end());
    std::iota(set.slot.begin(), set.slot.end(), std::int64_t{0});
    return set;
  }
  std::vector<std::size_t> order(r);
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::sort(order.begin(), order.end(),
            [&](std::size_t x, std::size_t y) { return ranks[x] < ranks[y]; });
  set.sorted.reserve(r);
  for (const std::size_t i : order) {
    if (set.sorted.empty() || set.sorted.back() != ranks[i]) set.sorted.push_back(ranks[i]);
    set.slot[i] = static_cast<std::int64_t>(set.sorted.size() - 1);
  }
  return set;
}

}  // namespace kselect::core
