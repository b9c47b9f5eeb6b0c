// numpy.quantile / numpy.nanquantile on top of any multiselect: which order statistics
// to ask for, and how to turn them into the answers (the formulas are in
// quantile_math.hpp). Shared by the owning API (src/api/quantile_api.cpp) and the
// distributed one (src/mpi/), so both give NumPy's answers bit for bit the same way.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <span>
#include <type_traits>
#include <vector>

#include "core/quantile_math.hpp"
#include "core/ranks.hpp"

namespace kselect::core {

/// quantile (ignore_nan = false) or nanquantile (true) of n values of which `valid`
/// are not NaN (valid == n for quantile and for integer types). select_sorted(ranks)
/// returns the values at the given ranks (ascending, unique, in [0, n)) of the
/// ascending order with NaN last. qs and m are validated by the caller.
template <class T, class SelectSorted>
std::vector<quantile_value_t<T>> quantiles_by_order_statistics(std::int64_t n, std::int64_t valid,
                                                               std::span<const double> qs,
                                                               quantile_method m, bool ignore_nan,
                                                               SelectSorted&& select_sorted) {
  using R = quantile_value_t<T>;
  constexpr bool floating = std::is_floating_point_v<T>;
  if (qs.empty()) return {};
  if (valid == 0) return std::vector<R>(qs.size(), std::numeric_limits<R>::quiet_NaN());

  // NaNs sort last, so the order statistics below `valid` are those of the non-NaN values.
  std::vector<quantile_point> points(qs.size());
  std::vector<std::int64_t> ranks;
  ranks.reserve(2 * qs.size() + 1);
  for (std::size_t i = 0; i < qs.size(); ++i) {
    points[i] = quantile_point_for(valid, qs[i], m);
    ranks.push_back(points[i].lo);
    ranks.push_back(points[i].hi);
  }
  // quantile: the maximum is NaN iff the input holds a NaN, and then NumPy answers NaN.
  const bool check_nan = floating && !ignore_nan;
  if (check_nan) ranks.push_back(n - 1);

  const rank_set set = normalize_ranks(ranks, n);
  const std::vector<T> by_rank = select_sorted(set.sorted);
  const std::vector<T> v = in_caller_order(set, std::span<const T>(by_rank));

  if constexpr (floating) {
    // NumPy answers the last element of its partition, a NaN of the input (its sign
    // and payload kept); here the NaN the multiselect returned for rank n - 1.
    if (check_nan && std::isnan(v.back())) return std::vector<R>(qs.size(), static_cast<R>(v.back()));
  }
  std::vector<R> result(qs.size());
  for (std::size_t i = 0; i < qs.size(); ++i) result[i] = combine(points[i], v[2 * i], v[2 * i + 1]);
  return result;
}

}  // namespace kselect::core
