// The host-side rules of rank-range selection (core/range_plan.hpp): the
// pass's classes partition every key in order, whatever the windows (NaN,
// infinities, windows at the ends of the key space), and locate_range accepts
// exactly the counts whose boundaries lie in their windows.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>
#include <set>
#include <utility>
#include <vector>

#include "common/generate.hpp"
#include "core/int_math.hpp"
#include "core/range_plan.hpp"

namespace kselect::core {
namespace {

template <class T>
void check_partition(const range_windows<key_t<T>>& w, key_t<T> flip, const std::vector<T>& values) {
  const range_tests<key_t<T>> t = make_range_tests<T>(w, flip);
  for (const T x : values) {
    const key_t<T> p = range_pre_key<T>(x, flip);
    const key_t<T> k = static_cast<key_t<T>>(key_traits<T>::to_key(x) ^ flip);
    const int classes = t.below.contains(p) + t.lo_window.contains(p) + t.hi_window.contains(p) + t.inside.contains(p);
    ASSERT_LE(classes, 1) << "value " << x << " is in two classes";
    // Below the low window exactly when its key is.
    if (w.has_lo) EXPECT_EQ(t.below.contains(p), k < w.lo0) << x;
    if (w.has_lo && k >= w.lo0 && k <= w.lo1) EXPECT_TRUE(t.lo_window.contains(p) || t.hi_window.contains(p)) << x;
    if (w.has_hi && k >= w.hi0 && k <= w.hi1) EXPECT_TRUE(t.lo_window.contains(p) || t.hi_window.contains(p)) << x;
  }
}

/// Where the split form applies it classifies every key as the generic tests do.
template <class T>
void check_split_form(const range_windows<key_t<T>>& w, key_t<T> flip, const std::vector<T>& values) {
  using K = key_t<T>;
  const range_tests<K> t = make_range_tests<T>(w, flip);
  if (!t.split.enabled) return;
  for (const T x : values) {
    const K p = range_pre_key<T>(x, flip);
    const K d = static_cast<K>(p - t.split.first);
    const bool in = d < t.split.split;
    const bool cand = !in && d <= t.split.last;
    EXPECT_EQ(in, t.inside.contains(p)) << x;
    EXPECT_EQ(cand, t.lo_window.contains(p) || t.hi_window.contains(p)) << x;
    EXPECT_FALSE(t.below.contains(p)) << x;
  }
}

// position_bits: the fewest bits (at least one) that write every position below n,
// as the sorts by position need, against counting them one by one.
TEST(RangePlan, PositionBits) {
  const auto counted = [](std::int64_t n) {
    int bits = 1;
    while (bits < 63 && (std::int64_t{1} << bits) < n) ++bits;
    return bits;
  };
  for (std::int64_t n : {std::int64_t{0}, std::int64_t{1}, std::int64_t{2}, std::int64_t{3}, std::int64_t{4},
                         std::int64_t{5}, std::int64_t{31}, std::int64_t{32}, std::int64_t{33}})
    EXPECT_EQ(position_bits(n), counted(n)) << n;
  for (int k = 2; k < 63; ++k)
    for (std::int64_t d : {-1, 0, 1}) {
      const std::int64_t n = (std::int64_t{1} << k) + d;
      EXPECT_EQ(position_bits(n), counted(n)) << n;
    }
  EXPECT_EQ(position_bits((std::int64_t{1} << 31) + 12345), 32);
}

TEST(RangePlan, ClassesArePartitionsOnSpecialFloats) {
  const std::vector<float> values = test::generate<float>(test::dist::special, 5000, 3);
  using K = key_t<float>;
  const K max = ~K(0);
  const K inf = key_traits<float>::to_key(std::numeric_limits<float>::infinity());
  const K ninf = key_traits<float>::to_key(-std::numeric_limits<float>::infinity());
  const K one = key_traits<float>::to_key(1.0f), two = key_traits<float>::to_key(2.0f);
  const std::vector<range_windows<K>> cases = {
      {true, true, ninf, one, two, max},  // high window up to NaN: inside ends below +inf's neighbours
      {true, true, 0, one, inf, max},     // low window from key 0 (below -inf)
      {false, true, 0, 0, inf, max},      // top-k: inside up to the high window at +inf
      {true, false, one, inf, 0, 0},      // low window ends at +inf: inside is the NaN key only
      {true, true, one, two, two, inf},   // touching windows merge
      {false, false, 0, 0, 0, 0},         // everything inside
      {true, true, ninf, one, max, max},  // high window is the NaN key: inside ends at +inf
      {false, true, 0, 0, max, max},      // the same for top-k
      {true, true, ninf, inf, max, max},  // windows at +inf and NaN touch
      {false, true, 0, 0, key_traits<float>::to_key(0.0f), two},  // inside ends just below +0.0's key (-0.0's bits)
      {true, true, ninf, key_traits<float>::to_key(-1.0f), key_traits<float>::to_key(0.0f), one},
  };
  for (const auto& w : cases) {
    check_partition<float>(w, 0, values);
    check_partition<float>(w, ~K(0), values);
    check_split_form<float>(w, 0, values);
    check_split_form<float>(w, ~K(0), values);
  }
}

TEST(RangePlan, SplitFormOnIntegers) {
  using K = key_t<std::int32_t>;
  const std::vector<std::int32_t> values = test::generate<std::int32_t>(test::dist::special, 5000, 4);
  const K max = ~K(0);
  const std::vector<range_windows<K>> cases = {
      {false, true, 0, 0, 0, 5},            // nothing inside
      {false, true, 0, 0, 1u << 31, max},   // up to the largest key
      {false, true, 0, 0, 100, 1u << 31},   // inside, window, above
      {false, true, 0, 0, max, max},        // window is the largest key
  };
  for (const auto& w : cases) {
    const auto t = make_range_tests<std::int32_t>(w, K(0));
    EXPECT_TRUE(t.split.enabled);
    check_split_form<std::int32_t>(w, 0, values);
    check_split_form<std::int32_t>(w, max, values);
  }
  // A low window or the whole input: the generic tests only.
  EXPECT_FALSE((make_range_tests<std::int32_t>({true, true, 5, 10, 20, 30}, K(0)).split.enabled));
  EXPECT_FALSE((make_range_tests<std::int32_t>({false, false, 0, 0, 0, 0}, K(0)).split.enabled));
}

TEST(RangePlan, LocateRange) {
  // 100 below, 50 in the low window, 1000 inside, 70 in the high window.
  const range_counts c{100, 50, 120, 1000};
  range_pick p = locate_range(120, 1200, c, 1000);
  ASSERT_TRUE(p.ok);
  EXPECT_EQ(p.first, 20);  // position 120 is the 20th candidate
  EXPECT_EQ(p.last, 100);  // 1200 - 100 - 1000
  EXPECT_FALSE(locate_range(99, 1200, c, 1000).ok);    // lo before the window
  EXPECT_FALSE(locate_range(151, 1200, c, 1000).ok);   // lo past the low window
  EXPECT_FALSE(locate_range(120, 1149, c, 1000).ok);   // hi before the high window
  EXPECT_FALSE(locate_range(120, 1221, c, 1000).ok);   // hi past it
  EXPECT_FALSE(locate_range(120, 1200, c, 119).ok);    // candidates overflowed
  EXPECT_FALSE(locate_range(120, 1100, c, 1000).ok);   // inside overflowed the output
  // Merged windows (nothing inside): any split of the candidates.
  const range_counts merged{10, 200, 200, 0};
  p = locate_range(10, 210, merged, 1000);
  ASSERT_TRUE(p.ok);
  EXPECT_EQ(p.first, 0);
  EXPECT_EQ(p.last, 200);
}

// A window whose sample keys are one key becomes that key alone, wherever the
// window's positions lie (past either end of the sample too); else it stays.
TEST(RangePlan, TieWindow) {
  std::vector<std::uint32_t> sample(4096, 7);
  for (std::size_t i = 3000; i < sample.size(); ++i) sample[i] = 9 + static_cast<std::uint32_t>(i);
  std::uint32_t w0 = 0, w1 = 100;
  core::tie_window(sample.data(), 4096, core::sample_window{-20, 40}, w0, w1);
  EXPECT_EQ(w0, 7u);
  EXPECT_EQ(w1, 7u);
  w0 = 1, w1 = 100;
  core::tie_window(sample.data(), 4096, core::sample_window{2990, 3010}, w0, w1);  // 7 and larger keys
  EXPECT_EQ(w0, 1u);
  EXPECT_EQ(w1, 100u);
  w0 = 1, w1 = 100;
  core::tie_window(sample.data(), 4096, core::sample_window{4000, 4200}, w0, w1);  // distinct keys
  EXPECT_EQ(w0, 1u);
  std::vector<std::uint32_t> equal(4096, 5);
  core::tie_window(equal.data(), 4096, core::sample_window{4090, 4200}, w0, w1);
  EXPECT_EQ(w0, 5u);
  EXPECT_EQ(w1, 5u);
}

// Two keys in the window: both ends inside the sample, exactly two distinct keys
// between them (a run's end and the next run's start); not one key, not three,
// not a window reaching past the sample.
TEST(RangePlan, TwoKeyWindow) {
  std::vector<std::uint32_t> sample(4096);
  for (std::size_t i = 0; i < sample.size(); ++i) sample[i] = static_cast<std::uint32_t>(i / 256);  // 16 runs
  EXPECT_TRUE(core::two_key_window(sample.data(), 4096, core::sample_window{2000, 2100}));   // 7s then 8s
  EXPECT_TRUE(core::two_key_window(sample.data(), 4096, core::sample_window{2047, 2048}));   // the run's edge
  EXPECT_FALSE(core::two_key_window(sample.data(), 4096, core::sample_window{2050, 2100}));  // 8s only
  EXPECT_FALSE(core::two_key_window(sample.data(), 4096, core::sample_window{2000, 2400}));  // 7, 8 and 9
  EXPECT_FALSE(core::two_key_window(sample.data(), 4096, core::sample_window{-5, 100}));     // past the start
  EXPECT_FALSE(core::two_key_window(sample.data(), 4096, core::sample_window{4000, 4096}));  // past the end
  sample[2060] = 100;  // a third key inside the window, after the second run's start
  std::sort(sample.begin(), sample.end());
  EXPECT_FALSE(core::two_key_window(sample.data(), 4096, core::sample_window{2000, 4095}));
  // Against a brute-force count of the window's distinct keys, on random runs.
  std::uint64_t x = 5;
  for (int trial = 0; trial < 500; ++trial) {
    std::vector<std::uint32_t> s(512);
    for (auto& v : s) v = static_cast<std::uint32_t>((x = mix64(x)) % (1 + trial % 6));
    std::sort(s.begin(), s.end());
    const auto a = static_cast<std::int64_t>((x = mix64(x)) % 512);
    const auto b = static_cast<std::int64_t>((x = mix64(x)) % 512);
    const core::sample_window sw{std::min(a, b), std::max(a, b)};
    const std::set<std::uint32_t> keys(s.begin() + sw.first, s.begin() + sw.last + 1);
    EXPECT_EQ(core::two_key_window(s.data(), 512, sw), keys.size() == 2) << trial;
  }
}

// The tie cut's boundary from exact counts: k - 1 among a's ties, among b's, or
// refuted (among the keys between, below a, above b).
TEST(RangePlan, TieCut) {
  // 100 below a, 50 equal to a, 10 between, 40 equal to b (200 up to b).
  for (std::uint64_t k = 1; k <= 260; ++k) {
    const core::tie_cut c = core::plan_tie_cut(k, 100, 50, 10, 40);
    if (k <= 100 || (k > 150 && k <= 160) || k > 200) {
      EXPECT_FALSE(c.ok) << k;
    } else if (k <= 150) {
      ASSERT_TRUE(c.ok) << k;
      EXPECT_FALSE(c.high_key);
      EXPECT_EQ(c.before, 100u);
      EXPECT_EQ(c.needed, k - 100);
    } else {
      ASSERT_TRUE(c.ok) << k;
      EXPECT_TRUE(c.high_key);
      EXPECT_EQ(c.before, 160u);
      EXPECT_EQ(c.needed, k - 160);
    }
  }
  // Nothing between: k at a's last tie and at b's first.
  EXPECT_FALSE(core::plan_tie_cut(150, 100, 50, 0, 40).high_key);
  EXPECT_TRUE(core::plan_tie_cut(151, 100, 50, 0, 40).high_key);
  EXPECT_EQ(core::plan_tie_cut(151, 100, 50, 0, 40).needed, 1u);
  // No keys equal to b (a == b: one key): only a's ties can hold the boundary.
  EXPECT_FALSE(core::plan_tie_cut(151, 100, 50, 0, 0).ok);
  EXPECT_TRUE(core::plan_tie_cut(101, 100, 50, 0, 0).ok);
}

TEST(RangePlan, CandidateCapacity) {
  const std::int64_t n = std::int64_t{1} << 28;
  EXPECT_EQ(range_candidate_capacity(1000, 0, 10, 4096, 4.0, 2.0, 1 << 16), 1000);
  const std::int64_t median = range_candidate_capacity(n, 0, n / 2, 4096, 4.0, 2.0, 1 << 16);
  EXPECT_GT(median, n / 10);  // 2x the ~6.3% window
  EXPECT_LT(median, n / 6);
  EXPECT_LT(range_candidate_capacity(n, 0, 1024, 4096, 4.0, 2.0, 1 << 16), n / 200);
  EXPECT_EQ(range_candidate_capacity(n, 0, n, 4096, 4.0, 2.0, 1 << 16), 2 * 4096);  // no boundary
}

// Candidates lie in the windows' hull; ordering them by the low
// candidate_key_bits bits orders them as by the whole key.
TEST(RangePlan, CandidateKeyBits) {
  using K = std::uint32_t;
  EXPECT_EQ(candidate_key_bits<K>({false, true, 0, 0, 0x100, 0x1ff}), 8);
  EXPECT_EQ(candidate_key_bits<K>({true, true, 0x100, 0x120, 0x180, 0x200}), 10);
  EXPECT_EQ(candidate_key_bits<K>({true, false, 7, 7, 0, 0}), 1);  // one key
  EXPECT_EQ(candidate_key_bits<K>({false, false, 0, 0, 0, 0}), 32);
  EXPECT_EQ(candidate_key_bits<K>({true, true, 5, ~K(0), 6, 9}), 32);  // merged: the low window's end
  std::uint64_t x = 99;
  for (int trial = 0; trial < 200; ++trial) {
    const K a = static_cast<K>((x = mix64(x)) >> 32), span = static_cast<K>((x = mix64(x)) >> (40 + trial % 24));
    const K b = a > ~K(0) - span ? ~K(0) : a + span;
    const range_windows<K> w{false, true, 0, 0, a, b};
    const int bits = candidate_key_bits(w);
    const K mask = bits >= 32 ? ~K(0) : static_cast<K>((K(1) << bits) - 1);
    for (int i = 0; i < 20; ++i) {
      const K u = static_cast<K>(a + ((x = mix64(x)) % (std::uint64_t(b) - a + 1)));
      const K v = static_cast<K>(a + ((x = mix64(x)) % (std::uint64_t(b) - a + 1)));
      ASSERT_EQ(u < v, (u & mask) < (v & mask)) << a << " " << b;
    }
  }
}

TEST(RangePlan, RefineSampleSize) {
  const std::int64_t n = std::int64_t{1} << 28;
  auto size = [&](std::int64_t lo, std::int64_t hi, std::int64_t nn) {
    return refine_sample_size(nn, lo, hi, 4096, 4.0, 2.0, 1 << 16, 2048, 1 << 18);
  };
  EXPECT_EQ(size(0, 1024, n), 1 << 18);         // a few sample positions: the largest second sample
  EXPECT_EQ(size(n - 1024, n, n), 1 << 18);     // the same at the top
  const std::int64_t median = size(0, n / 2, n);  // ~262 positions: ~32000 keys for 2048 kept
  EXPECT_GT(median, 4 * 4096);
  EXPECT_LT(median, 1 << 16);
  EXPECT_EQ(size(0, 1000, 1 << 16), 0);         // all candidates anyway
  EXPECT_EQ(size(0, n, n), 0);                  // no boundary
  EXPECT_EQ(size(5, 5, n), 0);                  // empty range
  EXPECT_EQ(refine_sample_size(n, 0, n / 2, 4096, 4.0, 2.0, 1 << 16, 2048, 4096 * 3), 0);  // would not narrow 2x
}

/// Both sampling rounds as the kernels run them, on the host, for the window
/// around `position` of keys[0, n): the first round's window and the second's.
struct simulated_windows {
  std::uint32_t first0, first1, refined0, refined1;
};
simulated_windows simulate_windows(const std::vector<std::uint32_t>& keys, std::int64_t position,
                                   std::uint64_t seed) {
  using K = std::uint32_t;
  const auto n = static_cast<std::int64_t>(keys.size());
  std::vector<K> sample;
  for (std::int64_t j = 0; j < 4096; ++j) sample.push_back(keys[sample_position(j, 4096, n, seed)]);
  std::sort(sample.begin(), sample.end());
  const sample_window sw = predict_window(position, n, 4096, 4.0, 2.0);
  K w0 = sw.first >= 0 ? sample[sw.first] : 0, w1 = sw.last < 4096 ? sample[sw.last] : ~K(0);
  simulated_windows r{w0, w1, w0, w1};
  const std::int64_t size = refine_sample_size(n, 0, position + 1, 4096, 4.0, 2.0, 1 << 16, 2048, 1 << 18);
  if (size == 0) return r;
  std::vector<K> kept;
  refine_slice slice;
  for (std::int64_t j = 0; j < size; ++j) {
    const K k = keys[sample_position(j, size, n, seed + 100)];
    slice.below += k < w0;
    if (k >= w0 && k <= w1) kept.push_back(k);
  }
  std::sort(kept.begin(), kept.end());
  slice.first = 0;
  slice.count = static_cast<std::int64_t>(kept.size());
  refine_window(position, n, size, 4.0, 2.0, kept.data(), slice, r.refined0, r.refined1);
  return r;
}

std::vector<std::uint32_t> random_24bit_keys(std::int64_t n) {
  std::vector<std::uint32_t> keys(static_cast<std::size_t>(n));
  std::uint64_t x = 12345;
  for (auto& k : keys) k = static_cast<std::uint32_t>((x = mix64(x)) >> 40);  // 24-bit keys: ties too
  return keys;
}

/// Keys of the sorted array within [a, b].
std::int64_t keys_between(const std::vector<std::uint32_t>& sorted, std::uint32_t a, std::uint32_t b) {
  return std::upper_bound(sorted.begin(), sorted.end(), b) - std::lower_bound(sorted.begin(), sorted.end(), a);
}

/// The narrowed window still holds the key at the position, lies within the
/// first one and is narrower.
TEST(RangePlan, RefinedWindowHoldsThePosition) {
  using K = std::uint32_t;
  const std::int64_t n = std::int64_t{1} << 22;
  const std::vector<K> keys = random_24bit_keys(n);
  std::vector<K> sorted = keys;
  std::sort(sorted.begin(), sorted.end());
  for (const std::int64_t position : {std::int64_t{0}, std::int64_t{1023}, n / 256, n / 2, n - 1000}) {
    for (std::uint64_t seed = 1; seed <= 3; ++seed) {
      ASSERT_GT(refine_sample_size(n, 0, position + 1, 4096, 4.0, 2.0, 1 << 16, 2048, 1 << 18), 0);
      const simulated_windows w = simulate_windows(keys, position, seed);
      EXPECT_LE(w.refined0, sorted[position]) << position;
      EXPECT_GE(w.refined1, sorted[position]) << position;
      EXPECT_GE(w.refined0, w.first0);
      EXPECT_LE(w.refined1, w.first1);
      EXPECT_LT(2 * keys_between(sorted, w.refined0, w.refined1), keys_between(sorted, w.first0, w.first1))
          << "position " << position << " seed " << seed;
    }
  }
}

/// The top-k pass's candidates (every key in the refined window; from the least
/// key when the window reaches the sample's first) as both rounds leave them,
/// against the prediction the stream-ordered top-k chooses its path by.
TEST(RangePlan, ExpectedTopkCandidatesMatchTheWindows) {
  using K = std::uint32_t;
  const std::int64_t n = std::int64_t{1} << 22;
  const std::vector<K> keys = random_24bit_keys(n);
  std::vector<K> sorted = keys;
  std::sort(sorted.begin(), sorted.end());
  for (const std::int64_t k : {std::int64_t{1024}, std::int64_t{4096}, n / 256, n / 16}) {
    const std::int64_t expected = expected_topk_candidates(n, k, 4096, 4.0, 2.0, 1 << 16, 2048, 1 << 18);
    double seen = 0;
    for (std::uint64_t seed = 1; seed <= 4; ++seed) {
      const simulated_windows w = simulate_windows(keys, k - 1, seed);
      seen += static_cast<double>(keys_between(sorted, w.refined0, w.refined1)) / 4;
    }
    EXPECT_GT(seen, 0.6 * static_cast<double>(expected)) << "k = " << k;
    EXPECT_LT(seen, 1.5 * static_cast<double>(expected)) << "k = " << k;
  }
  // The benchmark's cases: k = 1024 of 2^28 keeps the keys up to the 8th of the
  // 2^18-key second sample; k = 2^20, ~260 of its positions.
  const std::int64_t big = std::int64_t{1} << 28;
  EXPECT_EQ(expected_topk_candidates(big, 1024, 4096, 4.0, 2.0, 1 << 16, 2048, 1 << 18), 8 * 1024);
  EXPECT_GT(expected_topk_candidates(big, 1 << 20, 4096, 4.0, 2.0, 1 << 16, 2048, 1 << 18), 1 << 18);
  EXPECT_EQ(expected_topk_candidates(1 << 16, 10, 4096, 4.0, 2.0, 1 << 16, 2048, 1 << 18), 1 << 16);
  EXPECT_EQ(expected_topk_candidates(big, big, 4096, 4.0, 2.0, 1 << 16, 2048, 1 << 18), 0);
}

// Deterministic ties after a sort by key alone (plan_tie_takes, as
// range_tie_kernels.cuh applies it): candidates sorted by key with their ties in
// any order, the runs found at the range's ends as the kernel finds them; the
// elements taken (by position outside the runs, by index rank inside) are those
// of the (key, index) order's positions [first, last), and every output slot is
// written once.
TEST(RangePlan, TieTakesMatchTheKeyIndexOrder) {
  std::mt19937_64 rng(11);
  for (int trial = 0; trial < 3000; ++trial) {
    const int count = 1 + static_cast<int>(rng() % 64);
    const int alphabet = 1 + static_cast<int>(rng() % 6);  // few keys: long runs
    std::vector<std::pair<int, std::int64_t>> cand(count);  // (key, index)
    std::vector<std::int64_t> indices(4 * count);
    std::iota(indices.begin(), indices.end(), 0);
    std::shuffle(indices.begin(), indices.end(), rng);
    for (int j = 0; j < count; ++j) cand[j] = {static_cast<int>(rng() % alphabet), indices[j]};
    std::stable_sort(cand.begin(), cand.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    std::vector<std::pair<int, std::int64_t>> want = cand;
    std::sort(want.begin(), want.end());
    const std::int64_t first = static_cast<std::int64_t>(rng() % count);
    const std::int64_t last = first + 1 + static_cast<std::int64_t>(rng() % (count - first));

    auto run_of = [&](std::int64_t a, std::int64_t b) {  // the run holding positions a and b, if equal
      if (a < 0 || b >= count || cand[a].first != cand[b].first) return sorted_run{};
      const int key = cand[a].first;
      sorted_run r{a, b};
      while (r.first > 0 && cand[r.first - 1].first == key) --r.first;
      while (r.last < count && cand[r.last].first == key) ++r.last;
      return r;
    };
    const sorted_run lo_run = run_of(first - 1, first), hi_run = run_of(last - 1, last);
    const tie_takes t = plan_tie_takes(first, last, lo_run, hi_run);
    std::vector<int> written(last - first, 0);
    std::vector<std::int64_t> got(last - first, -1);
    auto in_run = [&](const sorted_run& r, std::int64_t p) { return !r.empty() && p >= r.first && p < r.last; };
    for (std::int64_t p = first; p < last; ++p)
      if (!in_run(lo_run, p) && !in_run(hi_run, p)) {
        ++written[p - first];
        got[p - first] = cand[p].second;
      }
    for (int i = 0; i < t.count; ++i) {
      const tie_take& tk = t.take[i];
      std::vector<std::int64_t> run_idx;
      for (std::int64_t p = tk.run.first; p < tk.run.last; ++p) run_idx.push_back(cand[p].second);
      std::sort(run_idx.begin(), run_idx.end());
      for (std::int64_t r = tk.rank_first; r < tk.rank_last; ++r) {
        const std::int64_t slot = tk.out_offset + (r - tk.rank_first);
        ASSERT_GE(slot, 0);
        ASSERT_LT(slot, last - first);
        ++written[slot];
        got[slot] = run_idx[r];
      }
    }
    for (std::int64_t s = 0; s < last - first; ++s) ASSERT_EQ(written[s], 1) << "trial " << trial << " slot " << s;
    std::vector<std::int64_t> expect;
    for (std::int64_t p = first; p < last; ++p) expect.push_back(want[p].second);
    std::sort(got.begin(), got.end());
    std::sort(expect.begin(), expect.end());
    EXPECT_EQ(got, expect) << "trial " << trial << " count " << count << " [" << first << ", " << last << ")";
  }
}

// The GPU exact path's boundary ranks: the key at position hi - 1 (and lo's
// unless lo = 0) of the stable order, in either direction, against a sort.
TEST(RangePlan, SelectedBoundariesHoldTheRangeEnds) {
  std::mt19937_64 rng(5);
  for (int trial = 0; trial < 2000; ++trial) {
    const std::int64_t n = 1 + static_cast<std::int64_t>(rng() % 40);
    std::vector<int> v(static_cast<std::size_t>(n));
    for (int& x : v) x = static_cast<int>(rng() % 5);
    const bool descending = rng() % 2;
    const std::int64_t lo = rng() % 3 == 0 ? 0 : static_cast<std::int64_t>(rng() % n);
    const std::int64_t hi = lo + 1 + static_cast<std::int64_t>(rng() % (n - lo));
    std::vector<int> ascending = v;
    std::sort(ascending.begin(), ascending.end());
    std::vector<int> order = ascending;
    if (descending) std::reverse(order.begin(), order.end());
    const boundary_ranks b = range_selected_boundaries(n, lo, hi, descending);
    ASSERT_TRUE(b.count == 1 || b.count == 2);
    ASSERT_TRUE(b.count == 1 || b.ranks[0] < b.ranks[1]);
    for (int i = 0; i < b.count; ++i) ASSERT_TRUE(b.ranks[i] >= 0 && b.ranks[i] < n);
    EXPECT_EQ(ascending[static_cast<std::size_t>(b.ranks[b.hi_slot])], order[static_cast<std::size_t>(hi - 1)]);
    if (lo == 0) {
      EXPECT_EQ(b.lo_slot, -1);  // no key selected for position 0
      EXPECT_EQ(b.count, 1);
    } else {
      EXPECT_EQ(ascending[static_cast<std::size_t>(b.ranks[b.lo_slot])], order[static_cast<std::size_t>(lo)]);
    }
  }
}

}  // namespace
}  // namespace kselect::core
