// core::classify against a brute-force bucket and core::locate_ranks on hand cases.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "common/rng.hpp"
#include "core/buckets.hpp"

namespace kselect {
namespace {

// The layout's definition, literally: range bucket 2i below splitter i, equality 2i+1.
template <class K>
int brute_bucket(K key, const std::vector<K>& s) {
  int below = 0;
  for (const K x : s) {
    if (x == key) return 2 * below + 1;
    if (x < key) ++below;
  }
  return 2 * below;
}

TEST(Buckets, NumBuckets) {
  EXPECT_EQ(core::num_buckets(0), 1);
  EXPECT_EQ(core::num_buckets(255), 511);
  EXPECT_TRUE(core::is_equality_bucket(1));
  EXPECT_FALSE(core::is_equality_bucket(4));
}

TEST(Buckets, ClassifyMatchesBruteForce) {
  for (int m = 0; m <= 70; ++m) {
    SCOPED_TRACE(testing::Message() << "splitters: " << m);
    std::vector<std::uint32_t> s;
    for (int i = 0; i < m; ++i) s.push_back(static_cast<std::uint32_t>(test::random_word(m, i) % 1000));
    std::sort(s.begin(), s.end());
    s.erase(std::unique(s.begin(), s.end()), s.end());
    const int ms = static_cast<int>(s.size());
    std::vector<std::uint32_t> keys = {0u, 999u, 1000u, 0xffffffffu};
    for (const std::uint32_t x : s) keys.insert(keys.end(), {x - 1, x, x + 1});
    for (int i = 0; i < 300; ++i) keys.push_back(static_cast<std::uint32_t>(test::random_word(m + 100, i) % 1002));
    for (const std::uint32_t k : keys)
      ASSERT_EQ(core::classify(k, s.data(), ms), brute_bucket(k, s)) << "key " << k;
  }
}

TEST(Buckets, ClassifyExtremeKeys64) {
  const std::vector<std::uint64_t> s = {0, 5, ~std::uint64_t{0}};
  EXPECT_EQ(core::classify<std::uint64_t>(0, s.data(), 3), 1);
  EXPECT_EQ(core::classify<std::uint64_t>(3, s.data(), 3), 2);
  EXPECT_EQ(core::classify<std::uint64_t>(~std::uint64_t{0}, s.data(), 3), 5);
  EXPECT_EQ(core::classify<std::uint64_t>(~std::uint64_t{0} - 1, s.data(), 3), 4);
}

TEST(Buckets, LocateRanks) {
  // Buckets of sizes 3, 0, 2, 5, 0, 1 (11 keys).
  const std::vector<std::uint64_t> counts = {3, 0, 2, 5, 0, 1};
  const std::vector<std::int64_t> ranks = {0, 2, 3, 5, 9, 10};
  const auto g = core::locate_ranks(counts, ranks);
  ASSERT_EQ(g.size(), 4u);
  EXPECT_EQ(g[0].bucket, 0);  EXPECT_EQ(g[0].first_rank, 0); EXPECT_EQ(g[0].end_rank, 2);
  EXPECT_EQ(g[0].offset, 0);  EXPECT_EQ(g[0].size, 3);
  EXPECT_EQ(g[1].bucket, 2);  EXPECT_EQ(g[1].first_rank, 2); EXPECT_EQ(g[1].end_rank, 3);
  EXPECT_EQ(g[1].offset, 3);  EXPECT_EQ(g[1].size, 2);
  EXPECT_EQ(g[2].bucket, 3);  EXPECT_EQ(g[2].first_rank, 3); EXPECT_EQ(g[2].end_rank, 5);
  EXPECT_EQ(g[2].offset, 5);  EXPECT_EQ(g[2].size, 5);
  EXPECT_EQ(g[3].bucket, 5);  EXPECT_EQ(g[3].first_rank, 5); EXPECT_EQ(g[3].end_rank, 6);
  EXPECT_EQ(g[3].offset, 10); EXPECT_EQ(g[3].size, 1);
}

TEST(Buckets, LocateRanksBruteForce) {
  for (int t = 0; t < 200; ++t) {
    std::vector<std::uint64_t> counts(1 + test::random_word(t, 0) % 9);
    std::int64_t n = 0;
    for (std::size_t b = 0; b < counts.size(); ++b) n += static_cast<std::int64_t>(counts[b] = test::random_word(t, b + 1) % 4);
    if (n == 0) continue;
    std::vector<std::int64_t> ranks;
    for (int i = 0; i < 5; ++i) ranks.push_back(static_cast<std::int64_t>(test::random_word(t, 100 + i) % n));
    std::sort(ranks.begin(), ranks.end());
    ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
    std::size_t covered = 0;
    for (const auto& g : core::locate_ranks(counts, ranks)) {
      for (std::int64_t r = g.first_rank; r < g.end_rank; ++r) {
        EXPECT_GE(ranks[r], g.offset);
        EXPECT_LT(ranks[r], g.offset + g.size);
        ++covered;
      }
      std::int64_t offset = 0;
      for (int b = 0; b < g.bucket; ++b) offset += static_cast<std::int64_t>(counts[b]);
      EXPECT_EQ(g.offset, offset);
      EXPECT_EQ(g.size, static_cast<std::int64_t>(counts[g.bucket]));
    }
    EXPECT_EQ(covered, ranks.size());
  }
}

TEST(Buckets, LocateRanksRejectsRankBeyondCounts) {
  const std::vector<std::uint64_t> counts = {1, 1};
  const std::vector<std::int64_t> ranks = {2};
  EXPECT_THROW(core::locate_ranks(counts, ranks), std::logic_error);
}

}  // namespace
}  // namespace kselect
