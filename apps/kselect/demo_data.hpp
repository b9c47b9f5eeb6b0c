// The demo's input: value i of a stream of uniform floats in (0, 1], the same
// on host and device (a SplitMix64 hash of seed and index).
#pragma once

#include <cstdint>

#include "core/sampling.hpp"  // core::mix64 (SplitMix64), KSELECT_HD

namespace kselect_cli {

/// Uniform in (0, 1]: 53 random bits, centred in their interval so never 0,
/// rounded to float (which may round up to 1).
KSELECT_HD float demo_value(std::uint64_t seed, std::uint64_t i) {
  const std::uint64_t h = kselect::core::mix64(seed ^ kselect::core::mix64(i));
  return static_cast<float>((static_cast<double>(h >> 11) + 0.5) * 0x1.0p-53);
}

}  // namespace kselect_cli
