// The shared test helpers themselves (tests/common): generators, sizes, ranks, reference.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <set>
#include <vector>

#include "common/common.hpp"

namespace kselect {
namespace {

using test::dist;

template <class T>
std::size_t distinct(const std::vector<T>& v) {
  std::vector<T> s = v;
  std::sort(s.begin(), s.end(), [](T a, T b) { return test::nan_last_less(a, b); });
  return static_cast<std::size_t>(std::unique(s.begin(), s.end(), [](T a, T b) { return test::same_value(a, b); }) - s.begin());
}

template <class T>
void check_generators() {
  const std::int64_t n = 20000;
  for (const dist d : test::all_dists()) {
    SCOPED_TRACE(test::name(d));
    const auto v = test::generate<T>(d, n, 42);
    ASSERT_EQ(v.size(), static_cast<std::size_t>(n));
    const auto again = test::generate<T>(d, n, 42);
    EXPECT_EQ(std::memcmp(v.data(), again.data(), v.size() * sizeof(T)), 0) << "not deterministic";
    const auto less = [](T a, T b) { return test::nan_last_less(a, b); };
    switch (d) {
      case dist::all_equal: EXPECT_EQ(distinct(v), 1u); break;
      case dist::two_values: EXPECT_EQ(distinct(v), 2u); break;
      case dist::sixteen_values: EXPECT_EQ(distinct(v), 16u); break;
      case dist::sorted: EXPECT_TRUE(std::is_sorted(v.begin(), v.end(), less)); break;
      case dist::reversed: EXPECT_TRUE(std::is_sorted(v.rbegin(), v.rend(), less)); break;
      case dist::uniform: EXPECT_GT(distinct(v), static_cast<std::size_t>(n) * 9 / 10); break;
      default: EXPECT_GT(distinct(v), 5u); break;
    }
  }
}

TEST(TestCommon, GeneratorsFloat) { check_generators<float>(); }
TEST(TestCommon, GeneratorsDouble) { check_generators<double>(); }
TEST(TestCommon, GeneratorsInt32) { check_generators<std::int32_t>(); }
TEST(TestCommon, GeneratorsUint32) { check_generators<std::uint32_t>(); }
TEST(TestCommon, GeneratorsInt64) { check_generators<std::int64_t>(); }
TEST(TestCommon, GeneratorsUint64) { check_generators<std::uint64_t>(); }

TEST(TestCommon, SpecialFloatsHaveEveryClass) {
  const auto v = test::generate<float>(dist::special, 10000, 1);
  auto has = [&](auto pred) { return std::any_of(v.begin(), v.end(), pred); };
  EXPECT_TRUE(has([](float x) { return std::isnan(x); }));
  EXPECT_TRUE(has([](float x) { return std::isnan(x) && std::signbit(x); }));
  EXPECT_TRUE(has([](float x) { return std::isinf(x) && x > 0; }));
  EXPECT_TRUE(has([](float x) { return std::isinf(x) && x < 0; }));
  EXPECT_TRUE(has([](float x) { return x == 0 && std::signbit(x); }));
  EXPECT_TRUE(has([](float x) { return x == 0 && !std::signbit(x); }));
  EXPECT_TRUE(has([](float x) { return std::fpclassify(x) == FP_SUBNORMAL && x > 0; }));
  EXPECT_TRUE(has([](float x) { return std::fpclassify(x) == FP_SUBNORMAL && x < 0; }));
}

TEST(TestCommon, SharedPrefixFloats) {
  for (const float x : test::generate<float>(dist::shared_prefix, 1000, 2)) {
    EXPECT_GE(x, 1.0f);
    EXPECT_LE(x, 1.0f + 0x1.0p-10f);
  }
}

TEST(TestCommon, Sizes) {
  const auto s = test::test_sizes(1000);
  EXPECT_EQ(s, (std::vector<std::int64_t>{0, 1, 2, 3, 31, 32, 33, 63, 64, 65, 127, 128, 129, 255,
                                          256, 257, 511, 512, 513, 1000}));
  EXPECT_EQ(test::test_sizes(1), (std::vector<std::int64_t>{0, 1}));
}

TEST(TestCommon, StandardRanks) {
  EXPECT_TRUE(test::standard_ranks(0, 10, 1).empty());
  EXPECT_EQ(test::standard_ranks(1, 10, 1), (std::vector<std::int64_t>{0}));
  const auto r = test::standard_ranks(1000, 100, 1);
  EXPECT_TRUE(std::is_sorted(r.begin(), r.end()));
  EXPECT_EQ(std::set<std::int64_t>(r.begin(), r.end()).size(), r.size());
  EXPECT_EQ(r.front(), 0);
  EXPECT_EQ(r.back(), 999);
  EXPECT_TRUE(std::binary_search(r.begin(), r.end(), 500));
  EXPECT_GT(r.size(), 80u);
}

TEST(TestCommon, ReferenceAndSameValue) {
  const double nan = std::nan("");
  const std::vector<double> v = {3, nan, -0.0, 1, nan, -2};
  const std::vector<std::int64_t> r = {5, 0, 2, 1, 4, 3, 2};
  const auto got = test::reference_multiselect(v, r);
  const std::vector<double> want = {nan, -2, 1, 0.0, nan, 3, 1};
  for (std::size_t i = 0; i < r.size(); ++i) EXPECT_TRUE(test::same_value(got[i], want[i])) << i;
  EXPECT_TRUE(test::same_value(-0.0, 0.0));
  EXPECT_FALSE(test::same_value(nan, 0.0));
  EXPECT_FALSE(test::same_value(1, 2));
}

}  // namespace
}  // namespace kselect
