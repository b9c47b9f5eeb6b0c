// The reference for top-k and rank ranges: std::stable_sort of the indices by value
// under NumPy's order (reference.hpp's nan_last_less: NaN last, all NaNs tie, -0.0
// ties with +0.0), so ties keep ascending index order in both directions, exactly
// as kselect defines positions. Header-only, host code (CPU and GPU suites).
#pragma once

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <span>
#include <vector>

#include "common/reference.hpp"

namespace kselect::test {

/// The input's indices in stable-sort order: ascending values, or descending
/// (NaN first); equal values by ascending index either way.
template <class T>
std::vector<std::int64_t> stable_order(const T* input, std::int64_t n, bool descending) {
  std::vector<std::int64_t> order(static_cast<std::size_t>(n > 0 ? n : 0));
  std::iota(order.begin(), order.end(), std::int64_t{0});
  if (descending) {
    std::stable_sort(order.begin(), order.end(),
                     [input](std::int64_t a, std::int64_t b) { return nan_last_less(input[b], input[a]); });
  } else {
    std::stable_sort(order.begin(), order.end(),
                     [input](std::int64_t a, std::int64_t b) { return nan_last_less(input[a], input[b]); });
  }
  return order;
}

/// The exact answer of a range selection: values (copied from the input) and indices.
template <class T>
struct range_answer {
  std::vector<T> values;
  std::vector<std::int64_t> indices;
};

/// Positions [lo, hi) of `order` (stable_order's result for the same direction):
/// in that order when sorted, else in ascending index order.
template <class T>
range_answer<T> reference_range(const T* input, std::span<const std::int64_t> order, std::int64_t lo,
                                std::int64_t hi, bool sorted) {
  range_answer<T> r;
  r.indices.assign(order.begin() + lo, order.begin() + hi);
  if (!sorted) std::sort(r.indices.begin(), r.indices.end());
  r.values.reserve(r.indices.size());
  for (const std::int64_t i : r.indices) r.values.push_back(input[i]);
  return r;
}

/// reference_range on its own stable order.
template <class T>
range_answer<T> reference_range(const T* input, std::int64_t n, std::int64_t lo, std::int64_t hi,
                                bool descending, bool sorted) {
  const std::vector<std::int64_t> order = stable_order(input, n, descending);
  return reference_range(input, std::span<const std::int64_t>(order), lo, hi, sorted);
}

}  // namespace kselect::test
