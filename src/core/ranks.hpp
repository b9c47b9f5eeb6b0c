// Rank lists as callers give them (any order, repeats allowed) versus as backends
// take them (ascending, unique, validated): the conversion and the way back.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace kselect::core {

/// A caller's rank list, normalised for a backend.
struct rank_set {
  std::vector<std::int64_t> sorted;  ///< ascending, unique, each in [0, n)
  std::vector<std::int64_t> slot;    ///< slot[i]: index into `sorted` of the caller's ranks[i]
};

/// Throws std::invalid_argument when ranks[index] = rank is outside [0, n); the
/// message names the index, the value and n.
void check_rank(std::int64_t rank, std::size_t index, std::int64_t n);

/// Why `ranks` (num_ranks of them) is not sorted ascending, unique and inside
/// [0, n), or "" if it is: the device API's check of the host ranks it is given.
std::string sorted_ranks_error(const std::int64_t* ranks, std::int64_t num_ranks, std::int64_t n);

/// Validates every rank (check_rank) and builds the sorted unique list plus the map
/// back to the caller's order. O(r) when `ranks` is already ascending and unique.
rank_set normalize_ranks(std::span<const std::int64_t> ranks, std::int64_t n);

/// Results per sorted rank, put back in the caller's order: out[i] = by_sorted[slot[i]].
template <class V>
std::vector<V> in_caller_order(const rank_set& set, std::span<const V> by_sorted) {
  std::vector<V> out(set.slot.size());
  for (std::size_t i = 0; i < out.size(); ++i)
    out[i] = by_sorted[static_cast<std::size_t>(set.slot[i])];
  return out;
}

}  // namespace kselect::core
