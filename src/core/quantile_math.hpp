// NumPy's quantile recipe (numpy.quantile, `method=` of numpy >= 1.22; for linear,
// lower, higher, nearest and midpoint it equals the older `interpolation=`), as pure
// functions shared by every backend: which order statistics a quantile needs and how
// to combine them.
//
// Reproduced from numpy/lib/_function_base_impl.py (_quantile, _QuantileMethods,
// _compute_virtual_index, _get_indexes, _get_gamma, _lerp,
// _discrete_interpolation_to_boundaries), checked against numpy 2.4 (see
// tests/cpu/quantile_math_test.cpp and quantile_numpy_test.cpp). n values v[0..n),
// ascending; every product below is rounded on its own (never fused into an FMA).
// Interpolating methods, on a virtual index x:
//   linear  : x = (n - 1) * q.
//   hazen, weibull, median_unbiased, normal_unbiased, interpolated_inverted_cdf
//           : x = n*q + (alpha + q*(1 - alpha - beta)) - 1, evaluated in that order, with
//             (alpha, beta) = (1/2, 1/2), (0, 0), (1/3, 1/3), (3/8, 3/8), (0, 1).
//   all, from x: a = v[floor x], b = v[floor x + 1], t = x - floor x; when x >= n - 1
//             NumPy takes a = b = v[n-1] and t = x + 1 (it sets both indexes to -1 first);
//             when x < 0 (the H&F methods at small q) a = b = v[0] and t = x.
//   midpoint: a and b as linear's on x' = (floor h + ceil h) / 2, h = (n - 1) * q; t = 0.5,
//             or 0 when x' is whole.
//   averaged_inverted_cdf: a and b on x = n*q - 1; t = 0.5 where x is whole and
//             0 <= x < n - 1, else 1 (b, through the lerp).
// Methods that answer one element (h = (n - 1) * q):
//   lower   : v[floor h];  higher: v[ceil h];  nearest: v[round h], ties to even (np.around).
//   inverted_cdf: i = n*q - 1, the element at floor i when i is whole, else floor i + 1.
//   closest_observation: i = n*q - 1 - 0.5, the element at floor i when i is whole and
//             odd, else floor i + 1 (H&F's "nearest even order statistic", 1-based).
//   Both clip an index below 0 to 0 (and never exceed n - 1, since q <= 1).
// lerp(a, b, t) = a + d*t, or b - d*(1 - t) when t >= 0.5, where d = b - a.
// Consequences kept on purpose, because they are NumPy's answers: an infinity next to
// an interpolated position gives NaN (inf*0, inf - inf), e.g. quantile([1, inf], 0) is NaN.
//
// Result types:
//  - double input: bit-identical to NumPy.
//  - float input: NumPy returns float64 for an array of q (d = b - a is computed in
//    float32, the rest in float64) and float32 only for a Python scalar q (everything in
//    float32, including h, which loses ranks beyond n = 2^24). kselect returns float:
//    the float64 NumPy result for an array q, rounded once to float32.
//  - integer input: doubles, as NumPy's interpolating methods. d = b - a is computed
//    exactly; NumPy computes it in the integer type and wraps on overflow (e.g. int32
//    [-2^31, 2^31-1]); apart from that case the result is bit-identical to NumPy's.
//    The element methods (lower, higher, nearest, inverted_cdf, closest_observation)
//    return the element converted to double (NumPy keeps the integer dtype; int64
//    beyond 2^53 therefore rounds).
#pragma once

#include <math.h>

#include <cmath>
#include <cstdint>
#include <span>
#include <type_traits>

#include "hd.hpp"
#include "kselect/types.hpp"

namespace kselect::core {

/// How one quantile is computed from the ascending sorted values v[0..n).
struct quantile_point {
  std::int64_t lo;   ///< rank of a = v[lo]
  std::int64_t hi;   ///< rank of b = v[hi]; equals lo when interpolate is false
  double gamma;      ///< lerp weight t (unused when interpolate is false)
  bool interpolate;  ///< false: the result is a itself (the methods that answer an element)
};

namespace detail {

// A product the compiler may not fuse with the following add (GCC contracts
// a + b*c into an FMA by default for C++ where the target has one, and nvcc
// always may, which would change the last bit compared with NumPy's separate
// multiply and add).
KSELECT_HD double unfused_product(double x, double y) {
#if defined(__CUDA_ARCH__)
  return __dmul_rn(x, y);
#else
  volatile double p = x * y;
  return p;
#endif
}

KSELECT_HD std::int64_t clamp_rank(double index, std::int64_t n) {
  // Only reachable for n > 2^53, where double(n - 1) rounds up.
  if (index >= static_cast<double>(n - 1)) return n - 1;
  return index > 0 ? static_cast<std::int64_t>(index) : 0;
}

// np.around: round half to even (independent of the FP rounding mode).
KSELECT_HD double round_half_even(double h) {
  const double f = ::floor(h);
  const double frac = h - f;  // exact for h >= 0
  if (frac > 0.5) return f + 1;
  if (frac < 0.5) return f;
  return ::fmod(f, 2.0) == 0 ? f : f + 1;
}

// How an interpolating method turns its virtual index into the lerp weight t
// (NumPy's fix_gamma).
enum class gamma_rule {
  fraction,  // t = v - previous index, as _get_gamma leaves it
  midpoint,  // 0.5, or 0 where v is whole
  averaged,  // averaged_inverted_cdf: 0.5 where v - previous is 0, else 1
};

// Interpolation at virtual index v, as _get_indexes + _get_gamma.
KSELECT_HD quantile_point interpolated(std::int64_t n, double v, gamma_rule rule) {
  quantile_point p{};
  p.interpolate = true;
  double previous;
  if (v < 0) {
    previous = 0.0;  // NumPy's index 0, the first value, for both neighbours
    p.lo = p.hi = 0;
  } else if (v >= static_cast<double>(n - 1)) {
    previous = -1.0;  // NumPy's index -1, i.e. the last value, for both neighbours
    p.lo = p.hi = n - 1;
  } else {
    previous = ::floor(v);
    p.lo = clamp_rank(previous, n);
    p.hi = p.lo + 1;
  }
  p.gamma = v - previous;
  if (rule == gamma_rule::midpoint) p.gamma = ::fmod(v, 1.0) == 0 ? 0.0 : 0.5;
  if (rule == gamma_rule::averaged) p.gamma = p.gamma == 0 ? 0.5 : 1.0;
  return p;
}

KSELECT_HD quantile_point exact_point(std::int64_t n, double index) {
  const std::int64_t r = clamp_rank(index, n);
  return quantile_point{r, r, 0.0, false};
}

// inverted_cdf and closest_observation (_discrete_interpolation_to_boundaries): the
// element after floor(index), or the one at floor(index) when index is whole (and,
// with odd_only, odd). clamp_rank clips an index below 0 to 0, as NumPy does.
KSELECT_HD quantile_point boundary_point(std::int64_t n, double index, bool odd_only) {
  const double previous = ::floor(index);
  const bool whole = index - previous == 0;
  // fmod keeps the sign: -1 counts as odd here as in NumPy's floor modulo (and clips to 0).
  const bool keep = whole && (!odd_only || ::fmod(previous, 2.0) != 0);
  return exact_point(n, keep ? previous : previous + 1.0);
}

// Hyndman & Fan's continuous virtual index, evaluated as NumPy's
// _compute_virtual_index: n*q + (alpha + q*(1 - alpha - beta)) - 1.
KSELECT_HD double hyndman_fan_index(std::int64_t n, double q, double alpha, double beta) {
  const double shift = alpha + unfused_product(q, 1.0 - alpha - beta);
  return unfused_product(static_cast<double>(n), q) + shift - 1.0;
}

}  // namespace detail

/// quantile_point_for without the check of m (host and device): n >= 1, q in [0, 1],
/// m one of the thirteen methods (a value outside the enum is taken as linear).
KSELECT_HD quantile_point quantile_point_of(std::int64_t n, double q, quantile_method m) {
  using detail::gamma_rule;
  using detail::hyndman_fan_index;
  using detail::interpolated;
  const double h = static_cast<double>(n - 1) * q;
  // For n*q - 1: unfused, or the compiler may make it fma(n, q, -1), rounded once.
  const double nq = detail::unfused_product(static_cast<double>(n), q);
  switch (m) {
    case quantile_method::midpoint:
      return interpolated(n, 0.5 * (::floor(h) + ::ceil(h)), gamma_rule::midpoint);
    case quantile_method::lower:
      return detail::exact_point(n, ::floor(h));
    case quantile_method::higher:
      return detail::exact_point(n, ::ceil(h));
    case quantile_method::nearest:
      return detail::exact_point(n, detail::round_half_even(h));
    case quantile_method::inverted_cdf:
      return detail::boundary_point(n, nq - 1.0, false);
    case quantile_method::averaged_inverted_cdf:
      return interpolated(n, nq - 1.0, gamma_rule::averaged);
    case quantile_method::closest_observation:
      return detail::boundary_point(n, nq - 1.0 - 0.5, true);
    case quantile_method::interpolated_inverted_cdf:
      return interpolated(n, hyndman_fan_index(n, q, 0.0, 1.0), gamma_rule::fraction);
    case quantile_method::hazen:
      return interpolated(n, hyndman_fan_index(n, q, 0.5, 0.5), gamma_rule::fraction);
    case quantile_method::weibull:
      return interpolated(n, hyndman_fan_index(n, q, 0.0, 0.0), gamma_rule::fraction);
    case quantile_method::median_unbiased:
      return interpolated(n, hyndman_fan_index(n, q, 1.0 / 3.0, 1.0 / 3.0), gamma_rule::fraction);
    case quantile_method::normal_unbiased:
      return interpolated(n, hyndman_fan_index(n, q, 3.0 / 8.0, 3.0 / 8.0), gamma_rule::fraction);
    case quantile_method::linear:
    default:
      return interpolated(n, h, gamma_rule::fraction);
  }
}

/// Whether m is one of the enum's values (a cast int may be anything).
KSELECT_HD constexpr bool is_quantile_method(quantile_method m) {
  return static_cast<int>(m) >= static_cast<int>(quantile_method::linear) &&
         static_cast<int>(m) <= static_cast<int>(quantile_method::normal_unbiased);
}

/// The ranks and weight NumPy uses for quantile q of n sorted values. n >= 1, q in [0, 1].
/// Throws std::invalid_argument for a quantile_method value outside the enum.
quantile_point quantile_point_for(std::int64_t n, double q, quantile_method m);

/// Throws std::invalid_argument naming the first q that is NaN or outside [0, 1]
/// and its index ("kselect: qs[3] = 1.5 is outside [0, 1]").
void validate_quantiles(std::span<const double> qs);

/// NumPy's _lerp: a + d*t, or b - d*(1 - t) when t >= 0.5, with d = b - a already
/// computed in the input type's arithmetic (see lerp_difference). Never fused into FMAs.
KSELECT_HD double numpy_lerp(double a, double b, double d, double t) {
  // NumPy evaluates a + d*t everywhere, then overwrites with b - d*(1-t) where t >= 0.5.
  if (t >= 0.5) return b - detail::unfused_product(d, 1.0 - t);
  return a + detail::unfused_product(d, t);
}

/// b - a as NumPy computes it before interpolating: in the floating input type (so a
/// float difference is rounded to float and may overflow to inf), exactly for integers.
/// 16-bit floating keys come as their float values (the difference is taken in float).
template <class T>
KSELECT_HD double lerp_difference(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    const T d = b - a;
    return static_cast<double>(d);
  } else if constexpr (std::is_signed_v<T>) {
    // b >= a (sorted), so the difference fits the unsigned type without loss.
    using U = std::make_unsigned_t<T>;
    return static_cast<double>(static_cast<U>(static_cast<U>(b) - static_cast<U>(a)));
  } else {
    return static_cast<double>(b - a);
  }
}

/// A key as combine() takes it, and as it compares: float16 and bfloat16 as their float
/// values (exact, and in the same order), other keys as they are. Host only.
template <class T>
auto arithmetic_value(T x) {
  if constexpr (is_half_key_v<T>) {
    return to_float(x);
  } else {
    return x;
  }
}

/// numpy.median of n >= 1 sorted values from the middle ones, a = v[(n - 1) / 2] and
/// b = v[n / 2] (one element when n is odd): those are linear's neighbours at q = 0.5.
/// NumPy takes np.mean of the one or two, that is a, or a + b halved in the result
/// type (float stays float, integers become double) -- not quantile(v, 0.5)'s lerp in
/// double, which can round differently and overflows differently: for float
/// a = -3e38, b = 3e38 the median is 0 and the lerp -inf. T: float, double, an
/// integer, or a 16-bit key's float value (arithmetic_value).
template <class T>
KSELECT_HD quantile_value_t<T> median_of(std::int64_t n, T a, T b) {
  using R = quantile_value_t<T>;
  if (n % 2 == 1) return static_cast<R>(a);
  const R sum = static_cast<R>(a) + static_cast<R>(b);
  return sum / R(2);
}

/// The quantile from the values at p.lo (a) and p.hi (b); T float, double or an integer.
template <class T>
KSELECT_HD quantile_value_t<T> combine(const quantile_point& p, T a, T b) {
  using R = quantile_value_t<T>;
  if (!p.interpolate) return static_cast<R>(a);
  const double r = numpy_lerp(static_cast<double>(a), static_cast<double>(b),
                              lerp_difference(a, b), p.gamma);
  return static_cast<R>(r);  // float: the float64 result rounded once
}

}  // namespace kselect::core
