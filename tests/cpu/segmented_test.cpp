// The segmented owning API (kselect/segmented.hpp) on the CPU, for all eight key
// types: every result against the per-segment reference (common/segmented_cpu_reference.hpp)
// on equal rows and ragged layouts (empty, length-1, all-equal, sorted, reversed and
// NaN-holding segments, one big segment among tiny ones), and the argument errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "common/common.hpp"
#include "common/expect_invalid.hpp"
#include "common/segmented_cpu_reference.hpp"
#include "cpu/segment_select.hpp"
#include "kselect/segmented.hpp"

namespace kselect {
namespace {

using test::comparable;
using test::expect_invalid;

/// A batch: the values and where the segments lie (equal rows, or ragged offsets).
template <class T>
struct batch {
  std::vector<T> values;
  std::vector<std::int64_t> lengths;
  std::vector<std::int64_t> offsets;  ///< always filled (the reference reads it)
  bool rows = false;

  std::int64_t n() const { return static_cast<std::int64_t>(values.size()); }
  std::int64_t m() const { return static_cast<std::int64_t>(lengths.size()); }
  segments segs() const {
    return rows ? segments::rows(m(), lengths.empty() ? 0 : lengths[0]) : segments::ragged(offsets.data(), m());
  }
  const T* segment(std::int64_t i) const { return values.data() + offsets[static_cast<std::size_t>(i)]; }
  std::int64_t min_length() const { return *std::min_element(lengths.begin(), lengths.end()); }
  std::int64_t max_length() const { return *std::max_element(lengths.begin(), lengths.end()); }
  std::vector<test::comparable_t<T>> sorted(std::int64_t i) const {
    return test::sorted_segment(values.data(), offsets[static_cast<std::size_t>(i)],
                                offsets[static_cast<std::size_t>(i) + 1]);
  }
};

/// Segment i drawn from the i-th distribution (cycling through all of them: sorted,
/// reversed, all equal, special values with NaNs...), or `only` for every segment.
template <class T>
batch<T> make_batch(std::vector<std::int64_t> lengths, bool rows, std::uint64_t seed,
                    const test::dist* only = nullptr) {
  batch<T> b;
  b.lengths = std::move(lengths);
  b.rows = rows;
  b.offsets = test::offsets_of(b.lengths);
  const std::vector<test::dist> dists = test::all_dists();
  for (std::size_t i = 0; i < b.lengths.size(); ++i) {
    const test::dist d = only ? *only : dists[i % dists.size()];
    const std::vector<T> part = test::generate_keys<T>(d, b.lengths[i], seed * 1000 + i);
    b.values.insert(b.values.end(), part.begin(), part.end());
  }
  return b;
}

/// Random lengths in [0, max_length], a few of them 0 and 1 when allow_empty.
std::vector<std::int64_t> ragged_lengths(std::int64_t m, std::int64_t max_length, bool allow_empty,
                                         std::uint64_t seed) {
  std::vector<std::int64_t> lengths(static_cast<std::size_t>(m));
  for (std::int64_t i = 0; i < m; ++i) {
    const std::uint64_t w = test::random_word(seed, static_cast<std::uint64_t>(i));
    std::int64_t len = static_cast<std::int64_t>(w % static_cast<std::uint64_t>(max_length + 1));
    if (i % 7 == 3) len = allow_empty ? 0 : 1;
    if (i % 7 == 5) len = 1;
    lengths[static_cast<std::size_t>(i)] = allow_empty ? len : std::max<std::int64_t>(len, 1);
  }
  return lengths;
}

/// The layouts every operation is checked on.
template <class T>
std::vector<batch<T>> small_batches(std::uint64_t seed) {
  std::vector<batch<T>> batches;
  batches.push_back(make_batch<T>({1000}, true, seed));                                        // m = 1
  batches.push_back(make_batch<T>(std::vector<std::int64_t>(37, 53), true, seed + 1));         // rows
  batches.push_back(make_batch<T>(std::vector<std::int64_t>(200, 1), true, seed + 2));         // length 1
  batches.push_back(make_batch<T>(std::vector<std::int64_t>(4, 0), true, seed + 3));           // n = 0
  batches.push_back(make_batch<T>(ragged_lengths(64, 300, true, seed), false, seed + 4));      // empty segments
  batches.push_back(make_batch<T>(ragged_lengths(50, 120, false, seed), false, seed + 5));     // none empty
  batches.push_back(make_batch<T>({5, 0, 3000, 1, 2}, false, seed + 6));                       // > nth_element
  // Enough segments for several chunks, so that threads share the batch.
  batches.push_back(make_batch<T>(std::vector<std::int64_t>(3000, 40), true, seed + 7));
  batches.push_back(make_batch<T>(ragged_lengths(2000, 100, true, seed), false, seed + 8));
  return batches;
}

std::string describe(const segments& s, std::int64_t n) {
  return (s.offsets ? "ragged, m = " : "rows, m = ") + std::to_string(s.count) + ", n = " + std::to_string(n);
}

/// Checks of each operation on one batch (every rank or k the batch allows).
template <class T>
void check_select(const batch<T>& b, const options& opt) {
  if (b.min_length() == 0) return;  // select throws there (SegmentedErrors)
  std::vector<std::vector<test::comparable_t<T>>> sorted;
  for (std::int64_t i = 0; i < b.m(); ++i) sorted.push_back(b.sorted(i));
  const auto expect_rank = [&](const std::vector<T>& got, const std::vector<std::int64_t>& ks) {
    ASSERT_EQ(got.size(), static_cast<std::size_t>(b.m()));
    for (std::int64_t i = 0; i < b.m(); ++i) {
      const auto want = sorted[static_cast<std::size_t>(i)][static_cast<std::size_t>(ks[static_cast<std::size_t>(i)])];
      EXPECT_TRUE(test::same_value(comparable(got[static_cast<std::size_t>(i)]), want))
          << "segment " << i << ", rank " << ks[static_cast<std::size_t>(i)] << ": " << comparable(got[i])
          << ", expected " << want;
      EXPECT_TRUE(test::is_canonical(got[static_cast<std::size_t>(i)])) << "segment " << i;
    }
  };
  for (const std::int64_t k : {std::int64_t{0}, b.min_length() - 1, b.min_length() / 2})
    expect_rank(segmented_select(b.values.data(), b.n(), b.segs(), k, opt),
                std::vector<std::int64_t>(static_cast<std::size_t>(b.m()), k));
  // A k per segment: 0, 1, len / 2 and len - 1 of each.
  for (int variant = 0; variant < 4; ++variant) {
    std::vector<std::int64_t> ks;
    for (const std::int64_t len : b.lengths) {
      const std::int64_t choices[] = {0, std::min<std::int64_t>(1, len - 1), len / 2, len - 1};
      ks.push_back(choices[(variant + ks.size()) % 4]);
    }
    expect_rank(segmented_select(b.values.data(), b.n(), b.segs(), std::span<const std::int64_t>(ks), opt), ks);
  }
}

template <class T>
void check_multiselect(const batch<T>& b, const options& opt) {
  if (b.min_length() == 0) return;
  const std::int64_t len = b.min_length();
  // Few ranks (nth_element per rank), repeats and any order; then many (one sort).
  std::vector<std::vector<std::int64_t>> rank_lists = {{len - 1, 0, len / 2, 0}, {}};
  for (const std::int64_t r : test::standard_ranks(len, 40, 7)) rank_lists[1].push_back(r);
  std::reverse(rank_lists[1].begin(), rank_lists[1].end());
  for (const auto& ranks : rank_lists) {
    const matrix<T> got =
        segmented_multiselect(b.values.data(), b.n(), b.segs(), std::span<const std::int64_t>(ranks), opt);
    ASSERT_EQ(got.rows, b.m());
    ASSERT_EQ(got.cols, static_cast<std::int64_t>(ranks.size()));
    for (std::int64_t i = 0; i < b.m(); ++i) {
      const auto sorted = b.sorted(i);
      for (std::size_t j = 0; j < ranks.size(); ++j) {
        const auto want = sorted[static_cast<std::size_t>(ranks[j])];
        EXPECT_TRUE(test::same_value(comparable(got(i, static_cast<std::int64_t>(j))), want))
            << "segment " << i << ", ranks[" << j << "] = " << ranks[j];
        EXPECT_TRUE(test::is_canonical(got(i, static_cast<std::int64_t>(j))));
      }
    }
  }
}

template <class T>
void check_quantiles(const batch<T>& b, const options& opt) {
  const std::vector<double> qs = {0.0, 0.01, 0.25, 0.5, 0.6, 0.99, 1.0, 0.3333};
  for (const quantile_method method : quantile_methods)
    for (const bool ignore_nan : {false, true}) {
      const auto got = ignore_nan ? segmented_nanquantile(b.values.data(), b.n(), b.segs(), qs, method, opt)
                                  : segmented_quantile(b.values.data(), b.n(), b.segs(), qs, method, opt);
      ASSERT_EQ(got.rows, b.m());
      ASSERT_EQ(got.cols, static_cast<std::int64_t>(qs.size()));
      for (std::int64_t i = 0; i < b.m(); ++i) {
        const auto sorted = b.sorted(i);
        for (std::size_t j = 0; j < qs.size(); ++j) {
          const auto want = test::reference_quantile<T>(sorted, qs[j], method, ignore_nan);
          EXPECT_TRUE(test::same_value(got(i, static_cast<std::int64_t>(j)), want))
              << to_string(method) << (ignore_nan ? " nanquantile" : " quantile") << ", segment " << i
              << " (length " << sorted.size() << "), q = " << qs[j] << ": " << got(i, static_cast<std::int64_t>(j))
              << ", expected " << want;
        }
      }
    }
  const auto median = segmented_median(b.values.data(), b.n(), b.segs(), opt);
  ASSERT_EQ(median.size(), static_cast<std::size_t>(b.m()));
  for (std::int64_t i = 0; i < b.m(); ++i)
    EXPECT_TRUE(test::same_value(median[static_cast<std::size_t>(i)], test::reference_median<T>(b.sorted(i))))
        << "segment " << i;
}

template <class T>
void check_topk(const batch<T>& b, const options& opt) {
  for (const std::int64_t k : {std::int64_t{0}, std::int64_t{1}, std::int64_t{3}, b.max_length() / 2,
                               b.max_length() + 2})
    for (const bool largest : {false, true})
      for (const bool sorted : {false, true})
        for (const bool deterministic : {false, true}) {
          SCOPED_TRACE(testing::Message() << "k = " << k << (largest ? " largest" : " smallest")
                                          << (sorted ? " sorted" : "") << (deterministic ? " deterministic" : ""));
          const topk_options t{largest, sorted, deterministic, true};
          const segmented_selection<T> got = segmented_topk(b.values.data(), b.n(), b.segs(), k, t, opt);
          ASSERT_EQ(got.values.rows, b.m());
          ASSERT_EQ(got.values.cols, k);
          ASSERT_EQ(got.indices.rows, b.m());
          ASSERT_EQ(got.indices.cols, k);
          for (std::int64_t i = 0; i < b.m(); ++i) {
            const std::size_t row = static_cast<std::size_t>(i * k);
            // The CPU backend is always deterministic; the weaker check is the GPU's.
            for (const bool exact : {deterministic, true})
              ASSERT_TRUE(test::check_topk_row(b.segment(i), b.lengths[static_cast<std::size_t>(i)], k, largest,
                                               sorted, exact, got.values.data.data() + row,
                                               got.indices.data.data() + row))
                  << "segment " << i;
          }
        }
  // Without indices: the same values, an empty index matrix.
  const std::int64_t k = 2;
  const auto with = segmented_topk(b.values.data(), b.n(), b.segs(), k, topk_options{true, true, true, true}, opt);
  const auto without = segmented_topk(b.values.data(), b.n(), b.segs(), k, topk_options{true, true, true, false}, opt);
  EXPECT_TRUE(without.indices.data.empty());
  ASSERT_EQ(without.values.data.size(), with.values.data.size());
  for (std::size_t j = 0; j < with.values.data.size(); ++j)
    EXPECT_EQ(test::bits_of_key(without.values.data[j]), test::bits_of_key(with.values.data[j]));
}

template <class T>
void check_everything(const batch<T>& b) {
  for (const int threads : {1, 0}) {
    options opt;
    opt.cpu_threads = threads;
    SCOPED_TRACE(describe(b.segs(), b.n()) + (threads == 1 ? ", one thread" : ", default threads"));
    check_select(b, opt);
    check_multiselect(b, opt);
    check_quantiles(b, opt);
    check_topk(b, opt);
  }
}

template <class T>
class Segmented : public testing::Test {};

using segmented_key_types =
    testing::Types<float, double, std::int32_t, std::uint32_t, std::int64_t, std::uint64_t, float16, bfloat16>;

struct key_type_names {
  template <class T>
  static std::string GetName(int) {
    if constexpr (std::is_same_v<T, float>) return "float";
    if constexpr (std::is_same_v<T, double>) return "double";
    if constexpr (std::is_same_v<T, std::int32_t>) return "int32";
    if constexpr (std::is_same_v<T, std::uint32_t>) return "uint32";
    if constexpr (std::is_same_v<T, std::int64_t>) return "int64";
    if constexpr (std::is_same_v<T, std::uint64_t>) return "uint64";
    if constexpr (std::is_same_v<T, float16>) return "float16";
    if constexpr (std::is_same_v<T, bfloat16>) return "bfloat16";
    return "?";
  }
};
TYPED_TEST_SUITE(Segmented, segmented_key_types, key_type_names);

TYPED_TEST(Segmented, EveryOperationOnSmallLayouts) {
  for (const auto& b : small_batches<TypeParam>(11)) check_everything(b);
}

// One segment long enough for the parallel path (the single-array backend, or counting
// for 16-bit keys) among tiny ones, which run on the short path at the same time.
TYPED_TEST(Segmented, OneBigSegmentAmongTinyOnes) {
  using T = TypeParam;
  // No empty segment: select answers every segment (empty ones: EveryOperationOnSmallLayouts).
  std::vector<std::int64_t> lengths = ragged_lengths(300, 4, false, 5);
  lengths[150] = std::int64_t{1} << 21;
  static_assert(cpu::big_segment_min <= (std::int64_t{1} << 21));
  for (const test::dist d : {test::dist::normal, test::dist::special, test::dist::sixteen_values}) {
    SCOPED_TRACE(test::name(d));
    batch<T> b = make_batch<T>(lengths, false, 23);
    // The big segment from d; the tiny ones keep their cycle of distributions.
    const std::vector<T> big = test::generate_keys<T>(d, lengths[150], 99);
    std::copy(big.begin(), big.end(), b.values.begin() + b.offsets[150]);
    const std::int64_t big_len = lengths[150];
    std::vector<std::vector<test::comparable_t<T>>> sorted;
    for (std::int64_t i = 0; i < b.m(); ++i) sorted.push_back(b.sorted(i));
    options opt;

    std::vector<std::int64_t> ks(lengths.size(), 0);
    for (const std::int64_t k : {std::int64_t{0}, std::int64_t{1}, big_len / 2, big_len - 1}) {
      for (std::size_t i = 0; i < ks.size(); ++i) ks[i] = i == 150 ? k : lengths[i] - 1;
      const std::vector<T> got =
          segmented_select(b.values.data(), b.n(), b.segs(), std::span<const std::int64_t>(ks), opt);
      for (std::size_t i = 0; i < ks.size(); ++i) {
        EXPECT_TRUE(test::same_value(comparable(got[i]), sorted[i][static_cast<std::size_t>(ks[i])]))
            << "segment " << i << ", k = " << ks[i];
        EXPECT_TRUE(test::is_canonical(got[i]));
      }
    }

    const std::vector<double> qs = {0.0, 0.1, 0.5, 0.9, 1.0};
    for (const bool ignore_nan : {false, true}) {
      const auto m = quantile_method::linear;
      const auto got = ignore_nan ? segmented_nanquantile(b.values.data(), b.n(), b.segs(), qs, m, opt)
                                  : segmented_quantile(b.values.data(), b.n(), b.segs(), qs, m, opt);
      for (std::size_t i = 0; i < sorted.size(); ++i)
        for (std::size_t j = 0; j < qs.size(); ++j)
          EXPECT_TRUE(test::same_value(got(static_cast<std::int64_t>(i), static_cast<std::int64_t>(j)),
                                       test::reference_quantile<T>(sorted[i], qs[j], m, ignore_nan)))
              << "segment " << i << ", q = " << qs[j] << (ignore_nan ? " nanquantile" : " quantile");
    }

    for (const bool largest : {false, true})
      for (const bool sorted_output : {false, true}) {
        const std::int64_t k = 1000;
        const auto got = segmented_topk(b.values.data(), b.n(), b.segs(), k,
                                        topk_options{largest, sorted_output, true, true}, opt);
        for (std::int64_t i = 0; i < b.m(); ++i)
          ASSERT_TRUE(test::check_topk_row(b.segment(i), lengths[static_cast<std::size_t>(i)], k, largest,
                                           sorted_output, true, got.values.data.data() + i * k,
                                           got.indices.data.data() + i * k))
              << "segment " << i << (largest ? " largest" : " smallest") << (sorted_output ? " sorted" : "");
      }
  }
}

// Many ranks inside a big segment (the multiselect path with every thread), next to
// short segments of at least that many values.
TYPED_TEST(Segmented, ManyRanksInABigSegment) {
  using T = TypeParam;
  const test::dist d = test::dist::clustered;
  batch<T> b = make_batch<T>({200, std::int64_t{1} << 20, 300, 200}, false, 31, &d);
  const std::vector<std::int64_t> ranks = test::standard_ranks(200, 30, 3);
  const matrix<T> got = segmented_multiselect(b.values.data(), b.n(), b.segs(), std::span<const std::int64_t>(ranks));
  for (std::int64_t i = 0; i < b.m(); ++i) {
    const auto sorted = b.sorted(i);
    for (std::size_t j = 0; j < ranks.size(); ++j)
      EXPECT_TRUE(test::same_value(comparable(got(i, static_cast<std::int64_t>(j))),
                                   sorted[static_cast<std::size_t>(ranks[j])]))
          << "segment " << i << ", rank " << ranks[j];
  }
}

TYPED_TEST(Segmented, EmptyRankAndQuantileListsGiveNoColumns) {
  using T = TypeParam;
  const batch<T> b = make_batch<T>({3, 0, 2}, false, 41);
  const matrix<T> r = segmented_multiselect(b.values.data(), b.n(), b.segs(), std::span<const std::int64_t>());
  EXPECT_EQ(r.rows, 3);
  EXPECT_EQ(r.cols, 0);
  EXPECT_TRUE(r.data.empty());
  const auto q = segmented_quantile(b.values.data(), b.n(), b.segs(), std::span<const double>());
  EXPECT_EQ(q.rows, 3);
  EXPECT_EQ(q.cols, 0);
  const auto t = segmented_topk(b.values.data(), b.n(), b.segs(), 0);
  EXPECT_EQ(t.values.rows, 3);
  EXPECT_EQ(t.values.cols, 0);
}

// The contract's canonical answers: selections give +0.0 and the quiet NaN; top-k the
// input's bits; short rows padded with NaN (or -inf for the largest) and index -1.
TEST(SegmentedHalf, CanonicalZerosAndNansAndPadding) {
  const float16 neg_zero{0x8000u}, neg_nan{0xfe01u}, one = to_float16(1.0f);
  const std::vector<float16> v = {neg_zero, neg_zero, neg_nan, one};
  const std::vector<std::int64_t> offsets = {0, 2, 4};
  const auto segs = segments::ragged(offsets.data(), 2);
  const std::vector<std::int64_t> ks = {1, 1};
  const std::vector<float16> s = segmented_select(v.data(), 4, segs, std::span<const std::int64_t>(ks));
  EXPECT_EQ(s[0].bits, 0x0000u);  // +0.0
  EXPECT_EQ(s[1].bits, 0x7e00u);  // the canonical NaN
  const auto t = segmented_topk(v.data(), 4, segs, 3, topk_options{false, true, true, true});
  EXPECT_EQ(t.values(0, 0).bits, 0x8000u);  // bit for bit
  EXPECT_EQ(t.values(0, 2).bits, 0x7e00u);  // padding: NaN
  EXPECT_EQ(t.indices(0, 2), -1);
  EXPECT_EQ(t.values(1, 0).bits, one.bits);
  EXPECT_EQ(t.values(1, 1).bits, 0xfe01u);
  const auto l = segmented_topk(v.data(), 4, segs, 3, topk_options{true, true, true, true});
  EXPECT_EQ(l.values(1, 0).bits, 0xfe01u);  // NaN is the largest
  EXPECT_EQ(l.values(1, 2).bits, 0xfc00u);  // padding: -inf
  const auto q = segmented_quantile(v.data(), 4, segs, std::vector<double>{0.5});
  EXPECT_EQ(q(0, 0), 0.0f);
  EXPECT_TRUE(std::isnan(q(1, 0)));
  const auto nq = segmented_nanquantile(v.data(), 4, segs, std::vector<double>{0.5});
  EXPECT_EQ(nq(1, 0), 1.0f);
}

// numpy.median is np.mean of the middle values, not quantile(a, 0.5)'s lerp: the two
// differ where the difference overflows (float -3e38 and 3e38: mean 0, lerp -inf),
// and integers are converted to double before they are added.
TEST(SegmentedMedian, IsNumpysMeanOfTheMiddleValuesNotTheLerp) {
  const std::vector<float> f = {3e38f, -3e38f, 1.0f, 2.0f, 7.0f};
  const std::vector<std::int64_t> offsets = {0, 2, 5};
  const auto median = segmented_median(f.data(), 5, segments::ragged(offsets.data(), 2));
  EXPECT_EQ(median[0], 0.0f);  // (-3e38 + 3e38) / 2
  EXPECT_EQ(median[1], 2.0f);  // odd: the middle value itself
  const auto lerp = segmented_quantile(f.data(), 5, segments::ragged(offsets.data(), 2), std::vector<double>{0.5});
  EXPECT_TRUE(std::isinf(lerp(0, 0)));  // 3e38 - (3e38 - -3e38) * 0.5: the difference overflowed
  // int64 near 2^62: NumPy converts each to float64, adds (rounding), halves.
  const std::int64_t big = (std::int64_t{1} << 62) + 1;
  const std::vector<std::int64_t> v = {big, big + 2, -5, 4};
  const auto m = segmented_median(v.data(), 4, segments::rows(2, 2));
  EXPECT_EQ(m[0], (static_cast<double>(big) + static_cast<double>(big + 2)) / 2.0);
  EXPECT_EQ(m[1], -0.5);
  // A huge odd float is returned as it is (the mean of one value is the value: no
  // a + a overflowing to inf).
  const std::vector<float> odd = {3.4e38f, 3.4e38f, 3.4e38f};
  EXPECT_EQ(segmented_median(odd.data(), 3, segments::rows(1, 3))[0], 3.4e38f);
}

TEST(SegmentedInt, PaddingIsTheTypesExtremes) {
  const std::vector<std::int32_t> v = {5, -7};
  const auto small = segmented_topk(v.data(), 2, segments::rows(1, 2), 3);
  EXPECT_EQ(small.values.data, (std::vector<std::int32_t>{5, -7, std::numeric_limits<std::int32_t>::max()}));
  EXPECT_EQ(small.indices.data, (std::vector<std::int64_t>{0, 1, -1}));
  const auto large = segmented_topk(v.data(), 2, segments::rows(1, 2), 3, topk_options{true, true});
  EXPECT_EQ(large.values.data, (std::vector<std::int32_t>{5, -7, std::numeric_limits<std::int32_t>::min()}));
}

TEST(SegmentedErrors, MessagesNameTheArgumentAndTheSegment) {
  const std::vector<float> v(10, 1.0f);
  const auto ragged = [&](std::vector<std::int64_t> offsets, std::int64_t n = 10) {
    return [offsets, n, &v] {
      segmented_select(v.data(), n, segments::ragged(offsets.data(), static_cast<std::int64_t>(offsets.size()) - 1),
                       std::int64_t{0});
    };
  };
  expect_invalid(ragged({1, 5, 10}), "offsets[0] = 1 but the first offset must be 0");
  expect_invalid(ragged({0, 6, 4, 10}), "offsets[2] = 4 is less than offsets[1] = 6");
  expect_invalid(ragged({0, 4, 8}), "offsets[2] = 8 but n = 10");
  expect_invalid([&] { segmented_select(v.data(), 10, segments::rows(3, 4), 0); }, "3 rows of 4 values");
  expect_invalid([&] { segmented_select(v.data(), 10, segments::rows(0, 4), 0); }, "number of segments is 0");
  expect_invalid([&] { segmented_select<float>(nullptr, 10, segments::rows(2, 5), 0); }, "values is null");
  expect_invalid([&] { segmented_select(v.data(), -1, segments::rows(1, 0), 0); }, "n = -1 is negative");
  options bad_threads;
  bad_threads.cpu_threads = -2;
  expect_invalid([&] { segmented_select(v.data(), 10, segments::rows(2, 5), 0, bad_threads); }, "cpu_threads");

  // Ranks: the first segment they do not fit, by name.
  const std::vector<std::int64_t> offsets = {0, 4, 8, 8, 10};  // lengths 4, 4, 0, 2
  const auto segs = segments::ragged(offsets.data(), 4);
  expect_invalid([&] { segmented_select(v.data(), 10, segs, 0); }, "k = 0 is outside [0, 0) for segment 2");
  const std::vector<std::int64_t> lengths_4_4_3 = {0, 4, 8, 10};  // lengths 4, 4, 2
  const auto segs3 = segments::ragged(lengths_4_4_3.data(), 3);
  expect_invalid([&] { segmented_select(v.data(), 10, segs3, 3); }, "k = 3 is outside [0, 2) for segment 2");
  expect_invalid([&] { segmented_select(v.data(), 10, segs3, -1); }, "k = -1 is outside [0, 4) for segment 0");
  const std::vector<std::int64_t> five = {0, 0, 0, 0, 0};
  expect_invalid([&] { segmented_select(v.data(), 10, segs3, std::span<const std::int64_t>(five)); },
                 "ks has 5 entries but there are 3 segments");
  const std::vector<std::int64_t> ks = {3, 4, 0};
  expect_invalid([&] { segmented_select(v.data(), 10, segs3, std::span<const std::int64_t>(ks)); },
                 "ks[1] = 4 is outside [0, 4) for segment 1");
  const std::vector<std::int64_t> ranks = {0, 3, 1};
  expect_invalid([&] { segmented_multiselect(v.data(), 10, segs3, std::span<const std::int64_t>(ranks)); },
                 "ranks[1] = 3 is outside [0, 2) for segment 2");

  expect_invalid([&] { segmented_topk(v.data(), 10, segs3, -1); }, "k = -1 is negative");
  expect_invalid([&] { segmented_quantile(v.data(), 10, segs3, std::vector<double>{0.5, 1.5}); }, "qs[1] = 1.5");
  expect_invalid(
      [&] {
        segmented_nanquantile(v.data(), 10, segs3, std::vector<double>{0.5}, static_cast<quantile_method>(13));
      },
      "unknown quantile_method value 13");
  options on_cuda;
  on_cuda.device = device_kind::cuda;
#ifdef KSELECT_WITH_CUDA
  expect_invalid([&] { segmented_median(v.data(), 10, segs3, on_cuda); }, "values points to host memory");
#else
  expect_invalid([&] { segmented_median(v.data(), 10, segs3, on_cuda); }, "built without CUDA");
#endif
}

}  // namespace
}  // namespace kselect
