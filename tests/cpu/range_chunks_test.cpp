// The chunked take of a rank range (core/range_chunks.hpp), as the streamed range
// runs it (src/cuda/streamed/streamed_range.cpp) but simulated on the host: the
// class table the count kernel counts with, the plan from per-chunk counts, chunks
// that take all or none of each boundary key's elements compacted by the device's
// rule, and the others by take_range_chunk. Checked against the stable sort on
// every distribution, with chunks from one element to the whole array.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <span>
#include <stdexcept>
#include <vector>

#include "common/generate.hpp"
#include "common/range_check.hpp"
#include "common/rng.hpp"
#include "core/key_traits.hpp"
#include "core/range_chunks.hpp"
#include "core/stream_plan.hpp"

namespace kselect {
namespace {

using core::range_class;

/// The class a key gets from the table, found as the count kernel finds it (the
/// interval whose [lo, hi] holds it; its bucket); range_classes when none does.
template <class U>
std::uint32_t class_from_table(const std::vector<core::stream_interval<U>>& table, U key) {
  const auto it = std::upper_bound(table.begin(), table.end(), key,
                                   [](U k, const core::stream_interval<U>& iv) { return k < iv.lo; });
  if (it == table.begin() || key > (it - 1)->hi) return core::range_classes;
  return (it - 1)->first;
}

template <class U>
std::uint32_t class_of(U order_key, U first, U last) {
  if (order_key < first) return core::class_before;
  if (order_key == first) return core::class_first;
  if (order_key < last) return core::class_between;
  if (order_key == last) return core::class_last;
  return core::class_after;
}

TEST(RangeChunks, ClassTableCountsEveryKeyInItsClass) {
  using U = std::uint32_t;
  const U top = std::numeric_limits<U>::max();
  const std::vector<std::pair<U, U>> bounds = {{0, 0},   {0, 1},         {0, top},  {top, top}, {5, 5},
                                               {5, 6},   {5, 7},         {1, top - 1}, {100, 1000}, {top - 1, top}};
  for (const bool descending : {false, true})
    for (const auto& [first, last] : bounds) {
      const std::vector<core::stream_interval<U>> table = core::range_class_table<U>(first, last, descending);
      for (std::size_t i = 1; i < table.size(); ++i)
        EXPECT_EQ(table[i].lo, table[i - 1].hi + 1) << "ascending, adjacent";
      EXPECT_EQ(table.front().lo, 0u);
      EXPECT_EQ(table.back().hi, top);
      std::vector<U> keys = {0, 1, top, top - 1, first, last, first - 1, first + 1, last - 1, last + 1};
      for (std::uint64_t i = 0; i < 2000; ++i) keys.push_back(static_cast<U>(test::random_word(3, i)));
      for (const U key : keys) {
        const U order_key = descending ? static_cast<U>(~key) : key;
        EXPECT_EQ(class_from_table(table, key), class_of(order_key, first, last))
            << "key " << key << ", first " << first << ", last " << last << (descending ? " descending" : "");
      }
    }
}

/// The streamed take simulated over chunks of `chunk` elements; returns the values and
/// indices, and counts the chunks taken in part.
template <class T>
test::range_answer<T> take_in_chunks(const std::vector<T>& values, std::int64_t lo, std::int64_t hi, bool descending,
                                     std::int64_t chunk, int& partial_chunks) {
  using U = core::key_t<T>;
  const auto n = static_cast<std::int64_t>(values.size());
  const core::range_order_key<T> key{descending};
  // The boundary keys, from the reference's stable order.
  const std::vector<std::int64_t> order = test::stable_order(values.data(), n, descending);
  const U first = key(values[static_cast<std::size_t>(order[static_cast<std::size_t>(lo)])]);
  const U last = key(values[static_cast<std::size_t>(order[static_cast<std::size_t>(hi - 1)])]);
  const std::int64_t chunks = (n + chunk - 1) / chunk;
  std::vector<core::range_chunk_counts> counts;
  for (std::int64_t c = 0; c < chunks; ++c)
    counts.push_back(core::count_range_chunk(values.data(), c * chunk, std::min(n, (c + 1) * chunk), first, last, key));
  const core::range_chunk_take plan = core::plan_range_chunks(counts, lo, hi, first == last);
  EXPECT_EQ(plan.starts.back().out, hi - lo);
  test::range_answer<T> out;
  out.values.resize(static_cast<std::size_t>(hi - lo));
  out.indices.resize(out.values.size());
  partial_chunks = 0;
  for (std::int64_t c = 0; c < chunks; ++c) {
    const auto cu = static_cast<std::size_t>(c);
    const std::int64_t begin = c * chunk, end = std::min(n, begin + chunk);
    if (plan.partial(cu, counts[cu])) {
      ++partial_chunks;
      core::take_range_chunk(values.data(), begin, end, first, last, key, plan, plan.starts[cu], out.values.data(),
                             out.indices.data());
      continue;
    }
    // The device's rule: all or none of each boundary key's elements.
    const bool take_first = plan.first_taken(cu, counts[cu]) > 0;
    const bool take_last = first != last && plan.last_taken(cu, counts[cu]) > 0;
    std::int64_t at = plan.starts[cu].out;
    for (std::int64_t i = begin; i < end; ++i) {
      const U k = key(values[static_cast<std::size_t>(i)]);
      if ((k > first && k < last) || (k == first && take_first) || (k == last && take_last)) {
        out.values[static_cast<std::size_t>(at)] = values[static_cast<std::size_t>(i)];
        out.indices[static_cast<std::size_t>(at++)] = i;
      }
    }
    EXPECT_EQ(at, plan.starts[cu + 1].out) << "chunk " << c;
  }
  return out;
}

TEST(RangeChunks, StreamedTakeMatchesTheStableSort) {
  for (const test::dist d : test::all_dists())
    for (const std::int64_t n :
         {std::int64_t{1}, std::int64_t{2}, std::int64_t{33}, std::int64_t{1000}, std::int64_t{4099}}) {
      const std::vector<float> values = test::generate<float>(d, n, 17 + static_cast<std::uint64_t>(n));
      for (const bool descending : {false, true}) {
        const std::vector<std::int64_t> order = test::stable_order(values.data(), n, descending);
        const std::vector<std::pair<std::int64_t, std::int64_t>> ranges = {
            {0, 1}, {n - 1, n}, {0, std::min<std::int64_t>(n, 100)}, {n / 3, std::max(n / 3 + 1, 2 * n / 3)}, {0, n}};
        for (const auto& [lo, hi] : ranges)
          for (const std::int64_t chunk : {std::int64_t{1}, std::int64_t{7}, std::int64_t{256}, n}) {
            int partial = 0;
            const test::range_answer<float> got = take_in_chunks(values, lo, hi, descending, chunk, partial);
            EXPECT_TRUE(test::check_range_result(values.data(), n, order, lo, hi, descending, false, true,
                                                 got.values.data(), got.indices.data()))
                << test::name(d) << ", chunks of " << chunk;
            // One chunk at each end of the first key's ordinals, or one per boundary key.
            EXPECT_LE(partial, 2) << test::name(d) << " [" << lo << ", " << hi << "), chunks of " << chunk;
          }
      }
    }
}

// The one-pass form's key interval (core::range_candidate_keys) from a sample as the
// streamed range draws it: it holds the boundary ranks, and its elements fit the room
// it asks for, on smooth distributions where a sample predicts well.
TEST(RangeChunks, CandidateKeysHoldTheRange) {
  using U = std::uint32_t;
  const std::int64_t n = std::int64_t{1} << 22;
  for (const test::dist d : {test::dist::uniform, test::dist::normal, test::dist::sorted, test::dist::clustered}) {
    const std::vector<float> values = test::generate<float>(d, n, 19);
    std::vector<U> keys(values.size());
    for (std::size_t i = 0; i < keys.size(); ++i) keys[i] = core::key_traits<float>::to_key(values[i]);
    std::vector<U> sorted_keys = keys;
    std::sort(sorted_keys.begin(), sorted_keys.end());
    const std::vector<std::pair<std::int64_t, std::int64_t>> ranks = {
        {0, 999}, {n - 1000, n - 1}, {n / 2, n / 2}, {n / 3, 2 * n / 3}, {12345, 23456}};
    for (const auto& [r_lo, r_hi] : ranks) {
      const core::stream_sampling sampling;
      std::vector<U> sample(static_cast<std::size_t>(core::stream_sample_keys(n, 2, sampling)));
      for (std::size_t i = 0; i < sample.size(); ++i)
        sample[i] = keys[test::random_word(23, i) % keys.size()];
      std::sort(sample.begin(), sample.end());
      const core::candidate_keys<U> c = core::range_candidate_keys<U>(sample, n, r_lo, r_hi, sampling);
      const auto below = std::lower_bound(sorted_keys.begin(), sorted_keys.end(), c.lo) - sorted_keys.begin();
      const auto through = std::upper_bound(sorted_keys.begin(), sorted_keys.end(), c.hi) - sorted_keys.begin();
      EXPECT_LE(below, r_lo) << test::name(d) << " ranks " << r_lo << ".." << r_hi;
      EXPECT_GT(through, r_hi) << test::name(d) << " ranks " << r_lo << ".." << r_hi;
      EXPECT_LE(through - below, c.room) << test::name(d) << " ranks " << r_lo << ".." << r_hi;
      EXPECT_GE(c.room, r_hi - r_lo + 1);
    }
  }
}

TEST(RangeChunks, CountsThatCannotHoldTheRangeAreRefused) {
  // 10 elements before the first key: position 5 cannot hold it.
  const std::vector<core::range_chunk_counts> counts = {{10, 3, 4, 2}};
  EXPECT_THROW(core::plan_range_chunks(counts, 5, 12, false), std::logic_error);
  // Positions [10, 20) need more than 3 + 4 + 2 elements past the first 10.
  EXPECT_THROW(core::plan_range_chunks(counts, 10, 20, false), std::logic_error);
  // Positions [11, 12) hold one key, not two.
  EXPECT_THROW(core::plan_range_chunks(counts, 11, 12, false), std::logic_error);
  EXPECT_NO_THROW(core::plan_range_chunks(counts, 10, 19, false));
  EXPECT_NO_THROW(core::plan_range_chunks(counts, 12, 18, false));
  const std::vector<core::range_chunk_counts> one_key = {{10, 5, 0, 0}};
  EXPECT_NO_THROW(core::plan_range_chunks(one_key, 11, 14, true));
  EXPECT_THROW(core::plan_range_chunks(one_key, 11, 16, true), std::logic_error);
}

}  // namespace
}  // namespace kselect
