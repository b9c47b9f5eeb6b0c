// Checks approximate multiselection answers (CPU and GPU suites, the approx
// benchmark's self-check) against a sorted copy of the input: each answer is
// what the sorted array holds at its reported rank r', |r - r'| is within the
// bound, and an answer away from its rank (r' != r, so not the exact fallback's)
// is an input element bit for bit.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <span>
#include <unordered_set>
#include <vector>

#include "common/reference.hpp"
#include "core/approx.hpp"
#include "core/sampling.hpp"

namespace kselect::test {

template <class T>
struct approx_reference {
  std::vector<T> sorted;                  ///< ascending, NaN last
  std::unordered_set<std::uint64_t> bits;  ///< every input value's bit pattern
};

template <class T>
std::uint64_t bit_pattern(T x) {
  if constexpr (sizeof(T) == 4) {
    std::uint32_t u;
    std::memcpy(&u, &x, sizeof u);
    return u;
  } else {
    std::uint64_t u;
    std::memcpy(&u, &x, sizeof u);
    return u;
  }
}

template <class T>
approx_reference<T> make_approx_reference(const std::vector<T>& values) {
  approx_reference<T> ref;
  ref.sorted = values;
  std::sort(ref.sorted.begin(), ref.sorted.end(), [](T a, T b) { return nan_last_less(a, b); });
  ref.bits.reserve(values.size());
  for (T x : values) ref.bits.insert(bit_pattern(x));
  return ref;
}

/// Checks every answer; `max_error` receives the largest |r - r'|.
template <class T>
::testing::AssertionResult check_approx_answers(const approx_reference<T>& ref, std::span<const std::int64_t> ranks,
                                                std::span<const T> out, std::span<const std::int64_t> out_ranks,
                                                std::int64_t bound, std::int64_t* max_error = nullptr) {
  const auto n = static_cast<std::int64_t>(ref.sorted.size());
  std::int64_t worst = 0;
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    const std::int64_t r = ranks[i], at = out_ranks[i];
    if (at < 0 || at >= n)
      return ::testing::AssertionFailure() << "rank " << r << ": reported rank " << at << " outside [0, " << n << ")";
    const std::int64_t err = r > at ? r - at : at - r;
    if (err > bound)
      return ::testing::AssertionFailure() << "rank " << r << ": reported rank " << at << ", error " << err
                                           << " above the bound " << bound;
    if (!same_value(out[i], ref.sorted[static_cast<std::size_t>(at)]))
      return ::testing::AssertionFailure() << "rank " << r << ": got " << out[i] << " reported at rank " << at
                                           << ", the sorted input holds " << ref.sorted[static_cast<std::size_t>(at)];
    if (at != r && ref.bits.count(bit_pattern(out[i])) == 0)
      return ::testing::AssertionFailure() << "rank " << r << ": " << out[i] << " (reported at " << at
                                           << ") is not an input element bit for bit";
    worst = std::max(worst, err);
  }
  if (max_error) *max_error = worst;
  return ::testing::AssertionSuccess();
}

/// One rank at a time, at the ends and the middle: 0, 1, n/2, n - 1 (those < n, unique).
inline std::vector<std::int64_t> single_ranks(std::int64_t n) {
  std::vector<std::int64_t> r;
  for (const std::int64_t k : {std::int64_t(0), std::int64_t(1), n / 2, n - 1})
    if (k < n) r.push_back(k);
  std::sort(r.begin(), r.end());
  r.erase(std::unique(r.begin(), r.end()), r.end());
  return r;
}

/// An input whose sample (core::sample_position for `seed`) misleads: the n
/// keys are 1000 + (i % 997) except the sampled positions, which hold 100000 + j
/// (sample j) when `sample_high`, else j % 500. The sample then puts every
/// middle rank's window among the sampled keys while the rank's key is an
/// unsampled one, below the window (sample_high) or above it: a forced
/// sampling miss (n well above the sample size).
template <class T>
std::vector<T> sampling_miss_input(std::int64_t n, std::uint64_t seed, bool sample_high) {
  constexpr std::int64_t s = core::approx_sample_size;
  std::vector<T> v(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) v[static_cast<std::size_t>(i)] = static_cast<T>(1000 + i % 997);
  for (std::int64_t j = 0; j < s; ++j)
    v[static_cast<std::size_t>(core::sample_position(j, s, n, seed))] = static_cast<T>(sample_high ? 100000 + j : j % 500);
  return v;
}

/// 101 percentiles: rank (n - 1) * p / 100, unique.
inline std::vector<std::int64_t> percentile_ranks_101(std::int64_t n) {
  std::vector<std::int64_t> r;
  for (int p = 0; p <= 100; ++p) r.push_back((n - 1) * p / 100);
  r.erase(std::unique(r.begin(), r.end()), r.end());
  return r;
}

}  // namespace kselect::test
