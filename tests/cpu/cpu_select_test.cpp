// The CPU backend (cpu::multiselect, cpu::sample_select, cpu::count_nan) against the
// std::sort / std::nth_element reference, for every key type x distribution x size.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>
#include <tuple>
#include <vector>

#include "common/common.hpp"
#include "common/key_types.hpp"
#include "cpu/cpu_select.hpp"
#include "cpu/sample_select.hpp"

namespace kselect {
namespace {

using test::dist;

using test::key_type;

// A tuning that recurses a lot on small inputs: few splitters, a tiny base case, so
// equality buckets, empty buckets and deep levels all occur.
cpu::tuning tiny_tuning() {
  cpu::tuning t;
  t.base_case = 16;
  t.single_rank_splitters = 3;
  t.buckets_per_rank = 2;
  t.max_splitters = 7;
  t.oversampling = 2;
  t.parallel_min = 64;
  return t;
}

// Checks one rank list against the sorted reference.
template <class T>
void expect_ranks(const std::vector<T>& values, const std::vector<T>& sorted,
                  const std::vector<std::int64_t>& ranks, const char* what, int threads,
                  const cpu::tuning* tuning = nullptr) {
  SCOPED_TRACE(testing::Message() << what << " (" << ranks.size() << " ranks, threads " << threads << ")");
  std::vector<T> out(ranks.size());
  const auto n = static_cast<std::int64_t>(values.size());
  const auto r = static_cast<std::int64_t>(ranks.size());
  if (tuning) {
    cpu::sample_select(values.data(), n, ranks.data(), r, out.data(), threads, *tuning);
  } else {
    cpu::multiselect(values.data(), n, ranks.data(), r, out.data(), threads);
  }
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    const T expected = sorted[static_cast<std::size_t>(ranks[i])];
    ASSERT_TRUE(test::same_value(out[i], expected))
        << "rank " << ranks[i] << ": got " << out[i] << ", expected " << expected;
  }
}

std::vector<std::int64_t> percentile_ranks(std::int64_t n) {
  std::vector<std::int64_t> r;
  for (int p = 0; p <= 100; ++p) r.push_back((n - 1) * p / 100);
  r.erase(std::unique(r.begin(), r.end()), r.end());
  return r;
}

template <class T>
void check_size(dist d, std::int64_t n) {
  SCOPED_TRACE(testing::Message() << "n = " << n);
  const std::uint64_t seed = 1234 + static_cast<std::uint64_t>(n);
  const std::vector<T> values = test::generate<T>(d, n, seed);
  std::vector<std::int64_t> all(static_cast<std::size_t>(n));
  std::iota(all.begin(), all.end(), std::int64_t{0});
  const std::vector<T> sorted = test::reference_multiselect(values, all);

  for (const std::int64_t k : {std::int64_t{0}, std::int64_t{1}, n / 2, n - 1}) {
    if (k >= n) continue;
    expect_ranks(values, sorted, {k}, "single rank", 0);
    if (testing::Test::HasFatalFailure()) return;
  }
  expect_ranks(values, sorted, test::standard_ranks(n, 1000, seed), "standard ranks", 0);
  expect_ranks(values, sorted, percentile_ranks(n), "percentiles", 0);
  // Many ranks: every rank of small inputs, 1 in 7 of larger ones.
  std::vector<std::int64_t> many;
  for (std::int64_t k = 0; k < n; k += (n <= 4096 ? 1 : 7)) many.push_back(k);
  expect_ranks(values, sorted, many, "many ranks", 0);
  if (n <= (1 << 14)) {
    const cpu::tuning t = tiny_tuning();
    expect_ranks(values, sorted, {n / 3}, "tiny tuning, single rank", 2, &t);
    expect_ranks(values, sorted, test::standard_ranks(n, 50, seed + 1), "tiny tuning, standard ranks", 2, &t);
    expect_ranks(values, sorted, test::standard_ranks(n, 50, seed + 2), "tiny tuning, one thread", 1, &t);
  }
  expect_ranks(values, sorted, {n - 1 - n / 5}, "one thread", 1);
}

template <class T>
void check_dist(dist d) {
  // Every test size up to 2^16, then 2^18 + 1 and 2^20.
  std::vector<std::int64_t> sizes = test::test_sizes(std::int64_t{1} << 16);
  sizes.insert(sizes.end(), {(std::int64_t{1} << 18) + 1, std::int64_t{1} << 20});
  for (const std::int64_t n : sizes) {
    if (n == 0) continue;
    check_size<T>(d, n);
    if (testing::Test::HasFatalFailure()) return;
  }
}

class CpuSelect : public testing::TestWithParam<std::tuple<key_type, dist>> {};

TEST_P(CpuSelect, MatchesReference) {
  const auto [t, d] = GetParam();
  test::with_key_type(t, [d = d]<class T>() { check_dist<T>(d); });
}

INSTANTIATE_TEST_SUITE_P(
    AllTypesAndDists, CpuSelect,
    testing::Combine(testing::ValuesIn(test::all_key_types),
                     testing::ValuesIn(test::all_dists())),
    [](const testing::TestParamInfo<CpuSelect::ParamType>& param_info) {
      return test::name(std::get<0>(param_info.param)) + "_" + test::name(std::get<1>(param_info.param));
    });

// One large case: 2^24 uniform floats, the median and 101 percentiles.
TEST(CpuSelectLarge, Uniform2to24) {
  const std::int64_t n = std::int64_t{1} << 24;
  const std::vector<float> values = test::generate<float>(dist::uniform, n, 99);
  const std::vector<std::int64_t> ranks = percentile_ranks(n);
  const std::vector<float> expected = test::reference_multiselect(values, ranks);
  std::vector<float> out(ranks.size());
  cpu::multiselect(values.data(), n, ranks.data(), static_cast<std::int64_t>(ranks.size()), out.data());
  for (std::size_t i = 0; i < ranks.size(); ++i) EXPECT_EQ(out[i], expected[i]) << "rank " << ranks[i];
  const std::int64_t median = n / 2;
  float m = 0;
  cpu::multiselect(values.data(), n, &median, 1, &m);
  EXPECT_EQ(m, test::reference_multiselect(values, std::vector<std::int64_t>{median})[0]);
}

// Adversarial for the sampling: one value everywhere except a few, and a value run
// next to the answer.
TEST(CpuSelectEdge, HeavyDuplicatesAroundTheRank) {
  std::vector<double> v(100000, 5.0);
  for (int i = 0; i < 100; ++i) v[static_cast<std::size_t>(i * 997)] = i * 0.001;  // 100 small values
  v[50] = 7.0;
  std::vector<std::int64_t> all(v.size());
  std::iota(all.begin(), all.end(), std::int64_t{0});
  const auto sorted = test::reference_multiselect(v, all);
  for (const std::int64_t k : {0, 50, 98, 99, 100, 500, 99998, 99999}) {
    double out = 0;
    cpu::multiselect(v.data(), static_cast<std::int64_t>(v.size()), &k, 1, &out);
    EXPECT_EQ(out, sorted[static_cast<std::size_t>(k)]) << "rank " << k;
  }
}

// Three threads on uneven chunks, including more threads than keys per chunk.
TEST(CpuSelectEdge, ThreeThreads) {
  for (const std::int64_t n : {std::int64_t{5}, std::int64_t{100001}, std::int64_t{300007}}) {
    const auto v = test::generate<std::int64_t>(dist::normal, n, 8);
    const auto ranks = test::standard_ranks(n, 300, 9);
    std::vector<std::int64_t> all(static_cast<std::size_t>(n));
    std::iota(all.begin(), all.end(), std::int64_t{0});
    const auto sorted = test::reference_multiselect(v, all);
    expect_ranks(v, sorted, ranks, "three threads", 3);
    expect_ranks(v, sorted, {n / 2}, "three threads, one rank", 3);
    const cpu::tuning t = tiny_tuning();
    expect_ranks(v, sorted, ranks, "three threads, tiny tuning", 3, &t);
  }
}

TEST(CpuSelectEdge, NoRanksDoesNothing) {
  float v = 1.0f, out = -1.0f;
  cpu::multiselect(&v, 1, nullptr, 0, &out);
  EXPECT_EQ(out, -1.0f);
}

TEST(CpuSelectEdge, NegativeZeroComesBackEqual) {
  const std::vector<float> v = {-0.0f, 0.0f, -0.0f};
  const std::int64_t k = 1;
  float out = 1.0f;
  cpu::multiselect(v.data(), 3, &k, 1, &out);
  EXPECT_EQ(out, 0.0f);
}

TEST(CpuCountNan, CountsEveryNan) {
  for (const std::int64_t n : {std::int64_t{1}, std::int64_t{1000}, std::int64_t{3} << 20}) {
    const auto v = test::generate<double>(dist::special, n, 5);
    const auto expected = std::count_if(v.begin(), v.end(), [](double x) { return std::isnan(x); });
    EXPECT_EQ(cpu::count_nan(v.data(), n), expected) << "n = " << n;
    const auto f = test::generate<float>(dist::special, n, 6);
    const auto expected_f = std::count_if(f.begin(), f.end(), [](float x) { return std::isnan(x); });
    EXPECT_EQ(cpu::count_nan(f.data(), n, 1), expected_f) << "n = " << n;
  }
  const auto ints = test::generate<std::int32_t>(dist::special, 1000, 5);
  EXPECT_EQ(cpu::count_nan(ints.data(), 1000), 0);
}

}  // namespace
}  // namespace kselect
