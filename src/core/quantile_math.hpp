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

#include <cmath>
#include <cstdint>
#include <span>
#include <type_traits>

#include "kselect/types.hpp"

namespace kselect::core {

/// How one quantile is computed from the ascending sorted values v[0..n).
struct quantile_point {
  std::int64_t lo;   ///< rank of a = v[lo]
  std::int64_t hi;   ///< rank of b = v[hi]; equals lo when interpolate is false
  double gamma;      ///< lerp weight t (unused when interpolate is false)
  bool interpolate;  ///< false: the result is a itself (lower, higher, nearest)
};

/// The ranks and weight NumPy uses for quantile q of n sorted values. n >= 1, q in [0, 1].
quantile_point quantile_point_for(std::int64_t n, double q, quantile_method m);

/// Throws std::invalid_argument naming the first q that is NaN or outside [0, 1]
/// and its index ("kselect: qs[3] = 1.5 is outside [0, 1]").
void validate_quantiles(std::span<const double> qs);

/// NumPy's _lerp: a + d*t, or b - d*(1 - t) when t >= 0.5, with d = b - a already
/// computed in the input type's arithmetic (see lerp_difference). Never fused into FMAs.
double numpy_lerp(double a, double b, double d, double t);

/// b - a as NumPy computes it before interpolating: in the floating input type (so a
/// float difference is rounded to float and may overflow to inf), exactly for integers.
template <class T>
double lerp_difference(T a, T b) {
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

/// The quantile from the values at p.lo (a) and p.hi (b).
template <class T>
quantile_value_t<T> combine(const quantile_point& p, T a, T b) {
  using R = quantile_value_t<T>;
  if (!p.interpolate) return static_cast<R>(a);
  const double r = numpy_lerp(static_cast<double>(a), static_cast<double>(b),
                              lerp_difference(a, b), p.gamma);
  return static_cast<R>(r);  // float: the float64 result rounded once
}

}  // namespace kselect::core
