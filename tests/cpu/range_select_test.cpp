// cpu::range_select (top-k and rank ranges) against the stable-sort reference
// (tests/common/range_reference.hpp), for every key type x distribution x size, both
// directions, sorted and unsorted, with and without indices; and the tie-aware
// checker (tests/common/range_check.hpp) that the GPU suite shares, which must
// accept every valid answer and reject wrong ones.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <span>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "common/common.hpp"
#include "common/key_types.hpp"
#include "common/range_check.hpp"
#include "common/range_reference.hpp"
#include "cpu/cpu_select.hpp"

namespace kselect {
namespace {

using test::dist;

using test::key_type;

/// An input with its stable orders in both directions (sorted once per input).
template <class T>
struct sorted_input {
  std::vector<T> values;
  std::vector<std::int64_t> order[2];  // [descending]
  explicit sorted_input(std::vector<T> v) : values(std::move(v)) {
    const auto n = static_cast<std::int64_t>(values.size());
    for (const bool d : {false, true}) order[d] = test::stable_order(values.data(), n, d);
  }
  std::int64_t size() const { return static_cast<std::int64_t>(values.size()); }
};

/// Runs cpu::range_select for [lo, hi) and checks it equals the reference exactly:
/// unsorted and sorted, with indices and (unless `with_indices_only`) without.
template <class T>
void expect_range(const sorted_input<T>& in, std::int64_t lo, std::int64_t hi, bool descending, int threads,
                  bool with_indices_only = false) {
  const std::int64_t n = in.size();
  const auto m = static_cast<std::size_t>(hi - lo);
  for (const bool sorted : {false, true}) {
    SCOPED_TRACE(testing::Message() << "n = " << n << ", [" << lo << ", " << hi << ")"
                                    << (descending ? " descending" : " ascending") << (sorted ? " sorted" : "")
                                    << ", threads " << threads);
    std::vector<T> values(m);
    std::vector<std::int64_t> indices(m, -1);
    cpu::range_select(in.values.data(), n, lo, hi, descending, sorted, values.data(), indices.data(), threads);
    ASSERT_TRUE(test::check_range_result(in.values.data(), n, std::span<const std::int64_t>(in.order[descending]),
                                         lo, hi, descending, sorted, true, values.data(), indices.data()));
    if (with_indices_only) continue;
    std::vector<T> alone(m);
    cpu::range_select(in.values.data(), n, lo, hi, descending, sorted, alone.data(), nullptr, threads);
    ASSERT_TRUE(test::check_range_result(in.values.data(), n, std::span<const std::int64_t>(in.order[descending]),
                                         lo, hi, descending, sorted, true, alone.data(), nullptr));
  }
}

/// The k of top-k: 0, 1, 32, 1000, n/2, n - 1, n (those <= n).
std::vector<std::int64_t> topk_ks(std::int64_t n) {
  std::vector<std::int64_t> ks;
  for (const std::int64_t k : {std::int64_t{0}, std::int64_t{1}, std::int64_t{32}, std::int64_t{1000}, n / 2,
                               n - 1, n})
    if (k >= 0 && k <= n && (ks.empty() || ks.back() != k)) ks.push_back(k);
  return ks;
}

/// Rank ranges away from the ends: thirds, one element, the last, empty, all but the
/// first, and a random one.
std::vector<std::pair<std::int64_t, std::int64_t>> middle_ranges(std::int64_t n, std::uint64_t seed) {
  std::vector<std::pair<std::int64_t, std::int64_t>> r = {
      {n / 3, n - n / 3}, {n / 2, n / 2 + 1}, {n - 1, n}, {n / 2, n / 2}, {1, n}};
  const auto a = static_cast<std::int64_t>(test::random_word(seed, 0) % static_cast<std::uint64_t>(n + 1));
  const auto b = static_cast<std::int64_t>(test::random_word(seed, 1) % static_cast<std::uint64_t>(n + 1));
  r.emplace_back(std::min(a, b), std::max(a, b));
  std::erase_if(r, [n](const auto& p) { return p.first < 0 || p.first > p.second || p.second > n; });
  return r;
}

template <class T>
void check_size(dist d, std::int64_t n) {
  const std::uint64_t seed = 77 + static_cast<std::uint64_t>(n);
  const sorted_input<T> in(test::generate<T>(d, n, seed));
  // Large inputs (the chunked sweeps): fewer ranges. Past 4096 values, indices are
  // always requested (the path without them differs only in not writing them).
  const bool large = n > (std::int64_t{1} << 16);
  const bool with_indices_only = n > 4096;
  std::vector<std::pair<std::int64_t, std::int64_t>> ranges;
  if (large) {
    ranges = {{0, 1000}, {0, n / 2}, {n / 3, n - n / 3}};
  } else {
    for (const std::int64_t k : topk_ks(n)) ranges.emplace_back(0, k);
    for (const auto& r : middle_ranges(n, seed)) ranges.push_back(r);
  }
  for (const bool descending : {false, true}) {
    for (const auto& [lo, hi] : ranges) {
      expect_range(in, lo, hi, descending, 0, with_indices_only);
      if (testing::Test::HasFatalFailure()) return;
    }
  }
}

template <class T>
void check_dist(dist d) {
  // Every test size up to 2^16 (1, 2, 31, 32, 33, 2^k - 1, 2^k, 2^k + 1); for
  // distributions with ties, also one input past the parallel threshold (2^20),
  // where the sweeps run in chunks and the tied elements span chunks.
  std::vector<std::int64_t> sizes = test::test_sizes(std::int64_t{1} << 16);
  if (d == dist::two_values || d == dist::special) sizes.push_back((std::int64_t{1} << 20) + 3);
  for (const std::int64_t n : sizes) {
    if (n == 0) continue;
    check_size<T>(d, n);
    if (testing::Test::HasFatalFailure()) return;
  }
}

class CpuRangeSelect : public testing::TestWithParam<std::tuple<key_type, dist>> {};

TEST_P(CpuRangeSelect, MatchesStableSort) {
  const auto [t, d] = GetParam();
  test::with_key_type(t, [d = d]<class T>() { check_dist<T>(d); });
}

INSTANTIATE_TEST_SUITE_P(
    AllTypesAndDists, CpuRangeSelect,
    testing::Combine(testing::ValuesIn(test::all_key_types),
                     testing::ValuesIn(test::all_dists())),
    [](const testing::TestParamInfo<CpuRangeSelect::ParamType>& param_info) {
      return test::name(std::get<0>(param_info.param)) + "_" + test::name(std::get<1>(param_info.param));
    });

// 2^22 values: the parallel chunks on 1, 2 and 3 threads (3 chunks of uneven size).
TEST(CpuRangeSelectLarge, FourMillionOnOneTwoThreeThreads) {
  const std::int64_t n = std::int64_t{1} << 22;
  const sorted_input<float> uniform(test::generate<float>(dist::uniform, n, 5));
  const sorted_input<double> special(test::generate<double>(dist::special, n, 6));
  for (const int threads : {1, 2, 3}) {
    expect_range(uniform, 0, 1000, true, threads, true);
    expect_range(uniform, n / 2 - 500, n / 2 + 500, false, threads, true);
    expect_range(special, 0, n / 2, true, threads, true);
    expect_range(special, n / 4, n, false, threads, true);
    if (testing::Test::HasFatalFailure()) return;
  }
}

// Ties: every element equal, so positions are decided by index alone, in both
// directions (ties by ascending index also when descending).
TEST(CpuRangeSelectEdge, AllEqualTakesTheSmallestIndices) {
  const std::vector<std::int32_t> v(100, 7);
  for (const bool descending : {false, true}) {
    std::vector<std::int32_t> out(5);
    std::vector<std::int64_t> idx(5);
    cpu::range_select(v.data(), 100, 0, 5, descending, true, out.data(), idx.data());
    EXPECT_EQ(idx, (std::vector<std::int64_t>{0, 1, 2, 3, 4}));
    cpu::range_select(v.data(), 100, 40, 45, descending, false, out.data(), idx.data());
    EXPECT_EQ(idx, (std::vector<std::int64_t>{40, 41, 42, 43, 44}));
  }
}

// -0.0 and +0.0 tie (by index); NaNs of any sign and payload tie and order last
// (first when descending); the output keeps every element's bits.
TEST(CpuRangeSelectEdge, SignedZerosAndNanPayloadsKeepTheirBits) {
  const float neg_nan = -std::numeric_limits<float>::quiet_NaN();
  std::uint32_t payload_bits = 0x7fc01234u;
  float payload_nan;
  std::memcpy(&payload_nan, &payload_bits, sizeof payload_nan);
  const std::vector<float> v = {0.0f, payload_nan, -0.0f, 1.0f, neg_nan, -0.0f, -1.0f,
                                std::numeric_limits<float>::infinity()};
  const auto n = static_cast<std::int64_t>(v.size());
  std::vector<float> out(8);
  std::vector<std::int64_t> idx(8);
  cpu::range_select(v.data(), n, 0, n, false, true, out.data(), idx.data());
  EXPECT_EQ(idx, (std::vector<std::int64_t>{6, 0, 2, 5, 3, 7, 1, 4}));
  cpu::range_select(v.data(), n, 0, n, true, true, out.data(), idx.data());
  EXPECT_EQ(idx, (std::vector<std::int64_t>{1, 4, 7, 3, 0, 2, 5, 6}));
  for (std::size_t i = 0; i < 8; ++i)
    EXPECT_EQ(std::memcmp(&out[i], &v[static_cast<std::size_t>(idx[i])], sizeof(float)), 0) << "output " << i;
  // The two zeros at positions 2 and 3 of the ascending order: -0.0 (index 2), -0.0 (index 5).
  cpu::range_select(v.data(), n, 2, 4, false, false, out.data(), idx.data());
  EXPECT_EQ(idx[0], 2);
  EXPECT_EQ(idx[1], 5);
  EXPECT_TRUE(std::signbit(out[0]) && std::signbit(out[1]));
}

TEST(CpuRangeSelectEdge, EmptyRangeWritesNothing) {
  const std::vector<std::uint64_t> v = {3, 1, 2};
  std::uint64_t out = 99;
  std::int64_t idx = -5;
  cpu::range_select(v.data(), 3, 2, 2, false, true, &out, &idx);
  EXPECT_EQ(out, 99u);
  EXPECT_EQ(idx, -5);
}

// ---- the checker must catch wrong answers and accept every valid one ----------------

class RangeCheck : public testing::Test {
 protected:
  // 10 values with a tie at the boundary of the 3 smallest: 1.0 at indices 2, 5, 8.
  std::vector<float> v = {4.0f, 0.5f, 1.0f, 9.0f, 0.25f, 1.0f, 7.0f, -0.0f, 1.0f, 3.0f};
  std::int64_t n = 10;
};

TEST_F(RangeCheck, AcceptsTheReferenceAndValidTieChoices) {
  // Smallest 4: -0.0 (7), 0.25 (4), 0.5 (1), then one of the 1.0s; deterministic takes index 2.
  const std::vector<float> values = {0.5f, 1.0f, 0.25f, -0.0f};
  const std::vector<std::int64_t> det = {1, 2, 4, 7};
  EXPECT_TRUE(test::check_range_result(v.data(), n, 0, 4, false, false, true, values.data(), det.data()));
  const std::vector<std::int64_t> other_tie = {1, 8, 4, 7};  // any order, another 1.0
  const std::vector<float> other_values = {0.5f, 1.0f, 0.25f, -0.0f};
  EXPECT_TRUE(test::check_range_result(v.data(), n, 0, 4, false, false, false, other_values.data(), other_tie.data()));
  EXPECT_TRUE(test::check_range_result(v.data(), n, 0, 4, false, false, false, other_values.data(), nullptr));
  const std::vector<float> sorted = {-0.0f, 0.25f, 0.5f, 1.0f};
  const std::vector<std::int64_t> sorted_idx = {7, 4, 1, 5};
  EXPECT_TRUE(test::check_range_result(v.data(), n, 0, 4, false, true, false, sorted.data(), sorted_idx.data()));
  // Largest 3, sorted, deterministic: 9 (3), 7 (6), 4 (0).
  const std::vector<float> top = {9.0f, 7.0f, 4.0f};
  const std::vector<std::int64_t> top_idx = {3, 6, 0};
  EXPECT_TRUE(test::check_range_result(v.data(), n, 0, 3, true, true, true, top.data(), top_idx.data()));
}

TEST_F(RangeCheck, RejectsWrongAnswers) {
  const std::vector<float> values = {0.5f, 1.0f, 0.25f, -0.0f};
  // Deterministic with the wrong tie (index 5 instead of 2), or out of index order.
  const std::vector<std::int64_t> wrong_tie = {1, 5, 4, 7};
  EXPECT_FALSE(test::check_range_result(v.data(), n, 0, 4, false, false, true, values.data(), wrong_tie.data()));
  const std::vector<float> swapped = {1.0f, 0.5f, 0.25f, -0.0f};
  EXPECT_FALSE(test::check_range_result(v.data(), n, 0, 4, false, false, true, swapped.data(), nullptr));
  // A value that is not among the 4 smallest.
  const std::vector<float> too_big = {0.5f, 3.0f, 0.25f, -0.0f};
  EXPECT_FALSE(test::check_range_result(v.data(), n, 0, 4, false, false, false, too_big.data(), nullptr));
  // The same index twice, an index out of range, an index whose element differs.
  const std::vector<float> twice_values = {0.5f, 1.0f, 1.0f, -0.0f};
  const std::vector<std::int64_t> twice = {1, 2, 2, 7};
  EXPECT_FALSE(test::check_range_result(v.data(), n, 0, 4, false, false, false, twice_values.data(), twice.data()));
  const std::vector<std::int64_t> outside = {1, 2, 4, 10};
  EXPECT_FALSE(test::check_range_result(v.data(), n, 0, 4, false, false, false, values.data(), outside.data()));
  const std::vector<std::int64_t> mismatched = {1, 2, 7, 4};
  EXPECT_FALSE(test::check_range_result(v.data(), n, 0, 4, false, false, false, values.data(), mismatched.data()));
  // +0.0 reported for the input's -0.0: equal values, different bits.
  const std::vector<float> plus_zero = {0.5f, 1.0f, 0.25f, 0.0f};
  const std::vector<std::int64_t> det = {1, 2, 4, 7};
  EXPECT_FALSE(test::check_range_result(v.data(), n, 0, 4, false, false, false, plus_zero.data(), det.data()));
  EXPECT_FALSE(test::check_range_result(v.data(), n, 0, 4, false, false, false, plus_zero.data(), nullptr));
  EXPECT_FALSE(test::check_range_result(v.data(), n, 0, 4, false, false, true, plus_zero.data(), nullptr));
  // Sorted output out of order.
  const std::vector<float> unsorted = {0.25f, -0.0f, 0.5f, 1.0f};
  EXPECT_FALSE(test::check_range_result(v.data(), n, 0, 4, false, true, false, unsorted.data(), nullptr));
  // Bad bounds are reported, not read past.
  EXPECT_FALSE(test::check_range_result(v.data(), n, 3, 2, false, false, false, values.data(), nullptr));
  EXPECT_FALSE(test::check_range_result(v.data(), n, 0, 11, false, false, false, values.data(), nullptr));
}

}  // namespace
}  // namespace kselect
