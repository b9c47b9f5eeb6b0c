#include "quantile_math.hpp"

#include <algorithm>
#include <cstdio>
#include <stdexcept>
#include <string>

namespace kselect::core {
namespace {

// A product the compiler may not fuse with the following add (GCC contracts
// a + b*c into an FMA by default for C++ where the target has one, which would
// change the last bit compared with NumPy's separate multiply and add).
double unfused_product(double x, double y) {
  volatile double p = x * y;
  return p;
}

std::int64_t clamp_rank(double index, std::int64_t n) {
  // Only reachable for n > 2^53, where double(n - 1) rounds up.
  if (index >= static_cast<double>(n - 1)) return n - 1;
  return std::max<std::int64_t>(0, static_cast<std::int64_t>(index));
}

// np.around: round half to even (independent of the FP rounding mode).
double round_half_even(double h) {
  const double f = std::floor(h);
  const double frac = h - f;  // exact for h >= 0
  if (frac > 0.5) return f + 1;
  if (frac < 0.5) return f;
  return std::fmod(f, 2.0) == 0 ? f : f + 1;
}

// Linear interpolation at virtual index v, as _get_indexes + _get_gamma.
quantile_point interpolated(std::int64_t n, double v, bool midpoint) {
  quantile_point p{};
  p.interpolate = true;
  double previous;
  if (v >= static_cast<double>(n - 1)) {
    previous = -1.0;  // NumPy's index -1, i.e. the last value, for both neighbours
    p.lo = p.hi = n - 1;
  } else {
    previous = std::floor(v);
    p.lo = clamp_rank(previous, n);
    p.hi = p.lo + 1;
  }
  p.gamma = v - previous;
  if (midpoint) p.gamma = std::fmod(v, 1.0) == 0 ? 0.0 : 0.5;
  return p;
}

quantile_point exact(std::int64_t n, double index) {
  const std::int64_t r = clamp_rank(index, n);
  return quantile_point{r, r, 0.0, false};
}

}  // namespace

quantile_point quantile_point_for(std::int64_t n, double q, quantile_method m) {
  const double h = static_cast<double>(n - 1) * q;
  switch (m) {
    case quantile_method::linear:
      return interpolated(n, h, false);
    case quantile_method::midpoint:
      return interpolated(n, 0.5 * (std::floor(h) + std::ceil(h)), true);
    case quantile_method::lower:
      return exact(n, std::floor(h));
    case quantile_method::higher:
      return exact(n, std::ceil(h));
    case quantile_method::nearest:
      return exact(n, round_half_even(h));
  }
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

double numpy_lerp(double a, double b, double d, double t) {
  // NumPy evaluates a + d*t everywhere, then overwrites with b - d*(1-t) where t >= 0.5.
  if (t >= 0.5) return b - unfused_product(d, 1.0 - t);
  return a + unfused_product(d, t);
}

}  // namespace kselect::core
