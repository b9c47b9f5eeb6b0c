// The owning API on device arrays gives exactly what it gives on host arrays
// (the CPU backend), for select, multiselect with unsorted repeated ranks,
// quantile in every method and nanquantile.
#include <gtest/gtest.h>

#include <vector>

#include "common/device_data.cuh"
#include "common/common.hpp"
#include "common/signed_elements.hpp"
#include "kselect/kselect.hpp"

namespace kselect::test {
namespace {

template <class T>
class GpuOwningApi : public ::testing::Test {};
using KeyTypes = ::testing::Types<float, double, std::int32_t, std::uint32_t, std::int64_t, std::uint64_t>;
TYPED_TEST_SUITE(GpuOwningApi, KeyTypes);

TYPED_TEST(GpuOwningApi, MatchesHostResults) {
  using T = TypeParam;
  ASSERT_TRUE(cuda_available());
  for (dist d : all_dists()) {
    for (std::int64_t n : {std::int64_t(1), std::int64_t(33), std::int64_t(100003), std::int64_t(1) << 21}) {
      SCOPED_TRACE(testing::Message() << name(d) << " n=" << n);
      const std::vector<T> host = generate<T>(d, n, 17 + n);
      const device_buffer<T> dev(host);
      EXPECT_EQ(pointer_location(dev.data()), device_kind::cuda);
      EXPECT_EQ(pointer_location(host.data()), device_kind::cpu);
      EXPECT_TRUE(same_value(select(dev.data(), n, n / 2), select(host, n / 2)));
      const std::vector<std::int64_t> ranks = {n - 1, 0, n / 3, 0, n / 2};
      const std::vector<T> got = multiselect(dev.data(), n, ranks);
      const std::vector<T> want = reference_multiselect<T>(host, ranks);
      for (std::size_t i = 0; i < ranks.size(); ++i) EXPECT_TRUE(same_value(got[i], want[i])) << i;
      const std::vector<double> qs = {0.0, 0.01, 0.25, 0.5, 0.999, 1.0};
      for (quantile_method m : quantile_methods) {
        const auto gq = quantile(dev.data(), n, qs, m);
        const auto hq = quantile(host, qs, m);
        for (std::size_t i = 0; i < qs.size(); ++i)
          EXPECT_TRUE(same_value(gq[i], hq[i])) << to_string(m) << " q=" << qs[i];
        const auto gn = nanquantile(dev.data(), n, qs, m);
        const auto hn = nanquantile(host, qs, m);
        for (std::size_t i = 0; i < qs.size(); ++i)
          EXPECT_TRUE(same_value(gn[i], hn[i])) << "nan " << to_string(m) << " q=" << qs[i];
      }
    }
  }
}

// Answers are the input's elements bit for bit (-0.0, signed NaNs): the element at
// that position of the stable sort, as on the CPU.
template <class T>
class GpuInputElements : public ::testing::Test {};
using FloatTypes = ::testing::Types<float, double>;
TYPED_TEST_SUITE(GpuInputElements, FloatTypes);

TYPED_TEST(GpuInputElements, SelectQuantileApprox) {
  using T = TypeParam;
  ASSERT_TRUE(cuda_available());
  const std::vector<double> qs = {0.0, 0.01, 0.25, 0.5, 0.6, 0.999, 1.0};
  for (const auto mix : all_signed_mixes()) {
    for (const std::int64_t n : {std::int64_t(5), std::int64_t(33), std::int64_t(100003), std::int64_t(1) << 21}) {
      SCOPED_TRACE(testing::Message() << name(mix) << " n=" << n);
      const std::vector<T> host = generate_signed<T>(mix, n, 3 + n);
      const std::vector<T> sorted = stable_sorted(host);
      const device_buffer<T> dev(host);
      const std::vector<std::int64_t> ranks = {n - 1, 0, n / 3, n / 2, n / 2 + 1 < n ? n / 2 + 1 : 0};
      const std::vector<T> got = multiselect(dev.data(), n, ranks);
      for (std::size_t i = 0; i < ranks.size(); ++i)
        ASSERT_EQ(bits_of(got[i]), bits_of(sorted[static_cast<std::size_t>(ranks[i])])) << "rank " << ranks[i];
      ASSERT_EQ(bits_of(select(dev.data(), n, n / 2)), bits_of(sorted[static_cast<std::size_t>(n / 2)]));
      for (quantile_method m : quantile_methods) {
        const auto gq = quantile(dev.data(), n, qs, m);
        const auto want = stable_quantiles(sorted, qs, m);
        for (std::size_t i = 0; i < qs.size(); ++i)
          ASSERT_EQ(bits_of(gq[i]), bits_of(want[i])) << to_string(m) << " q=" << qs[i];
      }
      const auto approx = approx_multiselect(dev.data(), n, ranks, n / 1000);
      for (std::size_t i = 0; i < ranks.size(); ++i)
        ASSERT_EQ(bits_of(approx[i].value), bits_of(sorted[static_cast<std::size_t>(approx[i].rank)]))
            << "approx rank " << ranks[i] << " at " << approx[i].rank;
    }
  }
}

TEST(GpuOwningApiErrors, DeviceInputErrors) {
  const device_buffer<float> dev(generate<float>(dist::uniform, 10, 1));
  EXPECT_THROW(select(dev.data(), 10, 10), std::invalid_argument);
  EXPECT_THROW(select(dev.data(), 0, 0), std::invalid_argument);
  options cpu;
  cpu.device = device_kind::cpu;
  EXPECT_THROW(select(dev.data(), 10, 1, cpu), std::invalid_argument);
}

}  // namespace
}  // namespace kselect::test
