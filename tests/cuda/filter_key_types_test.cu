// Every device filter (filter_if, filter_range, filter_if_indices with and without
// the keys, partition, partition_pairs, count_if, filter_if_inplace) on every key
// type with the lt, ge and in_range predicates (all six comparisons in the
// special-values test), under every filter_algorithm: sizes 0, 1, 2, 3, 31, 32,
// 33, 2^k - 1, 2^k, 2^k + 1 up to 2^17 + 1 (around the tiles: 16384 keys per
// single-pass tile for 4-byte keys, 8192 for 8-byte ones, 4096 per three-phase
// block), some tile multiples and a few million; selectivities 0% to 100%;
// alternating, clustered, first-only and last-only selections; NaN, +-inf,
// -0.0 == +0.0 and denormals, as keys and as constants. Against std::copy_if on the
// host, exactly (filter_test_util.cuh).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "common/key_types.hpp"
#include "common/probe_values.hpp"
#include "cuda/filter_test_util.cuh"

namespace kselect::test {
namespace {

constexpr mask_pattern shaped_patterns[] = {mask_pattern::alternating, mask_pattern::runs, mask_pattern::last_only,
                                            mask_pattern::first_only};

// ---------------------------------------------------------------------------------
// Every key type
// ---------------------------------------------------------------------------------

class FilterGpuTypes : public testing::TestWithParam<key_type> {};

TEST_P(FilterGpuTypes, SelectivitiesAndSizes) {
  with_key_type(GetParam(), [&]<class T>() {
    for (const std::int64_t n : gpu_sizes())
      for (const double s : {0.0, 0.001, 0.01, 0.5, 0.99, 1.0}) {
        expect_mask<T>(mask_pattern::random, n, s, 17 + static_cast<std::uint64_t>(n), true);
        if (HasFailure()) return;
      }
  });
}

// Selections that make warps diverge: every other key, runs of 1 to 1000, only the
// last key, only the first; and their complements (ge) and in_range.
TEST_P(FilterGpuTypes, Patterns) {
  with_key_type(GetParam(), [&]<class T>() {
    for (const std::int64_t n : gpu_sizes())
      for (const mask_pattern pat : shaped_patterns) {
        expect_mask<T>(pat, n, 0, 29 + static_cast<std::uint64_t>(n), false);
        if (HasFailure()) return;
      }
  });
}

// A few million keys: hundreds of single-pass tiles chained by look-back.
TEST_P(FilterGpuTypes, MillionsOfKeys) {
  with_key_type(GetParam(), [&]<class T>() {
    const std::int64_t one = (std::int64_t{1} << 20) + 1, two = (std::int64_t{1} << 21) + 3,
                       four = (std::int64_t{1} << 22) - 5;
    expect_mask<T>(mask_pattern::random, two, 0.5, 5, false);
    expect_mask<T>(mask_pattern::random, four, 0.001, 6, true);
    expect_mask<T>(mask_pattern::random, one, 0.99, 7, true);
    expect_mask<T>(mask_pattern::runs, four, 0, 8, true);
    expect_mask<T>(mask_pattern::last_only, two, 0, 9, true);
  });
}

// The probe values (NaN of both signs and a full payload, +-inf, +-0, denormals,
// extremes) spread over three blocks of keys, with each of them as the constant of
// every comparison, and ranges between them.
TEST_P(FilterGpuTypes, SpecialValuesAsKeysAndConstants) {
  with_key_type(GetParam(), [&]<class T>() {
    const std::vector<T> probes = probe_values<T>(40, 3);
    std::vector<T> v(3 * 4096 + 5);
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = probes[random_word(41, i) % probes.size()];
    std::copy(probes.begin(), probes.end(), v.begin());  // every probe value at least once
    for (std::size_t k = 0; k < probes.size(); ++k) {
      const T c = probes[k];
      SCOPED_TRACE(testing::Message() << "constant " << +c);
      for (const filter_op op : {filter_op::lt, filter_op::le, filter_op::gt, filter_op::ge, filter_op::eq,
                                 filter_op::ne})
        expect_device_filters(v, predicate<T>{op, c, T{}}, 0, k % 8 != 0);
      if (HasFailure()) return;
    }
    for (std::size_t i = 0; i < probes.size(); i += 7)
      for (std::size_t j = 0; j < probes.size(); j += 11) {
        const T lo = probes[i], hi = probes[j];
        if constexpr (std::is_floating_point_v<T>)
          if (std::isnan(lo) || std::isnan(hi)) continue;
        if (lo > hi) continue;
        SCOPED_TRACE(testing::Message() << "range [" << +lo << ", " << +hi << ")");
        expect_device_filters(v, in_range(lo, hi), 0, true);
      }
  });
}

INSTANTIATE_TEST_SUITE_P(AllTypes, FilterGpuTypes, testing::ValuesIn(all_key_types),
                         [](const testing::TestParamInfo<key_type>& info) { return name(info.param); });

}  // namespace
}  // namespace kselect::test
