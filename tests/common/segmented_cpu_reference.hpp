// The reference for segmented calls (kselect/segmented.hpp), every backend and all
// eight key types: each segment on its own, with std::sort under NumPy's order
// (reference.hpp's nan_last_less). float16 and bfloat16 are compared through their
// float values, which are exact and order the same way. Also the inputs of those
// tests: segment layouts and keys of every type. Header-only, host code.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <numeric>
#include <span>
#include <type_traits>
#include <vector>

#include "common/generate.hpp"
#include "common/reference.hpp"
#include "common/rng.hpp"
#include "core/key_traits.hpp"
#include "core/quantile_math.hpp"
#include "core/segments.hpp"
#include "kselect/segmented.hpp"

namespace kselect::test {

/// A key as the reference compares it: float16 and bfloat16 as float, others as they are.
template <class T>
auto comparable(T x) {
  return core::arithmetic_value(x);
}
template <class T>
using comparable_t = decltype(comparable(T{}));

/// The bits of any key type, for bit-for-bit comparisons.
template <class T>
std::uint64_t bits_of_key(T x) {
  std::uint64_t bits = 0;
  std::memcpy(&bits, &x, sizeof x);
  return bits;
}

/// True when x is what the contract returns for its key: +0.0 for zeros, the canonical NaN.
template <class T>
bool is_canonical(T x) {
  using traits = core::key_traits<T>;
  return bits_of_key(traits::from_key(traits::to_key(x))) == bits_of_key(x);
}

/// n keys of distribution d. float16 and bfloat16: the floats of d rounded, except
/// `special`, which is random bit patterns (NaNs of both signs, infinities, -0.0,
/// denormals: every class of 16-bit value).
template <class T>
std::vector<T> generate_keys(dist d, std::int64_t n, std::uint64_t seed) {
  if constexpr (is_half_key_v<T>) {
    std::vector<T> out(static_cast<std::size_t>(n));
    if (d == dist::special) {
      for (std::size_t i = 0; i < out.size(); ++i) out[i] = T{static_cast<std::uint16_t>(random_word(seed, i))};
      return out;
    }
    const std::vector<float> f = generate<float>(d, n, seed);
    for (std::size_t i = 0; i < f.size(); ++i) {
      if constexpr (std::is_same_v<T, float16>) {
        out[i] = to_float16(f[i]);
      } else {
        out[i] = to_bfloat16(f[i]);
      }
    }
    return out;
  } else {
    return generate<T>(d, n, seed);
  }
}

/// m + 1 offsets of segments with these lengths.
inline std::vector<std::int64_t> offsets_of(std::span<const std::int64_t> lengths) {
  std::vector<std::int64_t> offsets(lengths.size() + 1, 0);
  std::partial_sum(lengths.begin(), lengths.end(), offsets.begin() + 1);
  return offsets;
}

/// Segment i of `values` under `offsets`, as comparable values sorted ascending (NaN last).
template <class T>
std::vector<comparable_t<T>> sorted_segment(const T* values, std::int64_t begin, std::int64_t end) {
  std::vector<comparable_t<T>> v;
  v.reserve(static_cast<std::size_t>(end - begin));
  for (std::int64_t i = begin; i < end; ++i) v.push_back(comparable(values[i]));
  std::sort(v.begin(), v.end(), [](auto a, auto b) { return nan_last_less(a, b); });
  return v;
}

/// numpy.quantile (ignore_nan: nanquantile) of a sorted segment, as kselect answers it
/// (NaN for an empty segment, or one with a NaN, or all NaN for nanquantile).
template <class T>
quantile_value_t<T> reference_quantile(const std::vector<comparable_t<T>>& sorted, double q, quantile_method m,
                                       bool ignore_nan) {
  using R = quantile_value_t<T>;
  std::int64_t valid = 0;
  for (const auto x : sorted) valid += x == x ? 1 : 0;  // not NaN
  if (!ignore_nan && valid < static_cast<std::int64_t>(sorted.size())) valid = 0;
  if (valid == 0) return std::numeric_limits<R>::quiet_NaN();
  const core::quantile_point p = core::quantile_point_for(valid, q, m);
  return static_cast<R>(core::combine(p, sorted[static_cast<std::size_t>(p.lo)],
                                      sorted[static_cast<std::size_t>(p.hi)]));
}

/// numpy.median of a sorted segment, from its definition (not core::median_of): the
/// middle value, or the two middle values summed and halved in the result type (float
/// in float, integers in double); NaN for an empty segment or one with a NaN.
template <class T>
quantile_value_t<T> reference_median(const std::vector<comparable_t<T>>& sorted) {
  using R = quantile_value_t<T>;
  const auto n = static_cast<std::int64_t>(sorted.size());
  if (n == 0 || sorted.back() != sorted.back()) return std::numeric_limits<R>::quiet_NaN();
  const R a = static_cast<R>(sorted[static_cast<std::size_t>((n - 1) / 2)]);
  const R b = static_cast<R>(sorted[static_cast<std::size_t>(n / 2)]);
  return n % 2 == 1 ? a : (a + b) / R(2);
}

/// The first min(k, len) local indices of the stable sort of seg[0..len) (descending:
/// largest first, NaN first; ties by ascending index either way).
template <class T>
std::vector<std::int64_t> reference_topk_indices(const T* seg, std::int64_t len, std::int64_t k, bool largest) {
  std::vector<std::int64_t> order(static_cast<std::size_t>(len));
  std::iota(order.begin(), order.end(), std::int64_t{0});
  const auto before = [seg, largest](std::int64_t a, std::int64_t b) {
    const auto x = comparable(seg[a]), y = comparable(seg[b]);
    const bool less = largest ? nan_last_less(y, x) : nan_last_less(x, y);
    const bool greater = largest ? nan_last_less(x, y) : nan_last_less(y, x);
    return less || (!greater && a < b);
  };
  const auto taken = order.begin() + std::min(k, len);
  std::partial_sort(order.begin(), taken, order.end(), before);
  order.erase(taken, order.end());
  return order;
}

/// Checks row `row` of a segmented top-k of seg[0..len): the first min(k, len) entries
/// against the stable sort (exact: equal indices and bits; otherwise: the same values
/// as a multiset, unique in-range indices pointing at exactly the value reported,
/// sorted output in order), the rest padding (core::topk_padding, index -1).
template <class T>
::testing::AssertionResult check_topk_row(const T* seg, std::int64_t len, std::int64_t k, bool largest,
                                          bool sorted, bool exact, const T* values, const std::int64_t* indices) {
  std::vector<std::int64_t> want = reference_topk_indices(seg, len, k, largest);
  const auto taken = static_cast<std::int64_t>(want.size());
  if (!sorted) std::sort(want.begin(), want.end());
  const auto less = [largest](T a, T b) {
    return largest ? nan_last_less(comparable(b), comparable(a)) : nan_last_less(comparable(a), comparable(b));
  };
  for (std::int64_t j = taken; j < k; ++j) {
    if (bits_of_key(values[j]) != bits_of_key(core::topk_padding<T>(largest)))
      return ::testing::AssertionFailure() << "entry " << j << " of a segment of " << len << " is not padding";
    if (indices && indices[j] != -1)
      return ::testing::AssertionFailure() << "entry " << j << ": index " << indices[j] << ", expected -1";
  }
  if (exact) {
    for (std::int64_t j = 0; j < taken; ++j) {
      const std::int64_t i = want[static_cast<std::size_t>(j)];
      if (bits_of_key(values[j]) != bits_of_key(seg[i]) || (indices && indices[j] != i))
        return ::testing::AssertionFailure() << "entry " << j << ": value " << comparable(values[j]) << " index "
                                             << (indices ? indices[j] : -2) << ", expected " << comparable(seg[i])
                                             << " index " << i;
    }
    return ::testing::AssertionSuccess();
  }
  std::vector<T> got(values, values + taken), expected;
  for (const std::int64_t i : want) expected.push_back(seg[i]);
  std::stable_sort(got.begin(), got.end(), less);
  std::stable_sort(expected.begin(), expected.end(), less);
  for (std::int64_t j = 0; j < taken; ++j)
    if (!same_value(comparable(got[static_cast<std::size_t>(j)]), comparable(expected[static_cast<std::size_t>(j)])))
      return ::testing::AssertionFailure() << "the values differ from the reference's at " << j << " in order";
  if (sorted)
    for (std::int64_t j = 1; j < taken; ++j)
      if (less(values[j], values[j - 1]))
        return ::testing::AssertionFailure() << "sorted output " << j << " is out of order";
  if (indices) {
    std::vector<std::int64_t> seen(indices, indices + taken);
    for (std::int64_t j = 0; j < taken; ++j)
      if (indices[j] < 0 || indices[j] >= len || bits_of_key(seg[indices[j]]) != bits_of_key(values[j]))
        return ::testing::AssertionFailure() << "entry " << j << ": index " << indices[j]
                                             << " is outside the segment or holds another value";
    std::sort(seen.begin(), seen.end());
    if (std::adjacent_find(seen.begin(), seen.end()) != seen.end())
      return ::testing::AssertionFailure() << "an index appears twice";
  }
  return ::testing::AssertionSuccess();
}

}  // namespace kselect::test
