// The owning API: argument errors, backend choice without CUDA, rank order and
// repeats, enum names.
#include <gtest/gtest.h>

#include <cmath>
#include <iterator>
#include <limits>
#include <string>
#include <vector>

#include "common/common.hpp"
#include "common/expect_invalid.hpp"
#include "kselect/kselect.hpp"

namespace kselect {
namespace {

using test::expect_invalid;

TEST(OwningApi, SelectAndMultiselect) {
  const std::vector<double> v = test::generate<double>(test::dist::normal, 5000, 3);
  const std::vector<std::int64_t> ranks = {4999, 0, 2500, 0, 17, 4999};
  const std::vector<double> expected = test::reference_multiselect(v, ranks);
  EXPECT_EQ(multiselect(v, ranks), expected);
  EXPECT_EQ(select(v, 2500), expected[2]);
  EXPECT_EQ(select(std::span<const double>(v), 17), expected[4]);
  options one_thread;
  one_thread.cpu_threads = 1;
  one_thread.device = device_kind::cpu;
  EXPECT_EQ(multiselect(v.data(), 5000, ranks, one_thread), expected);
  EXPECT_TRUE(multiselect(v, std::span<const std::int64_t>{}).empty());
}

TEST(OwningApi, AllTypesInstantiated) {
  const std::vector<std::int64_t> r = {0, 2};
  EXPECT_EQ(multiselect(std::vector<float>{3, 1, 2}, r), (std::vector<float>{1, 3}));
  EXPECT_EQ(multiselect(std::vector<std::int32_t>{3, -1, 2}, r), (std::vector<std::int32_t>{-1, 3}));
  EXPECT_EQ(multiselect(std::vector<std::uint32_t>{3, 1, 2}, r), (std::vector<std::uint32_t>{1, 3}));
  EXPECT_EQ(multiselect(std::vector<std::int64_t>{3, -1, 2}, r), (std::vector<std::int64_t>{-1, 3}));
  EXPECT_EQ(multiselect(std::vector<std::uint64_t>{3, 1, 2}, r), (std::vector<std::uint64_t>{1, 3}));
  EXPECT_EQ(select(std::vector<double>{std::nan(""), 1.0}, 0), 1.0);
  EXPECT_TRUE(std::isnan(select(std::vector<double>{std::nan(""), 1.0}, 1)));
}

TEST(OwningApi, EmptyInput) {
  const std::vector<float> empty;
  const std::vector<std::int64_t> r = {0};
  const std::vector<double> q = {0.5};
  expect_invalid([&] { select(empty, 0); }, "empty");
  expect_invalid([&] { multiselect(empty, r); }, "empty");
  expect_invalid([&] { quantile(empty, q); }, "empty");
  expect_invalid([&] { nanquantile(empty, q); }, "empty");
  expect_invalid([&] { select<float>(nullptr, 10, 0); }, "values is null");
  expect_invalid([&] { select<float>(nullptr, -1, 0); }, "n = -1");
}

TEST(OwningApi, RankOutOfRange) {
  const std::vector<std::int32_t> v = {1, 2, 3};
  expect_invalid([&] { select(v, 3); }, "ranks[0] = 3 is outside [0, n) for n = 3");
  expect_invalid([&] { select(v, -1); }, "ranks[0] = -1");
  const std::vector<std::int64_t> r = {0, 1, 7};
  expect_invalid([&] { multiselect(v, r); }, "ranks[2] = 7");
}

TEST(OwningApi, QuantileOutOfRange) {
  const std::vector<double> v = {1, 2, 3};
  expect_invalid([&] { quantile(v, std::vector<double>{0.5, 1.01}); }, "qs[1] = 1.01");
  expect_invalid([&] { quantile(v, std::vector<double>{-0.5}); }, "qs[0] = -0.5 is outside [0, 1]");
  expect_invalid([&] { nanquantile(v, std::vector<double>{0.1, 0.2, std::nan("")}); }, "qs[2] is NaN");
  expect_invalid([&] { quantile(v, std::vector<double>{0.5}, static_cast<quantile_method>(42)); },
                 "quantile_method");
  expect_invalid([&] { nanquantile(v, std::vector<double>{0.5}, static_cast<quantile_method>(13)); },
                 "unknown quantile_method value 13");
  expect_invalid([&] { quantile(v, std::vector<double>{0.5}, static_cast<quantile_method>(-1)); },
                 "unknown quantile_method value -1");
  EXPECT_TRUE(quantile(v, std::vector<double>{}).empty());
}

TEST(OwningApi, DeviceChoiceWithoutCuda) {
#ifndef KSELECT_WITH_CUDA
  const std::vector<float> v = {1, 2, 3};
  options o;
  o.device = device_kind::cuda;
  expect_invalid([&] { select(v, 0, o); }, "kselect was built without CUDA");
  expect_invalid([&] { quantile(v, std::vector<double>{0.5}, quantile_method::linear, o); },
                 "built without CUDA");
  EXPECT_FALSE(cuda_available());
  EXPECT_EQ(pointer_location(v.data()), device_kind::cpu);
  o.device = device_kind::automatic;
  EXPECT_EQ(select(v, 1, o), 2.0f);
#else
  GTEST_SKIP() << "built with CUDA";
#endif
}

TEST(OwningApi, NegativeThreads) {
  const std::vector<float> v = {1, 2, 3};
  options o;
  o.cpu_threads = -2;
  expect_invalid([&] { select(v, 0, o); }, "cpu_threads");
}

// nanquantile is quantile over the non-NaN values, for every method (large enough for
// several SampleSelect levels and both threads).
TEST(OwningApi, NanquantileEqualsQuantileWithoutNans) {
  const std::vector<double> qs = {0.0, 0.01, 0.25, 0.5, 0.75, 0.99, 1.0};
  for (const std::int64_t n : {std::int64_t{7}, std::int64_t{300001}}) {
    const auto v = test::generate<double>(test::dist::special, n, 21);
    std::vector<double> finite;
    for (const double x : v)
      if (!std::isnan(x)) finite.push_back(x);
    ASSERT_LT(finite.size(), v.size());
    for (const quantile_method m : quantile_methods) {
      SCOPED_TRACE(testing::Message() << "n = " << n << ", " << to_string(m));
      const auto got = nanquantile(v, qs, m);
      const auto want = quantile(finite, qs, m);
      for (std::size_t i = 0; i < qs.size(); ++i) EXPECT_TRUE(test::same_value(got[i], want[i])) << "q = " << qs[i];
      for (const double r : quantile(v, qs, m)) EXPECT_TRUE(std::isnan(r));
    }
  }
}

TEST(OwningApi, MethodNames) {
  // quantile_methods lists each value of the enum once, in order, and each name reads back.
  ASSERT_EQ(std::size(quantile_methods), 13u);
  for (std::size_t i = 0; i < std::size(quantile_methods); ++i) {
    EXPECT_EQ(static_cast<std::size_t>(quantile_methods[i]), i);
    EXPECT_EQ(parse_quantile_method(to_string(quantile_methods[i])), quantile_methods[i]);
  }
  EXPECT_STREQ(to_string(quantile_method::midpoint), "midpoint");
  EXPECT_STREQ(to_string(quantile_method::inverted_cdf), "inverted_cdf");
  EXPECT_STREQ(to_string(quantile_method::averaged_inverted_cdf), "averaged_inverted_cdf");
  EXPECT_STREQ(to_string(quantile_method::closest_observation), "closest_observation");
  EXPECT_STREQ(to_string(quantile_method::interpolated_inverted_cdf), "interpolated_inverted_cdf");
  EXPECT_STREQ(to_string(quantile_method::hazen), "hazen");
  EXPECT_STREQ(to_string(quantile_method::weibull), "weibull");
  EXPECT_STREQ(to_string(quantile_method::median_unbiased), "median_unbiased");
  EXPECT_STREQ(to_string(quantile_method::normal_unbiased), "normal_unbiased");
  EXPECT_STREQ(to_string(static_cast<quantile_method>(13)), "unknown");
  EXPECT_STREQ(to_string(device_kind::automatic), "automatic");
  EXPECT_STREQ(to_string(device_kind::cuda), "cuda");
  EXPECT_STREQ(to_string(algorithm::sample_select), "sample_select");
  EXPECT_STREQ(to_string(algorithm::window), "window");
  expect_invalid([] { parse_quantile_method("Linear"); }, "unknown quantile method 'Linear'");
  expect_invalid([] { parse_quantile_method(""); },
                 "expected one of linear, lower, higher, nearest, midpoint, inverted_cdf, averaged_inverted_cdf, "
                 "closest_observation, interpolated_inverted_cdf, hazen, weibull, median_unbiased, normal_unbiased)");
  expect_invalid([] { parse_quantile_method("median-unbiased"); }, "'median-unbiased'");
}

}  // namespace
}  // namespace kselect
