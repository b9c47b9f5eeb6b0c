// DIBMS's host planning (src/distributed/dibms_plan.hpp): the bucket projection is
// exact (every key lies in the range the planner names for its bucket), tables cover
// what they should, and plan_next_round finds the right buckets and answers.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "distributed/dibms_plan.hpp"

namespace kselect::distributed {
namespace {

template <class U>
class DibmsPlan : public ::testing::Test {};
using KeyTypes = ::testing::Types<std::uint32_t, std::uint64_t>;
TYPED_TEST_SUITE(DibmsPlan, KeyTypes);

// The bucket of key in table t (or -1), by the backends' own functions.
template <class U>
long long bucket_of(const round_table<U>& t, U key) {
  const int i = core::find_interval(t.lo_keys.data(), t.intervals.data(), static_cast<int>(t.intervals.size()), key);
  if (i < 0) return -1;
  return t.intervals[static_cast<std::size_t>(i)].first + core::bucket_offset(t.intervals[static_cast<std::size_t>(i)], key);
}

// A table covers every key: from 0 to the largest, each interval right after the one
// before and its buckets right after the previous interval's.
template <class U>
void expect_table_tiles_key_space(const round_table<U>& t) {
  ASSERT_EQ(t.intervals.front().lo, U(0));
  ASSERT_EQ(t.intervals.back().hi, static_cast<U>(~U(0)));
  for (std::size_t i = 0; i + 1 < t.intervals.size(); ++i) {
    ASSERT_EQ(static_cast<U>(t.intervals[i].hi + 1), t.intervals[i + 1].lo);
    ASSERT_EQ(t.intervals[i].first + t.intervals[i].count, t.intervals[i + 1].first);
  }
}

// 1024 sorted sample keys that repeat: 0 sixteen close values, 1 sixteen values spread
// over the key range, 2 all equal, 3 eight tight clusters, 4 one heavy key among spread
// keys, 5 the two ends of the key range, 6 a few hundred values.
template <class U>
std::vector<U> repeating_sample(int shape, std::mt19937_64& rng) {
  const U max = static_cast<U>(~U(0));
  std::vector<U> sample;
  for (int i = 0; i < 1024; ++i) {
    switch (shape) {
      case 0: sample.push_back(static_cast<U>(1000 + (rng() % 16) * 37)); break;
      case 1: sample.push_back(static_cast<U>((rng() % 16) * (max / 16))); break;
      case 2: sample.push_back(static_cast<U>(777)); break;
      case 3: sample.push_back(static_cast<U>((rng() % 8) * (max / 8) + rng() % 100)); break;
      case 4: sample.push_back(static_cast<U>(rng() % 3 ? rng() : 424242)); break;
      case 5: sample.push_back(static_cast<U>(rng() % 2 ? 0 : max)); break;
      default: sample.push_back(static_cast<U>(rng() % 264 * 1000 + 7)); break;
    }
  }
  std::sort(sample.begin(), sample.end());
  return sample;
}

// The directory (core/bucket_table.hpp) finds the interval holding each key (or none),
// as a scan of every interval does, for keys inside, between, around and far from
// intervals of every shape: first-round tails, narrow clusters sharing one slot,
// intervals at the ends of the key range; a slot it calls whole lies in that interval.
TYPED_TEST(DibmsPlan, DirectoryFindsTheIntervalHoldingEachKey) {
  using U = TypeParam;
  std::mt19937_64 rng(11);
  const U max = static_cast<U>(~U(0));
  auto intervals_from = [](std::vector<U> bounds) {  // sorted distinct bounds -> [b0, b1], [b2, b3], ...
    std::sort(bounds.begin(), bounds.end());
    bounds.erase(std::unique(bounds.begin(), bounds.end()), bounds.end());
    if (bounds.size() % 2) bounds.pop_back();
    std::vector<U> lo, hi;
    for (std::size_t i = 0; i + 1 < bounds.size(); i += 2) {
      lo.push_back(bounds[i]);
      hi.push_back(bounds[i + 1]);
    }
    return std::pair{lo, hi};
  };
  std::vector<std::vector<U>> shapes = {
      {0, max},                                        // one interval over everything
      {7, 7},                                          // one key
      {0, 99, 100, 5000, 5001, max},                   // first-round tails around a middle
      {max - 10, max},                                 // at the top
      {0, 0, 1, 1, 2, 2, 3, max},                      // single keys then a tail
  };
  for (int r = 0; r < 40; ++r) {  // random: uniform spread, or clusters of narrow intervals
    std::vector<U> b;
    const int count = 2 * (1 + static_cast<int>(rng() % 300));
    const U centre = static_cast<U>(rng());
    for (int i = 0; i < count; ++i)
      b.push_back(r % 2 ? static_cast<U>(rng()) : static_cast<U>(centre + static_cast<U>(rng() % 5000)));
    if (r % 4 == 3) b.insert(b.end(), {U(0), U(1), static_cast<U>(max - 1), max});
    shapes.push_back(b);
  }
  for (const std::vector<U>& shape : shapes) {
    const auto [lo, hi] = intervals_from(shape);
    if (lo.empty()) continue;
    for (const int max_slots : {2, 7, 4096}) {
      const core::interval_directory<U> d = core::make_interval_directory<U>(lo, hi, max_slots);
      ASSERT_GE(d.slots, 1);
      ASSERT_LE(d.slots, max_slots);
      ASSERT_EQ(d.word.size(), static_cast<std::size_t>(d.slots));
      const int ni = static_cast<int>(lo.size());
      if (ni == 1 && lo[0] == 0 && hi[0] == max)  // one interval over everything: every slot whole
        for (const std::uint32_t w : d.word) ASSERT_EQ(w, core::directory_whole);
      auto probe = [&](U key) {
        int want = -1;
        for (int i = 0; i < ni; ++i)
          if (lo[static_cast<std::size_t>(i)] <= key && key <= hi[static_cast<std::size_t>(i)]) want = i;
        bool whole = false;
        int got = core::directory_candidate(d, lo.data(), ni, key, whole);
        if (got >= 0 && whole) ASSERT_EQ(got, want) << "key " << key << " in a whole slot";
        if (got >= 0 && !(lo[static_cast<std::size_t>(got)] <= key && key <= hi[static_cast<std::size_t>(got)])) got = -1;
        ASSERT_EQ(got, want) << "key " << key << ", " << ni << " intervals, " << d.slots << " slots";
      };
      for (int i = 0; i < ni; ++i) {
        for (const U k : {lo[static_cast<std::size_t>(i)], hi[static_cast<std::size_t>(i)]}) {
          probe(k);
          probe(static_cast<U>(k - 1));
          probe(static_cast<U>(k + 1));
        }
      }
      for (int i = 0; i < 2000; ++i) probe(static_cast<U>(rng()));
      for (int i = 0; i < 2000; ++i) probe(static_cast<U>(lo[0] + static_cast<U>(rng() % 10000)));
      probe(0);
      probe(max);
    }
  }
}

TYPED_TEST(DibmsPlan, EveryKeyLiesInTheRangeNamedForItsBucket) {
  using U = TypeParam;
  std::mt19937_64 rng(7);
  const U max = static_cast<U>(~U(0));
  struct span_case { U lo, hi; std::uint32_t buckets; };
  std::vector<span_case> cases = {{0, max, 8192}, {0, max, 3}, {5, 5, 16}, {10, 20, 16}, {10, 25, 16},
                                  {10, 26, 16},   {max - 100, max, 64}, {0, 1000000, 999}, {123, max / 3, 4096}};
  // Widths of 2^s keys (radix slots, whose scale is a shift) with as many buckets as
  // keys less one, about half as many, a third, and one; and widths about twice the
  // buckets (where a bucket may or may not be one key wide).
  for (const int s : {1, 2, 5, 12, 20, 31}) {
    const U width_less_one = static_cast<U>((U(1) << s) - 1);
    for (const std::uint64_t b : {(std::uint64_t{1} << s) - 1, (std::uint64_t{1} << s) / 2 + 1, (std::uint64_t{1} << s) / 3 + 1,
                                  std::uint64_t{1}})
      if (b >= 1 && b <= 4095) cases.push_back({U(4096), static_cast<U>(4096 + width_less_one), static_cast<std::uint32_t>(b)});
  }
  for (const std::uint32_t b : {7u, 100u, 2047u})
    for (const std::uint32_t w : {2 * b - 1, 2 * b, 2 * b + 1, 2 * b + 2}) cases.push_back({U(77), static_cast<U>(77 + w - 1), b});
  constexpr int bits = 8 * sizeof(U);
  for (const span_case& c : cases) {
    const core::bucket_interval<U> iv = make_interval<U>(c.lo, c.hi, c.buckets, 0);
    ASSERT_LE(iv.count, c.buckets);
    ASSERT_GE(iv.count, 1u);
    const unsigned __int128 width = static_cast<unsigned __int128>(static_cast<U>(c.hi - c.lo)) + 1;
    if (width > c.buckets)  // the scale's definition, whichever way make_interval computes it
      ASSERT_EQ(iv.scale, static_cast<U>((static_cast<unsigned __int128>(c.buckets) << (bits - 1) << 1) / width))
          << "[" << c.lo << ", " << c.hi << "] in " << c.buckets;
    // Bucket ranges tile [lo, hi] in order, none empty.
    U expect = c.lo;
    for (std::uint32_t j = 0; j < iv.count; ++j) {
      const U first = bucket_first_key(iv, j), last = bucket_last_key(iv, j);
      ASSERT_EQ(bucket_is_one_key(iv, j), first == last) << "bucket " << j << " of [" << c.lo << ", " << c.hi << "]";
      ASSERT_EQ(first, expect) << "bucket " << j;
      ASSERT_LE(first, last) << "bucket " << j;
      ASSERT_EQ(core::bucket_offset(iv, first), j);
      ASSERT_EQ(core::bucket_offset(iv, last), j);
      if (j + 1 < iv.count) expect = static_cast<U>(last + 1);
      else ASSERT_EQ(last, c.hi);
    }
    for (int r = 0; r < 2000; ++r) {
      const U key = static_cast<U>(c.lo + static_cast<U>(rng() % (static_cast<unsigned __int128>(c.hi - c.lo) + 1)));
      const std::uint32_t j = core::bucket_offset(iv, key);
      ASSERT_LT(j, iv.count);
      ASSERT_LE(bucket_first_key(iv, j), key);
      ASSERT_GE(bucket_last_key(iv, j), key);
    }
  }
}

TYPED_TEST(DibmsPlan, PivotTableCoversEveryKeyAndFollowsTheSample) {
  using U = TypeParam;
  std::mt19937_64 rng(11);
  for (const int distinct : {1, 2, 16, 1 << 20}) {
    std::vector<U> sample(1024);
    for (U& s : sample) s = static_cast<U>(1000 + (rng() % static_cast<std::uint64_t>(distinct)) * 37);
    std::sort(sample.begin(), sample.end());
    const round_table<U> t = first_round_pivot_table<U>(sample, 16, 8192);
    expect_table_tiles_key_space(t);
    EXPECT_LE(t.buckets, 8192u + 2 * t.intervals.size());
    for (int r = 0; r < 1000; ++r) ASSERT_GE(bucket_of(t, static_cast<U>(rng())), 0);
    if (distinct <= 16) EXPECT_TRUE(sample_has_repeats<U>(sample));
    // With at most 2 values, each is a pivot: it starts an interval and is alone in
    // that interval's first bucket (with 16, a quantile pivot may skip a rarer value).
    if (distinct <= 2) {
      for (const U s : sample) {
        const long long b = bucket_of(t, s);
        const auto& iv = *std::find_if(t.intervals.begin(), t.intervals.end(),
                                       [&](const auto& x) { return x.lo <= s && s <= x.hi; });
        EXPECT_EQ(iv.lo, s);
        EXPECT_EQ(b, static_cast<long long>(iv.first));
      }
    }
  }
}

// A sample that repeats no key gets a table of radix slots (core::radix_slots): it
// tiles the key space, its slot image is valid, and the image's one-multiply bucket
// (core::radix_slot_bucket, what the GPU pass computes) is the intervals' bucket for
// every key tried: random keys, every slot's first and last key, the tails' ends;
// with samples spread over the key range, packed near 0, near the top, in a span
// narrower than the slots, and of one key. The buckets follow the sample: no bucket
// holds more than 1/16 of it (keys packed at one end of wide slots take a dense slot).
TYPED_TEST(DibmsPlan, FirstTableOfDistinctSampleIsRadixSlotsWithTheSameBuckets) {
  using U = TypeParam;
  const U max = static_cast<U>(~U(0));
  std::mt19937_64 rng(29);
  for (int shape = 0; shape < 6; ++shape) {
    for (const std::uint32_t buckets : {8192u, 512u, 16u}) {
      std::vector<U> sample;
      const int size = shape == 5 ? 1 : 1024;
      while (static_cast<int>(sample.size()) < size) {
        U k = 0;
        switch (shape) {
          case 0: k = static_cast<U>(rng()); break;                                  // spread
          case 1: k = static_cast<U>(rng() % 100000); break;                         // near 0
          case 2: k = static_cast<U>(max - rng() % 100000); break;                   // near the top
          case 3: k = static_cast<U>(123456 + rng() % 3000); break;                  // narrow
          case 4: k = static_cast<U>(std::ldexp(1.0, static_cast<int>(rng() % 30)) + rng() % 1000); break;  // skewed
          default: k = static_cast<U>(4242); break;
        }
        sample.push_back(k);
        std::sort(sample.begin(), sample.end());
        sample.erase(std::unique(sample.begin(), sample.end()), sample.end());
      }
      const round_table<U> t = first_round_table<U>(sample, 16, buckets);
      // Keys packed at the low end of wide slots (shape 4, integers over 30 orders of
      // two) crowd a slot: a dense slot spreads them, or the pivot table is kept.
      if (shape == 4 && t.slots.slots == 0) continue;
      ASSERT_GT(t.slots.slots, 0u) << "shape " << shape << ", " << buckets << " buckets";
      ASSERT_LE(t.buckets, buckets);
      expect_table_tiles_key_space(t);
      const radix_slot_image<U> image = make_radix_slot_image(t);
      ASSERT_EQ(image.slots, t.slots.slots) << "the table's slots describe its intervals";
      const auto check = [&](U key) {
        const std::uint32_t b = core::radix_slot_bucket(image.map(), key);
        ASSERT_EQ(static_cast<long long>(b), bucket_of(t, key)) << "key " << key << ", shape " << shape;
      };
      for (const auto& iv : t.intervals) {
        check(iv.lo);
        check(iv.hi);
        check(static_cast<U>(iv.lo + (iv.hi - iv.lo) / 2));
      }
      for (int r = 0; r < 3000; ++r) check(static_cast<U>(rng()));
      for (const U s : sample) check(s);
      // The sample's keys spread over the buckets: none holds more than 1/16 of them
      // (a bucket's fair share is 1/buckets; 16 buckets: the tails and few slots).
      if (buckets >= 512 && sample.size() > 1) {
        std::vector<int> held(t.buckets, 0);
        for (const U s : sample) ++held[static_cast<std::size_t>(bucket_of(t, s))];
        EXPECT_LE(*std::max_element(held.begin(), held.end()), static_cast<int>(sample.size()) / 16) << "shape " << shape;
      }
    }
  }
}

// heavy_keys_share_a_slot() says a slot table will be refused only where it is: for
// samples of a few values repeated many times (spaced from a few keys to a large part of
// the key range) and those values amid spread keys, whenever it is true the table built
// at that width does not spread the sample (slot_table_spreads_sample). It is true for
// some of them (the skipped builds are real).
TYPED_TEST(DibmsPlan, HeavyKeysSharingASlotMeanTheSlotTableIsRefused) {
  using U = TypeParam;
  std::mt19937_64 rng(53);
  int said = 0;
  for (int trial = 0; trial < 120; ++trial) {
    const int values = 2 + static_cast<int>(rng() % 30);
    const U step = static_cast<U>(U(1) << (rng() % (8 * sizeof(U) - 6)));
    const U first = static_cast<U>(rng() % (U(1) << (8 * sizeof(U) - 5)));
    std::vector<U> sample;
    for (int i = 0; i < 1024; ++i) {
      const bool spread = trial % 3 == 0 && rng() % 4 == 0;
      sample.push_back(spread ? static_cast<U>(rng()) : static_cast<U>(first + static_cast<U>(rng() % values) * step));
    }
    std::sort(sample.begin(), sample.end());
    for (const std::uint32_t buckets : {8192u, 2048u}) {
      const std::size_t limit = crowded_bucket_keys(sample.size(), buckets);
      for (const int slots : {512, 1024, 2048, 4096}) {
        if (!heavy_keys_share_a_slot<U>(sample, slot_layout_of<U>(sample, slots), limit)) continue;
        ++said;
        const round_table<U> t = first_round_slot_table<U>(sample, buckets, slots);
        const radix_slot_image<U> image = make_radix_slot_image(t);
        EXPECT_FALSE(slot_table_spreads_sample<U>(t, image, sample))
            << "trial " << trial << ", " << values << " values " << step << " apart, " << slots << " slots";
      }
    }
  }
  EXPECT_GT(said, 10);
}

// A dense record's packed fields come back as they went in, at their limits too.
TYPED_TEST(DibmsPlan, DenseRecordKeepsItsFields) {
  using U = TypeParam;
  const std::uint32_t max_bucket = (1u << core::radix_slot_first_bits) - 1;
  for (const std::uint32_t below : {0u, 1u, 77777u, max_bucket})
    for (const std::uint32_t above : {0u, 5u, max_bucket})
      for (const std::uint32_t first_word : {0u, 256u, core::radix_dense_max_first_word})
        for (const int shift : {1, 17, 8 * static_cast<int>(sizeof(U)) - 1}) {
          const auto r = core::make_radix_dense_record<U>(U(12), static_cast<U>(~U(0)), below, above, first_word, shift);
          EXPECT_EQ(r.sub_base, U(12));
          EXPECT_EQ(r.sub_last, static_cast<U>(~U(0)));
          EXPECT_EQ(r.below(), below);
          EXPECT_EQ(r.above(), above);
          EXPECT_EQ(r.first_word(), first_word);
          EXPECT_EQ(r.shift(), shift);
        }
}

// A sample that repeats keys (few distinct values, tight clusters, all equal, the ends
// of the key range) gets dense slots: the table is still radix slots whose image
// matches its intervals for every key tried, and every repeated sample key lies in a
// bucket of its own key value alone (its ranks are answered after one round).
TYPED_TEST(DibmsPlan, FirstTableGivesRepeatedSampleKeysBucketsOfOneValue) {
  using U = TypeParam;
  std::mt19937_64 rng(31);
  int with_dense = 0;  // shapes whose table has dense slots
  for (int shape = 0; shape < 6; ++shape) {
    const std::vector<U> sample = repeating_sample<U>(shape, rng);
    const round_table<U> t = first_round_table<U>(sample, 16, 8192);
    // A heavy key amid keys spread over its slot would leave them one bucket below it
    // and one above: that sample keeps the pivot table (PivotTableGivesRepeated...).
    if (shape == 4 && t.slots.slots == 0) continue;
    ASSERT_GT(t.slots.slots, 0u) << "shape " << shape;
    expect_table_tiles_key_space(t);
    const radix_slot_image<U> image = make_radix_slot_image(t);
    ASSERT_EQ(image.slots, t.slots.slots) << "shape " << shape;
    // The GPU passes' branch-free form (radix_bucket_of_word_by_selects, for maps with
    // dense slots) as well.
    const core::radix_slot_map<U> map = image.map();
    if (!image.dense.empty()) ++with_dense;
    const auto check = [&](U key) {
      ASSERT_EQ(static_cast<long long>(core::radix_slot_bucket(map, key)), bucket_of(t, key))
          << "key " << key << ", shape " << shape;
      if (image.dense.empty()) return;
      U top;
      const core::radix_slot_entry e = map.entries[core::radix_entry_index(map, key, top)];
      ASSERT_EQ(static_cast<long long>(core::radix_bucket_of_entry_by_selects(map, e, top, key)), bucket_of(t, key))
          << "key " << key << ", shape " << shape;
    };
    for (const auto& iv : t.intervals) {
      check(iv.lo);
      check(iv.hi);
    }
    for (int r = 0; r < 3000; ++r) check(static_cast<U>(rng()));
    for (std::size_t i = 0; i < sample.size(); ++i) {
      const U v = sample[i];
      check(v);
      const bool repeated = (i > 0 && sample[i - 1] == v) || (i + 1 < sample.size() && sample[i + 1] == v);
      if (!repeated) continue;
      const long long b = bucket_of(t, v);
      const auto& iv = *std::find_if(t.intervals.begin(), t.intervals.end(),
                                     [&](const auto& x) { return x.lo <= v && v <= x.hi; });
      const auto j = static_cast<std::uint32_t>(b - iv.first);
      EXPECT_EQ(bucket_first_key(iv, j), v) << "shape " << shape << ": a repeated key's bucket is that key alone";
      EXPECT_EQ(bucket_last_key(iv, j), v) << "shape " << shape;
    }
  }
  EXPECT_GT(with_dense, 0) << "no shape exercised the dense slots";
}

// The pivot table's heavy keys: every value the sample repeats is an interval of its own, one bucket
// wide (so its ranks are answered after one round); values it holds once are not; the
// table still tiles the key space, also with repeated values at 0 and at the top.
TYPED_TEST(DibmsPlan, PivotTableGivesRepeatedSampleKeysTheirOwnInterval) {
  using U = TypeParam;
  std::mt19937_64 rng(5);
  for (const int shape : {0, 4, 5, 6}) {
    const std::vector<U> sample = repeating_sample<U>(shape, rng);
    const round_table<U> t = first_round_pivot_table<U>(sample, 16, 8192);
    expect_table_tiles_key_space(t);
    for (std::size_t i = 0; i < sample.size(); ++i) {
      const U v = sample[i];
      const bool repeated = (i > 0 && sample[i - 1] == v) || (i + 1 < sample.size() && sample[i + 1] == v);
      const auto& iv = *std::find_if(t.intervals.begin(), t.intervals.end(),
                                     [&](const auto& x) { return x.lo <= v && v <= x.hi; });
      if (repeated) {
        EXPECT_EQ(iv.lo, v);
        EXPECT_EQ(iv.hi, v);
        EXPECT_EQ(iv.count, 1u);
      } else {
        EXPECT_LT(iv.lo, iv.hi) << "a key the sample holds once has no interval of its own";
      }
    }
  }
}

// plan_next_round on the counts of an explicit key multiset: the ranks answered must
// be the sorted keys' values, the next table must hold exactly the pending ranks' keys.
TYPED_TEST(DibmsPlan, NextRoundAnswersExactlyAndKeepsTheRightKeys) {
  using U = TypeParam;
  std::mt19937_64 rng(3);
  for (const int shape : {0, 1, 2, 3}) {
    std::vector<U> keys(20000);
    for (U& k : keys) {
      switch (shape) {
        case 0: k = static_cast<U>(rng()); break;               // spread over the key space
        case 1: k = static_cast<U>(5000 + rng() % 16); break;   // 16 values
        case 2: k = static_cast<U>(777); break;                 // all equal
        default: k = static_cast<U>(rng() % 3 == 0 ? 1 : 1000 + rng() % 100000); break;  // heavy ties
      }
    }
    std::vector<U> sorted = keys;
    std::sort(sorted.begin(), sorted.end());
    std::vector<U> sample;
    for (int i = 0; i < 1024; ++i) sample.push_back(keys[rng() % keys.size()]);
    std::sort(sample.begin(), sample.end());
    round_table<U> table = first_round_table<U>(sample, 16, 512);
    const std::vector<std::int64_t> ranks = {0, 1, 2, 5000, 9999, 10000, 19998, 19999};
    std::vector<rank_target> pending;
    for (std::size_t i = 0; i < ranks.size(); ++i) pending.push_back({ranks[i], i});
    std::vector<U> answers(ranks.size(), U(0));
    std::vector<bool> answered(ranks.size(), false);
    std::vector<U> current = keys;
    for (int round = 0; round < 80 && !pending.empty(); ++round) {
      std::vector<std::uint64_t> counts(table.buckets, 0);
      std::vector<U> imin(table.intervals.size(), static_cast<U>(~U(0))), imax(table.intervals.size(), U(0));
      for (const U k : current) {
        const long long b = bucket_of(table, k);
        if (b < 0) continue;
        ++counts[static_cast<std::size_t>(b)];
        const int i = core::find_interval(table.lo_keys.data(), table.intervals.data(),
                                          static_cast<int>(table.intervals.size()), k);
        imin[static_cast<std::size_t>(i)] = std::min(imin[static_cast<std::size_t>(i)], k);
        imax[static_cast<std::size_t>(i)] = std::max(imax[static_cast<std::size_t>(i)], k);
      }
      std::vector<U> before = answers;
      const bool minmax = round > 0;
      round_outcome<U> out = plan_next_round<U>(table, counts, counts, minmax, imin, imax, pending, 512, answers);
      for (std::size_t s = 0; s < ranks.size(); ++s) {
        const bool still = std::any_of(out.pending.begin(), out.pending.end(), [&](const rank_target& t) { return t.slot == s; });
        if (!still && !answered[s]) {
          answered[s] = true;
          ASSERT_EQ(answers[s], sorted[static_cast<std::size_t>(ranks[s])]) << "shape " << shape << " rank " << ranks[s];
        }
      }
      if (out.pending.empty()) break;
      // The next table's keys: those inside its intervals; count must match.
      std::vector<U> next;
      for (const U k : current)
        if (bucket_of(out.next, k) >= 0) next.push_back(k);
      ASSERT_EQ(static_cast<std::int64_t>(next.size()), out.next_keys);
      ASSERT_EQ(out.local_next_keys, out.next_keys);
      std::sort(next.begin(), next.end());
      for (const rank_target& t : out.pending)
        ASSERT_EQ(next[static_cast<std::size_t>(t.position)], sorted[static_cast<std::size_t>(ranks[t.slot])]);
      current = next;
      table = out.next;
      pending = out.pending;
    }
    EXPECT_TRUE(pending.empty() || std::all_of(answered.begin(), answered.end(), [](bool b) { return b; }))
        << "shape " << shape << " did not finish";
    for (std::size_t s = 0; s < ranks.size(); ++s) EXPECT_TRUE(answered[s]) << "shape " << shape << " rank " << ranks[s];
  }
}

}  // namespace
}  // namespace kselect::distributed
