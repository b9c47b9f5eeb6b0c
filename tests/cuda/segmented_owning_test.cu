// The owning segmented API (kselect/segmented.hpp) on values in device memory:
// the per-segment reference's answers with the offsets in host or in device memory,
// equal rows, empty segments (NaN quantiles, padded top-k rows); and the caller's
// mistakes thrown as std::invalid_argument naming the offset or the segment.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <span>
#include <vector>

#include "common/device_data.cuh"
#include "common/expect_invalid.hpp"
#include "common/segmented_check.hpp"
#include "common/segmented_inputs.hpp"
#include "common/segmented_reference.hpp"
#include "kselect/kselect.hpp"

namespace kselect::test {
namespace {

template <class T>
class SegmentedOwning : public ::testing::Test {};
using OwningKeys = ::testing::Types<float, kselect::float16, std::int64_t>;
TYPED_TEST_SUITE(SegmentedOwning, OwningKeys);

// Deterministic, so that the answer is exact whatever the owning API's default.
topk_options topk_opts(bool largest, bool sorted, bool indices = true) {
  topk_options t;
  t.largest = largest;
  t.sorted = sorted;
  t.deterministic = true;
  t.indices = indices;
  return t;
}

template <class T>
topk_rows<T> as_rows(const segmented_selection<T>& s) {
  return {s.values.data, s.indices.data};
}

// Every call on ragged segments, none empty (select throws for an empty one).
TYPED_TEST(SegmentedOwning, RaggedDeviceValues) {
  using T = TypeParam;
  std::vector<std::int64_t> lengths;
  for (std::size_t d = 0; d < segment_dists().size(); ++d)
    for (const std::int64_t length : mixed_lengths())
      if (length > 0) lengths.push_back(length);
  const std::vector<std::int64_t> offsets = offsets_of(lengths);
  const auto m = static_cast<std::int64_t>(lengths.size());
  const std::int64_t n = offsets.back();
  const std::vector<T> values = fill_segments<T>(offsets, mixed_dist, 81);
  const device_buffer<T> d_values(values);
  const device_buffer<std::int64_t> d_offsets(offsets);
  const std::vector<double> qs = {0.5, 0.0, 1.0, 0.3};

  for (const bool device_offsets : {false, true}) {
    SCOPED_TRACE(device_offsets ? "device offsets" : "host offsets");
    const segments segs = segments::ragged(device_offsets ? d_offsets.data() : offsets.data(), m);
    const std::int64_t first[] = {0};
    EXPECT_TRUE(same_keys(segmented_select(d_values.data(), n, segs, std::int64_t{0}),
                          reference_segmented_multiselect<T>(values, offsets, first), 1));
    const std::vector<std::int64_t> ks = middle_ranks(offsets);
    EXPECT_TRUE(same_keys(segmented_select(d_values.data(), n, segs, std::span<const std::int64_t>(ks)),
                          reference_segmented_select_each<T>(values, offsets, ks), 1));
    const std::vector<std::int64_t> ranks = {0, 0};
    EXPECT_TRUE(same_keys(segmented_multiselect(d_values.data(), n, segs, ranks).data,
                          reference_segmented_multiselect<T>(values, offsets, ranks), 2));
    for (const quantile_method method : {quantile_method::linear, quantile_method::midpoint, quantile_method::hazen,
                                         quantile_method::inverted_cdf}) {
      SCOPED_TRACE(to_string(method));
      EXPECT_TRUE(same_quantiles(segmented_quantile(d_values.data(), n, segs, qs, method).data,
                                 reference_segmented_quantile<T>(values, offsets, qs, method, false), 4));
      EXPECT_TRUE(same_quantiles(segmented_nanquantile(d_values.data(), n, segs, qs, method).data,
                                 reference_segmented_quantile<T>(values, offsets, qs, method, true), 4));
    }
    EXPECT_TRUE(same_quantiles(segmented_median(d_values.data(), n, segs),
                               reference_segmented_median<T>(values, offsets), 1));
    const topk_rows<T> want = reference_segmented_topk<T>(values, offsets, 40, true, true);
    EXPECT_TRUE(same_topk(as_rows(segmented_topk(d_values.data(), n, segs, 40, topk_opts(true, true))), want, 40));
    const segmented_selection<T> bare = segmented_topk(d_values.data(), n, segs, 40, topk_opts(true, true, false));
    EXPECT_TRUE(bare.indices.data.empty());
    EXPECT_TRUE(same_topk(as_rows(bare), want, 40));
  }
}

// Equal rows, and ragged segments with empty ones (quantiles and top-k only).
TYPED_TEST(SegmentedOwning, RowsAndEmptySegments) {
  using T = TypeParam;
  const std::int64_t m = 50, cols = 200;
  const std::vector<std::int64_t> rows = row_offsets(m, cols);
  const std::vector<T> values = fill_segments<T>(rows, cycling_dist, 82);
  const device_buffer<T> d_values(values);
  const segments by_rows = segments::rows(m, cols);
  const std::int64_t k[] = {cols / 2};
  EXPECT_TRUE(same_keys(segmented_select(d_values.data(), m * cols, by_rows, k[0]),
                        reference_segmented_multiselect<T>(values, rows, k), 1));
  const std::vector<std::int64_t> ranks = {cols - 1, 0, cols / 2, 0};
  EXPECT_TRUE(same_keys(segmented_multiselect(d_values.data(), m * cols, by_rows, ranks).data,
                        reference_segmented_multiselect<T>(values, rows, ranks), 4));
  EXPECT_TRUE(same_topk(as_rows(segmented_topk(d_values.data(), m * cols, by_rows, 10, topk_opts(false, false))),
                        reference_segmented_topk<T>(values, rows, 10, false, false), 10));

  const std::vector<std::int64_t> offsets = mixed_offsets();
  const std::vector<T> ragged_values = fill_segments<T>(offsets, mixed_dist, 83);
  const device_buffer<T> d_ragged(ragged_values);
  const device_buffer<std::int64_t> d_offsets(offsets);
  const auto segs = segments::ragged(d_offsets.data(), static_cast<std::int64_t>(offsets.size()) - 1);
  const std::int64_t n = offsets.back();
  const std::vector<double> qs = {0.5, 0.9};
  EXPECT_TRUE(
      same_quantiles(segmented_quantile(d_ragged.data(), n, segs, qs).data,
                     reference_segmented_quantile<T>(ragged_values, offsets, qs, quantile_method::linear, false), 2));
  EXPECT_TRUE(same_topk(as_rows(segmented_topk(d_ragged.data(), n, segs, 40, topk_opts(false, true))),
                        reference_segmented_topk<T>(ragged_values, offsets, 40, false, true), 40));
}

// Caller mistakes, with the offsets in host and in device memory.
TEST(SegmentedOwningErrors, DeviceValues) {
  const std::vector<std::int64_t> lengths = {5, 3, 0, 7, 2, 9};
  const std::vector<std::int64_t> offsets = offsets_of(lengths);
  const std::int64_t m = 6, n = offsets.back();
  const std::vector<float> values = fill_segments<float>(offsets, cycling_dist, 91);
  const device_buffer<float> d(values);
  const device_buffer<std::int64_t> d_offsets(offsets);
  const std::vector<std::int64_t> decreasing = {0, 5, 8, 6, 15, 17, n};
  const std::vector<std::int64_t> late_start = {1, 5, 8, 8, 15, 17, n};
  const device_buffer<std::int64_t> d_decreasing(decreasing), d_late_start(late_start);

  for (const bool on_device : {false, true}) {
    SCOPED_TRACE(on_device ? "device offsets" : "host offsets");
    const segments segs = segments::ragged(on_device ? d_offsets.data() : offsets.data(), m);
    expect_invalid([&] { segmented_select(d.data(), n, segs, std::int64_t{3}); }, "for segment 1");
    expect_invalid([&] { segmented_select(d.data(), n, segs, std::int64_t{0}); }, "for segment 2");
    const std::vector<std::int64_t> ks = {4, 2, 0, 0, 0, 0};
    expect_invalid([&] { segmented_select(d.data(), n, segs, std::span<const std::int64_t>(ks)); }, "for segment 2");
    const std::vector<double> bad_qs = {0.5, 1.5};
    expect_invalid([&] { segmented_quantile(d.data(), n, segs, bad_qs); }, "qs[1]");
    EXPECT_THROW(segmented_topk(d.data(), n, segs, -1), std::invalid_argument);

    const segments bad = segments::ragged(on_device ? d_decreasing.data() : decreasing.data(), m);
    expect_invalid([&] { segmented_median(d.data(), n, bad); }, "offsets[3]");
    const segments late = segments::ragged(on_device ? d_late_start.data() : late_start.data(), m);
    expect_invalid([&] { segmented_median(d.data(), n, late); }, "offsets[0]");
    expect_invalid([&] { segmented_median(d.data(), n - 1, segs); }, "offsets[6]");
  }
  // Only rank 3 lies outside a segment, first in segment 1 (lengths 5, 3, 4, ...).
  const std::vector<std::int64_t> full = offsets_of(std::vector<std::int64_t>{5, 3, 4, 7, 2, 9});
  const std::vector<float> full_values = fill_segments<float>(full, cycling_dist, 92);
  const device_buffer<float> d_full(full_values);
  const std::vector<std::int64_t> ranks = {0, 3};
  expect_invalid([&] { segmented_multiselect(d_full.data(), full.back(), segments::ragged(full.data(), m), ranks); },
                 "for segment 1");
  expect_invalid([&] { segmented_select(d_full.data(), 26, segments::rows(4, 7), std::int64_t{0}); }, "n = 26");
}

}  // namespace
}  // namespace kselect::test
