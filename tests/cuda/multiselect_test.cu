// GPU multiselection against the std::sort reference (and, for inputs too large
// to sort on the host quickly, against a CUB radix sort of the same keys):
// every key type, every distribution, the sizes of DEVELOPERS.md, every algorithm,
// ranks 0, 1, n/2, n-1 one at a time and 1000 random ranks at once.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "common/device_data.cuh"
#include "common/device_reference.cuh"
#include "common/common.hpp"
#include "cuda/gpu_test_util.cuh"
#include "kselect/device.hpp"

namespace kselect::test {
namespace {

template <class T>
class GpuMultiselect : public ::testing::Test {};
using KeyTypes = ::testing::Types<float, double, std::int32_t, std::uint32_t, std::int64_t, std::uint64_t>;
TYPED_TEST_SUITE(GpuMultiselect, KeyTypes);

constexpr algorithm kAlgorithms[] = {algorithm::automatic, algorithm::sample_select, algorithm::window};

const char* algo_name(algorithm a) { return to_string(a); }

template <class T>
void check_against(const std::vector<T>& expected, const std::vector<T>& got, std::span<const std::int64_t> ranks) {
  ASSERT_EQ(expected.size(), got.size());
  for (std::size_t i = 0; i < expected.size(); ++i)
    ASSERT_TRUE(same_value(expected[i], got[i]))
        << "rank " << ranks[i] << ": expected " << +expected[i] << ", got " << +got[i];
}

template <class T>
void sweep(std::int64_t max_n) {
  for (dist d : all_dists()) {
    for (std::int64_t n : test_sizes(max_n)) {
      if (n == 0) continue;
      const std::vector<T> host = generate<T>(d, n, 1234 + n);
      const device_buffer<T> data(host);
      const std::vector<std::int64_t> ranks = standard_ranks(n, 1000, 99 + n);
      const std::vector<T> expected = reference_multiselect<T>(host, ranks);
      for (algorithm a : kAlgorithms) {
        SCOPED_TRACE(testing::Message() << "dist=" << name(d) << " n=" << n << " algo=" << algo_name(a));
        check_against(expected, gpu_multiselect<T>(data.data(), n, ranks, a), ranks);
        // One rank at a time takes the single-rank (window) path.
        for (std::int64_t k : {std::int64_t(0), std::int64_t(1), n / 2, n - 1}) {
          if (k >= n) continue;
          const std::int64_t one[] = {k};
          SCOPED_TRACE(testing::Message() << "k=" << k);
          check_against(reference_multiselect<T>(host, one), gpu_multiselect<T>(data.data(), n, one, a), one);
        }
        if (::testing::Test::HasFatalFailure()) return;
      }
    }
  }
}

TYPED_TEST(GpuMultiselect, AllDistributionsSmallSizes) { sweep<TypeParam>(std::int64_t(1) << 16); }

TYPED_TEST(GpuMultiselect, AllDistributionsLargerSizes) {
  using T = TypeParam;
  for (dist d : all_dists()) {
    for (std::int64_t n : {(std::int64_t(1) << 20) + 1, std::int64_t(1) << 22}) {
      const std::vector<T> host = generate<T>(d, n, 777 + n);
      const device_buffer<T> data(host);
      const std::vector<std::int64_t> ranks = standard_ranks(n, 1000, 5 + n);
      const std::vector<T> expected = reference_multiselect<T>(host, ranks);
      for (algorithm a : kAlgorithms) {
        SCOPED_TRACE(testing::Message() << "dist=" << name(d) << " n=" << n << " algo=" << algo_name(a));
        check_against(expected, gpu_multiselect<T>(data.data(), n, ranks, a), ranks);
        const std::int64_t median[] = {n / 2};
        check_against(reference_multiselect<T>(host, median), gpu_multiselect<T>(data.data(), n, median, a), median);
      }
    }
  }
}

// Inputs generated on the device and checked against a device radix sort.
template <class T>
void device_generated(std::int64_t n, device_dist d, int random_ranks) {
  device_buffer<T> data(n);
  generate_on_device<T>(data.data(), n, d, 4242);
  cuda_check(cudaDeviceSynchronize(), "generate");
  const std::vector<std::int64_t> ranks = standard_ranks(n, random_ranks, 31);
  const std::vector<T> expected = device_sort_reference<T>(data.data(), n, ranks);
  for (algorithm a : kAlgorithms) {
    SCOPED_TRACE(testing::Message() << "dist=" << device_dist_name(d) << " n=" << n << " algo=" << algo_name(a));
    check_against(expected, gpu_multiselect<T>(data.data(), n, ranks, a), ranks);
    const std::int64_t median[] = {n / 2};
    const std::vector<T> expected_median = device_sort_reference<T>(data.data(), n, median);
    check_against(expected_median, gpu_multiselect<T>(data.data(), n, median, a), median);
  }
}

TEST(GpuMultiselectLarge, Float2Pow26And2Pow28) {
  for (device_dist d : {device_dist::uniform, device_dist::sixteen_values, device_dist::clustered,
                        device_dist::sorted, device_dist::all_equal, device_dist::shared_prefix}) {
    device_generated<float>(std::int64_t(1) << 26, d, 200);
  }
  device_generated<float>(std::int64_t(1) << 28, device_dist::uniform, 100);
  device_generated<double>(std::int64_t(1) << 27, device_dist::normal, 100);
}

TEST(GpuMultiselectLarge, MoreThan2Pow31Elements) {
  std::size_t free_bytes = 0, total = 0;
  cuda_check(cudaMemGetInfo(&free_bytes, &total), "cudaMemGetInfo");
  const std::int64_t n = (std::int64_t(1) << 31) + 4097;
  // input + two key copies for the reference + its temp + our workspace
  if (free_bytes < static_cast<std::size_t>(n) * 4 * 5) GTEST_SKIP() << "needs ~" << n * 20 / (1 << 30) << " GiB";
  device_generated<float>(n, device_dist::uniform, 20);
}

}  // namespace
}  // namespace kselect::test
