// The streamed selection's planning (core/stream_plan.hpp), driven through passes
// simulated on the host: each pass counts every key into the table's buckets and
// keeps the kept intervals' keys in a buffer of the planner's capacity, as the GPU's
// count kernel does. Checked against the sort-based reference on every distribution,
// with buffers large enough for one pass and so small that every key must be placed
// by counts alone.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <span>
#include <vector>

#include "common/generate.hpp"
#include "common/reference.hpp"
#include "common/rng.hpp"
#include "common/sizes.hpp"
#include "core/key_traits.hpp"
#include "core/stream_plan.hpp"

namespace kselect {
namespace {

using core::stream_interval;
using core::stream_planner;

template <class U>
struct simulated_pass {
  std::vector<std::uint64_t> counts;
  std::vector<U> kept;
  std::int64_t kept_keys = 0;
};

/// One pass over `keys` with `table`, as the kernel: a key outside every interval is
/// ignored, a kept key beyond the capacity is counted but not stored.
template <class U>
simulated_pass<U> run_pass(const std::vector<U>& keys, const std::vector<stream_interval<U>>& table,
                           std::int64_t capacity) {
  simulated_pass<U> out;
  out.counts.assign(core::stream_table_buckets<U>(table), 0);
  for (const U k : keys) {
    const auto it = std::upper_bound(table.begin(), table.end(), k,
                                     [](U key, const stream_interval<U>& iv) { return key < iv.lo; });
    if (it == table.begin()) continue;
    const stream_interval<U>& iv = *(it - 1);
    if (k > iv.hi) continue;
    const auto b = std::min<std::uint64_t>(static_cast<U>(k - iv.lo) >> iv.shift, iv.buckets - 1);
    ++out.counts[iv.first + b];
    if (iv.keep && out.kept_keys++ < capacity) out.kept.push_back(k);
  }
  return out;
}

struct streamed_result {
  int passes = 0;
  std::vector<std::uint64_t> keys;  // the answers' keys, widened
};

template <class T>
streamed_result select_streamed(const std::vector<T>& values, const std::vector<std::int64_t>& ranks,
                                std::int64_t capacity, const core::stream_sampling& sampling) {
  using U = core::key_t<T>;
  std::vector<U> keys(values.size());
  for (std::size_t i = 0; i < values.size(); ++i) keys[i] = core::key_traits<T>::to_key(values[i]);
  const auto n = static_cast<std::int64_t>(values.size());
  stream_planner<U> plan(n, ranks, capacity);
  std::vector<U> sample(static_cast<std::size_t>(plan.sample_keys(sampling)));
  for (std::size_t i = 0; i < sample.size(); ++i)
    sample[i] = keys[test::random_word(77, i) % values.size()];
  std::sort(sample.begin(), sample.end());
  std::vector<stream_interval<U>> table = plan.first_table(sample, sampling);
  streamed_result result;
  while (true) {
    ++result.passes;
    EXPECT_LE(plan.room(), capacity);
    simulated_pass<U> pass = run_pass(keys, table, plan.room());
    const std::vector<core::kept_answer> from_kept = plan.apply(table, pass.counts, pass.kept_keys);
    std::sort(pass.kept.begin(), pass.kept.end());
    for (const core::kept_answer& a : from_kept) {
      EXPECT_LT(a.kept_rank, static_cast<std::int64_t>(pass.kept.size()));
      plan.answer(a.index, pass.kept.at(static_cast<std::size_t>(a.kept_rank)));
    }
    if (plan.done()) break;
    if (result.passes > 70) {
      ADD_FAILURE() << "no answer after 70 passes";
      return result;
    }
    table = plan.next_table();
  }
  for (const auto& r : plan.ranks()) result.keys.push_back(r.key);
  return result;
}

template <class T>
void expect_streamed_matches(test::dist d, std::int64_t n, std::int64_t capacity, const core::stream_sampling& sampling,
                             int max_passes) {
  SCOPED_TRACE(testing::Message() << test::name(d) << ", n = " << n << ", capacity " << capacity);
  const std::vector<T> values = test::generate<T>(d, n, 1000 + static_cast<std::uint64_t>(n));
  for (const int random_ranks : {0, 3, 100}) {
    const std::vector<std::int64_t> ranks = test::standard_ranks(n, random_ranks, 5 + random_ranks);
    const streamed_result got = select_streamed(values, ranks, capacity, sampling);
    const std::vector<T> want = test::reference_multiselect(values, ranks);
    ASSERT_EQ(got.keys.size(), ranks.size());
    for (std::size_t i = 0; i < ranks.size(); ++i)
      ASSERT_EQ(got.keys[i], core::key_traits<T>::to_key(want[i])) << "rank " << ranks[i];
    EXPECT_LE(got.passes, max_passes) << random_ranks << " random ranks";
  }
}

template <class T>
class StreamPlan : public testing::Test {};
using StreamKeyTypes = testing::Types<float, double, std::int32_t, std::uint32_t, std::int64_t, std::uint64_t>;
TYPED_TEST_SUITE(StreamPlan, StreamKeyTypes);

// A buffer that holds the array: one pass keeps everything.
TYPED_TEST(StreamPlan, ArrayThatFitsTakesOnePass) {
  for (const std::int64_t n : test::test_sizes(4097))
    if (n > 0)
      for (const test::dist d : test::all_dists()) expect_streamed_matches<TypeParam>(d, n, n, {}, 1);
}

// A buffer a quarter of the array and a sample of 2^12 keys: the windows answer in one
// pass or two; with ties, clusters and special values, more when windows miss or
// overflow, never a wrong answer.
TYPED_TEST(StreamPlan, SampledWindowsAnswerExactly) {
  core::stream_sampling sampling;
  sampling.max_keys = 4096;
  const std::int64_t n = 100003;
  for (const test::dist d : test::all_dists()) expect_streamed_matches<TypeParam>(d, n, n / 4, sampling, 8 * sizeof(TypeParam));
  // A buffer that would hold the array, which is sampled all the same (larger than
  // keep_whole_max): the buffer holds the windows only.
  sampling.keep_whole_max = 1000;
  for (const test::dist d : test::all_dists()) expect_streamed_matches<TypeParam>(d, n, n, sampling, 8 * sizeof(TypeParam));
}

// A buffer of one key: nothing can be kept, every rank is placed by counts alone
// (2^13 buckets a pass: at most ceil(bits / 12) + 1 passes with few ranks).
TYPED_TEST(StreamPlan, BufferOfOneKeyNarrowsByCounts) {
  core::stream_sampling sampling;
  sampling.max_keys = 1024;
  for (const std::int64_t n : {std::int64_t{2}, std::int64_t{33}, std::int64_t{65537}})
    for (const test::dist d : test::all_dists()) expect_streamed_matches<TypeParam>(d, n, 1, sampling, 64);
}

// Uniform and normal data, one rank or the four standard ones: the first pass answers
// every rank. (A hundred ranks take one pass only where the windows, about
// 10 / sqrt(sample) of the array each, fit half the buffer together: arrays far larger
// than a unit test's.)
TEST(StreamPlanPasses, SpreadDataTakesOnePass) {
  core::stream_sampling sampling;
  sampling.max_keys = 1 << 16;
  const std::int64_t n = std::int64_t{1} << 20;
  for (const test::dist d : {test::dist::uniform, test::dist::normal}) {
    const std::vector<float> values = test::generate<float>(d, n, 9);
    for (const std::vector<std::int64_t>& ranks :
         {std::vector<std::int64_t>{n / 2}, test::standard_ranks(n, 0, 3)}) {
      const streamed_result got = select_streamed(values, ranks, std::int64_t{1} << 19, sampling);
      EXPECT_EQ(got.passes, 1) << test::name(d) << ", " << ranks.size() << " ranks";
    }
  }
}

// Twenty thousand ranks of two hundred thousand keys (windows that merge into few,
// tables past stream_max_buckets in later passes), with a buffer too small for them.
TEST(StreamPlanPasses, ManyRanks) {
  core::stream_sampling sampling;
  sampling.max_keys = 1 << 14;
  const std::int64_t n = 200003;
  std::vector<std::int64_t> ranks;
  for (std::int64_t r = 0; r < n; r += 10) ranks.push_back(r);
  for (const test::dist d : {test::dist::uniform, test::dist::sixteen_values, test::dist::clustered}) {
    const std::vector<double> values = test::generate<double>(d, n, 21);
    for (const std::int64_t capacity : {n, n / 16}) {
      const streamed_result got = select_streamed(values, ranks, capacity, sampling);
      const std::vector<double> want = test::reference_multiselect(values, ranks);
      ASSERT_EQ(got.keys.size(), ranks.size());
      for (std::size_t i = 0; i < ranks.size(); ++i)
        ASSERT_EQ(got.keys[i], core::key_traits<double>::to_key(want[i])) << test::name(d) << ", rank " << ranks[i];
    }
  }
}

TEST(StreamPlanPasses, RefusesBadRanks) {
  const std::vector<std::int64_t> unsorted = {3, 1}, outside = {5};
  EXPECT_THROW(stream_planner<std::uint32_t>(5, unsorted, 10), std::invalid_argument);
  EXPECT_THROW(stream_planner<std::uint32_t>(5, outside, 10), std::invalid_argument);
  EXPECT_THROW(stream_planner<std::uint32_t>(0, {}, 10), std::invalid_argument);
}

}  // namespace
}  // namespace kselect
