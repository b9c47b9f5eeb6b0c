// core/bin_map.hpp and core/bin_reduction.hpp: the pre-pass's bin map is monotone
// and in range for every key type and distribution, spreads sampled keys over
// many bins, and reducing to the selected bins keeps every rank's answer.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "common/generate.hpp"
#include "core/bin_intervals.hpp"
#include "core/bin_map.hpp"
#include "core/bin_reduction.hpp"
#include "core/key_traits.hpp"
#include "core/prepass_speculation.hpp"
#include "core/sampling.hpp"

namespace kselect {
namespace {

using test::dist;

template <class T>
class BinMap : public ::testing::Test {};
using KeyTypes = ::testing::Types<float, double, std::int32_t, std::uint32_t, std::int64_t, std::uint64_t>;
TYPED_TEST_SUITE(BinMap, KeyTypes);

template <class T>
std::vector<core::key_t<T>> sorted_pre_keys(const std::vector<T>& v) {
  std::vector<core::key_t<T>> p;
  for (T x : v) p.push_back(core::key_traits<T>::pre_key(x));
  std::sort(p.begin(), p.end());
  return p;
}

// The map over every pre-key of `values` and the key type's extremes: bins in
// range and non-decreasing, and a bin said to hold one key holds only that key.
template <class T>
::testing::AssertionResult monotone_in_range(const core::bin_map<core::key_t<T>>& map, const std::vector<T>& values) {
  using K = core::key_t<T>;
  using kt = core::key_traits<T>;
  std::vector<K> all = sorted_pre_keys(values);
  all.insert(all.begin(), K(0));
  all.push_back(static_cast<K>(~K(0)));
  std::uint32_t prev = 0;
  for (K p : all) {
    const std::uint32_t b = core::bin_of(map, p);
    if (b >= map.num_bins) return ::testing::AssertionFailure() << "pre-key " << +p << ": bin " << b << " out of range";
    if (b < prev) return ::testing::AssertionFailure() << "pre-key " << +p << ": bin " << b << " below " << prev;
    prev = b;
    if (core::bin_holds_one_key(map, b) &&
        kt::to_key(kt::from_pre_key(p)) != kt::to_key(kt::from_pre_key(core::bin_first_pre_key(map, b))))
      return ::testing::AssertionFailure() << "pre-key " << +p << " in bin " << b << ", said to hold one key";
  }
  return ::testing::AssertionSuccess();
}

// A map's hints give bin_of's bins: at every pre-key of `values`,
// their neighbours, the extremes, every slot's first and last pre-key and every
// dense range's ends.
template <class T>
::testing::AssertionResult hinted_bins_agree(const core::bin_map<core::key_t<T>>& map, const std::vector<T>& values) {
  using K = core::key_t<T>;
  std::vector<K> probes;
  for (K p : sorted_pre_keys(values))
    for (K q : {static_cast<K>(p - 1), p, static_cast<K>(p + 1)}) probes.push_back(q);
  for (K q : {K(0), K(1), static_cast<K>(~K(0)), static_cast<K>(~K(0) - 1), map.low, map.high}) probes.push_back(q);
  for (int s = 0; s <= core::bin_map_slots; ++s) {
    const K start = static_cast<K>(map.low + (static_cast<K>(s) << map.shift));
    for (K q : {static_cast<K>(start - 1), start}) probes.push_back(q);
  }
  for (std::uint32_t j = 0; j < map.num_dense; ++j)
    for (K e : {map.dense_first[j], map.dense_last[j]})
      for (K q : {static_cast<K>(e - 1), e, static_cast<K>(e + 1)}) probes.push_back(q);
  for (K q : probes)
    if (core::bin_of_hinted(map, q) != core::bin_of(map, q))
      return ::testing::AssertionFailure() << "pre-key " << +q << ": hinted bin " << core::bin_of_hinted(map, q)
                                           << ", searched " << core::bin_of(map, q);
  return ::testing::AssertionSuccess();
}

// For every distribution: a map built from a 4096-key sample is monotone over all
// keys, stays in range, and a reduction to the bins holding ranks answers each
// rank with the same key as sorting everything.
TYPED_TEST(BinMap, MonotoneInRangeAndReductionKeepsAnswers) {
  using T = TypeParam;
  using K = core::key_t<T>;
  using kt = core::key_traits<T>;
  for (dist d : test::all_dists()) {
    SCOPED_TRACE(test::name(d));
    const std::int64_t n = 200003;
    const std::vector<T> values = test::generate<T>(d, n, 17);
    std::vector<T> sample;
    for (std::int64_t i = 0; i < 4096; ++i) sample.push_back(values[static_cast<std::size_t>(i * n / 4096)]);
    const std::vector<K> sp = sorted_pre_keys(sample);
    const auto map = core::build_bin_map<K>(sp.data(), static_cast<int>(sp.size()), 8191);
    ASSERT_LE(map.num_bins, core::bin_map_max_bins);

    ASSERT_TRUE(monotone_in_range(map, values));

    std::vector<std::uint64_t> hist(map.num_bins, 0);
    for (T x : values) ++hist[core::bin_of(map, kt::pre_key(x))];
    std::vector<std::int64_t> ranks = {0, 1, n / 100, n / 2, n - 2, n - 1};
    for (int i = 1; i < 100; ++i) ranks.push_back(i * n / 100 + 1);
    std::sort(ranks.begin(), ranks.end());
    ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
    const core::bin_reduction red = core::reduce_to_bins(hist, ranks);

    std::vector<K> kept;  // to_key of the selected bins' values, in input order
    for (T x : values) {
      const std::uint32_t b = core::bin_of(map, kt::pre_key(x));
      if (red.selected[b / 32] >> (b % 32) & 1u) kept.push_back(kt::to_key(x));
    }
    ASSERT_EQ(static_cast<std::int64_t>(kept.size()), red.kept);
    std::sort(kept.begin(), kept.end());
    std::vector<K> keys;
    for (T x : values) keys.push_back(kt::to_key(x));
    std::sort(keys.begin(), keys.end());
    for (std::size_t i = 0; i < ranks.size(); ++i)
      ASSERT_EQ(kept.at(static_cast<std::size_t>(red.ranks[i])), keys[static_cast<std::size_t>(ranks[i])])
          << "rank " << ranks[i];
    // Continuous data: the selected bins are a small part of the input, and the
    // sample predicts so; few distinct values: the sample predicts most is kept.
    std::vector<std::uint32_t> sample_bins;
    for (K p : sp) sample_bins.push_back(core::bin_of(map, p));
    const double predicted = core::predict_kept_fraction(sample_bins, ranks, n);
    if (d == dist::uniform || d == dist::normal || d == dist::sorted || d == dist::shared_prefix) {
      EXPECT_LT(red.kept, n / 16) << "kept " << red.kept << " of " << n;
      EXPECT_LT(predicted, 1.0 / 16);
    }
    if (d == dist::all_equal || d == dist::two_values || d == dist::sixteen_values) EXPECT_GT(predicted, 0.5);
  }
}

// Dense ranges (build_bin_map_for_ranks): for every distribution the map stays
// monotone and in range; a bin said to hold one key holds one key, and its first
// pre-key gives the answer of every rank in it; the other ranks keep their answers
// in the reduction; few distinct values and clusters get dense ranges and predict
// a small copy, continuous inputs get none.
TYPED_TEST(BinMap, DenseRangesForRanks) {
  using T = TypeParam;
  using K = core::key_t<T>;
  using kt = core::key_traits<T>;
  for (dist d : test::all_dists()) {
    SCOPED_TRACE(test::name(d));
    const std::int64_t n = 300007;
    const std::vector<T> values = test::generate<T>(d, n, 23);
    std::vector<K> sp;  // as bin_map_kernel draws it: the keys' first pre-keys, sorted
    for (std::int64_t i = 0; i < 4096; ++i)
      sp.push_back(kt::pre_key_first(kt::to_key(values[static_cast<std::size_t>(i * n / 4096 + i % 7)])));
    std::sort(sp.begin(), sp.end());
    std::vector<std::int64_t> ranks = {0, 1, n / 2, n - 2, n - 1};
    for (int i = 1; i < 100; ++i) ranks.push_back(i * (n - 1) / 100);
    std::sort(ranks.begin(), ranks.end());
    ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
    const auto r = static_cast<std::int64_t>(ranks.size());
    const auto map = core::build_bin_map_for_ranks<T>(sp.data(), 4096, 8191, ranks.data(), r, n);
    ASSERT_LE(map.num_bins, core::bin_map_max_bins);
    ASSERT_LE(map.num_dense, std::uint32_t(core::bin_map_max_dense));

    ASSERT_TRUE(monotone_in_range(map, values));
    if (map.hint_steps != 0 && map.num_dense != 0) ASSERT_TRUE(hinted_bins_agree(map, values));

    std::vector<std::uint64_t> hist(map.num_bins, 0);
    for (T x : values) ++hist[core::bin_of(map, kt::pre_key(x))];
    const core::bin_reduction red = core::reduce_to_bins(hist, ranks);
    std::vector<K> keys;
    for (T x : values) keys.push_back(kt::to_key(x));
    std::sort(keys.begin(), keys.end());
    std::vector<K> kept;
    for (T x : values) {
      const std::uint32_t b = core::bin_of(map, kt::pre_key(x));
      if (red.selected[b / 32] >> (b % 32) & 1u) kept.push_back(kt::to_key(x));
    }
    std::sort(kept.begin(), kept.end());
    std::uint64_t below = 0;
    std::size_t bin = 0;
    for (std::size_t i = 0; i < ranks.size(); ++i) {
      while (below + hist[bin] <= static_cast<std::uint64_t>(ranks[i])) below += hist[bin++];
      const auto b = static_cast<std::uint32_t>(bin);
      if (core::bin_holds_one_key(map, b))
        ASSERT_EQ(kt::to_key(kt::from_pre_key(core::bin_first_pre_key(map, b))), keys[static_cast<std::size_t>(ranks[i])])
            << "rank " << ranks[i];
      else
        ASSERT_EQ(kept.at(static_cast<std::size_t>(red.ranks[i])), keys[static_cast<std::size_t>(ranks[i])])
            << "rank " << ranks[i];
    }

    std::vector<std::uint32_t> sample_bins;
    for (K p : sp) sample_bins.push_back(core::bin_of(map, p));
    std::int64_t predicted = 0;
    for (std::int64_t k = 0; k < r; ++k) predicted += core::predicted_sample_keys(map, sample_bins.data(), 4096, ranks.data(), k, n);
    if (d == dist::uniform || d == dist::normal || d == dist::sorted || d == dist::reversed)
      EXPECT_EQ(map.num_dense, 0u) << "continuous input needs no dense range";
    if (d == dist::all_equal || d == dist::two_values || d == dist::sixteen_values || d == dist::clustered) {
      EXPECT_GT(map.num_dense, 0u);
      EXPECT_LE(predicted, 4096 / 16) << "predicted " << predicted << " of 4096 sample keys";
    }
  }
}

// first_pre_key_of_bin inverts a monotone map at every bin boundary, and a run of
// bins becomes the pre-keys between two boundaries (the top run reaches the top
// pre-key): checked on 16 distinct values with dense ranges, by every pre-key
// around each boundary.
TEST(BinIntervals, BoundariesOfRunsOfBins) {
  using K = std::uint32_t;
  std::vector<K> sp;
  for (int i = 0; i < 4096; ++i) sp.push_back(static_cast<K>(1000 + (i % 16) * 37));
  std::sort(sp.begin(), sp.end());
  std::vector<std::int64_t> ranks;
  for (int i = 0; i < 16; ++i) ranks.push_back(i * 1000 + 500);
  const auto map = core::build_bin_map_for_ranks<std::uint32_t>(sp.data(), 4096, 8191, ranks.data(), 16, 16000);
  ASSERT_GT(map.num_dense, 0u);
  for (std::uint32_t b = 1; b < map.num_bins; ++b) {
    K first = 0;
    if (!core::first_pre_key_of_bin(map, b, first)) {
      EXPECT_LT(core::bin_of(map, static_cast<K>(~K(0))), b);
      continue;
    }
    EXPECT_GE(core::bin_of(map, first), b);
    EXPECT_LT(core::bin_of(map, static_cast<K>(first - 1)), b) << "bin " << b;
  }
  std::vector<std::uint32_t> selected(core::bin_map_max_bins / 32, 0);
  const std::uint32_t b = core::bin_of(map, K(1000 + 5 * 37)), top = core::bin_of(map, static_cast<K>(~K(0)));
  for (std::uint32_t x : {b, b + 1, top}) selected[x / 32] |= 1u << (x % 32);
  const core::bin_intervals<K> iv = core::selected_bin_intervals(map, selected.data());
  ASSERT_EQ(iv.count, 2u);
  EXPECT_EQ(iv.last[1], static_cast<K>(~K(0)));
  for (K p = 0; p < 4000; ++p) {
    const std::uint32_t bp = core::bin_of(map, p);
    EXPECT_EQ(core::in_bin_intervals(iv, p), bp == b || bp == b + 1 || bp == top) << "pre-key " << p;
  }
  // More runs than the filter tests as intervals: count 0 (the filter tests bins).
  std::vector<std::uint32_t> many(core::bin_map_max_bins / 32, 0);
  for (int i = 0; i <= core::bin_filter_max_intervals; ++i) many[0] |= 1u << (2 * i);
  EXPECT_EQ(core::selected_bin_intervals(map, many.data()).count, 0u);
}

// The benchmark's clustered floats (64 clusters c * 1000 + [0, 1e-3), most of them
// a few floats wide; doubles: 63 single values and one wide cluster) with 101 percentiles: the ranks in the narrow clusters fall in
// bins of one key, the copied bins (the others) form few runs, and the filter's
// pre-key intervals select exactly their keys, over every key and the extremes.
template <class T>
void check_clustered_intervals() {
  using K = core::key_t<T>;
  using kt = core::key_traits<T>;
  const std::int64_t n = 1 << 20;
  std::vector<T> values(static_cast<std::size_t>(n));
  std::uint64_t h = 99;
  for (T& v : values) {
    h = h * 6364136223846793005ull + 1442695040888963407ull;
    const double u = static_cast<double>(h >> 11) * 0x1.0p-53;
    const auto c = static_cast<double>((h >> 20) % 64);
    // Doubles: one value per cluster but the first (a double cluster a few floats
    // wide spans many pre-keys, so its bins would not hold one key each).
    v = sizeof(T) == 4 || c == 0 ? static_cast<T>(c * 1000.0 + u * 1e-3) : static_cast<T>(c * 1000.0);
  }
  std::vector<K> sp;
  for (std::int64_t i = 0; i < 4096; ++i) sp.push_back(kt::pre_key_first(kt::to_key(values[static_cast<std::size_t>(i * 255)])));
  std::sort(sp.begin(), sp.end());
  std::vector<std::int64_t> ranks;
  for (int i = 0; i <= 100; ++i) ranks.push_back(i * (n - 1) / 100);
  const auto map = core::build_bin_map_for_ranks<T>(sp.data(), 4096, 8191, ranks.data(), 101, n);
  ASSERT_GT(map.num_dense, 0u);
  std::vector<std::uint64_t> hist(map.num_bins, 0);
  for (T x : values) ++hist[core::bin_of(map, kt::pre_key(x))];
  const core::bin_reduction red = core::reduce_to_bins(hist, ranks);
  // As bin_reduce_kernel marks them: the ranks' bins, except those of one key.
  std::vector<std::uint32_t> copied(core::bin_map_max_bins / 32, 0);
  for (std::uint32_t b = 0; b < map.num_bins; ++b)
    if ((red.selected[b / 32] >> (b % 32) & 1u) && !core::bin_holds_one_key(map, b)) copied[b / 32] |= 1u << (b % 32);
  const core::bin_intervals<K> iv = core::selected_bin_intervals(map, copied.data());
  ASSERT_GT(iv.count, 0u);
  std::vector<K> probes = sorted_pre_keys(values);
  probes.push_back(K(0));
  probes.push_back(static_cast<K>(~K(0)));
  std::int64_t in = 0;
  for (K p : probes) {
    const std::uint32_t b = core::bin_of(map, p);
    const bool selected = (copied[b / 32] >> (b % 32)) & 1u;
    ASSERT_EQ(core::in_bin_intervals(iv, p), selected) << "pre-key " << +p << ", bin " << b;
    in += selected;
  }
  EXPECT_GT(in, 0);
  EXPECT_LT(in, n / 16) << "the copy is a small part of the input";
}

TEST(BinIntervals, ClusteredKeysFloat) { check_clustered_intervals<float>(); }
TEST(BinIntervals, ClusteredKeysDouble) { check_clustered_intervals<double>(); }

// A value repeated in most keys, -0.0 and +0.0 both present: the dense range
// takes every zero (both pre-keys), and its bins hold one key each.
TEST(BinMapBuild, DenseRangeOfZerosHoldsBothSigns) {
  using kt = core::key_traits<float>;
  std::vector<float> values;
  for (int i = 0; i < 100000; ++i) values.push_back(i % 3 == 0 ? -0.0f : i % 3 == 1 ? 0.0f : float(i) * 1e-3f);
  std::vector<std::uint32_t> sp;
  for (std::size_t i = 0; i < 4096; ++i) sp.push_back(kt::pre_key_first(kt::to_key(values[i * 24])));
  std::sort(sp.begin(), sp.end());
  const std::vector<std::int64_t> ranks = {0, 30000, 60000, 99999};
  const auto map = core::build_bin_map_for_ranks<float>(sp.data(), 4096, 8191, ranks.data(), 4, 100000);
  ASSERT_GE(map.num_dense, 1u);
  const std::uint32_t neg = core::bin_of(map, kt::pre_key(-0.0f)), pos = core::bin_of(map, kt::pre_key(0.0f));
  EXPECT_TRUE(core::bin_holds_one_key(map, neg));
  EXPECT_TRUE(core::bin_holds_one_key(map, pos));
  EXPECT_EQ(kt::to_key(kt::from_pre_key(core::bin_first_pre_key(map, pos))), kt::to_key(0.0f));
  EXPECT_FALSE(core::bin_holds_one_key(map, core::bin_of(map, kt::pre_key(50.0f))));
}

// from_pre_key inverts pre_key for every kind of float (NaNs of both signs too).
TEST(BinMapBuild, FromPreKeyInvertsPreKey) {
  using kt = core::key_traits<float>;
  for (std::uint32_t bits : {0u, 0x80000000u, 1u, 0x80000001u, 0x3f800000u, 0xbf800000u, 0x7f800000u, 0xff800000u,
                             0x7fc00000u, 0xffc00000u, 0x7f800001u, 0xffffffffu, 0x7f7fffffu, 0xff7fffffu}) {
    float x;
    std::memcpy(&x, &bits, 4);
    const float back = kt::from_pre_key(kt::pre_key(x));
    std::uint32_t got;
    std::memcpy(&got, &back, 4);
    EXPECT_EQ(got, bits);
  }
  using kd = core::key_traits<double>;
  for (double x : {0.0, -0.0, 1.5, -2.25, 1e-310, -1e300}) EXPECT_EQ(kd::from_pre_key(kd::pre_key(x)), x);
}

TEST(BinMapBuild, UniformFloatsGetEvenBins) {
  const std::vector<float> values = test::generate<float>(dist::uniform, 1 << 20, 3);
  std::vector<float> sample(values.begin(), values.begin() + 4096);
  std::vector<std::uint32_t> sp;
  for (float x : sample) sp.push_back(core::key_traits<float>::pre_key(x));
  std::sort(sp.begin(), sp.end());
  const auto map = core::build_bin_map<std::uint32_t>(sp.data(), 4096, 8191);
  std::vector<std::uint64_t> hist(map.num_bins, 0);
  for (float x : values) ++hist[core::bin_of(map, core::key_traits<float>::pre_key(x))];
  const std::uint64_t largest = *std::max_element(hist.begin(), hist.end());
  // 2^20 keys over ~8191 bins: ~128 per bin. Bins are as wide as ~half a gap
  // between sample keys, so their sizes vary as those gaps do (and the keys past
  // the sample's ends share the end bins); none holds 12x the mean.
  EXPECT_LT(largest, (1u << 20) / 8191 * 12) << "largest bin " << largest;
  EXPECT_GT(map.num_bins, 8000u) << "the bins should nearly all be used";
}

// Bins follow the sample positions interpolated between sample keys; a slot
// gets no more bins than it has distinct 16-bit positions.
TEST(BinMapBuild, InterpolatedPositionsAndSlotBins) {
  // Equally spaced keys: positions are linear in the key whatever the knot stride.
  std::vector<std::uint32_t> s;
  for (std::uint32_t i = 0; i < 9; ++i) s.push_back(100 + 10 * i);
  EXPECT_EQ(core::interpolated_position(s.data(), 9, 50u), 0u);
  EXPECT_EQ(core::interpolated_position(s.data(), 9, 100u), 0u);
  EXPECT_EQ(core::interpolated_position(s.data(), 9, 105u), 1u << 15);
  EXPECT_EQ(core::interpolated_position(s.data(), 9, 120u), 2u << 16);
  EXPECT_EQ(core::interpolated_position(s.data(), 9, 160u), 6u << 16);
  EXPECT_EQ(core::interpolated_position(s.data(), 9, 180u), 8u << 16);
  EXPECT_EQ(core::interpolated_position(s.data(), 9, 181u), 8u << 16);
  // Between knots, uneven keys are interpolated linearly: with a knot every 4
  // keys, 100 and 500 are knots 0 and 1, and the keys between do not bend it.
  static_assert(core::bin_map_knot_stride == 4);
  const std::vector<std::uint32_t> u = {100, 101, 102, 103, 500, 600};
  EXPECT_EQ(core::interpolated_position(u.data(), 6, 300u), 2u << 16);
  EXPECT_EQ(core::interpolated_position(u.data(), 6, 550u), (4u << 16) + (1u << 15));
  // 64-bit keys far apart: the terms are cut to 48 bits, the fraction stays.
  const std::vector<std::uint64_t> w = {0, ~std::uint64_t(0)};
  EXPECT_EQ(core::interpolated_position(w.data(), 2, std::uint64_t(1) << 63), 1u << 15);
  EXPECT_EQ(core::slot_bin_count(10, 30, 20), 20u);
  EXPECT_EQ(core::slot_bin_count(10, 30, 3), 8u);  // 8 pre-keys in the slot
  EXPECT_EQ(core::slot_bin_count(10, 10, 20), 0u);
}

// A narrow range of integers: every distinct key gets its own bin.
TEST(BinMapBuild, FewDistinctIntegersGetOneBinEach) {
  std::vector<std::uint32_t> sp;
  for (std::uint32_t i = 0; i < 4096; ++i) sp.push_back(1000 + i % 100);
  std::sort(sp.begin(), sp.end());
  const auto map = core::build_bin_map<std::uint32_t>(sp.data(), 4096, 8191);
  for (std::uint32_t k = 1000; k < 1099; ++k) EXPECT_LT(core::bin_of(map, k), core::bin_of(map, k + 1)) << k;
  EXPECT_EQ(core::bin_of(map, 0u), core::bin_of(map, 1000u));
  EXPECT_EQ(core::bin_of(map, ~0u), core::bin_of(map, 1099u));
}

// The sample index a rank is expected at, and the count of equal entries.
TEST(BinMapBuild, ExpectedSampleIndexAndCounts) {
  EXPECT_EQ(core::expected_sample_index(0, 1000, 4096), 0);
  EXPECT_EQ(core::expected_sample_index(999, 1000, 4096), 4091);
  EXPECT_EQ(core::expected_sample_index((std::int64_t(1) << 40) - 1, std::int64_t(1) << 40, 4096), 4095);
  const std::vector<int> a = {1, 2, 2, 2, 5, 7, 7};
  EXPECT_EQ(core::count_equal_sorted(a.data(), 7, 2), 3);
  EXPECT_EQ(core::count_equal_sorted(a.data(), 7, 7), 2);
  EXPECT_EQ(core::count_equal_sorted(a.data(), 7, 3), 0);
  EXPECT_EQ(core::count_equal_sorted(a.data(), 7, 0), 0);
  EXPECT_EQ(core::count_equal_sorted(a.data(), 7, 9), 0);
}

// Hints: 16 distinct integers (the benchmark's 16 values), as floats, int32 and
// uint64, get a dense range each, every one in a slot of its own, so the map
// takes one-step hints; so do 64 narrow clusters of doubles (the benchmark's
// clustered keys, each cluster a range). Values that share slots (of 2^20
// pre-keys, between 0 and 60000) start several ranges in one: up to 7 take
// three-step hints, 8 none. The hints give bin_of's bins.
template <class T>
void check_hints(const std::vector<T>& distinct, std::uint32_t steps) {
  using K = core::key_t<T>;
  using kt = core::key_traits<T>;
  const std::int64_t n = 160000;
  std::vector<T> values;
  for (std::int64_t i = 0; i < n; ++i)
    values.push_back(distinct[static_cast<std::size_t>(i * 7919 % 16) % distinct.size()]);
  std::vector<K> sp;
  for (std::int64_t i = 0; i < 4096; ++i)
    sp.push_back(kt::pre_key_first(kt::to_key(values[static_cast<std::size_t>(i * n / 4096)])));
  std::sort(sp.begin(), sp.end());
  std::vector<std::int64_t> ranks;
  for (int i = 0; i <= 100; ++i) ranks.push_back(i * (n - 1) / 100);
  const auto map = core::build_bin_map_for_ranks<T>(sp.data(), 4096, 8191, ranks.data(), 101, n);
  EXPECT_EQ(map.num_dense, static_cast<std::uint32_t>(distinct.size()));
  EXPECT_EQ(map.hint_steps, steps);
  if (map.hint_steps != 0) EXPECT_TRUE(hinted_bins_agree(map, values));
}

TEST(BinMapBuild, HintsWhereRangesShareSlotsLittle) {
  std::vector<float> f;
  std::vector<std::int32_t> i32;
  for (int v = 0; v < 16; ++v) f.push_back(static_cast<float>(v)), i32.push_back(v * 1000 - 7000);
  std::vector<double> f64;
  std::vector<std::uint64_t> u64;
  for (int v = 0; v < 16; ++v) f64.push_back(v * 0.375), u64.push_back(std::uint64_t(v) * 1000);
  check_hints(f, 1);
  check_hints(i32, 1);
  check_hints(u64, 1);
  // Doubles 0.375 v: from 0.0 up, 2048 slots over 2^62 pre-keys are half a
  // binade each, and [2, 3) holds 2.25 and 2.625: three steps.
  check_hints(f64, 3);
  check_hints(std::vector<float>{0.0f, 40000.0f, 40500.0f, 60000.0f}, 3);
  // 40000 + 64 i: seven and eight ranges starting in the slot of 40000.
  for (int in_slot : {7, 8}) {
    std::vector<float> crowded = {0.0f, 60000.0f};
    for (int i = 0; i < in_slot; ++i) crowded.push_back(40000.0f + 64.0f * static_cast<float>(i));
    std::sort(crowded.begin(), crowded.end());
    check_hints(crowded, in_slot == 7 ? 3u : 0u);
  }
}

TEST(BinMapBuild, HintsOfNarrowDoubleClusters) {
  using kt = core::key_traits<double>;
  const std::int64_t n = std::int64_t(1) << 27;
  std::vector<double> values;
  for (std::uint64_t i = 0; i < 200000; ++i) {
    const std::uint64_t h = core::mix64(0xc1u ^ i);
    values.push_back(test::narrow_cluster_key(h));
  }
  std::vector<std::uint64_t> sp;
  for (std::size_t i = 0; i < 4096; ++i) sp.push_back(kt::pre_key_first(kt::to_key(values[i * 48])));
  std::sort(sp.begin(), sp.end());
  std::vector<std::int64_t> ranks;
  for (int i = 0; i <= 100; ++i) ranks.push_back(i * (n - 1) / 100);
  const auto map = core::build_bin_map_for_ranks<double>(sp.data(), 4096, 8191, ranks.data(), 101, n);
  EXPECT_GE(map.num_dense, 60u) << "a range for (nearly) every cluster holding a rank";
  EXPECT_EQ(map.hint_steps, 1u) << "clusters 1000 apart start in slots of their own";
  EXPECT_TRUE(hinted_bins_agree(map, values));
}

// The steps from the most starts in a slot and the ranges: a three-step search
// from the last range reads 6 first pre-keys past it, within the padded ones up
// to 121 ranges.
TEST(BinMapBuild, HintStepsStayWithinThePaddedStarts) {
  EXPECT_EQ(core::dense_hint_steps(1, core::bin_map_max_dense), 1u);
  EXPECT_EQ(core::dense_hint_steps(2, 121), 3u);
  EXPECT_EQ(core::dense_hint_steps(7, 121), 3u);
  EXPECT_EQ(core::dense_hint_steps(2, 122), 0u);
  EXPECT_EQ(core::dense_hint_steps(8, 10), 0u);
}

// The speculative copy's windows: a rank's key lies inside its window for every one of 300 random samples of
// 4096 positions (as the device draws them) of 100003 distinct keys, at ranks 0,
// 1, 1 %, the median, 99 % and the last.
TEST(PrepassSpeculation, WindowsHoldTheRanks) {
  const std::int64_t n = 100003;
  const std::vector<std::int64_t> ranks = {0, 1, n / 100, n / 2, n - n / 100, n - 1};
  for (std::uint64_t seed = 1; seed <= 300; ++seed) {
    std::vector<std::int64_t> sample;  // positions of the keys 0 .. n - 1, i.e. their ranks
    for (std::int64_t j = 0; j < 4096; ++j) sample.push_back(core::sample_position(j, 4096, n, seed));
    std::sort(sample.begin(), sample.end());
    for (std::int64_t r : ranks) {
      const core::sample_window w =
          core::predict_window(r, n, 4096, core::speculation_sigmas, core::speculation_margin);
      EXPECT_TRUE((w.first <= 0 || sample[static_cast<std::size_t>(w.first)] <= r) &&
                  (w.last >= 4095 || r <= sample[static_cast<std::size_t>(w.last)]))
          << "seed " << seed << ", rank " << r << ": window [" << w.first << ", " << w.last << "]";
    }
  }
}

// The run the count pass copies: for 101 percentiles of a continuous cluster at 0
// and 63 single values 1000, 2000, ..., the bins around ranks 0 and 1 (the other
// ranks fall in bins of one key); none for 16 distinct values (bins of one key)
// or for uniform keys (the windows span the whole sample).
TEST(PrepassSpeculation, RunOfTheRanksThatNeedACopy) {
  using K = core::key_t<float>;
  using kt = core::key_traits<float>;
  const std::int64_t n = 1 << 20;
  const auto run_of = [&](const std::vector<float>& values, std::uint32_t& first, std::uint32_t& span) {
    std::vector<K> sp;
    for (std::int64_t j = 0; j < 4096; ++j)
      sp.push_back(kt::pre_key_first(kt::to_key(values[static_cast<std::size_t>(core::sample_position(j, 4096, n, 7))])));
    std::sort(sp.begin(), sp.end());
    std::vector<std::int64_t> ranks;
    for (int i = 0; i <= 100; ++i) ranks.push_back(i * (n - 1) / 100);
    const auto map = core::build_bin_map_for_ranks<float>(sp.data(), 4096, 8191, ranks.data(), 101, n);
    std::vector<std::uint32_t> bins;
    for (K p : sp) bins.push_back(core::bin_of(map, p));
    std::vector<float> sorted = values;
    std::sort(sorted.begin(), sorted.end());
    const std::int64_t held = core::plan_speculation(map, bins.data(), 4096, ranks.data(), 101, n, &first, &span);
    if (span != core::no_speculation) {
      // The run holds ranks 0 and 1's bins, and what the sample says it holds.
      for (int i : {0, 1}) {
        const std::uint32_t b = core::bin_of(map, kt::pre_key(sorted[static_cast<std::size_t>(ranks[i])]));
        EXPECT_LE(b - first, span) << "rank " << ranks[i];
      }
      EXPECT_GT(held, 0);
      EXPECT_LE(held * core::speculation_max_share, 4096);
    }
  };
  std::vector<float> clusters, sixteen, uniform;
  for (std::int64_t i = 0; i < n; ++i) {
    const std::uint64_t h = core::mix64(0x5eedull ^ static_cast<std::uint64_t>(i));
    clusters.push_back(h % 64 == 0 ? static_cast<float>(static_cast<double>(h >> 11) * 0x1.0p-53 * 1e-3)
                                   : static_cast<float>(h % 64) * 1000.0f);
    sixteen.push_back(static_cast<float>(h % 16));
    uniform.push_back(static_cast<float>(static_cast<double>(h >> 11) * 0x1.0p-53));
  }
  std::uint32_t first = 0, span = 0;
  run_of(clusters, first, span);
  EXPECT_NE(span, core::no_speculation);
  run_of(sixteen, first, span);
  EXPECT_EQ(span, core::no_speculation);
  run_of(uniform, first, span);
  EXPECT_EQ(span, core::no_speculation);
}

}  // namespace
}  // namespace kselect
