// The owning API's topk, rank_range, approx_multiselect and approx_select on the
// CPU: results against the stable-sort reference, every key type, and argument
// errors (std::invalid_argument naming the argument).
#include <gtest/gtest.h>

#include <cstring>

#include <cmath>
#include <cstdlib>
#include <limits>
#include <span>
#include <string>
#include <vector>

#include "common/common.hpp"
#include "common/expect_invalid.hpp"
#include "common/range_check.hpp"
#include "common/range_reference.hpp"
#include "kselect/kselect.hpp"

namespace kselect {
namespace {

using test::expect_invalid;

template <class T>
void expect_topk_all_options(const std::vector<T>& v) {
  const auto n = static_cast<std::int64_t>(v.size());
  for (const bool largest : {false, true})
    for (const bool sorted : {false, true})
      for (const bool deterministic : {false, true})
        for (const std::int64_t k : {std::int64_t{0}, std::int64_t{1}, n / 3, n}) {
          SCOPED_TRACE(testing::Message() << "n = " << n << ", k = " << k << (largest ? " largest" : " smallest")
                                          << (sorted ? " sorted" : "") << (deterministic ? " deterministic" : ""));
          const selection<T> s = topk(v, k, topk_options{largest, sorted, deterministic});
          ASSERT_EQ(s.values.size(), static_cast<std::size_t>(k));
          ASSERT_EQ(s.indices.size(), static_cast<std::size_t>(k));
          EXPECT_TRUE(test::check_range_result(v.data(), n, 0, k, largest, sorted, deterministic, s.values.data(),
                                               s.indices.data()));
        }
}

TEST(TopkApi, EveryTypeAndOption) {
  expect_topk_all_options(test::generate<float>(test::dist::special, 1001, 1));
  expect_topk_all_options(test::generate<double>(test::dist::sixteen_values, 777, 2));
  expect_topk_all_options(test::generate<std::int32_t>(test::dist::special, 300, 3));
  expect_topk_all_options(test::generate<std::uint32_t>(test::dist::two_values, 64, 4));
  expect_topk_all_options(test::generate<std::int64_t>(test::dist::normal, 5000, 5));
  expect_topk_all_options(test::generate<std::uint64_t>(test::dist::uniform, 33, 6));
}

TEST(TopkApi, LargestCountsNanAsTheLargestValue) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const std::vector<double> v = {1.0, nan, std::numeric_limits<double>::infinity(), -2.0, nan};
  const selection<double> s = topk(v, 3, topk_options{true, true, true});
  EXPECT_EQ(s.indices, (std::vector<std::int64_t>{1, 4, 2}));
  EXPECT_TRUE(std::isnan(s.values[0]) && std::isnan(s.values[1]));
  EXPECT_EQ(s.values[2], std::numeric_limits<double>::infinity());
  EXPECT_EQ(topk(v, 2).indices, (std::vector<std::int64_t>{0, 3}));  // smallest, index order
}

TEST(TopkApi, RankRangeMatchesTheStableSort) {
  const std::vector<std::int32_t> v = test::generate<std::int32_t>(test::dist::sixteen_values, 10000, 9);
  const auto n = static_cast<std::int64_t>(v.size());
  options one_thread;
  one_thread.cpu_threads = 1;
  for (const auto& [lo, hi] : std::vector<std::pair<std::int64_t, std::int64_t>>{
           {0, 0}, {0, n}, {4321, 4322}, {2500, 7500}, {n - 1, n}, {n, n}})
    for (const bool sorted : {false, true}) {
      const selection<std::int32_t> s = rank_range(v, lo, hi, range_options{sorted, true});
      EXPECT_TRUE(test::check_range_result(v.data(), n, lo, hi, false, sorted, true, s.values.data(),
                                           s.indices.data()))
          << "[" << lo << ", " << hi << ")";
      const selection<std::int32_t> p =
          rank_range(v.data(), n, lo, hi, range_options{sorted, false}, one_thread);
      EXPECT_TRUE(test::check_range_result(v.data(), n, lo, hi, false, sorted, false, p.values.data(),
                                           p.indices.data()))
          << "[" << lo << ", " << hi << "), one thread";
    }
}

// indices = false: the same values, no indices (the memory of large outputs).
TEST(TopkApi, ValuesWithoutIndices) {
  const std::int64_t n = (std::int64_t{1} << 20) + 7;  // past the radix sort's parallel threshold
  const std::vector<double> v = test::generate<double>(test::dist::special, n, 12);
  for (const bool sorted : {false, true})
    for (const bool largest : {false, true})
      for (const std::int64_t k : {std::int64_t{0}, std::int64_t{5}, n / 2, n}) {
        const selection<double> with = topk(v, k, topk_options{largest, sorted, true});
        const selection<double> without = topk(v, k, topk_options{largest, sorted, true, false});
        EXPECT_TRUE(without.indices.empty());
        ASSERT_EQ(with.values.size(), without.values.size());
        EXPECT_EQ(0, std::memcmp(with.values.data(), without.values.data(), with.values.size() * sizeof(double)))
            << "k = " << k << " sorted " << sorted << " largest " << largest;
        EXPECT_TRUE(test::check_range_result(v.data(), n, 0, k, largest, sorted, true, with.values.data(),
                                             with.indices.data()));
      }
  const selection<double> r = rank_range(v, n / 4, n / 2, range_options{true, true, false});
  EXPECT_TRUE(r.indices.empty());
  EXPECT_EQ(r.values.size(), static_cast<std::size_t>(n / 2 - n / 4));
}

TEST(TopkApi, BadArguments) {
  const std::vector<float> v = {3, 1, 2};
  const std::vector<float> empty;
  expect_invalid([&] { topk(v, 4); }, "k = 4 is outside [0, n] for n = 3");
  expect_invalid([&] { topk(v, -1); }, "k = -1");
  expect_invalid([&] { topk(empty, 0); }, "empty");
  expect_invalid([&] { topk<float>(nullptr, 3, 1); }, "values is null");
  expect_invalid([&] { rank_range(v, -1, 2); }, "lo = -1 is negative");
  expect_invalid([&] { rank_range(v, 0, -2); }, "hi = -2 is negative");
  expect_invalid([&] { rank_range(v, 0, 4); }, "hi = 4 is greater than n for n = 3");
  expect_invalid([&] { rank_range(v, 2, 1); }, "lo = 2 is greater than hi = 1");
  expect_invalid([&] { rank_range(empty, 0, 0); }, "empty");
  options o;
  o.cpu_threads = -1;
  expect_invalid([&] { topk(v, 1, {}, o); }, "cpu_threads");
#ifndef KSELECT_WITH_CUDA
  o.cpu_threads = 0;
  o.device = device_kind::cuda;
  expect_invalid([&] { rank_range(v, 0, 1, {}, o); }, "built without CUDA");
#endif
  EXPECT_TRUE(topk(v, 0).values.empty());
  EXPECT_TRUE(rank_range(v, 3, 3).indices.empty());
}

// approx_multiselect: each answer is an input value with its exact rank, within
// max_rank_error of the rank asked; answers follow the caller's order and repeats.
TEST(ApproxApi, AnswersWithinTheErrorAndInCallerOrder) {
  const std::int64_t n = 200000;
  const std::vector<float> v = test::generate<float>(test::dist::special, n, 12);
  std::vector<std::int64_t> all(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) all[static_cast<std::size_t>(i)] = i;
  const std::vector<float> sorted = test::reference_multiselect(v, all);
  const std::vector<std::int64_t> ranks = {n - 1, 0, n / 2, 17, n / 2, 123456, 1};
  for (const std::int64_t error : {std::int64_t{0}, std::int64_t{1}, std::int64_t{100}, n / 1000, n}) {
    SCOPED_TRACE(testing::Message() << "max_rank_error = " << error);
    const auto got = approx_multiselect(v.data(), n, std::span<const std::int64_t>(ranks), error);
    ASSERT_EQ(got.size(), ranks.size());
    for (std::size_t i = 0; i < ranks.size(); ++i) {
      EXPECT_LE(std::llabs(got[i].rank - ranks[i]), error) << "rank " << ranks[i] << " answered by " << got[i].rank;
      ASSERT_GE(got[i].rank, 0);
      ASSERT_LT(got[i].rank, n);
      EXPECT_TRUE(test::same_value(got[i].value, sorted[static_cast<std::size_t>(got[i].rank)]))
          << "rank " << got[i].rank << ": " << got[i].value;
    }
    EXPECT_EQ(got[2].rank, got[4].rank);  // a repeated rank, one answer
    const ranked_value<float> one = approx_select(v.data(), n, n / 3, error);
    EXPECT_LE(std::llabs(one.rank - n / 3), error);
    EXPECT_TRUE(test::same_value(one.value, sorted[static_cast<std::size_t>(one.rank)]));
  }
  // Exact selection when no error is allowed.
  const auto exact = approx_multiselect(v.data(), n, std::span<const std::int64_t>(ranks), 0);
  const std::vector<float> want = test::reference_multiselect(v, ranks);
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    EXPECT_EQ(exact[i].rank, ranks[i]);
    EXPECT_TRUE(test::same_value(exact[i].value, want[i]));
  }
}

TEST(ApproxApi, EveryTypeInstantiated) {
  const std::vector<std::int64_t> r = {0, 2};
  EXPECT_EQ(approx_select(std::vector<double>{3, 1, 2}.data(), 3, 1, 0).value, 2.0);
  EXPECT_EQ(approx_multiselect(std::vector<std::int32_t>{3, -1, 2}.data(), 3, r, 0)[1].value, 3);
  EXPECT_EQ(approx_multiselect(std::vector<std::uint32_t>{3, 1, 2}.data(), 3, r, 0)[0].value, 1u);
  EXPECT_EQ(approx_multiselect(std::vector<std::int64_t>{3, -1, 2}.data(), 3, r, 0)[0].value, -1);
  EXPECT_EQ(approx_multiselect(std::vector<std::uint64_t>{3, 1, 2}.data(), 3, r, 0)[1].value, 3u);
  EXPECT_EQ(approx_select(std::vector<float>{3, 1, 2}.data(), 3, 2, 0).rank, 2);
  EXPECT_TRUE(approx_multiselect(std::vector<float>{1}.data(), 1, std::span<const std::int64_t>{}, 0).empty());
}

TEST(ApproxApi, BadArguments) {
  const std::vector<double> v = {1, 2, 3};
  const std::vector<std::int64_t> r = {0, 3};
  expect_invalid([&] { approx_select(v.data(), 3, 0, -1); }, "max_rank_error = -1 is negative");
  expect_invalid([&] { approx_multiselect(v.data(), 3, r, 1); }, "ranks[1] = 3 is outside [0, n) for n = 3");
  expect_invalid([&] { approx_select(v.data(), 3, 5, 1); }, "ranks[0] = 5");
  expect_invalid([&] { approx_select<double>(v.data(), 0, 0, 0); }, "empty");
  expect_invalid([&] { approx_select<double>(nullptr, 3, 0, 0); }, "values is null");
}

}  // namespace
}  // namespace kselect
