// plan/bin_map.hpp and plan/bin_reduction.hpp: the pre-pass's bin map is monotone
// and in range for every key type and distribution, spreads sampled keys over
// many bins, and reducing to the selected bins keeps every rank's answer.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "common/generate.hpp"
#include "plan/bin_map.hpp"
#include "plan/bin_reduction.hpp"
#include "plan/key_traits.hpp"

namespace kselect {
namespace {

using test::dist;

template <class T>
class BinMap : public ::testing::Test {};
using KeyTypes = ::testing::Types<float, double, std::int32_t, std::uint32_t, std::int64_t, std::uint64_t>;
TYPED_TEST_SUITE(BinMap, KeyTypes);

template <class T>
std::vector<plan::key_t<T>> sorted_pre_keys(const std::vector<T>& v) {
  std::vector<plan::key_t<T>> p;
  for (T x : v) p.push_back(plan::key_traits<T>::pre_key(x));
  std::sort(p.begin(), p.end());
  return p;
}

// For every distribution: a map built from a 4096-key sample is monotone over all
// keys, stays in range, and a reduction to the bins holding ranks answers each
// rank with the same key as sorting everything.
TYPED_TEST(BinMap, MonotoneInRangeAndReductionKeepsAnswers) {
  using T = TypeParam;
  using K = plan::key_t<T>;
  using kt = plan::key_traits<T>;
  for (dist d : test::all_dists()) {
    SCOPED_TRACE(test::name(d));
    const std::int64_t n = 200003;
    const std::vector<T> values = test::generate<T>(d, n, 17);
    std::vector<T> sample;
    for (std::int64_t i = 0; i < 4096; ++i) sample.push_back(values[static_cast<std::size_t>(i * n / 4096)]);
    const std::vector<K> sp = sorted_pre_keys(sample);
    const auto map = plan::build_bin_map<K>(sp.data(), static_cast<int>(sp.size()), 7680);
    ASSERT_LE(map.num_bins, 7680u + plan::bin_map_slots);

    std::vector<K> all = sorted_pre_keys(values);
    // Extremes of the key type too.
    all.insert(all.begin(), K(0));
    all.push_back(static_cast<K>(~K(0)));
    std::uint32_t prev = 0;
    for (K p : all) {
      const std::uint32_t b = plan::bin_of(map, p);
      ASSERT_LT(b, map.num_bins);
      ASSERT_GE(b, prev) << "pre-key " << +p;
      prev = b;
    }

    std::vector<std::uint64_t> hist(map.num_bins, 0);
    for (T x : values) ++hist[plan::bin_of(map, kt::pre_key(x))];
    std::vector<std::int64_t> ranks = {0, 1, n / 100, n / 2, n - 2, n - 1};
    for (int i = 1; i < 100; ++i) ranks.push_back(i * n / 100 + 1);
    std::sort(ranks.begin(), ranks.end());
    ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
    const plan::bin_reduction red = plan::reduce_to_bins(hist, ranks);

    std::vector<K> kept;  // to_key of the selected bins' values, in input order
    for (T x : values) {
      const std::uint32_t b = plan::bin_of(map, kt::pre_key(x));
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
    for (K p : sp) sample_bins.push_back(plan::bin_of(map, p));
    const double predicted = plan::predict_kept_fraction(sample_bins, ranks, n);
    if (d == dist::uniform || d == dist::normal || d == dist::sorted || d == dist::shared_prefix) {
      EXPECT_LT(red.kept, n / 16) << "kept " << red.kept << " of " << n;
      EXPECT_LT(predicted, 1.0 / 16);
    }
    if (d == dist::all_equal || d == dist::two_values || d == dist::sixteen_values) EXPECT_GT(predicted, 0.5);
  }
}

TEST(BinMapBuild, UniformFloatsGetEvenBins) {
  const std::vector<float> values = test::generate<float>(dist::uniform, 1 << 20, 3);
  std::vector<float> sample(values.begin(), values.begin() + 4096);
  std::vector<std::uint32_t> sp;
  for (float x : sample) sp.push_back(plan::key_traits<float>::pre_key(x));
  std::sort(sp.begin(), sp.end());
  const auto map = plan::build_bin_map<std::uint32_t>(sp.data(), 4096, 7680);
  std::vector<std::uint64_t> hist(map.num_bins, 0);
  for (float x : values) ++hist[plan::bin_of(map, plan::key_traits<float>::pre_key(x))];
  const std::uint64_t largest = *std::max_element(hist.begin(), hist.end());
  // 2^20 keys over ~7680 bins: ~137 per bin. A slot's keys past its largest sample
  // key share its last bin, so some bins hold several times the mean; none 16x.
  EXPECT_LT(largest, (1u << 20) / 7680 * 16) << "largest bin " << largest;
}

}  // namespace
}  // namespace kselect
