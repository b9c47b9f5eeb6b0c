// Test input distributions for every key type (used by the CPU and the GPU suites and
// the benchmarks). Header-only, host code; the fill is parallel where OpenMP is on.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "common/rng.hpp"

namespace kselect::test {

enum class dist {
  uniform,         ///< floats in [0, 1); integers over the whole type
  normal,          ///< floats N(0, 1); integers round(1000 N(0, 1)) (unsigned: around 2^(bits-1))
  sorted,          ///< ascending (floats in [-1, 1), signed integers around 0)
  reversed,        ///< descending
  all_equal,       ///< one value
  two_values,      ///< two values, random
  sixteen_values,  ///< sixteen values, random
  clustered,       ///< eight narrow clusters spread over the range
  shared_prefix,   ///< all leading bits equal (floats in [1, 1 + 2^-10])
  special,         ///< floats: NaN, -NaN, +-inf, +-0, denormals, max, lowest, min, ordinary;
                   ///< integers: min, max, 0, -1, 1, min + 1, max - 1, random
};

inline std::vector<dist> all_dists() {
  return {dist::uniform,   dist::normal,         dist::sorted,    dist::reversed,
          dist::all_equal, dist::two_values,     dist::sixteen_values,
          dist::clustered, dist::shared_prefix,  dist::special};
}

inline std::string name(dist d) {
  switch (d) {
    case dist::uniform: return "uniform";
    case dist::normal: return "normal";
    case dist::sorted: return "sorted";
    case dist::reversed: return "reversed";
    case dist::all_equal: return "all_equal";
    case dist::two_values: return "two_values";
    case dist::sixteen_values: return "sixteen_values";
    case dist::clustered: return "clustered";
    case dist::shared_prefix: return "shared_prefix";
    case dist::special: return "special";
  }
  return "unknown";
}

namespace detail {

// Standard normal from two words (Box-Muller).
inline double normal_from(std::uint64_t w1, std::uint64_t w2) {
  const double u1 = 1.0 - unit_double(w1);  // (0, 1]
  const double u2 = unit_double(w2);
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
}

template <class F>
F float_value(dist d, std::int64_t i, std::int64_t n, std::uint64_t seed) {
  using lim = std::numeric_limits<F>;
  const std::uint64_t w = random_word(seed, static_cast<std::uint64_t>(i));
  switch (d) {
    case dist::uniform:
      // float: top 24 bits, so the value is exact and below 1.
      return sizeof(F) == 4 ? static_cast<F>(static_cast<double>(w >> 40) * 0x1.0p-24)
                            : static_cast<F>(unit_double(w));
    case dist::normal:
      return static_cast<F>(normal_from(w, random_word(seed ^ 0x5bd1e995u, static_cast<std::uint64_t>(i))));
    case dist::sorted:
      return static_cast<F>(-1.0 + 2.0 * static_cast<double>(i) / static_cast<double>(n));
    case dist::reversed:
      return static_cast<F>(-1.0 + 2.0 * static_cast<double>(n - 1 - i) / static_cast<double>(n));
    case dist::all_equal:
      return F(-0.75);
    case dist::two_values:
      return (w & 1) ? F(2.5) : F(-1.5);
    case dist::sixteen_values:
      return static_cast<F>((static_cast<int>(w % 16) - 8) * 0.375);
    case dist::clustered:
      return static_cast<F>((static_cast<int>(w % 8) - 4) * 100.0 + unit_double(w) * 1e-3);
    case dist::shared_prefix:
      return static_cast<F>(1.0 + unit_double(w) * 0x1.0p-10);
    case dist::special: {
      const double ordinary = unit_double(w) * 2.0 - 1.0;
      switch (w % 16) {
        case 0: return (w & 16) ? lim::quiet_NaN() : -lim::quiet_NaN();
        case 1: return lim::infinity();
        case 2: return -lim::infinity();
        case 3: return F(-0.0);
        case 4: return F(0.0);
        case 5: return lim::denorm_min();
        case 6: return -lim::denorm_min();
        case 7: return static_cast<F>(lim::min() * (ordinary + 1.0) * 0.5);   // denormal
        case 8: return static_cast<F>(-lim::min() * (ordinary + 1.0) * 0.5);  // negative denormal
        case 9: return lim::max();
        case 10: return lim::lowest();
        case 11: return lim::min();
        default: return static_cast<F>(ordinary);
      }
    }
  }
  return F(0);
}

template <class I>
I int_value(dist d, std::int64_t i, std::int64_t n, std::uint64_t seed) {
  using lim = std::numeric_limits<I>;
  constexpr int bits = static_cast<int>(sizeof(I) * 8);
  constexpr bool is_signed = std::is_signed_v<I>;
  // Centre of the distributions that spread around a point.
  const std::int64_t mid = is_signed ? 0 : (std::int64_t{1} << (bits == 32 ? 31 : 62));
  const std::uint64_t w = random_word(seed, static_cast<std::uint64_t>(i));
  switch (d) {
    case dist::uniform:
      return static_cast<I>(w);  // every bit random: the whole range
    case dist::normal: {
      const double z = normal_from(w, random_word(seed ^ 0x5bd1e995u, static_cast<std::uint64_t>(i)));
      return static_cast<I>(mid + std::llround(1000.0 * z));
    }
    case dist::sorted:
      return static_cast<I>(is_signed ? i - n / 2 : i);
    case dist::reversed:
      return static_cast<I>(is_signed ? (n - 1 - i) - n / 2 : n - 1 - i);
    case dist::all_equal:
      return I(42);
    case dist::two_values:
      return (w & 1) ? I(8) : static_cast<I>(is_signed ? -3 : 3);
    case dist::sixteen_values:
      return static_cast<I>(static_cast<std::int64_t>(w % 16) * 1000 - (is_signed ? 8000 : 0));
    case dist::clustered: {
      // Eight clusters over the range, each 256 values wide.
      const std::int64_t c = static_cast<std::int64_t>(w % 8) - (is_signed ? 4 : 0);
      const auto centre = static_cast<std::uint64_t>(c) << (bits - 4);
      return static_cast<I>(centre + ((w >> 8) & 0xff));
    }
    case dist::shared_prefix: {
      // The top half of the bits fixed (a positive pattern), the bottom half random.
      const std::uint64_t prefix = (std::uint64_t{0x2d} << (bits - 8));
      const std::uint64_t low = (w >> 3) & ((std::uint64_t{1} << (bits / 2)) - 1);
      return static_cast<I>(prefix | low);
    }
    case dist::special:
      switch (w % 8) {
        case 0: return lim::min();
        case 1: return lim::max();
        case 2: return I(0);
        case 3: return static_cast<I>(-1);  // the maximum for unsigned types
        case 4: return I(1);
        case 5: return static_cast<I>(lim::min() + 1);
        case 6: return static_cast<I>(lim::max() - 1);
        default: return static_cast<I>(w >> 3);
      }
  }
  return I(0);
}

}  // namespace detail

/// n values of distribution d for stream `seed` (value i depends only on d, n, seed, i).
template <class T>
std::vector<T> generate(dist d, std::int64_t n, std::uint64_t seed) {
  static_assert(std::is_arithmetic_v<T>, "generate<T>: T must be a supported key type");
  std::vector<T> v(static_cast<std::size_t>(n > 0 ? n : 0));
#ifdef _OPENMP
#pragma omp parallel for schedule(static) if (n >= (std::int64_t{1} << 16))
#endif
  for (std::int64_t i = 0; i < n; ++i) {
    if constexpr (std::is_floating_point_v<T>) {
      v[static_cast<std::size_t>(i)] = detail::float_value<T>(d, i, n, seed);
    } else {
      v[static_cast<std::size_t>(i)] = detail::int_value<T>(d, i, n, seed);
    }
  }
  return v;
}

/// A key of the benchmarks' "clustered" input (device_data.cuh) from a hash h:
/// 64 narrow clusters, c * 1000 + [0, 1e-3) for c in 0..63.
inline double narrow_cluster_key(std::uint64_t h) {
  return static_cast<double>(h % 64) * 1000.0 + static_cast<double>(h >> 11) * 0x1.0p-53 * 1e-3;
}

}  // namespace kselect::test
