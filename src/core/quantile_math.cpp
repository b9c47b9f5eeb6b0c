#include "quantile_math.hpp"

#include <cstdio>
#include <stdexcept>
#include <string>

namespace kselect::core {

quantile_point quantile_point_for(std::int64_t n, double q, quantile_method m) {
  if (is_quantile_method(m)) return quantile_point_of(n, q, m);
  throw std::invalid_argument("kselect: unknown quantile_method value " +
                              std::to_string(static_cast<int>(m)));
}

void validate_quantiles(std::span<const double> qs) {
  for (std::size_t i = 0; i < qs.size(); ++i) {
    const double q = qs[i];
    if (q >= 0.0 && q <= 1.0) continue;
    const std::string where = "kselect: qs[" + std::to_string(i) + "]";
    if (std::isnan(q)) throw std::invalid_argument(where + " is NaN; each q must lie in [0, 1]");
    char value[64];
    std::snprintf(value, sizeof value, "%.17g", q);
    throw std::invalid_argument(where + " = " + value + " is outside [0, 1]");
  }
}

}  // namespace kselect::core
