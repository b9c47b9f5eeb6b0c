// core::quantile_point_for, validate_quantiles and the NumPy lerp, on hand-checked
// cases and values of NumPy's internals (NumPy's answers for whole inputs are in
// quantile_numpy_test.cpp).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

#include "core/quantile_math.hpp"

namespace kselect {
namespace {

using core::quantile_point_for;
using qm = quantile_method;

void expect_point(core::quantile_point p, std::int64_t lo, std::int64_t hi, double gamma, bool interp) {
  EXPECT_EQ(p.lo, lo);
  EXPECT_EQ(p.hi, hi);
  EXPECT_EQ(p.interpolate, interp);
  if (interp) {
    EXPECT_EQ(p.gamma, gamma);
  }
}

TEST(QuantileMath, Linear) {
  // n = 4: h = 3q.
  expect_point(quantile_point_for(4, 0.0, qm::linear), 0, 1, 0.0, true);
  expect_point(quantile_point_for(4, 0.5, qm::linear), 1, 2, 0.5, true);
  expect_point(quantile_point_for(4, 0.25, qm::linear), 0, 1, 0.75, true);
  // h >= n - 1: NumPy's index -1 on both sides and gamma = h + 1.
  expect_point(quantile_point_for(4, 1.0, qm::linear), 3, 3, 4.0, true);
  expect_point(quantile_point_for(1, 0.3, qm::linear), 0, 0, 1.0, true);
}

TEST(QuantileMath, DiscreteMethods) {
  // n = 5: h = 4q.  q = 0.375 -> 1.5; q = 0.625 -> 2.5; q = 0.3 -> 1.2000000000000002.
  expect_point(quantile_point_for(5, 0.375, qm::lower), 1, 1, 0, false);
  expect_point(quantile_point_for(5, 0.375, qm::higher), 2, 2, 0, false);
  expect_point(quantile_point_for(5, 0.375, qm::nearest), 2, 2, 0, false);  // 1.5 -> 2 (even)
  expect_point(quantile_point_for(5, 0.625, qm::nearest), 2, 2, 0, false);  // 2.5 -> 2 (even)
  expect_point(quantile_point_for(5, 0.3, qm::nearest), 1, 1, 0, false);
  expect_point(quantile_point_for(5, 0.3, qm::higher), 2, 2, 0, false);
  expect_point(quantile_point_for(5, 1.0, qm::higher), 4, 4, 0, false);
  expect_point(quantile_point_for(5, 0.0, qm::lower), 0, 0, 0, false);
}

TEST(QuantileMath, Midpoint) {
  expect_point(quantile_point_for(5, 0.3, qm::midpoint), 1, 2, 0.5, true);
  expect_point(quantile_point_for(5, 0.5, qm::midpoint), 2, 3, 0.0, true);  // whole index: gamma 0
  expect_point(quantile_point_for(5, 1.0, qm::midpoint), 4, 4, 0.0, true);
}

// Hyndman & Fan's continuous methods: x = n*q + (alpha + q*(1 - alpha - beta)) - 1.
// Values from numpy 2.4.6 (_compute_virtual_index, _get_indexes, _get_gamma).
TEST(QuantileMath, ContinuousMethodEdges) {
  // x < 0: both neighbours are v[0] and gamma = x (NumPy's index 0; x - 0).
  expect_point(quantile_point_for(4, 0.0, qm::hazen), 0, 0, -0.5, true);
  expect_point(quantile_point_for(2, 0.0, qm::normal_unbiased), 0, 0, -0.625, true);
  expect_point(quantile_point_for(1, 0.0, qm::hazen), 0, 0, -0.5, true);
  expect_point(quantile_point_for(1, 0.0, qm::weibull), 0, 0, -1.0, true);
  expect_point(quantile_point_for(1, 0.5, qm::interpolated_inverted_cdf), 0, 0, -0.5, true);
  // x >= n - 1: both neighbours are v[n-1] and gamma = x + 1 (NumPy's index -1).
  expect_point(quantile_point_for(4, 1.0, qm::hazen), 3, 3, 4.5, true);
  expect_point(quantile_point_for(1, 1.0, qm::hazen), 0, 0, 1.5, true);
  expect_point(quantile_point_for(1, 1.0, qm::weibull), 0, 0, 2.0, true);
  expect_point(quantile_point_for(3, 1.0, qm::median_unbiased), 2, 2, 2.666666666666667 + 1, true);
  // Inside: floor x and the next rank.
  expect_point(quantile_point_for(4, 0.5, qm::hazen), 1, 2, 0.5, true);
  expect_point(quantile_point_for(4, 0.5, qm::interpolated_inverted_cdf), 1, 2, 0.0, true);
}

// The products n*q and q*(1 - alpha - beta) are rounded before they are added, as in
// NumPy; an FMA would give these virtual indexes another last bit.
TEST(QuantileMath, ContinuousMethodsDoNotFuse) {
  expect_point(quantile_point_for(6, 0.108, qm::hazen), 0, 1, 0x1.2f1a9fbe76c90p-3, true);
  expect_point(quantile_point_for(38, 0.285, qm::median_unbiased), 10, 11, 0x1.0888888888860p-2, true);
  expect_point(quantile_point_for(42, 0.189, qm::weibull), 7, 8, 0x1.04189374bc680p-3, true);
}

TEST(QuantileMath, AveragedInvertedCdf) {
  // x = n*q - 1; gamma 0.5 where x is whole inside, 1 (the upper neighbour) elsewhere.
  expect_point(quantile_point_for(4, 0.25, qm::averaged_inverted_cdf), 0, 1, 0.5, true);
  expect_point(quantile_point_for(4, 0.5, qm::averaged_inverted_cdf), 1, 2, 0.5, true);
  expect_point(quantile_point_for(4, 0.3, qm::averaged_inverted_cdf), 0, 1, 1.0, true);
  expect_point(quantile_point_for(4, 0.0, qm::averaged_inverted_cdf), 0, 0, 1.0, true);   // x = -1
  expect_point(quantile_point_for(4, 1.0, qm::averaged_inverted_cdf), 3, 3, 1.0, true);   // x = n - 1
  expect_point(quantile_point_for(1, 0.5, qm::averaged_inverted_cdf), 0, 0, 1.0, true);
}

TEST(QuantileMath, InvertedCdfAndClosestObservation) {
  // inverted_cdf: i = n*q - 1, rounded up unless whole; below 0 clipped to 0.
  expect_point(quantile_point_for(4, 0.0, qm::inverted_cdf), 0, 0, 0, false);  // i = -1
  expect_point(quantile_point_for(4, 0.25, qm::inverted_cdf), 0, 0, 0, false);
  expect_point(quantile_point_for(4, 0.26, qm::inverted_cdf), 1, 1, 0, false);
  expect_point(quantile_point_for(4, 1.0, qm::inverted_cdf), 3, 3, 0, false);
  expect_point(quantile_point_for(1, 0.5, qm::inverted_cdf), 0, 0, 0, false);
  // closest_observation: i = n*q - 1.5, rounded up unless whole and odd.
  expect_point(quantile_point_for(4, 0.375, qm::closest_observation), 1, 1, 0, false);  // i = 0: even, up
  expect_point(quantile_point_for(4, 0.625, qm::closest_observation), 1, 1, 0, false);  // i = 1: odd, kept
  expect_point(quantile_point_for(4, 0.875, qm::closest_observation), 3, 3, 0, false);  // i = 2: up
  expect_point(quantile_point_for(4, 1.0, qm::closest_observation), 3, 3, 0, false);    // i = 2.5
  expect_point(quantile_point_for(4, 0.0, qm::closest_observation), 0, 0, 0, false);    // i = -1.5
  expect_point(quantile_point_for(2, 0.25, qm::closest_observation), 0, 0, 0, false);   // i = -1, kept, clipped
  expect_point(quantile_point_for(2, 0.75, qm::closest_observation), 1, 1, 0, false);   // i = 0: up
  expect_point(quantile_point_for(1, 1.0, qm::closest_observation), 0, 0, 0, false);    // i = -0.5
}

// Each method's ranks rise with q: the GPU plan merges the low and the high ranks of
// sorted qs as two sorted lists (cuda/segmented/plan_kernels.cuh).
TEST(QuantileMath, RanksRiseWithQ) {
  for (const quantile_method m : quantile_methods)
    for (const std::int64_t n : {1, 2, 3, 5, 10, 101}) {
      core::quantile_point last = quantile_point_for(n, 0.0, m);
      EXPECT_GE(last.lo, 0);
      for (int i = 1; i <= 1000; ++i) {
        const core::quantile_point p = quantile_point_for(n, i / 1000.0, m);
        ASSERT_GE(p.lo, last.lo) << to_string(m) << " n = " << n << " q = " << i / 1000.0;
        ASSERT_GE(p.hi, last.hi) << to_string(m) << " n = " << n << " q = " << i / 1000.0;
        ASSERT_LE(p.hi, n - 1);
        ASSERT_LE(p.lo, p.hi);
        last = p;
      }
      EXPECT_EQ(last.hi, n - 1) << to_string(m);
    }
}

TEST(QuantileMath, UnknownMethod) {
  EXPECT_TRUE(core::is_quantile_method(qm::normal_unbiased));
  EXPECT_FALSE(core::is_quantile_method(static_cast<qm>(13)));
  EXPECT_FALSE(core::is_quantile_method(static_cast<qm>(-1)));
  EXPECT_THROW(quantile_point_for(4, 0.5, static_cast<qm>(13)), std::invalid_argument);
}

TEST(QuantileMath, Lerp) {
  // a + d*t below 0.5, b - d*(1-t) from 0.5 on.
  EXPECT_EQ(core::numpy_lerp(1.0, 3.0, 2.0, 0.25), 1.5);
  EXPECT_EQ(core::numpy_lerp(1.0, 3.0, 2.0, 0.75), 2.5);
  // 0.1 + 0.2*0.5 would be 0.2 via a + d*t; NumPy's branch gives 0.3 - 0.1 (rounded).
  const double a = 0.1, b = 0.3, d = b - a;
  EXPECT_EQ(core::numpy_lerp(a, b, d, 0.5), b - d * 0.5);
  // Infinities give NaN, as NumPy.
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_TRUE(std::isnan(core::numpy_lerp(1.0, inf, inf, 0.0)));
  EXPECT_TRUE(std::isnan(core::numpy_lerp(inf, inf, inf - inf, 1.0)));
}

TEST(QuantileMath, LerpDifference) {
  // float: b - a rounded to float first.
  EXPECT_EQ(core::lerp_difference(1.0f, 1.0f + 0x1.0p-23f), 0x1.0p-23);
  EXPECT_TRUE(std::isinf(core::lerp_difference(-3e38f, 3e38f)));
  // integers: exact, no wrap-around.
  EXPECT_EQ(core::lerp_difference<std::int32_t>(INT32_MIN, INT32_MAX), 4294967295.0);
  EXPECT_EQ(core::lerp_difference<std::int64_t>(INT64_MIN, INT64_MAX), 18446744073709551615.0);
  EXPECT_EQ(core::lerp_difference<std::uint64_t>(1, UINT64_MAX), 18446744073709551614.0);
}

TEST(QuantileMath, CombineTypes) {
  const auto p = quantile_point_for(2, 0.5, qm::linear);  // halfway between v[0] and v[1]
  EXPECT_EQ(core::combine<std::int32_t>(p, INT32_MIN, INT32_MAX), -0.5);
  EXPECT_EQ(core::combine<std::uint32_t>(p, 1, 2), 1.5);
  EXPECT_EQ(core::combine<float>(p, 1.0f, 2.0f), 1.5f);
  const auto lower = quantile_point_for(2, 0.5, qm::lower);
  EXPECT_EQ(core::combine<std::int64_t>(lower, -7, 9), -7.0);
}

TEST(QuantileMath, ValidateQuantiles) {
  EXPECT_NO_THROW(core::validate_quantiles(std::vector<double>{0.0, 0.5, 1.0}));
  try {
    core::validate_quantiles(std::vector<double>{0.5, 1.5});
    FAIL();
  } catch (const std::invalid_argument& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("qs[1]"), std::string::npos) << msg;
    EXPECT_NE(msg.find("1.5"), std::string::npos) << msg;
  }
  try {
    core::validate_quantiles(std::vector<double>{std::nan("")});
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("qs[0] is NaN"), std::string::npos) << e.what();
  }
  EXPECT_THROW(core::validate_quantiles(std::vector<double>{-0.001}), std::invalid_argument);
  EXPECT_THROW(core::validate_quantiles(std::vector<double>{std::numeric_limits<double>::infinity()}),
               std::invalid_argument);
}

}  // namespace
}  // namespace kselect
