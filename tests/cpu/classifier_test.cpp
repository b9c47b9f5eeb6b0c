// cpu::tree_classifier gives exactly plan::classify's buckets (the shared layout).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

#include "common/rng.hpp"
#include "cpu/classifier.hpp"
#include "plan/buckets.hpp"

namespace kselect {
namespace {

template <class K>
void check_against_plan(int max_splitters, std::uint64_t modulus) {
  for (int m = 0; m <= max_splitters; m += (m < 70 ? 1 : 97)) {
    SCOPED_TRACE(testing::Message() << "splitters drawn: " << m);
    std::vector<K> s;
    for (int i = 0; i < m; ++i) s.push_back(static_cast<K>(test::random_word(m, i) % modulus));
    if (m % 5 == 0) s.push_back(std::numeric_limits<K>::max());  // a splitter equal to the padding
    if (m % 7 == 0) s.push_back(0);
    std::sort(s.begin(), s.end());
    s.erase(std::unique(s.begin(), s.end()), s.end());
    const cpu::tree_classifier<K> tree(s);
    ASSERT_EQ(tree.num_buckets(), plan::num_buckets(static_cast<int>(s.size())));
    std::vector<K> keys = {0, 1, std::numeric_limits<K>::max(), static_cast<K>(std::numeric_limits<K>::max() - 1)};
    for (const K x : s) keys.insert(keys.end(), {static_cast<K>(x - 1), x, static_cast<K>(x + 1)});
    for (int i = 0; i < 1000; ++i) keys.push_back(static_cast<K>(test::random_word(m + 1000, i) % (modulus + 2)));
    // Batched and one at a time, including a partial last batch.
    std::vector<int> got;
    cpu::classify_range(keys, 0, static_cast<std::int64_t>(keys.size()), tree,
                        [&](K, int b) { got.push_back(b); });
    ASSERT_EQ(got.size(), keys.size());
    for (std::size_t i = 0; i < keys.size(); ++i) {
      const int expected = plan::classify(keys[i], s.data(), static_cast<int>(s.size()));
      ASSERT_EQ(got[i], expected) << "key " << keys[i];
      ASSERT_EQ(tree.classify(keys[i]), expected) << "key " << keys[i];
    }
  }
}

TEST(TreeClassifier, MatchesPlanClassify32) { check_against_plan<std::uint32_t>(600, 5000); }
TEST(TreeClassifier, MatchesPlanClassify64) { check_against_plan<std::uint64_t>(600, 1ull << 40); }
TEST(TreeClassifier, MatchesPlanClassifyFullRange) {
  check_against_plan<std::uint32_t>(300, std::numeric_limits<std::uint32_t>::max());
}

}  // namespace
}  // namespace kselect
