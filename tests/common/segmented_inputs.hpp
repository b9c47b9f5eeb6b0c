// Inputs of the segmented (batched) tests for all eight key types: the shapes
// (offsets of equal rows or of given lengths) and the values, each segment filled
// with its own distribution. Host code, header-only.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <span>
#include <type_traits>
#include <vector>

#include "common/generate.hpp"
#include "common/rng.hpp"
#include "kselect/types.hpp"

namespace kselect::test {

/// The distributions a segment may hold: every kind of content the issue names
/// (random, sorted, reversed, all equal, 2 and 16 distinct values, and NaN, +-inf,
/// -0.0 and denormals among ordinary values).
inline std::vector<dist> segment_dists() {
  return {dist::uniform,    dist::sorted,         dist::reversed, dist::all_equal,
          dist::two_values, dist::sixteen_values, dist::special};
}

/// segment_dists() in turn: the distribution of segment i when they cycle.
inline dist cycling_dist(std::int64_t i) {
  const std::vector<dist> d = segment_dists();
  return d[static_cast<std::size_t>(i) % d.size()];
}

/// n values of distribution d for any key type of the segmented calls: generate<T>
/// for the six of kselect.hpp; for float16 and bfloat16 the float values rounded,
/// except that float denormals (which would round to zero) become 16-bit denormals.
template <class T>
std::vector<T> generate_keys(dist d, std::int64_t n, std::uint64_t seed) {
  if constexpr (!is_half_key_v<T>) {
    return generate<T>(d, n, seed);
  } else {
    const std::vector<float> f = generate<float>(d, n, seed);
    std::vector<T> v(f.size());
    for (std::size_t i = 0; i < f.size(); ++i) {
      if (f[i] != 0 && std::fabs(f[i]) < std::numeric_limits<float>::min()) {
        const auto sign = static_cast<std::uint16_t>(std::signbit(f[i]) ? 0x8000u : 0u);
        v[i] = T{static_cast<std::uint16_t>(sign | (1u + i % 3))};  // exponent field 0: a denormal
      } else if constexpr (std::is_same_v<T, float16>) {
        v[i] = to_float16(f[i]);
      } else {
        v[i] = to_bfloat16(f[i]);
      }
    }
    return v;
  }
}

/// Offsets (m + 1 values) of consecutive segments of these lengths.
inline std::vector<std::int64_t> offsets_of(std::span<const std::int64_t> lengths) {
  std::vector<std::int64_t> offsets(lengths.size() + 1, 0);
  for (std::size_t i = 0; i < lengths.size(); ++i) offsets[i + 1] = offsets[i] + lengths[i];
  return offsets;
}

/// Offsets of m equal rows of `cols` values.
inline std::vector<std::int64_t> row_offsets(std::int64_t m, std::int64_t cols) {
  std::vector<std::int64_t> offsets(static_cast<std::size_t>(m + 1));
  for (std::int64_t i = 0; i <= m; ++i) offsets[static_cast<std::size_t>(i)] = i * cols;
  return offsets;
}

/// The values of every segment: segment i holds generate_keys(dist_of(i), length,
/// seed + i).
template <class T>
std::vector<T> fill_segments(std::span<const std::int64_t> offsets, const std::function<dist(std::int64_t)>& dist_of,
                             std::uint64_t seed) {
  std::vector<T> values(static_cast<std::size_t>(offsets.back()));
  const auto m = static_cast<std::int64_t>(offsets.size()) - 1;
#ifdef _OPENMP
#pragma omp parallel for schedule(dynamic, 256) if (m >= 4096)
#endif
  for (std::int64_t i = 0; i < m; ++i) {
    const auto begin = static_cast<std::size_t>(offsets[static_cast<std::size_t>(i)]);
    const std::int64_t length = offsets[static_cast<std::size_t>(i + 1)] - offsets[static_cast<std::size_t>(i)];
    const std::vector<T> part = generate_keys<T>(dist_of(i), length, seed + static_cast<std::uint64_t>(i));
    std::copy(part.begin(), part.end(), values.begin() + static_cast<std::ptrdiff_t>(begin));
  }
  return values;
}

/// Lengths of the mixed ragged layout: empty segments (none first, so the first
/// bad segment is not simply segment 0), lengths 1 to 3, 31 to 33 and 2^k +- 1 up
/// to 4097 (a warp, a block, several blocks), in no particular order.
inline std::vector<std::int64_t> mixed_lengths() {
  return {5,   1,   0,   2,   3,   31,   32,   33,   0,    1,    63,   64, 65, 127,
          128, 129, 255, 256, 257, 1023, 1024, 1025, 4095, 4096, 4097, 1,  0,  17};
}

/// The mixed ragged layout once per distribution of segment_dists(): segment i has
/// length mixed_lengths()[i % L] and distribution segment_dists()[i / L].
inline std::vector<std::int64_t> mixed_offsets() {
  const std::vector<std::int64_t> one = mixed_lengths();
  std::vector<std::int64_t> lengths;
  for (std::size_t d = 0; d < segment_dists().size(); ++d) lengths.insert(lengths.end(), one.begin(), one.end());
  return offsets_of(lengths);
}

/// The distribution of segment i of mixed_offsets().
inline dist mixed_dist(std::int64_t i) { return segment_dists()[static_cast<std::size_t>(i) / mixed_lengths().size()]; }

/// Lengths 2^k - 1, 2^k, 2^k + 1 for k = lo .. hi, largest first.
inline std::vector<std::int64_t> power_of_two_lengths(int lo, int hi) {
  std::vector<std::int64_t> lengths;
  for (int k = hi; k >= lo; --k)
    for (const std::int64_t d : {-1, 0, 1}) lengths.push_back((std::int64_t{1} << k) + d);
  return lengths;
}

/// One segment of 2^25 (the 2^19-th) among 2^20 + 1 of random lengths 1 to 32: the
/// mix where one strategy for every segment fails.
inline std::vector<std::int64_t> huge_among_tiny_lengths(std::uint64_t seed) {
  const std::int64_t tiny = std::int64_t{1} << 20;
  std::vector<std::int64_t> lengths(static_cast<std::size_t>(tiny + 1));
  for (std::int64_t i = 0; i <= tiny; ++i)
    lengths[static_cast<std::size_t>(i)] =
        static_cast<std::int64_t>(random_word(seed, static_cast<std::uint64_t>(i)) % 32) + 1;
  lengths[static_cast<std::size_t>(tiny / 2)] = std::int64_t{1} << 25;
  return lengths;
}

/// A rank per segment, cycling through 0, 1, length/2 and length - 1 (-1 for an
/// empty segment, 1 for a segment of one: both outside the segment).
inline std::vector<std::int64_t> cycling_ranks(std::span<const std::int64_t> offsets) {
  std::vector<std::int64_t> ks(offsets.size() - 1);
  for (std::size_t i = 0; i < ks.size(); ++i) {
    const std::int64_t length = offsets[i + 1] - offsets[i];
    const std::int64_t choice[] = {0, 1, length / 2, length - 1};
    ks[i] = choice[i % 4];
  }
  return ks;
}

/// The middle rank of every segment (length / 2; 0 for an empty one, outside it).
inline std::vector<std::int64_t> middle_ranks(std::span<const std::int64_t> offsets) {
  std::vector<std::int64_t> ks(offsets.size() - 1);
  for (std::size_t i = 0; i < ks.size(); ++i) ks[i] = (offsets[i + 1] - offsets[i]) / 2;
  return ks;
}

}  // namespace kselect::test
