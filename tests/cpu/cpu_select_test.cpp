// The CPU backend (cpu::multiselect, cpu::sample_select, cpu::count_nan) against the
// std::sort / std::nth_element reference, for every key type x distribution x size,
// with the kernels of every instruction set this machine runs (cpu/isa.hpp), one and
// two threads, and tunings that force each of the selection's paths.
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
#include "cpu/isa.hpp"
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
  t.sample_min = 16;
  t.run_sampling_min = 256;
  t.bucket_sample = 16;
  t.parallel_min = 64;
  return t;
}

// The instruction sets this machine runs; the best one first.
std::vector<cpu::isa> test_isas() {
  std::vector<cpu::isa> out = {cpu::resolve_isa(cpu::isa::best)};
  for (const cpu::isa i : {cpu::isa::avx512, cpu::isa::avx2, cpu::isa::scalar})
    if (cpu::isa_supported(i) && i != out.front()) out.push_back(i);
  return out;
}

cpu::tuning with_isa(cpu::tuning t, cpu::isa i) {
  t.kernels = i;
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
void check_size(dist d, std::int64_t n, cpu::isa isa) {
  SCOPED_TRACE(testing::Message() << "n = " << n << ", kernels " << cpu::isa_name(isa));
  const std::uint64_t seed = 1234 + static_cast<std::uint64_t>(n);
  const std::vector<T> values = test::generate<T>(d, n, seed);
  std::vector<std::int64_t> all(static_cast<std::size_t>(n));
  std::iota(all.begin(), all.end(), std::int64_t{0});
  const std::vector<T> sorted = test::reference_multiselect(values, all);
  const cpu::tuning t = with_isa(cpu::tuning{}, isa);

  for (const std::int64_t k : {std::int64_t{0}, std::int64_t{1}, n / 2, n - 1}) {
    if (k >= n) continue;
    expect_ranks(values, sorted, {k}, "single rank", 0, &t);
    if (testing::Test::HasFatalFailure()) return;
  }
  if (n >= 3) expect_ranks(values, sorted, {n / 3, 2 * n / 3}, "two ranks", 0, &t);
  if (n >= 8) expect_ranks(values, sorted, {n / 4, n / 2, 3 * n / 4}, "quartiles", 2, &t);
  // Eight neighbouring ranks: their windows merge.
  std::vector<std::int64_t> close;
  for (std::int64_t k = n / 2; k < n && k < n / 2 + 8; ++k) close.push_back(k);
  expect_ranks(values, sorted, close, "eight close ranks", 0, &t);
  expect_ranks(values, sorted, test::standard_ranks(n, 1000, seed), "standard ranks", 0, &t);
  if (isa == test_isas().front()) expect_ranks(values, sorted, test::standard_ranks(n, 20, seed), "multiselect", 0);
  expect_ranks(values, sorted, percentile_ranks(n), "percentiles", 0, &t);
  // Many ranks: every rank of small inputs, 1 in 7 of larger ones.
  std::vector<std::int64_t> many;
  for (std::int64_t k = 0; k < n; k += (n <= 4096 ? 1 : 7)) many.push_back(k);
  expect_ranks(values, sorted, many, "many ranks", 0, &t);
  if (n <= (1 << 14)) {
    const cpu::tuning tiny = with_isa(tiny_tuning(), isa);
    expect_ranks(values, sorted, {n / 3}, "tiny tuning, single rank", 2, &tiny);
    expect_ranks(values, sorted, test::standard_ranks(n, 50, seed + 1), "tiny tuning, standard ranks", 2, &tiny);
    expect_ranks(values, sorted, test::standard_ranks(n, 50, seed + 2), "tiny tuning, one thread", 1, &tiny);
    expect_ranks(values, sorted, percentile_ranks(n), "tiny tuning, percentiles", 2, &tiny);
  }
  expect_ranks(values, sorted, {n - 1 - n / 5}, "one thread", 1, &t);
}

template <class T>
void check_dist(dist d) {
  // Every size 0..33, 2^k - 1, 2^k, 2^k + 1 up to 2^16, then 2^18 + 1 and 2^20 (the
  // best kernels; the others up to 2^18 + 1).
  std::vector<std::int64_t> sizes = test::test_sizes(std::int64_t{1} << 16);
  for (std::int64_t n = 4; n <= 30; ++n) sizes.push_back(n);
  std::sort(sizes.begin(), sizes.end());
  sizes.insert(sizes.end(), {(std::int64_t{1} << 18) + 1, std::int64_t{1} << 20});
  const std::vector<cpu::isa> isas = test_isas();
  for (const std::int64_t n : sizes) {
    if (n == 0) continue;  // no rank to ask for
    for (std::size_t i = 0; i < isas.size(); ++i) {
      if (i > 0 && n > (std::int64_t{1} << 18) + 1) continue;
      check_size<T>(d, n, isas[i]);
      if (testing::Test::HasFatalFailure()) return;
    }
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

// One large case: 2^24 uniform floats, the median and 101 percentiles, every kernel set.
TEST(CpuSelectLarge, Uniform2to24) {
  const std::int64_t n = std::int64_t{1} << 24;
  const std::vector<float> values = test::generate<float>(dist::uniform, n, 99);
  const std::vector<std::int64_t> ranks = percentile_ranks(n);
  const std::vector<float> expected = test::reference_multiselect(values, ranks);
  const std::int64_t median = n / 2;
  const float expected_median = test::reference_multiselect(values, std::vector<std::int64_t>{median})[0];
  for (const cpu::isa isa : test_isas()) {
    SCOPED_TRACE(cpu::isa_name(isa));
    const cpu::tuning t = with_isa(cpu::tuning{}, isa);
    std::vector<float> out(ranks.size());
    cpu::sample_select(values.data(), n, ranks.data(), static_cast<std::int64_t>(ranks.size()), out.data(), 0, t);
    for (std::size_t i = 0; i < ranks.size(); ++i) EXPECT_EQ(out[i], expected[i]) << "rank " << ranks[i];
    float m = 0;
    cpu::sample_select(values.data(), n, &median, 1, &m, 0, t);
    EXPECT_EQ(m, expected_median);
  }
  float m = 0;
  cpu::multiselect(values.data(), n, &median, 1, &m);
  EXPECT_EQ(m, expected_median);
}

// 2^24 normal doubles and int64 (64-bit kernels), the median and percentiles.
TEST(CpuSelectLarge, SixtyFourBit2to24) {
  const std::int64_t n = std::int64_t{1} << 24;
  const std::vector<std::int64_t> ranks = percentile_ranks(n);
  const std::int64_t median = n / 2;
  auto check = [&]<class T>(const std::vector<T>& values) {
    const std::vector<T> expected = test::reference_multiselect(values, ranks);
    std::vector<T> out(ranks.size());
    cpu::multiselect(values.data(), n, ranks.data(), static_cast<std::int64_t>(ranks.size()), out.data());
    for (std::size_t i = 0; i < ranks.size(); ++i) EXPECT_EQ(out[i], expected[i]) << "rank " << ranks[i];
    T m = 0;
    cpu::multiselect(values.data(), n, &median, 1, &m);
    EXPECT_EQ(m, test::reference_multiselect(values, std::vector<std::int64_t>{median})[0]);
  };
  check(test::generate<double>(dist::normal, n, 7));
  check(test::generate<std::int64_t>(dist::uniform, n, 8));
}

// The window path's failure modes, each forced by a tuning: windows too narrow to
// hold their ranks (the ranks fall back to the bucket path), buffers that must grow
// while the pass runs, and a window that copies the whole level (its copy is then
// solved by the bucket path, which always makes progress).
TEST(CpuSelectEdge, WindowPathFallbacks) {
  cpu::tuning narrow;
  narrow.window_sigmas = 0.3;
  narrow.window_margin = 0;
  narrow.window_capacity = 0;
  narrow.window_capacity_min = 0;
  cpu::tuning everything;
  everything.max_window_fraction = 2.0;
  for (const std::int64_t n : {std::int64_t{100003}, std::int64_t{1} << 18}) {
    for (const dist d : {dist::uniform, dist::sorted, dist::two_values, dist::sixteen_values, dist::special}) {
      SCOPED_TRACE(testing::Message() << test::name(d) << " n = " << n);
      const auto v = test::generate<float>(d, n, 3);
      std::vector<std::int64_t> all(static_cast<std::size_t>(n));
      std::iota(all.begin(), all.end(), std::int64_t{0});
      const auto sorted = test::reference_multiselect(v, all);
      // The last rank of the smaller value and the first of the larger (two values).
      const auto boundary = static_cast<std::int64_t>(std::lower_bound(sorted.begin(), sorted.end(), sorted[n - 1],
                                                                       [](float a, float b) { return test::nan_last_less(a, b); }) -
                                                      sorted.begin());
      for (const cpu::isa isa : test_isas()) {
        const cpu::tuning a = with_isa(narrow, isa), b = with_isa(everything, isa);
        for (const int threads : {1, 2}) {
          expect_ranks(v, sorted, {n / 2}, "narrow windows", threads, &a);
          expect_ranks(v, sorted, {1, n / 4, n / 2, n - 2}, "narrow windows, four ranks", threads, &a);
          if (boundary > 0) expect_ranks(v, sorted, {boundary - 1}, "window over everything", threads, &b);
          expect_ranks(v, sorted, {n / 2, n / 2 + 1}, "window over everything, two ranks", threads, &b);
        }
      }
    }
  }
}

// Runs of equal keys as long as the sample's runs (np.repeat of random values): a
// run sampled is one key, not sixteen, and the windows must widen to match.
TEST(CpuSelectEdge, RepeatedRuns) {
  for (const int run : {8, 16, 64}) {
    const std::int64_t n = std::int64_t{1} << 20;
    const auto base = test::generate<float>(dist::uniform, n / run, 11);
    std::vector<float> v(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i) v[static_cast<std::size_t>(i)] = base[static_cast<std::size_t>(i / run)];
    std::vector<std::int64_t> all(static_cast<std::size_t>(n));
    std::iota(all.begin(), all.end(), std::int64_t{0});
    const auto sorted = test::reference_multiselect(v, all);
    for (const cpu::isa isa : test_isas()) {
      const cpu::tuning t = with_isa(cpu::tuning{}, isa);
      expect_ranks(v, sorted, {n / 2}, "repeated runs", 2, &t);
      expect_ranks(v, sorted, {n / 10, n / 2, n - n / 10}, "repeated runs, three ranks", 2, &t);
    }
  }
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
