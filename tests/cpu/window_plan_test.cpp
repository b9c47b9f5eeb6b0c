// core/window.hpp and the pre-keys of core::key_traits: the window pass's cheap
// tests (pre-key intervals) classify every value exactly as the key order does,
// and locate_in_window finds every rank of the sorted input where it is.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <vector>

#include "common/generate.hpp"
#include "common/probe_values.hpp"
#include "common/rng.hpp"
#include "core/key_traits.hpp"
#include "core/window.hpp"

namespace kselect {
namespace {

using test::dist;

template <class T>
std::vector<T> probe_values() {
  return test::probe_values<T>(200, 7);
}

template <class T>
class WindowPlan : public ::testing::Test {};
using KeyTypes = ::testing::Types<float, double, std::int32_t, std::uint32_t, std::int64_t, std::uint64_t>;
TYPED_TEST_SUITE(WindowPlan, KeyTypes);

// to_key(x) < k and to_key(x) == k, read through the pre-key interval of k.
TYPED_TEST(WindowPlan, PreKeyIntervalsMatchKeyOrder) {
  using T = TypeParam;
  using kt = core::key_traits<T>;
  const std::vector<T> values = probe_values<T>();
  for (T a : values) {
    const auto k = kt::to_key(a);
    const auto first = kt::pre_key_first(k), last = kt::pre_key_last(k);
    ASSERT_LE(first, last);
    for (T x : values) {
      const auto kx = kt::to_key(x);
      const auto px = kt::pre_key(x);
      SCOPED_TRACE(testing::Message() << "a = " << a << ", x = " << x);
      ASSERT_EQ(kx < k, px < first);
      ASSERT_EQ(kx == k, first <= px && px <= last);
    }
  }
}

// The classes each value falls in, by the definitions in core/window.hpp.
template <class T>
struct classes {
  bool below, at_lo, inside, at_hi;
};

template <class T>
classes<T> by_tests(T x, const core::window_tests<core::key_t<T>>& t) {
  const auto p = core::key_traits<T>::pre_key(x);
  return {p < t.below_end, static_cast<core::key_t<T>>(p - t.lo_first) < t.lo_count,
          static_cast<core::key_t<T>>(p - t.in_first) < t.in_count,
          static_cast<core::key_t<T>>(p - t.hi_first) < t.hi_count};
}

template <class T>
classes<T> by_keys(T x, const core::window_bounds<core::key_t<T>>& b, bool equality) {
  const auto k = core::key_traits<T>::to_key(x);
  const bool above_lo = !b.has_lo || (equality ? k > b.s0 : k >= b.s0);
  const bool below_hi = !b.has_hi || (equality ? k < b.s1 : k <= b.s1);
  const bool same = b.has_lo && b.has_hi && b.s0 == b.s1;
  return {b.has_lo && k < b.s0, equality && b.has_lo && k == b.s0, above_lo && below_hi,
          equality && b.has_hi && !same && k == b.s1};
}

// Every window the sample can produce (bounds from the probe values, either side
// missing, either mode) classifies every value as the key order says, and
// locate_in_window puts each rank of the sorted values where it belongs.
TYPED_TEST(WindowPlan, TestsAndLocateAgreeWithTheKeyOrder) {
  using T = TypeParam;
  using K = core::key_t<T>;
  using kt = core::key_traits<T>;
  std::vector<T> values = probe_values<T>();
  std::vector<K> sorted_keys;
  for (T x : values) sorted_keys.push_back(kt::to_key(x));
  std::sort(sorted_keys.begin(), sorted_keys.end());
  std::uint64_t draws = 0;
  auto pick = [&] { return sorted_keys[test::random_word(42, draws++) % sorted_keys.size()]; };
  for (int trial = 0; trial < 1000; ++trial) {
    core::window_bounds<K> b{};
    K a = pick(), c = pick();
    if (trial % 7 == 0) c = a;  // equal bounds
    b.s0 = std::min(a, c);
    b.s1 = std::max(a, c);
    b.has_lo = trial % 5 != 1;
    b.has_hi = trial % 5 != 2;
    b.equality = (trial / 5) % 2 == 1;
    if (!b.has_lo && !b.has_hi) continue;
    const auto t = core::make_window_tests<T>(b);
    // A plain window over every key becomes an equality window (documented).
    const bool equality = b.equality || (t.lo_count | t.hi_count) != 0 ||
                          static_cast<K>((b.has_hi ? kt::pre_key_last(b.s1) : ~K(0)) -
                                         (b.has_lo ? kt::pre_key_first(b.s0) : K(0)) + 1) == 0;
    core::window_counts counts{};
    std::vector<K> inside;
    for (T x : values) {
      SCOPED_TRACE(testing::Message() << "trial " << trial << " x = " << x << " s0 = " << +b.s0
                                      << " s1 = " << +b.s1 << " lo " << b.has_lo << " hi " << b.has_hi
                                      << " eq " << b.equality);
      const classes<T> got = by_tests(x, t), want = by_keys(x, b, equality);
      ASSERT_EQ(got.below, want.below);
      ASSERT_EQ(got.at_lo, want.at_lo);
      ASSERT_EQ(got.inside, want.inside);
      ASSERT_EQ(got.at_hi, want.at_hi);
      ASSERT_LE(int(got.below) + got.at_lo + got.inside + got.at_hi, 1);
      counts.below += got.below;
      counts.at_lo += got.at_lo;
      counts.at_hi += got.at_hi;
      if (got.inside) inside.push_back(kt::to_key(x));
    }
    counts.inside = inside.size();
    std::sort(inside.begin(), inside.end());
    for (std::int64_t r = 0; r < static_cast<std::int64_t>(sorted_keys.size()); ++r) {
      std::int64_t in_rank = -1;
      const K want = sorted_keys[r];
      switch (core::locate_in_window(r, counts, in_rank)) {
        case core::window_step::answer_lo: ASSERT_EQ(want, b.s0) << "rank " << r; break;
        case core::window_step::answer_hi: ASSERT_EQ(want, b.s1) << "rank " << r; break;
        case core::window_step::descend: ASSERT_EQ(want, inside.at(in_rank)) << "rank " << r; break;
        case core::window_step::missed:
          // Missed ranks lie outside every class: below s0 or above the window.
          ASSERT_TRUE(r < static_cast<std::int64_t>(counts.below) ||
                      r >= static_cast<std::int64_t>(counts.below + counts.at_lo + counts.inside + counts.at_hi))
              << "rank " << r;
          break;
      }
    }
  }
}

TEST(WindowPlanLevels, ExpectedLevelsShrinkBySampleFactor) {
  // 4096 samples, +-4 sigma + 2: a level keeps ~6.5% of its keys.
  EXPECT_EQ(core::expected_window_levels(4096, 4096, 4.0, 2.0, 4096), 0);
  EXPECT_EQ(core::expected_window_levels(4097, 4096, 4.0, 2.0, 4096), 1);
  EXPECT_EQ(core::expected_window_levels(std::int64_t(1) << 28, 4096, 4.0, 2.0, 4096), 5);
  EXPECT_LE(core::expected_window_levels(std::int64_t(1) << 40, 4096, 4.0, 2.0, 4096), 12);
}

}  // namespace
}  // namespace kselect
