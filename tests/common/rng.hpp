// Counter-based random numbers for test inputs: value i depends only on (seed, i),
// so generators fill arrays in parallel and reproduce exactly.
#pragma once

#include <cstdint>

#include "core/sampling.hpp"

namespace kselect::test {

/// SplitMix64 (Steele, Lea, Flood 2014): a bijective 64-bit mix, the same one the
/// library samples with.
inline std::uint64_t splitmix64(std::uint64_t x) { return core::mix64(x); }

/// The i-th random word of stream `seed`.
inline std::uint64_t random_word(std::uint64_t seed, std::uint64_t i) {
  return splitmix64(splitmix64(seed) ^ (i * 0xd1b54a32d192ed03ull));
}

/// Uniform double in [0, 1) from the top 53 bits of a word.
inline double unit_double(std::uint64_t w) { return static_cast<double>(w >> 11) * 0x1.0p-53; }

}  // namespace kselect::test
