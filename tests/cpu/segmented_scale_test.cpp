// The segmented owning API on the CPU backend with the most segments the issue
// names: 2^24 rows of 2, and 2^24 ragged segments of 0 to 3 values (empty ones
// among them), against the per-segment reference (common/segmented_reference.hpp,
// the one the GPU tests use). Runs in CI: about 2^25 values, seconds on two cores.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <span>
#include <vector>

#include "common/rng.hpp"
#include "common/segmented_check.hpp"
#include "common/segmented_inputs.hpp"
#include "common/segmented_reference.hpp"
#include "kselect/segmented.hpp"

namespace kselect::test {
namespace {

constexpr std::int64_t many = std::int64_t{1} << 24;

template <class T>
topk_rows<T> as_rows(const segmented_selection<T>& s) {
  return {s.values.data, s.indices.data};
}

topk_options deterministic_topk(bool largest) {
  topk_options t;
  t.largest = largest;
  t.sorted = true;
  t.deterministic = true;
  return t;
}

// Segment contents from one generator over the whole batch (special values: NaN,
// +-inf, -0.0 and denormals among ordinary ones), so that making 2^24 segments
// stays cheap; neighbouring segments then differ in what they hold.
std::vector<float> batch_values(std::int64_t n, std::uint64_t seed) {
  return generate_keys<float>(dist::special, n, seed);
}

TEST(SegmentedScale, TwoPow24Rows) {
  const std::vector<std::int64_t> offsets = row_offsets(many, 2);
  const std::vector<float> values = batch_values(offsets.back(), 91);
  const segments segs = segments::rows(many, 2);
  const std::int64_t n = offsets.back();
  const std::int64_t rank[] = {1};
  EXPECT_TRUE(same_keys(segmented_select(values.data(), n, segs, std::int64_t{1}),
                        reference_segmented_multiselect<float>(values, offsets, rank), 1));
  const std::vector<double> qs = {0.5, 0.25};
  for (const bool ignore_nan : {false, true}) {
    const auto got = ignore_nan ? segmented_nanquantile(values.data(), n, segs, qs, quantile_method::linear)
                                : segmented_quantile(values.data(), n, segs, qs, quantile_method::linear);
    EXPECT_TRUE(same_quantiles(got.data,
                               reference_segmented_quantile<float>(values, offsets, qs, quantile_method::linear,
                                                                   ignore_nan),
                               2))
        << (ignore_nan ? "nanquantile" : "quantile");
  }
  EXPECT_TRUE(same_topk(as_rows(segmented_topk(values.data(), n, segs, 3, deterministic_topk(false))),
                        reference_segmented_topk<float>(values, offsets, 3, false, true), 3))
      << "every row padded";
}

TEST(SegmentedScale, TwoPow24RaggedSegments) {
  std::vector<std::int64_t> lengths(static_cast<std::size_t>(many));
  for (std::int64_t i = 0; i < many; ++i)
    lengths[static_cast<std::size_t>(i)] = static_cast<std::int64_t>(random_word(92, static_cast<std::uint64_t>(i)) % 4);
  const std::vector<std::int64_t> offsets = offsets_of(lengths);
  const std::int64_t n = offsets.back();
  const std::vector<float> values = batch_values(n, 93);
  const segments segs = segments::ragged(offsets.data(), many);
  // select needs every rank inside its segment: ranks of the quantiles and top-k
  // cover the empty segments (NaN, and padding).
  const std::vector<double> qs = {0.5};
  for (const bool ignore_nan : {false, true}) {
    const auto got = ignore_nan ? segmented_nanquantile(values.data(), n, segs, qs, quantile_method::hazen)
                                : segmented_quantile(values.data(), n, segs, qs, quantile_method::hazen);
    EXPECT_TRUE(same_quantiles(got.data,
                               reference_segmented_quantile<float>(values, offsets, qs, quantile_method::hazen,
                                                                   ignore_nan),
                               1))
        << (ignore_nan ? "nanquantile" : "quantile");
  }
  EXPECT_TRUE(same_topk(as_rows(segmented_topk(values.data(), n, segs, 2, deterministic_topk(true))),
                        reference_segmented_topk<float>(values, offsets, 2, true, true), 2));
  EXPECT_THROW(segmented_select(values.data(), n, segs, std::int64_t{0}), std::invalid_argument)
      << "an empty segment has no rank 0";
}

}  // namespace
}  // namespace kselect::test
