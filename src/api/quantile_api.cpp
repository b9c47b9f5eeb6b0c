// kselect::quantile and kselect::nanquantile (include/kselect/kselect.hpp), on top of
// one multiselect call; the NumPy recipe itself is in src/core/quantile_math.hpp.
#include <cmath>
#include <limits>
#include <type_traits>
#include <vector>

#include "api/dispatch.hpp"
#include "kselect/detail/nvtx.hpp"
#include "kselect/kselect.hpp"
#include "core/quantile_math.hpp"
#include "core/ranks.hpp"

namespace kselect {
namespace {

// numpy.quantile (ignore_nan = false) or numpy.nanquantile (true).
template <class T>
std::vector<quantile_value_t<T>> quantiles_of(const T* values, std::int64_t n,
                                              std::span<const double> qs, quantile_method m,
                                              const options& opt, bool ignore_nan) {
  using R = quantile_value_t<T>;
  constexpr bool floating = std::is_floating_point_v<T>;
  detail::check_input(values, n, opt);
  core::validate_quantiles(qs);
  (void)core::quantile_point_for(1, 0.0, m);  // throws for an invalid method value, before any work
  const detail::backend b = detail::choose_backend(values, opt);
  if (qs.empty()) return {};

  // NaNs sort last, so the order statistics below n - nans are those of the non-NaN values.
  std::int64_t valid = n;
  if (floating && ignore_nan) {
    valid = n - detail::run_count_nan(b, values, n, opt);
    if (valid == 0) return std::vector<R>(qs.size(), std::numeric_limits<R>::quiet_NaN());
  }

  std::vector<core::quantile_point> points(qs.size());
  std::vector<std::int64_t> ranks;
  ranks.reserve(2 * qs.size() + 1);
  for (std::size_t i = 0; i < qs.size(); ++i) {
    points[i] = core::quantile_point_for(valid, qs[i], m);
    ranks.push_back(points[i].lo);
    ranks.push_back(points[i].hi);
  }
  // quantile: the maximum is NaN iff the input holds a NaN, and then NumPy answers NaN.
  const bool check_nan = floating && !ignore_nan;
  if (check_nan) ranks.push_back(n - 1);

  const core::rank_set set = core::normalize_ranks(ranks, n);
  std::vector<T> by_rank(set.sorted.size());
  detail::run_multiselect(b, values, n, set.sorted.data(),
                          static_cast<std::int64_t>(set.sorted.size()), by_rank.data(), opt);
  const std::vector<T> v = core::in_caller_order(set, std::span<const T>(by_rank));

  if constexpr (floating) {
    // NumPy answers the last element of its partition, a NaN of the input (its sign
    // and payload kept); here the last NaN in input order.
    if (check_nan && std::isnan(v.back())) return std::vector<R>(qs.size(), static_cast<R>(v.back()));
  }
  std::vector<R> result(qs.size());
  for (std::size_t i = 0; i < qs.size(); ++i)
    result[i] = core::combine(points[i], v[2 * i], v[2 * i + 1]);
  return result;
}

}  // namespace

template <class T>
std::vector<quantile_value_t<T>> quantile(const T* values, std::int64_t n,
                                          std::span<const double> qs, quantile_method m,
                                          const options& opt) {
  KSELECT_NVTX_RANGE("kselect::quantile");
  return quantiles_of(values, n, qs, m, opt, false);
}

template <class T>
std::vector<quantile_value_t<T>> nanquantile(const T* values, std::int64_t n,
                                             std::span<const double> qs, quantile_method m,
                                             const options& opt) {
  KSELECT_NVTX_RANGE("kselect::nanquantile");
  return quantiles_of(values, n, qs, m, opt, true);
}

#define KSELECT_INSTANTIATE(T)                                                                   \
  template std::vector<quantile_value_t<T>> quantile<T>(const T*, std::int64_t,                 \
                                                        std::span<const double>, quantile_method, \
                                                        const options&);                         \
  template std::vector<quantile_value_t<T>> nanquantile<T>(                                      \
      const T*, std::int64_t, std::span<const double>, quantile_method, const options&);
KSELECT_FOR_EACH_KEY_TYPE(KSELECT_INSTANTIATE)
#undef KSELECT_INSTANTIATE

}  // namespace kselect
