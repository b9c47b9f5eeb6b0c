// kselect-mpi-bench's keys. Key i of the global array (the concatenation of every
// process's shard in process-rank order) depends only on the distribution, the
// global size, the seed and i, so each process generates its own shard from its
// global offset (on the host, or on the device in gpu_parts.cu) and the whole is the
// same array whatever the number of processes. The formulas are those of
// tests/common/generate.hpp (kselect-cpu-bench's distributions), callable from device
// code too. Floating key types only (float32, float64).
#pragma once

#include <cmath>
#include <cstdint>

#include "core/sampling.hpp"  // core::mix64, KSELECT_HD

namespace kselect::mpi_bench {

enum class dist : int {
  uniform,         ///< [0, 1) (float: 24 random bits, exact)
  normal,          ///< N(0, 1), Box-Muller
  clustered,       ///< eight clusters at -400, -300, ..., 300, each [c, c + 1e-3)
  all_equal,       ///< -0.75 everywhere
  sixteen_values,  ///< sixteen values (-8 .. 7) * 0.375, random
  sorted,          ///< ascending over the global array: [-1, 1)
};

inline constexpr dist all_dists[] = {dist::uniform,   dist::normal,         dist::clustered,
                                     dist::all_equal, dist::sixteen_values, dist::sorted};

inline const char* name(dist d) {
  switch (d) {
    case dist::uniform: return "uniform";
    case dist::normal: return "normal";
    case dist::clustered: return "clustered";
    case dist::all_equal: return "all_equal";
    case dist::sixteen_values: return "sixteen_values";
    case dist::sorted: return "sorted";
  }
  return "unknown";
}

/// The i-th random word of stream `seed` (tests/common/rng.hpp's random_word).
KSELECT_HD std::uint64_t random_word(std::uint64_t seed, std::uint64_t i) {
  return core::mix64(core::mix64(seed) ^ (i * 0xd1b54a32d192ed03ull));
}

/// Uniform double in [0, 1) from the top 53 bits of a word.
KSELECT_HD double unit_double(std::uint64_t w) { return static_cast<double>(w >> 11) * 0x1.0p-53; }

/// Key i (0 <= i < n) of the global array of n keys.
template <class F>
KSELECT_HD F key_value(dist d, std::int64_t i, std::int64_t n, std::uint64_t seed) {
  const std::uint64_t w = random_word(seed, static_cast<std::uint64_t>(i));
  switch (d) {
    case dist::uniform:
      return sizeof(F) == 4 ? static_cast<F>(static_cast<double>(w >> 40) * 0x1.0p-24)
                            : static_cast<F>(unit_double(w));
    case dist::normal: {
      const double u1 = 1.0 - unit_double(w);  // (0, 1]
      const double u2 = unit_double(random_word(seed ^ 0x5bd1e995u, static_cast<std::uint64_t>(i)));
      return static_cast<F>(sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2));
    }
    case dist::clustered:
      return static_cast<F>((static_cast<int>(w % 8) - 4) * 100.0 + unit_double(w) * 1e-3);
    case dist::all_equal:
      return F(-0.75);
    case dist::sixteen_values:
      return static_cast<F>((static_cast<int>(w % 16) - 8) * 0.375);
    case dist::sorted:
      return static_cast<F>(-1.0 + 2.0 * static_cast<double>(i) / static_cast<double>(n));
  }
  return F(0);
}

}  // namespace kselect::mpi_bench
