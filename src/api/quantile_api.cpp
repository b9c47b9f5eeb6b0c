// kselect::quantile and kselect::nanquantile (include/kselect/kselect.hpp), on top of
// one multiselect call; the NumPy recipe is in src/core/quantile_recipe.hpp and
// quantile_math.hpp.
#include <type_traits>
#include <vector>

#include "api/dispatch.hpp"
#include "kselect/detail/nvtx.hpp"
#include "kselect/kselect.hpp"
#include "core/quantile_math.hpp"
#include "core/quantile_recipe.hpp"

namespace kselect {
namespace {

// numpy.quantile (ignore_nan = false) or numpy.nanquantile (true).
template <class T>
std::vector<quantile_value_t<T>> quantiles_of(const T* values, std::int64_t n,
                                              std::span<const double> qs, quantile_method m,
                                              const options& opt, bool ignore_nan) {
  detail::check_input(values, n, opt);
  core::validate_quantiles(qs);
  (void)core::quantile_point_for(1, 0.0, m);  // throws for an invalid method value, before any work
  const detail::backend b = detail::choose_backend(values, opt, detail::host_input::stream);
  if (qs.empty()) return {};
  const std::int64_t valid =
      std::is_floating_point_v<T> && ignore_nan ? n - detail::run_count_nan(b, values, n, opt) : n;
  return core::quantiles_by_order_statistics<T>(
      n, valid, qs, m, ignore_nan, [&](const std::vector<std::int64_t>& ranks) {
        std::vector<T> by_rank(ranks.size());
        detail::run_multiselect(b, values, n, ranks.data(), static_cast<std::int64_t>(ranks.size()),
                                by_rank.data(), opt);
        return by_rank;
      });
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
