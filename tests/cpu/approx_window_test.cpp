// The approximate selection's narrow-window mode: the host plan
// (core::approx_choose_candidates and its window, step and candidate indices)
// and the CPU backend's answers in that mode (cpu::approx_multiselect, which
// shares the plan with the CUDA backend): single ranks at the ends and the
// middle for every key type and distribution and several bounds, a few close
// ranks, the one-pass error, and forced sampling misses (answered exactly by
// the fallback).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <span>
#include <vector>

#include "common/approx_check.hpp"
#include "common/common.hpp"
#include "cpu/cpu_select.hpp"
#include "core/approx.hpp"
#include "core/sampling.hpp"

namespace kselect {
namespace {

using test::dist;
constexpr std::int64_t S = core::approx_sample_size;

std::vector<std::int64_t> indices_of(const core::approx_candidates& c) {
  std::vector<std::int64_t> idx;
  for (std::int64_t j = 0; j < c.count; ++j) idx.push_back(core::approx_candidate_at(c, j));
  return idx;
}

// The histogram mode takes the candidates the approximate pass always took.
TEST(ApproxWindowPlan, HistogramCandidatesAreTheSpreadOnes) {
  for (int buckets : {2, 3, 128, 1000, 1024, 4096}) {
    const core::approx_candidates c = core::approx_histogram_candidates(buckets);
    EXPECT_FALSE(c.window);
    ASSERT_EQ(c.count, buckets - 1);
    EXPECT_EQ(core::approx_table_budget(c), core::approx_fine_budget(buckets));
    for (int j = 0; j + 1 < buckets; ++j)
      ASSERT_EQ(core::approx_candidate_at(c, j), core::approx_candidate_index(j, buckets, S)) << buckets << " " << j;
  }
}

// The numbers of the case: 2^28 keys, the median, 0.1% of n, 1024 buckets.
TEST(ApproxWindowPlan, MedianOfTwoTo28) {
  const std::int64_t n = std::int64_t(1) << 28;
  const std::int64_t r = n / 2;
  const core::approx_candidates c =
      core::approx_choose_candidates(n, std::span<const std::int64_t>(&r, 1), n / 1000, 1024, true);
  ASSERT_TRUE(c.window);
  // Half-width 4 sigma (4 * sqrt(16384 / 4) = 256) + 2 around 8192.
  EXPECT_EQ(c.first, 8192 - 258);
  EXPECT_EQ(c.width, 517);
  // 0.1% of n / 2 = 134217 ranks = 8.19 sample positions: every 8th sample key.
  EXPECT_EQ(core::approx_window_step(n, n / 1000), 8);
  EXPECT_EQ(c.count, 66);
  EXPECT_EQ(core::approx_table_budget(c), 8192);
}

// One rank always gets a window that holds its prediction; the candidates are
// distinct sample indices from one end of it to the other, at most the step
// apart unless the buckets cap them, never more than buckets - 1.
TEST(ApproxWindowPlan, OneRankGetsAWindow) {
  for (std::int64_t n : {std::int64_t(1), std::int64_t(3), std::int64_t(4097), std::int64_t(1000003),
                         std::int64_t(1) << 28, (std::int64_t(1) << 40) - 1}) {
    for (std::int64_t r : test::single_ranks(n)) {
      for (std::int64_t bound : {std::int64_t(1), std::int64_t(3), n / 1000, n / 100, n, 3 * n}) {
        if (bound <= 0) continue;
        for (int buckets : {2, 3, 16, 1024, 4096}) {
          SCOPED_TRACE(testing::Message() << "n " << n << ", rank " << r << ", bound " << bound << ", buckets "
                                          << buckets);
          const core::approx_candidates c =
              core::approx_choose_candidates(n, std::span<const std::int64_t>(&r, 1), bound, buckets, true);
          ASSERT_TRUE(c.window);
          const core::sample_window w =
              core::predict_window(r, n, S, core::approx_window_sigmas, core::approx_window_margin);
          EXPECT_EQ(c.first, std::max<std::int64_t>(w.first, 0));
          EXPECT_EQ(c.first + c.width, std::min<std::int64_t>(w.last, S - 1));
          EXPECT_LE(c.width, core::approx_window_max_width);
          ASSERT_GE(c.count, 1);
          ASSERT_LE(c.count, buckets - 1);
          ASSERT_LE(c.count, c.width + 1);
          const std::vector<std::int64_t> idx = indices_of(c);
          for (std::size_t j = 0; j < idx.size(); ++j) {
            ASSERT_GE(idx[j], c.first);
            ASSERT_LE(idx[j], c.first + c.width);
            if (j > 0) ASSERT_GT(idx[j], idx[j - 1]);
          }
          if (c.count >= 2) {
            EXPECT_EQ(idx.front(), c.first);
            EXPECT_EQ(idx.back(), c.first + c.width);
          }
          const std::int64_t step = core::approx_window_step(n, bound);
          // The step stands for at most max(bound / 2, one sample position) ranks.
          EXPECT_LE(static_cast<double>(step) * static_cast<double>(n) / S,
                    std::max(static_cast<double>(std::min(bound, n)) / 2, static_cast<double>(n) / S));
          if (c.count < buckets - 1)
            for (std::size_t j = 1; j < idx.size(); ++j) ASSERT_LE(idx[j] - idx[j - 1], step);
          EXPECT_EQ(core::approx_table_budget(c), core::approx_fine_budget(c.count + 1));
        }
      }
    }
  }
}

TEST(ApproxWindowPlan, CappedByTheBuckets) {
  const std::int64_t n = std::int64_t(1) << 28;
  const std::int64_t r = n / 2;
  const std::span<const std::int64_t> one(&r, 1);
  // Bound 1: every sample key of the window would be a candidate.
  EXPECT_EQ(core::approx_choose_candidates(n, one, 1, 4096, true).count, 518);
  EXPECT_EQ(core::approx_choose_candidates(n, one, 1, 128, true).count, 127);
  EXPECT_EQ(core::approx_choose_candidates(n, one, 1, 2, true).count, 1);
  // A bound of n or more: the two ends.
  EXPECT_EQ(core::approx_choose_candidates(n, one, n, 1024, true).count, 2);
  EXPECT_EQ(core::approx_choose_candidates(n, one, 5 * n, 1024, true).count, 2);
}

TEST(ApproxWindowPlan, WhenTheHistogramModeIsKept) {
  const std::int64_t n = 1000003;
  const core::approx_candidates histogram = core::approx_histogram_candidates(1024);
  auto same = [&](const core::approx_candidates& c) {
    return !c.window && c.first == histogram.first && c.width == histogram.width && c.count == histogram.count;
  };
  const std::int64_t mid = n / 2;
  EXPECT_TRUE(same(core::approx_choose_candidates(n, std::span<const std::int64_t>(&mid, 1), 1000, 1024, false)));
  EXPECT_TRUE(same(core::approx_choose_candidates(n, std::span<const std::int64_t>(&mid, 1), 0, 1024, true)));
  EXPECT_TRUE(same(core::approx_choose_candidates(n, std::span<const std::int64_t>(), 1000, 1024, true)));
  const std::vector<std::int64_t> pct = test::percentile_ranks_101(n);
  EXPECT_TRUE(same(core::approx_choose_candidates(n, pct, 1000, 1024, true)));
  const std::vector<std::int64_t> far = {n / 4, 3 * n / 4};
  EXPECT_TRUE(same(core::approx_choose_candidates(n, far, 1000, 1024, true)));
  // Close ranks share one window, the hull of theirs.
  const std::vector<std::int64_t> close = {n / 2 - n / 100, n / 2, n / 2 + 7, n / 2 + n / 50};
  const core::approx_candidates c = core::approx_choose_candidates(n, close, 1000, 1024, true);
  ASSERT_TRUE(c.window);
  const core::sample_window lo =
      core::predict_window(close.front(), n, S, core::approx_window_sigmas, core::approx_window_margin);
  const core::sample_window hi =
      core::predict_window(close.back(), n, S, core::approx_window_sigmas, core::approx_window_margin);
  EXPECT_EQ(c.first, lo.first);
  EXPECT_EQ(c.first + c.width, hi.last);
  // Just past the widest window allowed: the histogram mode.
  const std::vector<std::int64_t> wider = {n / 2 - n / 20, n / 2 + n / 20};
  EXPECT_TRUE(same(core::approx_choose_candidates(n, wider, 1000, 1024, true)));
}

// Over many draws of the sample (seeds), a rank's window holds its sample
// position: the window's first sample key is at or below the rank's key and its
// last at or above. On randomly ordered input the stratified sample's rank is
// as spread as a binomial one, so a 4-sigma window misses with probability
// ~6e-5 (a miss costs an exact selection, never a wrong answer); these 400
// seeds see one 4.05-sigma miss for n/3, so the test allows two per rank.
TEST(ApproxWindowPlan, WindowHoldsTheRank) {
  const std::int64_t n = 1 << 20;
  const std::vector<float> values = test::generate<float>(dist::uniform, n, 4);
  std::vector<float> sorted = values;
  std::sort(sorted.begin(), sorted.end());
  for (const std::int64_t r : {std::int64_t(0), n / 3, n / 2, n - 1}) {
    const core::approx_candidates c =
        core::approx_choose_candidates(n, std::span<const std::int64_t>(&r, 1), n / 1000, 1024, true);
    ASSERT_TRUE(c.window);
    int misses = 0;
    for (std::uint64_t seed = 1; seed <= 400; ++seed) {
      std::vector<float> sample(static_cast<std::size_t>(S));
      for (std::int64_t j = 0; j < S; ++j)
        sample[static_cast<std::size_t>(j)] = values[static_cast<std::size_t>(core::sample_position(j, S, n, seed))];
      std::sort(sample.begin(), sample.end());
      const float lo = sample[static_cast<std::size_t>(c.first)];
      const float hi = sample[static_cast<std::size_t>(c.first + c.width)];
      const float key = sorted[static_cast<std::size_t>(r)];
      const bool lo_ok = c.first == 0 || lo <= key;
      const bool hi_ok = c.first + c.width == S - 1 || key <= hi;
      misses += lo_ok && hi_ok ? 0 : 1;
    }
    EXPECT_LE(misses, 2) << "rank " << r;
  }
}

template <class T>
void expect_valid(const std::vector<T>& values, const test::approx_reference<T>& ref,
                  const std::vector<std::int64_t>& ranks, std::int64_t bound, int buckets, bool window,
                  std::int64_t* max_error = nullptr, std::vector<std::int64_t>* got_ranks = nullptr) {
  std::vector<T> out(ranks.size());
  std::vector<std::int64_t> out_ranks(ranks.size(), -1);
  cpu::approx_multiselect(values.data(), static_cast<std::int64_t>(values.size()), ranks.data(),
                          static_cast<std::int64_t>(ranks.size()), bound, out.data(), out_ranks.data(), buckets, 2,
                          window);
  ASSERT_TRUE(test::check_approx_answers<T>(ref, ranks, out, out_ranks, bound, max_error))
      << "bound " << bound << ", buckets " << buckets << ", window " << window;
  if (got_ranks) *got_ranks = out_ranks;
}

template <class T>
class CpuApproxWindow : public ::testing::Test {};
using KeyTypes = ::testing::Types<float, double, std::int32_t, std::uint32_t, std::int64_t, std::uint64_t>;
TYPED_TEST_SUITE(CpuApproxWindow, KeyTypes);

// Single ranks (the window mode) and a few close ones, every distribution
// (all-equal, two values, NaN/inf/-0.0 included), bounds from 1 to n; the
// histogram mode on the same calls for comparison.
TYPED_TEST(CpuApproxWindow, RanksWithinTheBound) {
  using T = TypeParam;
  for (dist d : test::all_dists()) {
    for (std::int64_t n : {std::int64_t(1), std::int64_t(4097), std::int64_t(300007)}) {
      SCOPED_TRACE(testing::Message() << test::name(d) << ", n = " << n);
      const std::vector<T> values = test::generate<T>(d, n, 700 + static_cast<std::uint64_t>(n));
      const auto ref = test::make_approx_reference(values);
      std::vector<std::vector<std::int64_t>> rank_sets;
      for (std::int64_t r : test::single_ranks(n)) rank_sets.push_back({r});
      if (n > 100) rank_sets.push_back({n / 2 - 50, n / 2, n / 2 + 3, n / 2 + 90});
      for (const auto& ranks : rank_sets) {
        for (std::int64_t bound : {std::int64_t(1), std::int64_t(3), n / 1000, n / 100, n}) {
          if (bound <= 0) continue;
          for (int buckets : {2, 128, 1024}) {
            expect_valid(values, ref, ranks, bound, buckets, true);
            if (::testing::Test::HasFatalFailure()) return;
          }
          expect_valid(values, ref, ranks, bound, 1024, false);
          if (::testing::Test::HasFatalFailure()) return;
        }
      }
    }
  }
}

// On smooth data the window's splitters alone answer within the bound: the
// answer for the median is approximate (error > 0, so not the fallback's) and
// within half the bound (splitters about bound / 2 apart).
TEST(CpuApproxWindowQuality, OnePassAnswersTheMedian) {
  const std::int64_t n = std::int64_t(1) << 21;
  for (dist d : {dist::uniform, dist::normal}) {
    const std::vector<float> values = test::generate<float>(d, n, 12);
    const auto ref = test::make_approx_reference(values);
    for (std::int64_t bound : {n / 1000, n / 100}) {
      const std::vector<std::int64_t> ranks = {n / 2};
      std::int64_t max_error = -1;
      expect_valid(values, ref, ranks, bound, 1024, true, &max_error);
      EXPECT_GT(max_error, 0) << test::name(d) << ", bound " << bound;
      EXPECT_LE(max_error, bound / 2) << test::name(d) << ", bound " << bound;
    }
  }
}

// A sample that misleads (test::sampling_miss_input): the middle ranks lie
// outside their window, the window's ends are far from them, and the exact
// fallback answers them (reported rank = rank).
TYPED_TEST(CpuApproxWindow, SamplingMissAnsweredExactly) {
  using T = TypeParam;
  const std::int64_t n = std::int64_t(1) << 18;
  for (const bool sample_high : {true, false}) {
    const std::vector<T> values = test::sampling_miss_input<T>(n, kselect::detail::default_seed, sample_high);
    const auto ref = test::make_approx_reference(values);
    for (const std::vector<std::int64_t>& ranks :
         {std::vector<std::int64_t>{n / 2}, std::vector<std::int64_t>{n / 2, n / 2 + 5}}) {
      ASSERT_TRUE(core::approx_choose_candidates(n, ranks, n / 1000, 1024, true).window);
      for (std::int64_t bound : {std::int64_t(3), n / 1000}) {
        std::vector<std::int64_t> got;
        expect_valid(values, ref, ranks, bound, 1024, true, nullptr, &got);
        if (::testing::Test::HasFatalFailure()) return;
        EXPECT_EQ(got, ranks) << "sample_high " << sample_high << ", bound " << bound;
        // The key of the rank is an unsampled one, outside the sample's range.
        const T key = ref.sorted[static_cast<std::size_t>(ranks[0])];
        EXPECT_TRUE(key >= T(1000) && key < T(100000));
      }
    }
  }
}

}  // namespace
}  // namespace kselect
