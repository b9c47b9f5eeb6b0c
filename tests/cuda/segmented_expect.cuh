// One segmented operation on one input, on the device and by the per-segment
// reference, compared whole (segmented_check.hpp), d_invalid_segment included:
// what the segmented GPU tests are made of. D: the key type the device API is
// called with (segmented_test_util.cuh).
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <span>
#include <vector>

#include "common/segmented_check.hpp"
#include "common/segmented_reference.hpp"
#include "cuda/segmented_test_util.cuh"

namespace kselect::test {

/// segmented_select for each of `ks` (ranks outside short segments included).
template <class T, class D = T>
void expect_segmented_select(const segmented_input<T>& in, std::span<const std::int64_t> ks) {
  for (const std::int64_t k : ks) {
    SCOPED_TRACE(testing::Message() << "segmented_select k = " << k);
    const std::int64_t rank[] = {k};
    const selection_answer<T> got = gpu_segmented_select<T, D>(in.device(), k);
    EXPECT_TRUE(same_keys(got.values, reference_segmented_multiselect<T>(in.values(), in.offsets(), rank), 1));
    EXPECT_EQ(got.invalid, first_invalid_segment(in.offsets(), rank));
  }
}

/// segmented_select_each with rank ks[i] for segment i.
template <class T, class D = T>
void expect_segmented_select_each(const segmented_input<T>& in, std::span<const std::int64_t> ks) {
  SCOPED_TRACE("segmented_select_each");
  const selection_answer<T> got = gpu_segmented_select_each<T, D>(in.device(), ks);
  EXPECT_TRUE(same_keys(got.values, reference_segmented_select_each<T>(in.values(), in.offsets(), ks), 1));
  EXPECT_EQ(got.invalid, first_invalid_segment_each(in.offsets(), ks));
}

/// segmented_multiselect with the same ranks (any order, repeats) in every segment.
template <class T, class D = T>
void expect_segmented_multiselect(const segmented_input<T>& in, std::span<const std::int64_t> ranks) {
  SCOPED_TRACE("segmented_multiselect");
  const selection_answer<T> got = gpu_segmented_multiselect<T, D>(in.device(), ranks);
  const auto cols = static_cast<std::int64_t>(ranks.size());
  EXPECT_TRUE(same_keys(got.values, reference_segmented_multiselect<T>(in.values(), in.offsets(), ranks), cols));
  EXPECT_EQ(got.invalid, first_invalid_segment(in.offsets(), ranks));
}

/// segmented_quantile for each method, with and without ignore_nan.
template <class T, class D = T>
void expect_segmented_quantiles(const segmented_input<T>& in, std::span<const double> qs,
                                std::span<const quantile_method> methods) {
  const auto cols = static_cast<std::int64_t>(qs.size());
  for (const quantile_method m : methods)
    for (const bool ignore_nan : {false, true}) {
      SCOPED_TRACE(testing::Message() << "segmented_quantile " << to_string(m) << (ignore_nan ? ", ignore_nan" : ""));
      EXPECT_TRUE(same_quantiles(gpu_segmented_quantile<T, D>(in.device(), qs, m, ignore_nan),
                                 reference_segmented_quantile<T>(in.values(), in.offsets(), qs, m, ignore_nan), cols));
    }
}

/// segmented_median (numpy.median's mean of the middle keys), with and without ignore_nan.
template <class T, class D = T>
void expect_segmented_median(const segmented_input<T>& in) {
  for (const bool ignore_nan : {false, true}) {
    SCOPED_TRACE(ignore_nan ? "segmented_median, ignore_nan" : "segmented_median");
    EXPECT_TRUE(same_quantiles(gpu_segmented_median<T, D>(in.device(), ignore_nan),
                               reference_segmented_median<T>(in.values(), in.offsets(), ignore_nan), 1));
  }
}

/// segmented_topk, smallest and largest, unsorted and sorted: with int64 indices;
/// unless `light`, also with int32 indices and with none.
template <class T, class D = T>
void expect_segmented_topk(const segmented_input<T>& in, std::int64_t k, bool light = false) {
  for (const bool largest : {false, true})
    for (const bool sorted : {false, true}) {
      SCOPED_TRACE(testing::Message() << "segmented_topk k = " << k << (largest ? ", largest" : ", smallest")
                                      << (sorted ? ", sorted" : ", unsorted"));
      const topk_rows<T> want = reference_segmented_topk<T>(in.values(), in.offsets(), k, largest, sorted);
      EXPECT_TRUE(same_topk(gpu_segmented_topk<T, std::int64_t, D>(in.device(), k, largest, sorted, true), want, k))
          << "int64";
      if (light) continue;
      EXPECT_TRUE(same_topk(gpu_segmented_topk<T, std::int32_t, D>(in.device(), k, largest, sorted, true), want, k))
          << "int32";
      EXPECT_TRUE(same_topk(gpu_segmented_topk<T, std::int64_t, D>(in.device(), k, largest, sorted, false), want, k))
          << "no indices";
    }
}

}  // namespace kselect::test
