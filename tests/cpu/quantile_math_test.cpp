// core::quantile_point_for, validate_quantiles and the NumPy lerp, on hand-checked
// cases (NumPy-derived expectations for whole inputs are in quantile_api_test.cpp).
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
