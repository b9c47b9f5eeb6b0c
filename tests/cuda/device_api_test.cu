// The device API's contract: two-phase workspace, error statuses with messages,
// the auxiliary-memory bound, streams; and the driver's in-place narrowing path
// (buckets too large for the buffers), forced with a tiny buffer capacity.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "common/device_data.cuh"
#include "common/common.hpp"
#include "cuda/dispatch/multiselect_dispatch.cuh"
#include "cuda/gpu_test_util.cuh"
#include "kselect/device.hpp"

namespace kselect::test {
namespace {

TEST(GpuDeviceApi, WorkspaceQueryAndTooSmallWorkspace) {
  const std::int64_t n = 100000;
  device_buffer<float> data(generate<float>(dist::uniform, n, 1));
  device_buffer<float> out(1);
  const std::int64_t k = 5;
  std::size_t bytes = 0;
  ASSERT_EQ(device::select<float>(nullptr, bytes, data.data(), out.data(), n, k), cudaSuccess);
  ASSERT_GT(bytes, 0u);
  device_buffer<char> ws(bytes);
  std::size_t small = bytes - 1;
  EXPECT_EQ(device::select<float>(ws.data(), small, data.data(), out.data(), n, k), cudaErrorInvalidValue);
  const std::string msg = device::last_error_message();
  EXPECT_NE(msg.find("workspace too small"), std::string::npos) << msg;
  EXPECT_NE(msg.find(std::to_string(bytes)), std::string::npos) << msg;
  EXPECT_EQ(device::select<float>(ws.data(), bytes, data.data(), out.data(), n, k), cudaSuccess);
  EXPECT_STREQ(device::last_error_message(), "");
}

TEST(GpuDeviceApi, BadArguments) {
  const std::int64_t n = 1000;
  std::vector<float> host = generate<float>(dist::uniform, n, 2);
  device_buffer<float> data(host);
  device_buffer<float> out(4);
  std::size_t bytes = 0;
  const std::int64_t ranks[] = {1, 2, 3};
  ASSERT_EQ(device::multiselect<float>(nullptr, bytes, data.data(), out.data(), n, ranks, 3), cudaSuccess);
  device_buffer<char> ws(bytes);
  auto call = [&](const float* in, std::int64_t nn, const std::int64_t* r, std::int64_t nr, float* o) {
    std::size_t b = bytes;
    return device::multiselect<float>(ws.data(), b, in, o, nn, r, nr);
  };
  auto expect_invalid = [](cudaError_t st, const char* needle) {
    EXPECT_EQ(st, cudaErrorInvalidValue);
    EXPECT_NE(std::string(device::last_error_message()).find(needle), std::string::npos)
        << device::last_error_message();
  };
  expect_invalid(call(data.data(), 0, ranks, 3, out.data()), "empty input");
  const std::int64_t out_of_range[] = {0, n};
  expect_invalid(call(data.data(), n, out_of_range, 2, out.data()), "outside [0, 1000)");
  const std::int64_t negative[] = {-1};
  expect_invalid(call(data.data(), n, negative, 1, out.data()), "outside");
  const std::int64_t unsorted[] = {5, 3};
  expect_invalid(call(data.data(), n, unsorted, 2, out.data()), "sorted ascending");
  const std::int64_t duplicate[] = {3, 3};
  expect_invalid(call(data.data(), n, duplicate, 2, out.data()), "without duplicates");
  expect_invalid(call(host.data(), n, ranks, 3, out.data()), "d_in is not device memory");
  std::vector<float> host_out(3);
  expect_invalid(call(data.data(), n, ranks, 3, host_out.data()), "d_out is not device memory");
  expect_invalid(call(data.data(), n, nullptr, 3, out.data()), "ranks is null");
  // Ranks are read on the host: device memory must be refused, not dereferenced.
  const device_buffer<std::int64_t> device_ranks(std::vector<std::int64_t>{1, 2, 3});
  expect_invalid(call(data.data(), n, device_ranks.data(), 3, out.data()), "ranks must be a host array");
  // Zero ranks is not an error: nothing to do.
  EXPECT_EQ(call(data.data(), n, ranks, 0, out.data()), cudaSuccess);
}

TEST(GpuDeviceApi, SingleSelectionAuxiliaryMemoryBound) {
  // 0.3x the input's bytes plus a fixed few hundred KiB of bookkeeping.
  for (std::int64_t n : {std::int64_t(1) << 20, std::int64_t(1) << 24, std::int64_t(1) << 28}) {
    for (algorithm a : {algorithm::automatic, algorithm::sample_select, algorithm::window}) {
      std::size_t bytes = 0;
      device::select_config cfg;
      cfg.algo = a;
      ASSERT_EQ(device::select<float>(nullptr, bytes, nullptr, nullptr, n, 0, nullptr, cfg), cudaSuccess);
      EXPECT_LE(bytes, 0.3 * n * sizeof(float) + (256 << 10)) << "n=" << n << " algo=" << to_string(a);
      ASSERT_EQ(device::select<double>(nullptr, bytes, nullptr, nullptr, n, 0, nullptr, cfg), cudaSuccess);
      EXPECT_LE(bytes, 0.3 * n * sizeof(double) + (256 << 10)) << "n=" << n << " algo=" << to_string(a);
    }
  }
}

TEST(GpuDeviceApi, CountNan) {
  std::vector<double> host = generate<double>(dist::special, 100001, 3);
  std::int64_t expected = 0;
  for (double x : host) expected += x != x;
  device_buffer<double> data(host);
  device_buffer<std::int64_t> count(1);
  std::size_t bytes = 0;
  ASSERT_EQ(device::count_nan<double>(nullptr, bytes, data.data(), count.data(), 100001), cudaSuccess);
  device_buffer<char> ws(bytes);
  ASSERT_EQ(device::count_nan<double>(ws.data(), bytes, data.data(), count.data(), 100001), cudaSuccess);
  EXPECT_EQ(count.to_host()[0], expected);
}

// Drives the recursion with buffers far too small for the buckets, so that every
// level narrows its buckets in place over the input (range_buckets) instead of
// extracting them: the path that guarantees correctness whatever the sample did.
template <class T>
void run_with_capacity(const std::vector<T>& host, std::span<const std::int64_t> ranks, algorithm algo,
                       std::int64_t capacity) {
  using K = core::key_t<T>;
  const auto n = static_cast<std::int64_t>(host.size());
  device_buffer<T> data(host);
  const cuda::tuning::policy* policy = nullptr;
  cuda_check(cuda::current_policy(policy), "policy");
  cuda::workspace_layout layout =
      cuda::plan_workspace<K>(n, static_cast<std::int64_t>(ranks.size()), algo, *policy);
  // Re-carve the two buffers with the small capacity at the end.
  layout.capacity = capacity;
  layout.buffer_b = layout.buffer_a + (capacity * sizeof(K) + 255) / 256 * 256;
  layout.total = layout.buffer_b + capacity * sizeof(K);
  device_buffer<char> ws(layout.total);
  device_buffer<T> out(ranks.size());
  device::select_config cfg;
  cfg.algo = algo;
  cuda::multiselect_driver<T> driver(data.data(), n, ranks.data(), static_cast<std::int64_t>(ranks.size()),
                                            out.data(), nullptr, cfg, ws.data(), layout);
  ASSERT_EQ(driver.run(), cudaSuccess);
  cuda_check(cudaDeviceSynchronize(), "sync");
  const std::vector<T> got = out.to_host();
  const std::vector<T> expected = reference_multiselect<T>(host, ranks);
  for (std::size_t i = 0; i < ranks.size(); ++i)
    ASSERT_TRUE(same_value(expected[i], got[i])) << "rank " << ranks[i] << " levels " << driver.levels();
}

TEST(GpuDriver, NarrowsInPlaceWhenBucketsDoNotFit) {
  for (dist d : all_dists()) {
    SCOPED_TRACE(name(d));
    const std::int64_t n = 300001;
    const std::vector<float> f = generate<float>(d, n, 11);
    const std::vector<std::int64_t> ranks = standard_ranks(n, 50, 3);
    for (algorithm a : {algorithm::automatic, algorithm::sample_select, algorithm::window}) {
      run_with_capacity<float>(f, ranks, a, 64);
      const std::int64_t median[] = {n / 2};
      run_with_capacity<float>(f, median, a, 64);
    }
    const std::vector<std::uint64_t> u = generate<std::uint64_t>(d, n, 12);
    run_with_capacity<std::uint64_t>(u, ranks, algorithm::automatic, 64);
    const std::vector<double> g = generate<double>(d, n, 13);
    run_with_capacity<double>(g, ranks, algorithm::automatic, 5000);
  }
}

}  // namespace
}  // namespace kselect::test
