// The names that the documentation's C++ examples use without declaring them
// (values, n, ranks, ...), as members of host_vocabulary: extract_examples.py puts
// each example in run() of a struct derived from it, so a member is what such a
// name means, and a name the example declares hides the member. An example that
// needs a name not here declares it, or the name is added here (docs/building.md).
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <span>
#include <string>
#include <vector>

#include "kselect/kselect.hpp"

namespace kselect_examples {

/// n values in [0, 1), the same every run.
inline std::vector<float> unit_floats(std::int64_t n, std::uint64_t seed) {
  std::vector<float> v(static_cast<std::size_t>(n));
  std::uint64_t x = seed;
  for (float& f : v) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    f = static_cast<float>(x >> 40) * 0x1p-24f;
  }
  return v;
}

/// The examples of the owning API (kselect/kselect.hpp, kselect/filter.hpp).
struct host_vocabulary {
  host_vocabulary() = default;
  host_vocabulary(const host_vocabulary&) = delete;  // the pointers below point into the vectors
  host_vocabulary& operator=(const host_vocabulary&) = delete;

  std::int64_t n = std::int64_t{1} << 16;
  std::vector<float> values = unit_floats(n, 1);
  const float* ptr = values.data();
  /// Device memory in the documentation; host memory here, so the CPU backend runs
  /// (device_vocabulary's d_ptr is device memory).
  const float* d_ptr = values.data();
  std::vector<std::int64_t> ranks = {n / 2, 0, n - 1, n / 2};  // any order, repeats allowed
  std::vector<double> qs = {0.01, 0.5, 0.99};
  std::int64_t k = 100;
  std::vector<std::uint8_t> flag_bytes = [this] {
    std::vector<std::uint8_t> f(values.size());
    for (std::size_t i = 0; i < f.size(); ++i) f[i] = values[i] < 0.25f ? 1 : 0;
    return f;
  }();
  const std::uint8_t* flags = flag_bytes.data();
  /// Keys and payload of the *_pairs examples: int64_t keys, so that lt(k) is their predicate.
  std::vector<std::int64_t> key_values = [this] {
    std::vector<std::int64_t> v(values.size());
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<std::int64_t>(values[i] * 1000.0f);
    return v;
  }();
  const std::int64_t* keys = key_values.data();
  std::vector<double> payload_values = std::vector<double>(values.begin(), values.end());
  const double* payload = payload_values.data();

  /// After run(): the owning API reports failures by exceptions, which fail the test.
  void check() {}
};

}  // namespace kselect_examples
