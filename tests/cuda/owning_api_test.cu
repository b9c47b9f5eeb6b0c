// The owning API on device arrays gives exactly what it gives on host arrays
// (the CPU backend), for select, multiselect with unsorted repeated ranks,
// quantile in every method and nanquantile.
#include <gtest/gtest.h>

#include <vector>

#include "common/device_data.cuh"
#include "common/common.hpp"
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
      for (quantile_method m : {quantile_method::linear, quantile_method::lower, quantile_method::higher,
                                quantile_method::nearest, quantile_method::midpoint}) {
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
