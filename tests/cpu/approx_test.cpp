// The CPU backend's approximate multiselection (cpu::approx_multiselect) against a
// std::sort reference: every key type x distribution x size, error bounds 0, small,
// 0.1% of n and n, 2 to 4096 buckets; ties answered exactly; the error one pass
// leaves on smooth data; bad arguments.
#include <gtest/gtest.h>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/approx_check.hpp"
#include "common/common.hpp"
#include "cpu/cpu_select.hpp"

namespace kselect {
namespace {

using test::dist;

struct answers {
  std::vector<std::int64_t> ranks;
  std::vector<std::int64_t> out_ranks;
};

template <class T>
void expect_valid(const std::vector<T>& values, const test::approx_reference<T>& ref,
                  const std::vector<std::int64_t>& ranks, std::int64_t bound, int buckets, int threads,
                  std::int64_t* max_error = nullptr) {
  std::vector<T> out(ranks.size());
  std::vector<std::int64_t> out_ranks(ranks.size(), -1);
  cpu::approx_multiselect(values.data(), static_cast<std::int64_t>(values.size()), ranks.data(),
                          static_cast<std::int64_t>(ranks.size()), bound, out.data(), out_ranks.data(), buckets,
                          threads);
  ASSERT_TRUE(test::check_approx_answers<T>(ref, ranks, out, out_ranks, bound, max_error))
      << "bound " << bound << ", buckets " << buckets << ", threads " << threads;
}

template <class T>
class CpuApprox : public ::testing::Test {};
using KeyTypes = ::testing::Types<float, double, std::int32_t, std::uint32_t, std::int64_t, std::uint64_t>;
TYPED_TEST_SUITE(CpuApprox, KeyTypes);

TYPED_TEST(CpuApprox, AnswersWithinTheBound) {
  using T = TypeParam;
  for (dist d : test::all_dists()) {
    for (std::int64_t n : {std::int64_t(1), std::int64_t(3), std::int64_t(4097), std::int64_t(100003)}) {
      SCOPED_TRACE(testing::Message() << test::name(d) << ", n = " << n);
      const std::vector<T> values = test::generate<T>(d, n, 500 + static_cast<std::uint64_t>(n));
      const auto ref = test::make_approx_reference(values);
      std::vector<std::int64_t> ranks = test::standard_ranks(n, 20, 77);
      const std::vector<std::int64_t> pct = test::percentile_ranks_101(n);
      ranks.insert(ranks.end(), pct.begin(), pct.end());
      std::sort(ranks.begin(), ranks.end());
      ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
      for (std::int64_t bound : {std::int64_t(0), std::int64_t(3), n / 1000, n}) {
        for (int buckets : {2, 128, 1024, 4096}) {
          expect_valid(values, ref, ranks, bound, buckets, 2);
          if (::testing::Test::HasFatalFailure()) return;
        }
      }
    }
  }
}

// Runs of equal keys are answered exactly: all-equal input by its one splitter,
// two or sixteen values by theirs (each is in the sample many times over).
TYPED_TEST(CpuApprox, TiesAnsweredExactly) {
  using T = TypeParam;
  const std::int64_t n = 50000;
  for (dist d : {dist::all_equal, dist::two_values, dist::sixteen_values}) {
    const std::vector<T> values = test::generate<T>(d, n, 9);
    const auto ref = test::make_approx_reference(values);
    std::vector<std::int64_t> ranks;
    for (std::int64_t r = 0; r < n; r += 997) ranks.push_back(r);
    ranks.push_back(n - 1);
    for (int buckets : {128, 1024, 4096}) {
      std::int64_t max_error = -1;
      expect_valid(values, ref, ranks, n, buckets, 2, &max_error);
      EXPECT_EQ(max_error, 0) << test::name(d) << ", buckets " << buckets;
    }
  }
  // One splitter is enough for one value.
  const std::vector<T> same = test::generate<T>(dist::all_equal, n, 9);
  std::int64_t max_error = -1;
  expect_valid(same, test::make_approx_reference(same), {0, 1, n / 2, n - 1}, n, 2, 1, &max_error);
  EXPECT_EQ(max_error, 0);
}

// One pass over smooth data: the error of 101 percentiles is at most about half
// the gap between splitters, n / (2 (b - 1)) (the splitters are centred in
// b - 1 equal parts of a 16384-key sample: a gap varies by about
// 1/sqrt(16384 / b), so these limits hold with a margin). An answer too far
// from its rank, or a miscounted bucket, breaks them.
TEST(CpuApproxQuality, ErrorShrinksWithBuckets) {
  const std::int64_t n = std::int64_t(1) << 20;
  for (dist d : {dist::uniform, dist::normal}) {
    const std::vector<float> values = test::generate<float>(d, n, 21);
    const auto ref = test::make_approx_reference(values);
    const std::vector<std::int64_t> ranks = test::percentile_ranks_101(n);
    struct limit_t {
      int buckets;
      double max_fraction;
    };
    for (const limit_t l : {limit_t{128, 0.006}, limit_t{1024, 0.0015}, limit_t{4096, 0.0005}}) {
      std::int64_t max_error = -1;
      expect_valid(values, ref, ranks, n, l.buckets, 2, &max_error);
      EXPECT_LE(static_cast<double>(max_error), l.max_fraction * static_cast<double>(n))
          << test::name(d) << ", buckets " << l.buckets;
      EXPECT_GT(max_error, 0) << "one pass cannot hit 101 ranks of distinct values exactly";
    }
  }
}

// The same answers whatever the thread count (the sample and the counts do not
// depend on it), and max_rank_error = 0 gives the exact multiselect's answers.
TEST(CpuApproxQuality, DeterministicAndExactAtZero) {
  const std::int64_t n = 300001;
  const std::vector<double> values = test::generate<double>(dist::normal, n, 4);
  const std::vector<std::int64_t> ranks = test::standard_ranks(n, 50, 8);
  const auto r = static_cast<std::int64_t>(ranks.size());
  std::vector<double> a(ranks.size()), b(ranks.size()), exact(ranks.size());
  std::vector<std::int64_t> ra(ranks.size()), rb(ranks.size());
  cpu::approx_multiselect(values.data(), n, ranks.data(), r, n / 100, a.data(), ra.data(), 1024, 1);
  cpu::approx_multiselect(values.data(), n, ranks.data(), r, n / 100, b.data(), rb.data(), 1024, 2);
  EXPECT_EQ(ra, rb);
  for (std::size_t i = 0; i < a.size(); ++i) EXPECT_EQ(test::bit_pattern(a[i]), test::bit_pattern(b[i]));
  cpu::approx_multiselect(values.data(), n, ranks.data(), r, 0, a.data(), ra.data(), 1024, 2);
  cpu::multiselect(values.data(), n, ranks.data(), r, exact.data(), 2);
  EXPECT_EQ(ra, ranks);
  for (std::size_t i = 0; i < a.size(); ++i) EXPECT_EQ(a[i], exact[i]);
}

TEST(CpuApproxArguments, BadInput) {
  const std::vector<float> values = test::generate<float>(dist::uniform, 1000, 1);
  const std::int64_t ranks[] = {1, 500};
  float out[2];
  std::int64_t out_ranks[2];
  auto call = [&](std::int64_t n, std::int64_t bound, int buckets) {
    cpu::approx_multiselect(values.data(), n, ranks, 2, bound, out, out_ranks, buckets, 1);
  };
  auto expect_message = [&](auto&& f, const std::string& needle) {
    try {
      f();
      ADD_FAILURE() << "no exception; expected " << needle;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  };
  for (int b : {1, 0, -2, 4097})
    expect_message([&] { call(1000, 10, b); }, "buckets = " + std::to_string(b) + " is outside [2, 4096]");
  expect_message([&] { call(1000, -1, 1024); }, "max_rank_error is negative");
  expect_message([&] { call(0, 10, 1024); }, "empty input");
  EXPECT_NO_THROW(call(1000, 10, 2));
  EXPECT_NO_THROW(call(1000, 10, 4096));
}

}  // namespace
}  // namespace kselect
