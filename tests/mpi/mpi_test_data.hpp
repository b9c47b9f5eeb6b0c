// Generated shards for the distributed tests: every process generates the same global
// array from a seed (so each can compute the single-process reference on the whole)
// and takes its own slice under a layout (even, uneven, with empty processes).
#pragma once

#include <mpi.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

namespace kselect::mpi_test {

inline int world_rank() {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}
inline int world_size() {
  int s = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &s);
  return s;
}

enum class dist { uniform, normal, sorted, reversed, all_equal, two_values, sixteen_values, clustered,
                  shared_leading_bits, specials };
inline const char* name(dist d) {
  static const char* const names[] = {"uniform", "normal", "sorted", "reversed", "all_equal", "two_values",
                                      "sixteen_values", "clustered", "shared_leading_bits", "specials"};
  return names[static_cast<int>(d)];
}
inline constexpr dist all_dists[] = {dist::uniform, dist::normal, dist::sorted, dist::reversed,
                                     dist::all_equal, dist::two_values, dist::sixteen_values,
                                     dist::clustered, dist::shared_leading_bits, dist::specials};

/// A quiet NaN with a payload (low mantissa bits set), sign bit clear.
template <class T>
T nan_with_payload() {
  using U = std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>;
  T x = std::numeric_limits<T>::quiet_NaN();
  U bits;
  std::memcpy(&bits, &x, sizeof bits);
  bits |= U(0x2a);
  std::memcpy(&x, &bits, sizeof x);
  return x;
}

/// Floating-point inputs whose zeros and NaNs take one bit pattern or several: the
/// answers of those keys are found without (one pattern) or with (several) a lookup of
/// the element in index order. Values -1, a zero, 1 and a NaN, at random.
enum class bit_mix { positive_zeros, negative_zeros, mixed_zeros, canonical_nans, negative_nans, mixed_nans };
inline constexpr bit_mix all_bit_mixes[] = {bit_mix::positive_zeros, bit_mix::negative_zeros, bit_mix::mixed_zeros,
                                            bit_mix::canonical_nans, bit_mix::negative_nans, bit_mix::mixed_nans};
inline const char* name(bit_mix m) {
  static const char* const names[] = {"positive_zeros", "negative_zeros", "mixed_zeros",
                                      "canonical_nans", "negative_nans",  "mixed_nans"};
  return names[static_cast<int>(m)];
}

template <class T>
std::vector<T> make_bit_mix(bit_mix m, std::int64_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  const T nan = std::numeric_limits<T>::quiet_NaN();
  std::vector<T> v(static_cast<std::size_t>(n));
  for (T& x : v) {
    const std::uint64_t r = rng();
    const bool second = (r >> 8) % 2 != 0;
    switch (r % 4) {
      case 0: x = T(-1); break;
      case 1: x = T(1); break;
      case 2:
        x = m == bit_mix::negative_zeros || (m == bit_mix::mixed_zeros && second) ? T(-0.0) : T(0.0);
        break;
      default:
        x = m == bit_mix::negative_nans || (m == bit_mix::mixed_nans && second) ? -nan
            : m == bit_mix::mixed_nans && (r >> 9) % 2                          ? nan_with_payload<T>()
                                                                                 : nan;
        break;
    }
  }
  return v;
}

template <class T>
std::vector<T> make_global(dist d, std::int64_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<T> v(static_cast<std::size_t>(n));
  constexpr bool floating = std::is_floating_point_v<T>;
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::normal_distribution<double> gauss(0.0, 1.0);
  auto from_double = [](double x) {
    if constexpr (floating) return static_cast<T>(x);
    else if constexpr (std::is_signed_v<T>) return static_cast<T>(std::llround(x * 1e6));
    else return static_cast<T>(std::llround(std::fabs(x) * 1e6));
  };
  for (std::int64_t i = 0; i < n; ++i) {
    T& x = v[static_cast<std::size_t>(i)];
    switch (d) {
      case dist::uniform:
        if constexpr (floating) x = static_cast<T>(unit(rng));
        else x = static_cast<T>(rng());
        break;
      case dist::normal: x = from_double(gauss(rng)); break;
      case dist::sorted: x = from_double(static_cast<double>(i) / 7.0); break;
      case dist::reversed: x = from_double(static_cast<double>(n - i) / 7.0); break;
      case dist::all_equal: x = from_double(3.25); break;
      case dist::two_values: x = from_double(rng() % 2 ? 1.5 : -2.5); break;
      case dist::sixteen_values: x = from_double(static_cast<double>(rng() % 16) * 0.75 - 4); break;
      case dist::clustered: x = from_double(static_cast<double>(rng() % 8) * 100 + gauss(rng) * 1e-3); break;
      case dist::shared_leading_bits:
        if constexpr (floating) x = static_cast<T>(1.0 + static_cast<double>(rng() % 64) * std::numeric_limits<T>::epsilon());
        else x = static_cast<T>((std::numeric_limits<T>::max() - 64) + static_cast<T>(rng() % 64));
        break;
      case dist::specials: {
        const std::uint64_t r = rng() % 12;
        if constexpr (floating) {
          // NaNs of both signs and two payloads, both zeros: elements equal in key that
          // differ in bits, so answers must be the right element, not just the right key.
          const T specials[] = {std::numeric_limits<T>::quiet_NaN(), std::numeric_limits<T>::infinity(),
                                -std::numeric_limits<T>::infinity(), T(-0.0), T(0.0),
                                std::numeric_limits<T>::denorm_min(), -std::numeric_limits<T>::denorm_min(),
                                std::numeric_limits<T>::max(), std::numeric_limits<T>::lowest(),
                                -std::numeric_limits<T>::quiet_NaN(), nan_with_payload<T>()};
          x = r < 11 ? specials[r] : static_cast<T>(gauss(rng));
        } else {
          const T specials[] = {std::numeric_limits<T>::min(), std::numeric_limits<T>::max(), T(0), T(1)};
          x = r < 4 ? specials[r] : static_cast<T>(rng());
        }
        break;
      }
    }
  }
  return v;
}

enum class layout { even, uneven, first_empty, all_on_last };
inline constexpr layout all_layouts[] = {layout::even, layout::uneven, layout::first_empty, layout::all_on_last};
inline const char* name(layout l) {
  static const char* const names[] = {"even", "uneven", "first_empty", "all_on_last"};
  return names[static_cast<int>(l)];
}

/// [begin, end) of process p's slice of n keys.
inline std::pair<std::int64_t, std::int64_t> slice(layout l, std::int64_t n, int p, int processes) {
  std::vector<std::int64_t> weight(static_cast<std::size_t>(processes), 1);
  for (int q = 0; q < processes; ++q) {
    if (l == layout::uneven) weight[static_cast<std::size_t>(q)] = q + 1;
    if (l == layout::first_empty && q == 0 && processes > 1) weight[0] = 0;
    if (l == layout::all_on_last) weight[static_cast<std::size_t>(q)] = q == processes - 1 ? 1 : 0;
  }
  std::int64_t total = 0, before = 0;
  for (int q = 0; q < processes; ++q) {
    total += weight[static_cast<std::size_t>(q)];
    if (q < p) before += weight[static_cast<std::size_t>(q)];
  }
  auto at = [&](std::int64_t w) { return static_cast<std::int64_t>(static_cast<__int128>(n) * w / total); };
  return {at(before), at(before + weight[static_cast<std::size_t>(p)])};
}

}  // namespace kselect::mpi_test
