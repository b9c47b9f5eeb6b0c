// Comparing segmented answers with segmented_reference.hpp's, for every key type,
// naming the segment (row) and column of the first difference:
//   - selections by key: -0.0 equals +0.0, NaN equals NaN, anything else exactly;
//   - quantiles by value: NaN equals NaN, anything else exactly (-0.0 == +0.0);
//   - top-k exactly: the calls are deterministic and return the input's elements,
//     so the indices equal the reference's and the values its bits.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <vector>

#include "common/segmented_reference.hpp"
#include "kselect/types.hpp"

namespace kselect::test {

/// x as something gtest prints readably (16-bit keys as their float values).
template <class T>
auto printable(T x) {
  if constexpr (is_half_key_v<T>) {
    return to_float(x);
  } else {
    return x;
  }
}

/// "segment i, column j" of element e of an (m, cols) result.
inline std::string element_name(std::size_t e, std::int64_t cols) {
  const auto c = static_cast<std::size_t>(cols > 0 ? cols : 1);
  return "segment " + std::to_string(e / c) + ", column " + std::to_string(e % c);
}

/// Selections (select, select_each, multiselect): (m, cols) results equal by key.
template <class T>
::testing::AssertionResult same_keys(const std::vector<T>& got, const std::vector<T>& want, std::int64_t cols) {
  if (got.size() != want.size())
    return ::testing::AssertionFailure() << got.size() << " results, " << want.size() << " expected";
  for (std::size_t e = 0; e < got.size(); ++e)
    if (key_of(got[e]) != key_of(want[e]))
      return ::testing::AssertionFailure()
             << element_name(e, cols) << ": got " << printable(got[e]) << ", expected " << printable(want[e]);
  return ::testing::AssertionSuccess();
}

/// Quantiles: (m, cols) results equal as values, NaN equal to NaN.
template <class R>
::testing::AssertionResult same_quantiles(const std::vector<R>& got, const std::vector<R>& want, std::int64_t cols) {
  if (got.size() != want.size())
    return ::testing::AssertionFailure() << got.size() << " results, " << want.size() << " expected";
  for (std::size_t e = 0; e < got.size(); ++e) {
    const bool both_nan = std::isnan(got[e]) && std::isnan(want[e]);
    if (!both_nan && !(got[e] == want[e]))
      return ::testing::AssertionFailure() << element_name(e, cols) << ": got " << got[e] << ", expected " << want[e];
  }
  return ::testing::AssertionSuccess();
}

/// Top-k rows of k columns: the values bit for bit and, when `got` has indices,
/// the indices exactly.
template <class T>
::testing::AssertionResult same_topk(const topk_rows<T>& got, const topk_rows<T>& want, std::int64_t k) {
  if (got.values.size() != want.values.size())
    return ::testing::AssertionFailure() << got.values.size() << " values, " << want.values.size() << " expected";
  const bool with_indices = !got.indices.empty();
  if (with_indices && got.indices.size() != want.indices.size())
    return ::testing::AssertionFailure() << got.indices.size() << " indices, " << want.indices.size() << " expected";
  for (std::size_t e = 0; e < want.values.size(); ++e) {
    if (with_indices && got.indices[e] != want.indices[e])
      return ::testing::AssertionFailure() << element_name(e, k) << ": index " << got.indices[e] << ", expected "
                                           << want.indices[e] << " (value " << printable(want.values[e]) << ")";
    if (std::memcmp(&got.values[e], &want.values[e], sizeof(T)) != 0)
      return ::testing::AssertionFailure()
             << element_name(e, k) << ": value " << printable(got.values[e]) << ", expected "
             << printable(want.values[e]) << " bit for bit (index " << want.indices[e] << ")";
  }
  return ::testing::AssertionSuccess();
}

}  // namespace kselect::test
