// The segmented device API on the shapes where a batched implementation changes
// strategy: lengths 2^k - 1, 2^k, 2^k + 1 up to 2^20 (ragged, and as equal rows);
// one segment of 2^25 among a million of 1 to 32; a single segment (m = 1); few
// segments of the warp tiers' lengths (the small block tier answers them); 2^20
// short rows; 2^24 segments (rows and ragged). Against the per-segment reference,
// as segmented_test.cu, with fewer variants per shape to keep the run short.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "common/segmented_inputs.hpp"
#include "cuda/segmented_expect.cuh"

namespace kselect::test {
namespace {

const quantile_method some_methods[] = {quantile_method::linear, quantile_method::nearest, quantile_method::weibull};

template <class T>
class SegmentedPowerOfTwoLengths : public ::testing::Test {};
using SomeKeys = ::testing::Types<float, std::uint64_t, kselect::bfloat16>;
TYPED_TEST_SUITE(SegmentedPowerOfTwoLengths, SomeKeys);

// 48 ragged segments, 2^20 + 1 down to 31 long (6.3 million values).
TYPED_TEST(SegmentedPowerOfTwoLengths, Ragged) {
  using T = TypeParam;
  const std::vector<std::int64_t> lengths = power_of_two_lengths(5, 20);
  const std::vector<std::int64_t> offsets = offsets_of(lengths);
  const segmented_input<T> in(fill_segments<T>(offsets, cycling_dist, 41), offsets, true);
  const std::vector<std::int64_t> ks = {0, 31};  // 31 is outside the segments of 31
  expect_segmented_select(in, ks);
  expect_segmented_select_each(in, cycling_ranks(offsets));
  const std::vector<std::int64_t> ranks = {30, 0, 15, 0};
  expect_segmented_multiselect(in, ranks);
  const std::vector<double> qs = {0.5, 0.1, 0.9};
  expect_segmented_quantiles<T>(in, qs, some_methods);
  expect_segmented_median<T>(in);
  expect_segmented_topk(in, 100, true);  // pads the segments of 31 to 65
}

// Equal rows of 2^k - 1, 2^k and 2^k + 1 for some k (the ragged test above has
// every k), about a million values per shape.
TEST(SegmentedPowerOfTwoRows, Float) {
  std::vector<std::int64_t> shapes;
  for (const int k : {5, 7, 10, 13, 16, 20})
    for (const std::int64_t d : {-1, 0, 1}) shapes.push_back((std::int64_t{1} << k) + d);
  for (const std::int64_t cols : shapes) {
    const std::int64_t m = std::max<std::int64_t>(1, (std::int64_t{1} << 20) / cols);
    SCOPED_TRACE(testing::Message() << m << " rows of " << cols);
    const std::vector<std::int64_t> offsets = row_offsets(m, cols);
    const segmented_input<float> in(fill_segments<float>(offsets, cycling_dist, 43 + cols), offsets, false);
    const std::vector<std::int64_t> ks = {0, cols / 2, cols - 1};
    expect_segmented_select(in, ks);
    const std::vector<double> qs = {0.5};
    expect_segmented_quantiles<float>(in, qs, some_methods);
    expect_segmented_topk(in, 50, true);
  }
}

// One segment of 2^25 in the middle of 2^20 segments of 1 to 32 (50 million values).
TEST(SegmentedMixedScales, HugeSegmentAmongAMillionTiny) {
  const std::vector<std::int64_t> offsets = offsets_of(huge_among_tiny_lengths(51));
  const std::int64_t huge_at = std::int64_t{1} << 19;
  const segmented_input<float> in(
      fill_segments<float>(
          offsets, [&](std::int64_t i) { return i == huge_at ? dist::uniform : cycling_dist(i); }, 52),
      offsets, true);
  const std::vector<std::int64_t> ks = {0};
  expect_segmented_select(in, ks);
  expect_segmented_select_each(in, middle_ranks(offsets));
  const std::vector<double> qs = {0.5};
  const quantile_method linear[] = {quantile_method::linear};
  expect_segmented_quantiles<float>(in, qs, linear);
  expect_segmented_topk(in, 16, true);
}

// m = 1: one ragged segment, and one row.
TEST(SegmentedMixedScales, OneSegment) {
  const std::int64_t n = (std::int64_t{1} << 20) + 1;
  const std::vector<std::int64_t> offsets = {0, n};
  for (const bool ragged : {true, false}) {
    SCOPED_TRACE(ragged ? "ragged" : "rows");
    const segmented_input<float> in(generate_keys<float>(dist::special, n, 61), offsets, ragged);
    const std::vector<std::int64_t> ks = {0, 1, n / 2, n - 1};
    expect_segmented_select(in, ks);
    const std::vector<std::int64_t> ranks = {n - 1, 0, n / 2, 0};
    expect_segmented_multiselect(in, ranks);
    const std::vector<double> qs = {0.5, 0.0, 1.0, 0.25};
    expect_segmented_quantiles<float>(in, qs, quantile_methods);
    expect_segmented_topk(in, 1000, true);
  }
}

// Calls of at most few_segments_max (64) segments answer segments of 33 to 1024 keys
// in the small block tier, not the warp tiers (tables.cuh): rows of those lengths
// with m = 1, 3 and 64, and m = 65 (the warp tiers again), and few ragged segments
// of 0 to 1024 keys; many ranks, so that the block tier's rounds of 16 ranks repeat.
TYPED_TEST(SegmentedPowerOfTwoLengths, FewSegmentsOfWarpLengths) {
  using T = TypeParam;
  for (const std::int64_t m : {1, 3, 64, 65})
    for (const std::int64_t cols : {33, 100, 256, 257, 1000, 1024}) {
      SCOPED_TRACE(testing::Message() << m << " rows of " << cols);
      const std::vector<std::int64_t> offsets = row_offsets(m, cols);
      const segmented_input<T> in(fill_segments<T>(offsets, cycling_dist, 81 + cols + m), offsets, false);
      const std::vector<std::int64_t> ks = {0, cols / 2, cols - 1};
      expect_segmented_select(in, ks);
      std::vector<std::int64_t> ranks;
      for (std::int64_t r = cols - 1; r >= 0; r -= std::max<std::int64_t>(1, cols / 40)) ranks.push_back(r);
      expect_segmented_multiselect(in, ranks);
      const std::vector<double> qs = {0.5, 0.01, 0.99};
      expect_segmented_quantiles<T>(in, qs, some_methods);
      expect_segmented_median<T>(in);
      expect_segmented_topk(in, 50, true);
    }
  std::vector<std::int64_t> lengths;
  for (int i = 0; i < 40; ++i) lengths.push_back((i * 389) % 1025);  // 0 to 1024, some under 33
  const std::vector<std::int64_t> offsets = offsets_of(lengths);
  const segmented_input<T> in(fill_segments<T>(offsets, cycling_dist, 97), offsets, true);
  SCOPED_TRACE("40 ragged segments of 0 to 1024");
  const std::vector<std::int64_t> ks = {0, 20};
  expect_segmented_select(in, ks);
  const std::vector<double> qs = {0.5, 0.3};
  expect_segmented_quantiles<T>(in, qs, some_methods);
  expect_segmented_median<T>(in);
  expect_segmented_topk(in, 30, true);
}

// m = 2^20 rows of 24.
TEST(SegmentedMixedScales, AMillionShortRows) {
  const std::int64_t m = std::int64_t{1} << 20, cols = 24;
  const std::vector<std::int64_t> offsets = row_offsets(m, cols);
  const segmented_input<float> in(fill_segments<float>(offsets, cycling_dist, 71), offsets, false);
  const std::vector<std::int64_t> ks = {0, cols / 2, cols - 1};
  expect_segmented_select(in, ks);
  expect_segmented_select_each(in, cycling_ranks(offsets));
  const std::vector<double> qs = {0.5, 0.9};
  expect_segmented_quantiles<float>(in, qs, some_methods);
  expect_segmented_topk(in, 5, true);
  expect_segmented_topk(in, 30, true);  // every row padded
}

// The most segments the issue names: 2^24 rows of 3, and 2^24 ragged segments of 0
// to 7 values (about two in nine empty), each segment from its own distribution.
TEST(SegmentedMixedScales, TwoPow24Segments) {
  const std::int64_t m = std::int64_t{1} << 24;
  const quantile_method linear[] = {quantile_method::linear};
  const std::vector<double> qs = {0.5};
  {
    SCOPED_TRACE("2^24 rows of 3");
    const std::vector<std::int64_t> offsets = row_offsets(m, 3);
    const segmented_input<float> in(fill_segments<float>(offsets, cycling_dist, 81), offsets, false);
    const std::vector<std::int64_t> ks = {1};
    expect_segmented_select(in, ks);
    expect_segmented_select_each(in, cycling_ranks(offsets));
    expect_segmented_quantiles<float>(in, qs, linear);
    expect_segmented_topk(in, 2, true);
    expect_segmented_topk(in, 5, true);  // every row padded
  }
  {
    SCOPED_TRACE("2^24 ragged segments of 0 to 7");
    std::vector<std::int64_t> lengths(static_cast<std::size_t>(m));
    for (std::int64_t i = 0; i < m; ++i)
      lengths[static_cast<std::size_t>(i)] = static_cast<std::int64_t>(random_word(82, static_cast<std::uint64_t>(i)) % 9) - 1;
    for (std::int64_t& l : lengths) l = std::max<std::int64_t>(l, 0);
    const std::vector<std::int64_t> offsets = offsets_of(lengths);
    const segmented_input<float> in(fill_segments<float>(offsets, cycling_dist, 83), offsets, true);
    const std::vector<std::int64_t> ks = {0};
    expect_segmented_select(in, ks);  // the empty segments are reported
    expect_segmented_select_each(in, middle_ranks(offsets));
    expect_segmented_quantiles<float>(in, qs, linear);
    expect_segmented_topk(in, 4, true);
  }
}

}  // namespace
}  // namespace kselect::test
