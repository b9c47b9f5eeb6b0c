// select, multiselect, quantile and approximate selection answer elements of the
// input bit for bit: -0.0 stays -0.0, a NaN keeps its sign and payload, and of equal
// elements with different bits the one at that position of the stable sort is taken.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "api/input_elements.hpp"
#include "common/signed_elements.hpp"
#include "kselect/kselect.hpp"

namespace kselect {
namespace {

using test::bits_of;

template <class T>
class InputElements : public ::testing::Test {};
using FloatTypes = ::testing::Types<float, double>;
TYPED_TEST_SUITE(InputElements, FloatTypes);

options cpu_with(int threads) {
  options o;
  o.device = device_kind::cpu;
  o.cpu_threads = threads;
  return o;
}

// Sizes on both sides of the backend's parallel and base-case thresholds.
const std::int64_t k_sizes[] = {1, 2, 5, 33, 1000, (std::int64_t{1} << 16) + 3, std::int64_t{1} << 20};

TYPED_TEST(InputElements, SelectAndMultiselect) {
  using T = TypeParam;
  for (const auto mix : test::all_signed_mixes()) {
    for (const std::int64_t n : k_sizes) {
      SCOPED_TRACE(test::name(mix) + ", n = " + std::to_string(n));
      const std::vector<T> v = test::generate_signed<T>(mix, n, 7 + static_cast<std::uint64_t>(n));
      const std::vector<T> sorted = test::stable_sorted(v);
      std::vector<std::int64_t> ranks = {0, n / 3, n / 2, n - 1};
      if (n <= 40)
        for (std::int64_t k = 0; k < n; ++k) ranks.push_back(k);
      for (const int threads : {1, 2}) {
        const std::vector<T> got = multiselect(v.data(), n, ranks, cpu_with(threads));
        for (std::size_t i = 0; i < ranks.size(); ++i)
          ASSERT_EQ(bits_of(got[i]), bits_of(sorted[static_cast<std::size_t>(ranks[i])]))
              << "rank " << ranks[i] << ", " << threads << " threads";
        const T one = select(v.data(), n, n / 2, cpu_with(threads));
        ASSERT_EQ(bits_of(one), bits_of(sorted[static_cast<std::size_t>(n / 2)]));
      }
    }
  }
}

// The case: only -0.0 among the zeros, k = 0 gives -0.0.
TYPED_TEST(InputElements, NegativeZeroIsKept) {
  using T = TypeParam;
  const std::vector<T> v = {T(-0.0), T(-0.0), T(-0.0), T(1)};
  EXPECT_EQ(bits_of(select(v, 0)), bits_of(T(-0.0)));
  const std::vector<double> qs = {0.0, 0.1, 0.5, 0.6, 2.0 / 3};
  // NumPy 2.4.6: np.quantile(np.array([-0.,-0.,-0.,1.]), [0, .1, .5, .6, 2/3]) is
  // [0., 0., -0., -0., 0.] (float64 and float32): _lerp's a + (b - a) * t turns
  // -0.0 into +0.0 for t < 0.5 (2/3 lands on index 2 exactly, t = 0), and
  // b - (b - a) * (1 - t) keeps it for t >= 0.5.
  const auto q = quantile(v, qs);
  const T expected[] = {T(0.0), T(0.0), T(-0.0), T(-0.0), T(0.0)};
  for (std::size_t i = 0; i < qs.size(); ++i) EXPECT_EQ(bits_of(q[i]), bits_of(expected[i])) << "q = " << qs[i];
}

TYPED_TEST(InputElements, QuantilesFollowNumpyOnTheStableSort) {
  using T = TypeParam;
  const std::vector<double> qs = {0.0, 0.01, 0.1, 0.25, 0.4, 0.5, 0.6, 0.75, 0.99, 1.0};
  for (const auto mix : test::all_signed_mixes()) {
    for (const std::int64_t n : k_sizes) {
      SCOPED_TRACE(test::name(mix) + ", n = " + std::to_string(n));
      const std::vector<T> v = test::generate_signed<T>(mix, n, 11 + static_cast<std::uint64_t>(n));
      const std::vector<T> sorted = test::stable_sorted(v);
      for (const auto m : quantile_methods) {
        const auto got = quantile(v.data(), n, qs, m, cpu_with(0));
        const auto want = test::stable_quantiles(sorted, qs, m);
        for (std::size_t i = 0; i < qs.size(); ++i)
          ASSERT_EQ(bits_of(got[i]), bits_of(want[i])) << to_string(m) << " q = " << qs[i];
      }
    }
  }
}

TYPED_TEST(InputElements, ApproximateAnswersAreElementsAtTheirRank) {
  using T = TypeParam;
  for (const auto mix : test::all_signed_mixes()) {
    const std::int64_t n = std::int64_t{1} << 18;
    SCOPED_TRACE(test::name(mix));
    const std::vector<T> v = test::generate_signed<T>(mix, n, 5);
    const std::vector<T> sorted = test::stable_sorted(v);
    const std::vector<std::int64_t> ranks = {0, n / 4, n / 2, n - 1};
    for (const std::int64_t error : {std::int64_t{0}, n / 1000}) {
      const auto got = approx_multiselect(v.data(), n, ranks, error, cpu_with(0));
      for (std::size_t i = 0; i < ranks.size(); ++i) {
        ASSERT_LE(std::abs(got[i].rank - ranks[i]), error);
        ASSERT_EQ(bits_of(got[i].value), bits_of(sorted[static_cast<std::size_t>(got[i].rank)]))
            << "rank " << ranks[i] << " answered at " << got[i].rank;
      }
    }
  }
}

// The CUDA backend's lookup (deterministic rank ranges grouped by span), run on the
// CPU: answers far apart take several ranges, close ones share one; where every zero
// (or every NaN) has one bit pattern, the counts that find it answer instead. The
// last input: canonical NaNs only.
TYPED_TEST(InputElements, LookupByRanges) {
  using T = TypeParam;
  const std::int64_t n = (std::int64_t{1} << 22) + 5;
  std::vector<std::vector<T>> inputs;
  std::vector<std::string> names;
  for (const auto mix : test::all_signed_mixes()) {
    inputs.push_back(test::generate_signed<T>(mix, n, 21));
    names.push_back(test::name(mix));
  }
  inputs.push_back(inputs.back());
  for (T& x : inputs.back()) x = std::isnan(x) ? std::numeric_limits<T>::quiet_NaN() : x;
  names.push_back("canonical_nans");
  for (std::size_t in = 0; in < inputs.size(); ++in) {
    SCOPED_TRACE(names[in]);
    const std::vector<T>& v = inputs[in];
    const std::vector<T> sorted = test::stable_sorted(v);
    // Positions in any order, repeated, some far apart (more than n / 8).
    const std::vector<std::int64_t> positions = {n - 1, 0, n / 2, 1, n / 2, n / 3 + 7, n - 2, n / 5};
    std::vector<T> out(positions.size());
    for (std::size_t i = 0; i < positions.size(); ++i) {
      // What a backend answers: the key's canonical value.
      const T s = sorted[static_cast<std::size_t>(positions[i])];
      out[i] = std::isnan(s) ? std::numeric_limits<T>::quiet_NaN() : s == T(0) ? T(0) : s;
    }
    detail::restore_input_elements(detail::backend::cpu, v.data(), n, positions.data(),
                                   static_cast<std::int64_t>(positions.size()), out.data(), cpu_with(0),
                                   detail::element_lookup::by_rank_ranges);
    for (std::size_t i = 0; i < positions.size(); ++i)
      ASSERT_EQ(bits_of(out[i]), bits_of(sorted[static_cast<std::size_t>(positions[i])])) << positions[i];
  }
}

}  // namespace
}  // namespace kselect
