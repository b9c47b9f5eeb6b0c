// NumPy's quantile recipe (numpy.quantile, `method=` of numpy >= 1.22; for these
// five methods it equals the older `interpolation=`), as pure functions shared by
// every backend: which order statistics a quantile needs and how to combine them.
//
// Reproduced from numpy/lib/_function_base_impl.py (_quantile, _get_indexes,
// _get_gamma, _lerp), checked against numpy 2.4 (see tests/cpu/quantile_math_test.cpp):
//   h = double(n - 1) * q                                   (the "virtual index")
//   linear  : a = v[floor h], b = v[floor h + 1], t = h - floor h; when h >= n - 1 NumPy
//             takes a = b = v[n-1] and t = h + 1 (it sets both indexes to -1 first).
//   midpoint: as linear on h' = (floor h + ceil h) / 2, with t = 0.5, or 0 when h' is whole.
//   lower   : v[floor h];  higher: v[ceil h];  nearest: v[round h], ties to even (np.around).
//   lerp(a, b, t) = a + d*t, or b - d*(1 - t) when t >= 0.5, where d = b - a.
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
//    lower/higher/nearest return the element converted to double (NumPy keeps the
//    integer dtype; int64 beyond 2^53 therefore rounds).
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
  bool interpolate;  ///< false: the result is a itself (lower, higher, nearest)
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

// Linear interpolation at virtual index v, as _get_indexes + _get_gamma.
KSELECT_HD quantile_point interpolated(std::int64_t n, double v, bool midpoint) {
  quantile_point p{};
  p.interpolate = true;
  double previous;
  if (v >= static_cast<double>(n - 1)) {
    previous = -1.0;  // NumPy's index -1, i.e. the last value, for both neighbours
    p.lo = p.hi = n - 1;
  } else {
    previous = ::floor(v);
    p.lo = clamp_rank(previous, n);
    p.hi = p.lo + 1;
  }
  p.gamma = v - previous;
  if (midpoint) p.gamma = ::fmod(v, 1.0) == 0 ? 0.0 : 0.5;
  return p;
}

KSELECT_HD quantile_point exact_point(std::int64_t n, double index) {
  const std::int64_t r = clamp_rank(index, n);
  return quantile_point{r, r, 0.0, false};
}

}  // namespace detail

/// quantile_point_for without the check of m (host and device): n >= 1, q in [0, 1],
/// m one of the five methods.
KSELECT_HD quantile_point quantile_point_of(std::int64_t n, double q, quantile_method m) {
  const double h = static_cast<double>(n - 1) * q;
  switch (m) {
    case quantile_method::midpoint:
      return detail::interpolated(n, 0.5 * (::floor(h) + ::ceil(h)), true);
    case quantile_method::lower:
      return detail::exact_point(n, ::floor(h));
    case quantile_method::higher:
      return detail::exact_point(n, ::ceil(h));
    case quantile_method::nearest:
      return detail::exact_point(n, detail::round_half_even(h));
    default:
      return detail::interpolated(n, h, false);
  }
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
