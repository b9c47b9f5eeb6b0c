// core/approx.hpp and core/approx_lookup.hpp: argument checks, the pre-key inverse,
// splitter boundaries, the counting pass's two-level classifier (against a plain
// count of boundaries for many splitter sets and probe keys), the nearest-splitter
// choice and the fallback bookkeeping.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "common/generate.hpp"
#include "common/probe_values.hpp"
#include "common/rng.hpp"
#include "core/approx.hpp"
#include "core/approx_lookup.hpp"
#include "core/key_traits.hpp"
#include "core/ranks.hpp"
#include "core/sampling.hpp"

namespace kselect {
namespace {

using test::dist;

template <class T>
core::key_t<T> bits_of(T x) {
  core::key_t<T> u;
  std::memcpy(&u, &x, sizeof u);
  return u;
}

template <class T>
std::vector<T> probe_values() {
  return test::probe_values<T>(300, 17);
}

template <class T>
class ApproxPlan : public ::testing::Test {};
using KeyTypes = ::testing::Types<float, double, std::int32_t, std::uint32_t, std::int64_t, std::uint64_t>;
TYPED_TEST_SUITE(ApproxPlan, KeyTypes);

TEST(ApproxPlanArguments, Messages) {
  EXPECT_EQ(core::approx_argument_error(10, 1, 0, 2), "");
  EXPECT_EQ(core::approx_argument_error(10, 0, 5, 4096), "");
  EXPECT_NE(core::approx_argument_error(0, 1, 0, 1024).find("empty input"), std::string::npos);
  EXPECT_NE(core::approx_argument_error(std::int64_t(1) << 40, 1, 0, 1024).find("exceeds 2^40"), std::string::npos);
  EXPECT_NE(core::approx_argument_error(10, -1, 0, 1024).find("num_ranks is negative"), std::string::npos);
  EXPECT_NE(core::approx_argument_error(10, 1, -3, 1024).find("max_rank_error is negative (-3)"), std::string::npos);
  for (int b : {-5, 0, 1, 4097, 1 << 20}) {
    const std::string msg = core::approx_argument_error(10, 1, 0, b);
    EXPECT_NE(msg.find("buckets = " + std::to_string(b) + " is outside [2, 4096]"), std::string::npos) << msg;
  }
}

TEST(ApproxPlanArguments, SortedRanks) {
  const std::int64_t good[] = {0, 3, 9};
  EXPECT_EQ(core::sorted_ranks_error(good, 3, 10), "");
  const std::int64_t out[] = {0, 10};
  EXPECT_NE(core::sorted_ranks_error(out, 2, 10).find("rank 10 (ranks[1]) is outside [0, 10)"), std::string::npos);
  const std::int64_t negative[] = {-1};
  EXPECT_NE(core::sorted_ranks_error(negative, 1, 10).find("outside"), std::string::npos);
  const std::int64_t unsorted[] = {5, 3};
  EXPECT_NE(core::sorted_ranks_error(unsorted, 2, 10).find("sorted ascending"), std::string::npos);
  const std::int64_t repeated[] = {3, 3};
  EXPECT_NE(core::sorted_ranks_error(repeated, 2, 10).find("without duplicates"), std::string::npos);
}

// The sample is sorted as pre-keys and read back as values: bit for bit.
TYPED_TEST(ApproxPlan, PreKeyInverseKeepsEveryBit) {
  using T = TypeParam;
  using K = core::key_t<T>;
  using kt = core::key_traits<T>;
  for (T x : probe_values<T>()) ASSERT_EQ(bits_of(core::value_of_pre_key<T>(kt::pre_key(x))), bits_of(x)) << x;
  for (std::uint64_t i = 0; i < 100000; ++i) {
    const auto p = static_cast<K>(test::random_word(5, i));
    ASSERT_EQ(kt::pre_key(core::value_of_pre_key<T>(p)), p);
  }
  for (K p : {K(0), K(1), static_cast<K>(~K(0)), static_cast<K>(~K(0) - 1)})
    ASSERT_EQ(kt::pre_key(core::value_of_pre_key<T>(p)), p);
}

// A splitter's boundaries bracket exactly the pre-keys of the values equal to it.
TYPED_TEST(ApproxPlan, SplitterBoundsBracketEqualValues) {
  using T = TypeParam;
  using kt = core::key_traits<T>;
  const std::vector<T> values = probe_values<T>();
  for (T s : values) {
    const auto key = kt::to_key(s);
    const core::splitter_bounds<T> b = core::approx_splitter_bounds<T>(key);
    for (T x : values) {
      const auto p = kt::pre_key(x);
      const bool inside = p >= b.first && (!b.has_end || p < b.end);
      ASSERT_EQ(inside, kt::to_key(x) == key) << "s = " << s << ", x = " << x;
      ASSERT_EQ(p < b.first, kt::to_key(x) < key);
    }
  }
  if constexpr (std::is_floating_point_v<T>) {
    const auto zero = core::approx_splitter_bounds<T>(kt::to_key(T(0)));
    EXPECT_EQ(zero.first, kt::pre_key(-T(0)));
    EXPECT_EQ(zero.end, kt::pre_key(T(0)) + 1);
    EXPECT_FALSE(core::approx_splitter_bounds<T>(kt::to_key(std::numeric_limits<T>::quiet_NaN())).has_end);
  } else {
    EXPECT_FALSE(core::approx_splitter_bounds<T>(kt::to_key(std::numeric_limits<T>::max())).has_end);
    EXPECT_TRUE(core::approx_splitter_bounds<T>(kt::to_key(T(7))).has_end);
  }
}

// Sorted boundaries of up to `m` splitters drawn from `values` (distinct keys,
// evenly spread over the sorted distinct keys), the way the backends lay them out.
template <class T>
std::vector<core::key_t<T>> boundaries_of(std::vector<T> values, int m) {
  using K = core::key_t<T>;
  std::vector<K> keys;
  for (T x : values) keys.push_back(core::key_traits<T>::to_key(x));
  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  std::vector<K> chosen;
  for (int j = 0; j < m; ++j) {
    const K k = keys[static_cast<std::size_t>(core::approx_candidate_index(j, m + 1, static_cast<std::int64_t>(keys.size())) %
                                              static_cast<std::int64_t>(keys.size()))];
    if (chosen.empty() || chosen.back() != k) chosen.push_back(k);
  }
  std::vector<K> b;
  for (K k : chosen) {
    const auto sb = core::approx_splitter_bounds<T>(k);
    b.push_back(sb.first);
    if (sb.has_end) b.push_back(sb.end);
  }
  return b;
}

// The table's bucket equals the number of boundaries <= the pre-key.
template <class T, class K = core::key_t<T>>
void expect_classifies(const std::vector<K>& boundaries, int budget, const std::vector<K>& probes) {
  const core::approx_lookup_table<K> t =
      core::build_approx_lookup<K>(boundaries, budget);
  ASSERT_LE(t.params.fine_used, static_cast<std::uint32_t>(budget));
  ASSERT_EQ(t.fine.size(), t.params.fine_used);
  ASSERT_EQ(t.params.num_boundaries, boundaries.size());
  ASSERT_LT(t.params.coarse_shift, sizeof(K) * 8);
  ASSERT_LE(t.params.coarse_used, core::approx_max_coarse<K>);
  auto check = [&](K p) {
    const auto want =
        static_cast<std::uint32_t>(std::upper_bound(boundaries.begin(), boundaries.end(), p) - boundaries.begin());
    const K d = core::approx_offset(t.params, p);
    const std::uint32_t f = core::approx_fine_index(t.params.coarse[core::approx_coarse_of(t.params, d)], d);
    ASSERT_LT(f, t.params.fine_used) << "pre-key " << +p;
    ASSERT_EQ(core::approx_classifier_of<K>(t.params, t.fine.data(), boundaries.data()).bucket(p), want)
        << "pre-key " << +p << ", " << boundaries.size() << " boundaries, budget " << budget;
  };
  for (K b : boundaries)
    for (K delta : {K(0), K(1), K(2), K(3)}) {
      check(static_cast<K>(b - delta));
      check(static_cast<K>(b + delta));
    }
  for (K p : probes) check(p);
  for (K p : {K(0), K(1), static_cast<K>(~K(0)), static_cast<K>(~K(0) - 1)}) check(p);
  for (std::uint64_t i = 0; i < 2000; ++i) check(static_cast<K>(test::random_word(99, i)));
  // Keys just around the table's own range and coarse slot edges.
  for (std::uint32_t c = 0; c <= t.params.coarse_used; ++c) {
    const K at = static_cast<K>(t.params.lo + (static_cast<K>(c) << t.params.coarse_shift));
    for (K delta : {K(0), K(1)}) {
      check(static_cast<K>(at - delta));
      check(static_cast<K>(at + delta));
    }
  }
}

TYPED_TEST(ApproxPlan, LookupCountsBoundariesBelowEveryKey) {
  using T = TypeParam;
  using K = core::key_t<T>;
  std::vector<K> probes;
  for (T x : probe_values<T>()) probes.push_back(core::key_traits<T>::pre_key(x));
  for (dist d : test::all_dists()) {
    const std::vector<T> values = test::generate<T>(d, 20000, 3 + static_cast<int>(d));
    std::vector<K> with_data = probes;
    for (std::size_t i = 0; i < values.size(); i += 7) with_data.push_back(core::key_traits<T>::pre_key(values[i]));
    for (int m : {1, 2, 3, 127, 1023, 4095}) {
      const std::vector<K> b = boundaries_of(values, m);
      // The budget the backends use, the largest, and the least the builder takes.
      const int tight = 2 * static_cast<int>(b.size()) + 3;
      for (int budget : {core::approx_fine_budget(m + 1), core::approx_max_fine_slots, tight}) {
        SCOPED_TRACE(testing::Message() << test::name(d) << ", m = " << m << ", budget " << budget);
        expect_classifies<T>(b, budget, with_data);
      }
    }
  }
}

TYPED_TEST(ApproxPlan, LookupEdgeCases) {
  using T = TypeParam;
  using K = core::key_t<T>;
  constexpr K max = static_cast<K>(~K(0));
  std::vector<K> probes;
  for (T x : probe_values<T>()) probes.push_back(core::key_traits<T>::pre_key(x));
  // Splitters at the ends of the pre-key range; one splitter; adjacent singleton
  // keys (boundaries that coincide); a dense run of consecutive keys; far apart.
  const std::vector<std::vector<K>> sets = {
      {K(0), K(1)},
      {max},
      {K(0), K(1), static_cast<K>(max - 1), max},
      {K(5), K(6), K(6), K(7), K(7), K(8)},
      {K(100), K(101)},
      {K(0), K(2), static_cast<K>(max / 2), static_cast<K>(max / 2 + 1), static_cast<K>(max - 3)},
  };
  for (const auto& b : sets) expect_classifies<T>(b, 1024, probes);
  // 4095 consecutive singleton keys: 8190 boundaries, each key's end the next one's first.
  std::vector<K> dense_pairs;
  for (K k = 1000; k < 1000 + 4095; ++k) dense_pairs.push_back(k), dense_pairs.push_back(static_cast<K>(k + 1));
  expect_classifies<T>(dense_pairs, core::approx_max_fine_slots, probes);
  expect_classifies<T>(dense_pairs, 2 * static_cast<int>(dense_pairs.size()) + 3, probes);
}

// Random boundary sets: sizes 1 to the most, spreads from a few pre-keys to the
// whole key space, placed anywhere (both modes, lo near 0 and near the top).
TYPED_TEST(ApproxPlan, LookupRandomBoundarySets) {
  using T = TypeParam;
  using K = core::key_t<T>;
  constexpr int bits = static_cast<int>(sizeof(K) * 8);
  std::uint64_t draw = 0;
  auto next = [&] { return test::random_word(2024, draw++); };
  for (int trial = 0; trial < 300; ++trial) {
    const int nb = 1 + static_cast<int>(next() % core::approx_max_boundaries);
    const int spread_bits = 4 + static_cast<int>(next() % static_cast<std::uint64_t>(bits - 3));
    const K spread = spread_bits >= bits ? static_cast<K>(~K(0)) : static_cast<K>((K(1) << spread_bits) - 1);
    const K origin = static_cast<K>(next());
    std::vector<K> b(static_cast<std::size_t>(nb));
    for (K& x : b) x = static_cast<K>(origin + static_cast<K>(next() & spread));
    std::sort(b.begin(), b.end());
    std::vector<K> probes;
    for (int i = 0; i < 200; ++i) probes.push_back(static_cast<K>(origin + static_cast<K>(next() & spread)));
    SCOPED_TRACE(testing::Message() << "trial " << trial << ", " << nb << " boundaries, spread 2^" << spread_bits);
    expect_classifies<T>(b, trial % 2 ? core::approx_max_fine_slots : 2 * nb + 3, probes);
    if (::testing::Test::HasFatalFailure()) return;
  }
}

// The design point: for smooth float data few keys need the search (most are
// decided by the fine word alone), and the budget is used. Splitters as the
// backends draw them (a sorted sample, evenly spread candidates). Uniform floats
// put half their splitters in the top binade, which slots linear over the
// whole key range would crowd; normal floats spread over many binades.
TEST(ApproxPlanLookup, FewKeysSearchedOnSmoothFloats) {
  using K = std::uint32_t;
  using kt = core::key_traits<float>;
  for (dist d : {dist::uniform, dist::normal}) {
    const std::vector<float> values = test::generate<float>(d, 1 << 20, 11);
    constexpr int s = core::approx_sample_size;
    std::vector<K> sample(s);
    for (int j = 0; j < s; ++j)
      sample[static_cast<std::size_t>(j)] = kt::pre_key(values[static_cast<std::size_t>(core::sample_position(j, s, 1 << 20, 5))]);
    std::sort(sample.begin(), sample.end());
    for (int buckets : {128, 1024, 4096}) {
      std::vector<K> b;
      K previous = 0;
      for (int j = 0; j + 1 < buckets; ++j) {
        const K key = kt::to_key(core::value_of_pre_key<float>(sample[static_cast<std::size_t>(core::approx_candidate_index(j, buckets, s))]));
        if (core::approx_keeps_candidate(j, key, previous)) {
          const auto sb = core::approx_splitter_bounds<float>(key);
          b.push_back(sb.first);
          if (sb.has_end) b.push_back(sb.end);
        }
        previous = key;
      }
      const int budget = core::approx_fine_budget(buckets);
      const auto t = core::build_approx_lookup<K>(b, budget);
      std::size_t searched = 0;
      for (float x : values) {
        const K off = core::approx_offset(t.params, kt::pre_key(x));
        searched += (t.fine[core::approx_fine_index(t.params.coarse[core::approx_coarse_of(t.params, off)], off)] &
                     core::approx_search_bit) != 0;
      }
      // Measured when this test was written: at most 0.46% of the keys for 128
      // and 1024 buckets; 0.5% (uniform) and 2.4% (normal) for 4096 (splitters
      // one sample key in four: fine slots with two splitters are common, more
      // so where the density varies within a binade).
      const double limit = buckets == 4096 ? 0.05 : 0.01;
      EXPECT_LT(static_cast<double>(searched), limit * static_cast<double>(values.size()))
          << test::name(d) << " buckets " << buckets << ": " << searched << " searched";
      EXPECT_GE(t.params.fine_used, static_cast<std::uint32_t>(budget / 4)) << test::name(d) << " buckets " << buckets;
    }
  }
}

// Wide spans use wrap mode (no clamp: the pre-keys below lo wrap into slots of
// their own), narrow ones clamp mode; both classify every key (tests above).
TEST(ApproxPlanLookup, ModeFollowsTheSpan) {
  using K = std::uint32_t;
  using kt = core::key_traits<float>;
  const auto table_of = [](std::vector<float> values) {
    std::vector<K> b;
    for (float x : values) {
      const auto sb = core::approx_splitter_bounds<float>(kt::to_key(x));
      b.push_back(sb.first);
      b.push_back(sb.end);
    }
    return core::build_approx_lookup<K>(b, 1024);
  };
  // 2^-12 .. 1: 13 binades, wrap mode, one coarse slot per binade, lo aligned.
  const auto wide = table_of({0x1p-12f, 0.25f, 0.5f, 0.75f});
  EXPECT_EQ(wide.params.wrap, 1u);
  EXPECT_EQ(wide.params.coarse_shift, 23u);
  EXPECT_EQ(wide.params.coarse_used, 512u);
  EXPECT_EQ(wide.params.lo % (1u << 23), 0u);
  EXPECT_LT(wide.params.forward, 512u);
  // [1, 1 + 2^-10]: clamp mode, 32 slots over the span.
  const auto narrow = table_of({1.0f, 1.0f + 0x1p-12f, 1.0f + 0x1p-10f});
  EXPECT_EQ(narrow.params.wrap, 0u);
  EXPECT_LE(narrow.params.coarse_used, 32u);
  EXPECT_EQ(narrow.params.forward, narrow.params.coarse_used);
}

// The fine word's inline decode, key by key around the boundaries of one slot
// (2^15 wide, at offset 0x18000 of a table whose lo is 0x10).
TEST(ApproxPlanLookup, FineWords) {
  using K = std::uint32_t;
  constexpr K lo = 0x10, slot = 0x18000, o = 0x1234;
  auto decode = [](std::uint32_t w, K d) {
    core::approx_lookup<K> t{};
    t.lo = lo;
    t.hi = ~K(0);
    t.coarse_shift = 31;  // one coarse slot for these offsets, fine shift 15
    t.coarse[0] = core::approx_coarse_word(0, 15, 0, 31);
    const std::uint32_t fine[4] = {w, w, w, w};  // whichever of them d's slot is
    return core::approx_classifier_of<K>(t, fine, nullptr).bucket<true>(static_cast<K>(lo + d));
  };
  const std::uint32_t none = core::approx_fine_word<K>(7, 0, 0, 0, 15, lo);
  const std::uint32_t one = core::approx_fine_word<K>(7, 1, lo + slot + o, 0, 15, lo);
  const std::uint32_t pair = core::approx_fine_word<K>(7, 2, lo + slot + o, lo + slot + o + 1, 15, lo);
  for (K f : {K(0), K(1), o - 1, o, o + 1, o + 2, K(0x7fff)}) {
    EXPECT_EQ(decode(none, slot + f), 7u) << f;
    EXPECT_EQ(decode(one, slot + f), f >= o ? 8u : 7u) << f;
    EXPECT_EQ(decode(pair, slot + f), f > o ? 9u : f == o ? 8u : 7u) << f;
  }
  // Two boundaries that are not one key's, a slot wider than 2^15: searched.
  const std::uint32_t apart = core::approx_fine_word<K>(7, 2, lo + slot + o, lo + slot + o + 9, 15, lo);
  const std::uint32_t wide = core::approx_fine_word<K>(7, 1, lo + slot + o, 0, 16, lo);
  for (std::uint32_t w : {none, one, pair}) EXPECT_EQ(w & core::approx_search_bit, 0u);
  EXPECT_NE(apart & core::approx_search_bit, 0u);
  EXPECT_NE(wide & core::approx_search_bit, 0u);
  EXPECT_EQ(apart >> core::approx_k_shift, 2u);
  EXPECT_EQ(apart & core::approx_base_mask, 7u);
  EXPECT_EQ(core::approx_fine_budget(2), 8192);
  EXPECT_EQ(core::approx_fine_budget(128), 8192);
  EXPECT_EQ(core::approx_fine_budget(513), 16384);
  EXPECT_EQ(core::approx_fine_budget(1000), 16384);
  EXPECT_EQ(core::approx_fine_budget(4096), core::approx_max_fine_slots);
}

TEST(ApproxPlanChoice, NearestSplitter) {
  // Three splitters: s0 at ranks [10, 12), s1 at [20, 21), s2 at [50, 80) of 100 keys.
  const std::vector<std::int64_t> below = {10, 20, 50};
  const std::vector<std::int64_t> equal = {2, 1, 30};
  auto choose = [&](std::int64_t r) {
    return core::nearest_splitter(
        r, 3, [&](std::int64_t j) { return below[static_cast<std::size_t>(j)]; },
        [&](std::int64_t j) { return equal[static_cast<std::size_t>(j)]; });
  };
  struct want_t {
    std::int64_t r, splitter, rank, error;
  };
  const want_t cases[] = {{0, 0, 10, 10},   {9, 0, 10, 1},    {10, 0, 10, 0},  {11, 0, 11, 0},
                          {12, 0, 11, 1},   {15, 0, 11, 4},   {16, 1, 20, 4},
                          {20, 1, 20, 0},   {35, 1, 20, 15},  {36, 2, 50, 14}, {65, 2, 65, 0},
                          {79, 2, 79, 0},   {80, 2, 79, 1},   {99, 2, 79, 20}};
  for (const want_t& w : cases) {
    const core::approx_choice c = choose(w.r);
    EXPECT_EQ(c.splitter, w.splitter) << "r = " << w.r;
    EXPECT_EQ(c.rank, w.rank) << "r = " << w.r;
    EXPECT_EQ(c.error, w.error) << "r = " << w.r;
  }
  // Equal distances go to the lower splitter: r = 15 is 4 from s0's 11 and 5 from 20;
  // r = 16 is 5 from 11 and 4 from 20; r = 35: 15 from 20, 15 from 50 -> s1.
  EXPECT_EQ(choose(35).splitter, 1);
  // All-equal input: one splitter holds every rank exactly.
  for (std::int64_t r : {0, 1, 500, 999}) {
    const auto c = core::nearest_splitter(r, 1, [](std::int64_t) { return std::int64_t(0); },
                                          [](std::int64_t) { return std::int64_t(1000); });
    EXPECT_EQ(c.rank, r);
    EXPECT_EQ(c.error, 0);
    EXPECT_FALSE(core::approx_needs_exact(c, 0));
  }
  // A splitter the count never saw cannot answer.
  const auto none = core::nearest_splitter(5, 1, [](std::int64_t) { return std::int64_t(3); },
                                           [](std::int64_t) { return std::int64_t(0); });
  EXPECT_EQ(none.splitter, -1);
  EXPECT_TRUE(core::approx_needs_exact(none, std::int64_t(1) << 50));
  EXPECT_TRUE(core::approx_needs_exact(choose(0), 9));
  EXPECT_FALSE(core::approx_needs_exact(choose(0), 10));
}

TEST(ApproxPlanChoice, Bookkeeping) {
  // Buckets: 3 keys < s0, 2 == s0, 4 between, 1 == s1, 5 above.
  const std::vector<std::uint64_t> counts = {3, 2, 4, 1, 5};
  EXPECT_EQ(core::approx_keys_below(counts), (std::vector<std::int64_t>{3, 9}));
  const std::vector<std::uint8_t> verdicts = {0, 1, 0, 1};
  const std::vector<std::int64_t> ranks = {2, 5, 8, 13};
  const core::approx_fallback fb = core::collect_fallback(verdicts, ranks);
  EXPECT_EQ(fb.index, (std::vector<std::int64_t>{1, 3}));
  EXPECT_EQ(fb.ranks, (std::vector<std::int64_t>{5, 13}));
  // Ranks 2..7 of 10 keys: the furthest answer is at most 7 away.
  EXPECT_TRUE(core::approx_error_always_within(10, 2, 7, 7));
  EXPECT_FALSE(core::approx_error_always_within(10, 2, 7, 6));
  EXPECT_FALSE(core::approx_error_always_within(10, 1, 5, 7));
  EXPECT_TRUE(core::approx_error_always_within(1, 0, 0, 0));
}

TEST(ApproxPlanChoice, CandidatesAndDistinctSplitters) {
  // Middles of buckets - 1 equal parts: one splitter is the sample's median.
  EXPECT_EQ(core::approx_candidate_index(0, 2, 16384), 8192);
  EXPECT_EQ(core::approx_candidate_index(0, 3, 16384), 4096);
  EXPECT_EQ(core::approx_candidate_index(1, 3, 16384), 12288);
  EXPECT_EQ(core::approx_candidate_index(0, 4096, 16384), 2);
  EXPECT_EQ(core::approx_candidate_index(4094, 4096, 16384), 16381);
  EXPECT_EQ(core::approx_candidate_index(1022, 1024, 16384), 16375);
  for (int b : {2, 3, 128, 1000, 4096})
    for (int j = 0; j + 1 < b; ++j) {
      ASSERT_LT(core::approx_candidate_index(j, b, 16384), 16384);
      if (j > 0) ASSERT_GE(core::approx_candidate_index(j, b, 16384), core::approx_candidate_index(j - 1, b, 16384));
    }
  EXPECT_TRUE(core::approx_keeps_candidate<std::uint32_t>(0, 5, 5));
  EXPECT_FALSE(core::approx_keeps_candidate<std::uint32_t>(1, 5, 5));
  EXPECT_TRUE(core::approx_keeps_candidate<std::uint32_t>(1, 6, 5));
}

}  // namespace
}  // namespace kselect
