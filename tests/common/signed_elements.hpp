// Inputs whose equal elements differ in bits (-0.0 and +0.0; NaNs of either sign and
// several payloads), and the reference that says which element each answer must be:
// the one at that position of the ascending stable sort (ties by input index), bit
// for bit. Shared by the CPU and GPU suites.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "common/rng.hpp"
#include "kselect/types.hpp"
#include "core/key_traits.hpp"
#include "core/quantile_math.hpp"

namespace kselect::test {

/// The bits of a value, for exact comparison (NaN == NaN, -0.0 != +0.0).
template <class T>
core::key_t<T> bits_of(T v) {
  return core::key_traits<T>::bits_of(v);
}

/// A quiet NaN with the given sign and payload (the payload's low bits).
template <class T>
T nan_with(bool negative, std::uint64_t payload) {
  using traits = core::key_traits<T>;
  using U = core::key_t<T>;
  constexpr U quiet = (traits::mantissa_mask >> 1) + 1;  // the mantissa's top bit
  const U sign = negative ? traits::sign_bit : U(0);
  const U low = static_cast<U>(payload) & (quiet - 1);
  return traits::from_bits(static_cast<U>(sign | traits::exponent_mask | quiet | low));
}

/// The kinds of input the tests run.
enum class signed_mix {
  negative_zeros,  ///< zeros are all -0.0, with +-1
  positive_zeros,  ///< zeros are all +0.0, with +-1
  mixed_zeros,     ///< -0.0 and +0.0 with +-1 (the issue's {+-0, +-1} arrays)
  only_zeros,      ///< -0.0 and +0.0 only
  negative_nans,   ///< values in [0, 1) and NaNs with the sign bit set
  mixed_nans,      ///< values, NaNs of both signs and several payloads, and +-0
};

inline std::vector<signed_mix> all_signed_mixes() {
  return {signed_mix::negative_zeros, signed_mix::positive_zeros, signed_mix::mixed_zeros,
          signed_mix::only_zeros,     signed_mix::negative_nans,  signed_mix::mixed_nans};
}

inline std::string name(signed_mix m) {
  switch (m) {
    case signed_mix::negative_zeros: return "negative_zeros";
    case signed_mix::positive_zeros: return "positive_zeros";
    case signed_mix::mixed_zeros: return "mixed_zeros";
    case signed_mix::only_zeros: return "only_zeros";
    case signed_mix::negative_nans: return "negative_nans";
    case signed_mix::mixed_nans: return "mixed_nans";
  }
  return "?";
}

template <class T>
std::vector<T> generate_signed(signed_mix m, std::int64_t n, std::uint64_t seed) {
  std::vector<T> v(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) {
    const std::uint64_t w = random_word(seed, static_cast<std::uint64_t>(i));
    const int pick = static_cast<int>(w % 4);
    T x{};
    switch (m) {
      case signed_mix::negative_zeros: x = pick == 0 ? T(-1) : pick == 3 ? T(1) : T(-0.0); break;
      case signed_mix::positive_zeros: x = pick == 0 ? T(-1) : pick == 3 ? T(1) : T(0.0); break;
      case signed_mix::mixed_zeros: x = pick == 0 ? T(-1) : pick == 1 ? T(-0.0) : pick == 2 ? T(0.0) : T(1); break;
      case signed_mix::only_zeros: x = (w >> 8) % 2 ? T(-0.0) : T(0.0); break;
      case signed_mix::negative_nans:
        x = pick == 0 ? nan_with<T>(true, 0) : static_cast<T>(unit_double(w));
        break;
      case signed_mix::mixed_nans:
        x = pick == 0 ? nan_with<T>((w >> 8) % 2, (w >> 16) % 5) : pick == 1 ? ((w >> 8) % 2 ? T(-0.0) : T(0.0))
                                                                             : static_cast<T>(unit_double(w));
        break;
    }
    v[static_cast<std::size_t>(i)] = x;
  }
  return v;
}

/// The input in ascending stable order (key_traits order, ties by index).
template <class T>
std::vector<T> stable_sorted(std::vector<T> v) {
  std::stable_sort(v.begin(), v.end(), [](T a, T b) {
    return core::key_traits<T>::to_key(a) < core::key_traits<T>::to_key(b);
  });
  return v;
}

/// NumPy's quantile recipe over the stable sort's elements: what np.quantile answers
/// when its partition puts the same elements at these positions (always, when all
/// the input's zeros share a sign and all its NaNs share their bits).
template <class T>
std::vector<quantile_value_t<T>> stable_quantiles(const std::vector<T>& sorted, std::span<const double> qs,
                                                  quantile_method m) {
  using R = quantile_value_t<T>;
  const auto n = static_cast<std::int64_t>(sorted.size());
  std::vector<R> out;
  for (const double q : qs) {
    if (std::isnan(sorted.back())) {
      out.push_back(static_cast<R>(sorted.back()));
      continue;
    }
    const core::quantile_point p = core::quantile_point_for(n, q, m);
    out.push_back(core::combine(p, sorted[static_cast<std::size_t>(p.lo)], sorted[static_cast<std::size_t>(p.hi)]));
  }
  return out;
}

}  // namespace kselect::test
