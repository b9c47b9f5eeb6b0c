// Checking a top-k / rank-range result against range_reference.hpp, for every
// backend (the CPU suite and the GPU suite use it alike). Two strengths:
//   - deterministic results must equal the reference exactly: the same elements
//     (values bit for bit, indices) in the same order;
//   - other results may choose any of the elements tied at a boundary value and,
//     unsorted, any order, as FAISS's k-selection tests allow: the values must equal
//     the reference's as a multiset (NaN equals NaN, -0.0 equals +0.0), each value
//     must be an input element's bits, indices (when given) must be unique, in
//     range and point at an element with exactly the value reported, and sorted
//     output must be in order.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <span>
#include <type_traits>
#include <vector>

#include "common/range_reference.hpp"
#include "common/reference.hpp"

namespace kselect::test {

namespace detail {

template <class T>
using bits_t = std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>;

template <class T>
bits_t<T> bits_of(T x) {
  bits_t<T> b;
  std::memcpy(&b, &x, sizeof b);
  return b;
}

}  // namespace detail

/// check_range_result with the stable order of the input for the direction asked
/// (stable_order(input, n, descending)), so a sweep over many ranges sorts once.
template <class T>
::testing::AssertionResult check_range_result(const T* input, std::int64_t n,
                                              std::span<const std::int64_t> order, std::int64_t lo,
                                              std::int64_t hi, bool descending, bool sorted,
                                              bool deterministic, const T* out_values,
                                              const std::int64_t* out_indices) {
  if (lo < 0 || lo > hi || hi > n || static_cast<std::int64_t>(order.size()) != n)
    return ::testing::AssertionFailure() << "bad check: lo = " << lo << ", hi = " << hi << ", n = " << n;
  const range_answer<T> want = reference_range(input, order, lo, hi, sorted);
  const auto m = static_cast<std::size_t>(hi - lo);
  const char* direction = descending ? "descending" : "ascending";

  if (deterministic) {
    for (std::size_t i = 0; i < m; ++i) {
      if (detail::bits_of(out_values[i]) != detail::bits_of(want.values[i]))
        return ::testing::AssertionFailure()
               << direction << " [" << lo << ", " << hi << ") output " << i << ": value " << out_values[i]
               << ", expected " << want.values[i] << " (input index " << want.indices[i] << ")";
      if (out_indices && out_indices[i] != want.indices[i])
        return ::testing::AssertionFailure() << direction << " [" << lo << ", " << hi << ") output " << i
                                             << ": index " << out_indices[i] << ", expected "
                                             << want.indices[i];
    }
    return ::testing::AssertionSuccess();
  }

  // The multiset of values, compared in the reference's order.
  const auto less = [descending](T a, T b) { return descending ? nan_last_less(b, a) : nan_last_less(a, b); };
  std::vector<T> got(out_values, out_values + m), expected = want.values;
  std::stable_sort(got.begin(), got.end(), less);
  std::stable_sort(expected.begin(), expected.end(), less);
  for (std::size_t i = 0; i < m; ++i)
    if (!same_value(got[i], expected[i]))
      return ::testing::AssertionFailure() << direction << " [" << lo << ", " << hi
                                           << "): the values differ from the reference's; in order, "
                                           << i << "-th is " << got[i] << ", expected " << expected[i];
  if (sorted)
    for (std::size_t i = 1; i < m; ++i)
      if (less(out_values[i], out_values[i - 1]))
        return ::testing::AssertionFailure() << direction << " [" << lo << ", " << hi << ") sorted output "
                                             << i << " (" << out_values[i] << ") is out of order after "
                                             << out_values[i - 1];
  if (out_indices) {
    std::vector<std::int64_t> idx(out_indices, out_indices + m);
    for (std::size_t i = 0; i < m; ++i) {
      if (idx[i] < 0 || idx[i] >= n)
        return ::testing::AssertionFailure() << "output " << i << ": index " << idx[i] << " is outside [0, " << n << ")";
      if (detail::bits_of(input[idx[i]]) != detail::bits_of(out_values[i]))
        return ::testing::AssertionFailure() << "output " << i << ": value " << out_values[i]
                                             << " is not the bits of input[" << idx[i] << "] = " << input[idx[i]];
    }
    std::sort(idx.begin(), idx.end());
    if (const auto dup = std::adjacent_find(idx.begin(), idx.end()); dup != idx.end())
      return ::testing::AssertionFailure() << "index " << *dup << " is reported twice";
  } else if (m > 0) {
    // Without indices: each value must still be some input element's bits.
    std::vector<detail::bits_t<T>> all(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i) all[static_cast<std::size_t>(i)] = detail::bits_of(input[i]);
    std::sort(all.begin(), all.end());
    for (std::size_t i = 0; i < m; ++i)
      if (!std::binary_search(all.begin(), all.end(), detail::bits_of(out_values[i])))
        return ::testing::AssertionFailure() << "output " << i << ": value " << out_values[i]
                                             << " is not bit-equal to any input element";
  }
  return ::testing::AssertionSuccess();
}

/// Checks out_values[0..hi-lo) (and out_indices, unless null) as a selection of the
/// positions [lo, hi) of the stable sort of input[0..n) (descending: by descending
/// value, NaN first; ties by ascending index either way). sorted: the output must
/// be in that order; deterministic: it must equal the reference exactly (unsorted
/// in ascending index order, sorted in stable-sort order).
template <class T>
::testing::AssertionResult check_range_result(const T* input, std::int64_t n, std::int64_t lo, std::int64_t hi,
                                              bool descending, bool sorted, bool deterministic,
                                              const T* out_values, const std::int64_t* out_indices) {
  const std::vector<std::int64_t> order = stable_order(input, n, descending);
  return check_range_result(input, n, std::span<const std::int64_t>(order), lo, hi, descending, sorted,
                            deterministic, out_values, out_indices);
}

}  // namespace kselect::test
