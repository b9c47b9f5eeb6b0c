// The host-side rules of rank-range selection (plan/range_plan.hpp): the
// pass's classes partition every key in order, whatever the windows (NaN,
// infinities, windows at the ends of the key space), and locate_range accepts
// exactly the counts whose boundaries lie in their windows.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "common/generate.hpp"
#include "plan/range_plan.hpp"

namespace kselect::plan {
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
  }
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

TEST(RangePlan, CandidateCapacity) {
  const std::int64_t n = std::int64_t{1} << 28;
  EXPECT_EQ(range_candidate_capacity(1000, 0, 10, 4096, 4.0, 2.0, 1 << 16), 1000);
  const std::int64_t median = range_candidate_capacity(n, 0, n / 2, 4096, 4.0, 2.0, 1 << 16);
  EXPECT_GT(median, n / 10);  // 2x the ~6.3% window
  EXPECT_LT(median, n / 6);
  EXPECT_LT(range_candidate_capacity(n, 0, 1024, 4096, 4.0, 2.0, 1 << 16), n / 200);
  EXPECT_EQ(range_candidate_capacity(n, 0, n, 4096, 4.0, 2.0, 1 << 16), 2 * 4096);  // no boundary
}

}  // namespace
}  // namespace kselect::plan
