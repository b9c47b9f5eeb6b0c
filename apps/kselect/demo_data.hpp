// The demo's input: value i of a stream of uniform floats in (0, 1], the same
// on host and device (a SplitMix64 hash of seed and index).
#pragma once

#include <cstdint>

#ifdef __CUDACC__
#define KSELECT_CLI_HD __host__ __device__
#else
#define KSELECT_CLI_HD
#endif

namespace kselect_cli {

KSELECT_CLI_HD inline std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

/// Uniform in (0, 1]: 53 random bits, centred in their interval so never 0,
/// rounded to float (which may round up to 1).
KSELECT_CLI_HD inline float demo_value(std::uint64_t seed, std::uint64_t i) {
  const std::uint64_t h = splitmix64(seed ^ splitmix64(i));
  return static_cast<float>((static_cast<double>(h >> 11) + 0.5) * 0x1.0p-53);
}

}  // namespace kselect_cli
