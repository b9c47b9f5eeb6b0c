// core/descent.hpp: the rules of the stream-ordered selection's exact descent.
// The host queues core::descent_max_rounds rounds before anything has run, so
// that bound must hold on every input: a model of the descent built on the same
// rules (each round: buckets of every group with their smallest and largest key;
// a rank's next group is its bucket's [min, max]; answered when that holds one
// key) answers every rank exactly within the bound, on random keys, few distinct
// keys, and keys spread over every bit width.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

#include "common/rng.hpp"
#include "core/descent.hpp"

namespace kselect {
namespace {

template <class K>
struct model_result {
  std::vector<K> answers;
  int rounds = 0;
};

/// The descent on `keys` for sorted unique `ranks`, as descent_kernels.cuh runs it.
template <class K>
model_result<K> run_descent_model(const std::vector<K>& keys, const std::vector<std::int64_t>& ranks) {
  struct group {
    K lo, hi;
  };
  std::vector<group> groups{{K(0), std::numeric_limits<K>::max()}};
  std::vector<int> rank_group(ranks.size(), 0);
  std::vector<std::int64_t> rank_in_group(ranks.begin(), ranks.end());
  model_result<K> r;
  r.answers.assign(ranks.size(), K(0));
  while (!groups.empty()) {
    ++r.rounds;
    const int bits = core::descent_group_bits(static_cast<std::int64_t>(groups.size()));
    EXPECT_GE(bits, 3);
    const std::size_t used = groups.size() << bits;
    EXPECT_LE(used, static_cast<std::size_t>(core::descent_buckets));
    std::vector<std::uint64_t> count(used, 0);
    std::vector<K> min(used, std::numeric_limits<K>::max()), max(used, K(0));
    for (const K x : keys) {
      const auto it = std::upper_bound(groups.begin(), groups.end(), x, [](K v, const group& g) { return v < g.lo; });
      if (it == groups.begin()) continue;
      const auto g = static_cast<std::size_t>(it - groups.begin() - 1);
      if (x > groups[g].hi) continue;
      const std::size_t b = (g << bits) + static_cast<std::size_t>(
                                              (x - groups[g].lo) >> core::descent_shift(groups[g].lo, groups[g].hi, bits));
      EXPECT_LT(b, (g + 1) << bits) << "a key left its group's buckets";
      ++count[b];
      min[b] = std::min(min[b], x);
      max[b] = std::max(max[b], x);
    }
    std::vector<std::uint64_t> before(used + 1, 0);
    for (std::size_t b = 0; b < used; ++b) before[b + 1] = before[b] + count[b];
    std::vector<group> next;
    std::vector<std::size_t> next_bucket;  // the bucket each new group came from
    for (std::size_t i = 0; i < ranks.size(); ++i) {
      if (rank_group[i] < 0) continue;
      const std::size_t first = static_cast<std::size_t>(rank_group[i]) << bits;
      const std::uint64_t target = before[first] + static_cast<std::uint64_t>(rank_in_group[i]);
      std::size_t b = first;
      while (before[b + 1] <= target) ++b;
      EXPECT_LT(b, first + (std::size_t(1) << bits)) << "a rank left its group";
      if (min[b] == max[b]) {
        r.answers[i] = min[b];
        rank_group[i] = -1;
        continue;
      }
      if (next_bucket.empty() || next_bucket.back() != b) {
        next_bucket.push_back(b);
        next.push_back({min[b], max[b]});
      }
      rank_group[i] = static_cast<int>(next.size() - 1);
      rank_in_group[i] = static_cast<std::int64_t>(target - before[b]);
    }
    groups = std::move(next);
    if (r.rounds > 200) break;  // the bound check below fails first
  }
  return r;
}

template <class K>
void check_descent(std::vector<K> keys, const std::vector<std::int64_t>& ranks, const char* what) {
  const model_result<K> r = run_descent_model(keys, ranks);
  std::sort(keys.begin(), keys.end());
  for (std::size_t i = 0; i < ranks.size(); ++i)
    ASSERT_EQ(r.answers[i], keys[static_cast<std::size_t>(ranks[i])]) << what << " rank " << ranks[i];
  EXPECT_LE(r.rounds, core::descent_max_rounds(8 * sizeof(K), static_cast<std::int64_t>(ranks.size()))) << what;
}

std::vector<std::int64_t> spread(std::int64_t n, std::int64_t count) {
  std::vector<std::int64_t> r;
  for (std::int64_t i = 0; i < count; ++i) r.push_back(count > 1 ? (n - 1) * i / (count - 1) : n / 2);
  r.erase(std::unique(r.begin(), r.end()), r.end());
  return r;
}

template <class K>
class DescentPlan : public ::testing::Test {};
using KeyWidths = ::testing::Types<std::uint32_t, std::uint64_t>;
TYPED_TEST_SUITE(DescentPlan, KeyWidths);

TYPED_TEST(DescentPlan, ExactWithinTheQueuedRounds) {
  using K = TypeParam;
  std::uint64_t counter = 0;
  const auto next = [&] { return test::random_word(7, counter++); };
  const std::int64_t n = 20000;
  std::vector<std::vector<K>> inputs;
  std::vector<K> v(static_cast<std::size_t>(n));
  for (auto& x : v) x = static_cast<K>(next());
  inputs.push_back(v);  // random over the whole key range
  for (auto& x : v) x = static_cast<K>(next() % 16) * (std::numeric_limits<K>::max() / 15);
  inputs.push_back(v);  // sixteen values far apart
  for (auto& x : v) x = K(42);
  inputs.push_back(v);  // all equal
  // Pairs of neighbours at every bit width (x = 2^k - 1 and 2^k): every group
  // stays as wide as the rules allow for as long as they allow.
  for (std::size_t i = 0; i < v.size(); ++i) {
    const int k = static_cast<int>(i / 2 % (8 * sizeof(K)));
    const K p = K(1) << k;
    v[i] = i % 2 ? p : static_cast<K>(p - 1);
  }
  inputs.push_back(v);
  for (auto& x : v) x = static_cast<K>(next() % 1000) + (K(1) << (8 * sizeof(K) - 2));  // a narrow cluster
  inputs.push_back(v);
  for (const auto& in : inputs)
    for (const std::int64_t count : {1, 2, 101, 512})
      check_descent<K>(in, spread(n, count), "input");
}

TEST(DescentPlanRules, BoundsAndBits) {
  EXPECT_EQ(core::ceil_log2(1), 0);
  EXPECT_EQ(core::ceil_log2(2), 1);
  EXPECT_EQ(core::ceil_log2(3), 2);
  EXPECT_EQ(core::ceil_log2(512), 9);
  EXPECT_EQ(core::descent_group_bits(1), core::descent_bucket_bits);
  EXPECT_EQ(core::descent_group_bits(core::descent_max_ranks), 3);
  // One rank over 32-bit keys: 12 bits, then 12 at a time: 3 rounds; 64-bit: 1 + ceil(52 / 12) = 6.
  EXPECT_EQ(core::descent_max_rounds(32, 1), 3);
  EXPECT_EQ(core::descent_max_rounds(64, 1), 6);
  // 512 ranks (and more: 512 per descent): 3 bits a round after the first.
  EXPECT_EQ(core::descent_max_rounds(32, 512), 1 + 7);
  EXPECT_EQ(core::descent_max_rounds(32, 5000), 1 + 7);
  EXPECT_EQ(core::descent_max_rounds(64, 512), 1 + 18);
  // The shift keeps every key of a group inside its buckets.
  EXPECT_EQ(core::descent_shift<std::uint32_t>(0, 0xffffffffu, 12), 20);
  EXPECT_EQ(core::descent_shift<std::uint32_t>(10, 10 + 4095, 12), 0);
  EXPECT_EQ(core::descent_shift<std::uint32_t>(10, 10 + 4096, 12), 1);
}

}  // namespace
}  // namespace kselect
