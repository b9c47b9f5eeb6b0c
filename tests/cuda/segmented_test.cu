// The segmented device API against the per-segment reference for all eight key
// types, on equal rows and on a ragged layout: empty segments, lengths 1 to 3, 31
// to 33 and 2^k +- 1 up to 4097, each segment random, sorted, reversed, all equal,
// of 2 or of 16 values, or special (NaN, +-inf, -0.0, denormals). Every operation:
// select (k = 0, 1, len/2, len - 1; on ragged segments also ranks outside the
// short ones, answered NaN or 0 and reported in d_invalid_segment), select_each,
// multiselect (unsorted ranks with repeats), quantile (all thirteen methods, with and
// without ignore_nan; empty segments answer NaN), top-k (both directions, sorted
// or not, int64, int32 or no indices, k above some lengths: padding).
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "common/segmented_inputs.hpp"
#include "cuda/segmented_expect.cuh"

namespace kselect::test {
namespace {

template <class T>
class SegmentedKeyTypes : public ::testing::Test {};
using SegmentedKeys = ::testing::Types<float, double, std::int32_t, std::uint32_t, std::int64_t, std::uint64_t,
                                       kselect::float16, kselect::bfloat16>;
TYPED_TEST_SUITE(SegmentedKeyTypes, SegmentedKeys);

// Unsorted, with repeats.
const std::vector<double> test_qs = {0.5, 0.0, 1.0, 0.25, 0.999, 0.01, 0.5, 0.3};

TYPED_TEST(SegmentedKeyTypes, EqualRows) {
  using T = TypeParam;
  const std::int64_t m = 70, cols = 1000;
  const std::vector<std::int64_t> offsets = row_offsets(m, cols);
  const segmented_input<T> in(fill_segments<T>(offsets, cycling_dist, 7), offsets, false);
  const std::vector<std::int64_t> ks = {0, 1, cols / 2, cols - 1};
  expect_segmented_select(in, ks);
  expect_segmented_select_each(in, cycling_ranks(offsets));
  const std::vector<std::int64_t> ranks = {cols - 1, 0, cols / 2, 0, 1, 333};
  expect_segmented_multiselect(in, ranks);
  expect_segmented_quantiles<T>(in, test_qs, quantile_methods);
  expect_segmented_median<T>(in);
  expect_segmented_topk(in, 40);
  expect_segmented_topk(in, cols, true);      // every element
  expect_segmented_topk(in, cols + 3, true);  // every row padded
}

TYPED_TEST(SegmentedKeyTypes, Ragged) {
  using T = TypeParam;
  const std::vector<std::int64_t> offsets = mixed_offsets();
  const segmented_input<T> in(fill_segments<T>(offsets, mixed_dist, 11), offsets, true);
  // 0 and 1 lie outside the empty segments, 16 and 100 outside short ones too.
  const std::vector<std::int64_t> ks = {0, 1, 16, 100};
  expect_segmented_select(in, ks);
  expect_segmented_select_each(in, cycling_ranks(offsets));
  expect_segmented_select_each(in, middle_ranks(offsets));
  const std::vector<std::int64_t> ranks = {3, 0, 3, 1, 7};
  expect_segmented_multiselect(in, ranks);
  expect_segmented_quantiles<T>(in, test_qs, quantile_methods);
  expect_segmented_median<T>(in);
  expect_segmented_topk(in, 40);
  expect_segmented_topk(in, 1, true);
  expect_segmented_topk(in, 4100, true);  // longer than every segment
}

}  // namespace
}  // namespace kselect::test
