// The reference every backend is checked against: the standard library's sort and
// nth_element under NumPy's order (NaN last, -0.0 == +0.0), and exact value equality.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <span>
#include <type_traits>
#include <vector>

namespace kselect::test {

/// Strict weak order with NaN after everything (NaNs tie); -0.0 ties with +0.0.
template <class T>
bool nan_last_less(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    if (std::isnan(a)) return false;
    if (std::isnan(b)) return true;
  }
  return a < b;
}

/// result[i] = the value at position ranks[i] of `values` sorted ascending (NaN last).
/// Ranks may come in any order and repeat; each must lie in [0, values.size()).
template <class T>
std::vector<T> reference_multiselect(std::vector<T> values, std::span<const std::int64_t> ranks) {
  std::vector<T> result(ranks.size());
  if (ranks.empty()) return result;
  std::vector<std::int64_t> sorted(ranks.begin(), ranks.end());
  std::sort(sorted.begin(), sorted.end());
  sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
  auto less = [](T a, T b) { return nan_last_less(a, b); };
  if (sorted.size() <= 16) {
    // Few ranks: nth_element on what lies right of the previous rank.
    auto lo = values.begin();
    for (const std::int64_t r : sorted) {
      std::nth_element(lo, values.begin() + r, values.end(), less);
      lo = values.begin() + r + 1;
    }
  } else {
    std::sort(values.begin(), values.end(), less);
  }
  for (std::size_t i = 0; i < ranks.size(); ++i) result[i] = values[static_cast<std::size_t>(ranks[i])];
  return result;
}

/// Exact equality of selection results: NaN equals NaN (any payload or sign), -0.0
/// equals +0.0.
template <class T>
bool same_value(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  }
  return a == b;
}

}  // namespace kselect::test
