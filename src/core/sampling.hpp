// Sampling and splitter rules shared by the CPU and CUDA backends.
#pragma once

#include <cmath>
#include <cstdint>

#include "hd.hpp"

namespace kselect::core {

/// 64-bit mix (splitmix64 finaliser): a counter-based hash, so every thread can
/// draw its own sample position without shared generator state.
KSELECT_HD std::uint64_t mix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

/// High 64 bits of a * b: maps a uniform 64-bit word to [0, b) without a
/// division (a 64-bit modulo is a long subroutine call on the GPU).
KSELECT_HD std::uint64_t mul_high(std::uint64_t a, std::uint64_t b) {
#ifdef __CUDA_ARCH__
  return __umul64hi(a, b);
#else
  return static_cast<std::uint64_t>((static_cast<unsigned __int128>(a) * b) >> 64);
#endif
}

/// Position of sample j (of `sample_size`) in a range of `size` keys: jittered
/// stratified sampling, one uniform draw inside each of sample_size equal strata.
/// Its rank statistics are at least as tight as sampling with replacement.
KSELECT_HD std::int64_t sample_position(std::int64_t j, std::int64_t sample_size,
                                        std::int64_t size, std::uint64_t seed) {
  // (j + u) * size / sample_size with u in [0, 1); size < 2^40 and j < 2^12 keep
  // every product below 2^63.
  const std::uint64_t u = mul_high(mix64(seed ^ static_cast<std::uint64_t>(j)), static_cast<std::uint64_t>(size));
  return static_cast<std::int64_t>((static_cast<std::uint64_t>(j) * size + u) / sample_size);
}

/// Index in the sorted sample of splitter j when `num_splitters` are spaced equally.
KSELECT_HD std::int64_t equal_splitter_index(std::int64_t j, std::int64_t num_splitters,
                                             std::int64_t sample_size) {
  return (j + 1) * sample_size / (num_splitters + 1);
}

/// The window of sample indices [first, last] that holds target rank `rank` of
/// `size` keys with high probability: the rank's expected sample position plus or
/// minus `sigmas` standard deviations of a sample rank (binomial), plus `margin`.
/// first < 0 means "no lower bound", last >= sample_size "no upper bound".
struct sample_window {
  std::int64_t first, last;
};
KSELECT_HD sample_window predict_window(std::int64_t rank, std::int64_t size,
                                        std::int64_t sample_size, double sigmas, double margin) {
  const double p = (static_cast<double>(rank) + 0.5) / static_cast<double>(size);
  const double center = p * static_cast<double>(sample_size);
  const double half = sigmas * sqrt(static_cast<double>(sample_size) * p * (1.0 - p)) + margin;
  return {static_cast<std::int64_t>(floor(center - half)),
          static_cast<std::int64_t>(ceil(center + half))};
}

/// Splitter j of `num_splitters` dividing the key interval [lo, hi] into equal
/// parts: used where keys cannot be sampled (an interval of a larger array).
/// Consecutive results may repeat when the interval is narrow; callers deduplicate.
template <class K>
KSELECT_HD K range_splitter(K lo, K hi, int j, int num_splitters) {
  const unsigned __int128 width = static_cast<unsigned __int128>(hi - lo);
  return static_cast<K>(lo + static_cast<K>(width * static_cast<unsigned>(j + 1) /
                                            static_cast<unsigned>(num_splitters + 1)));
}

}  // namespace kselect::core
