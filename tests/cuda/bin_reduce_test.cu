// The multiselection pre-pass (bin_reduce_driver): on continuous inputs it runs
// and keeps the answers exact; on few distinct values the sample sends the call
// to the general driver; a copy larger than its buffer does too, exactly.
#include <gtest/gtest.h>

#include <vector>

#include "common/common.hpp"
#include "common/device_data.cuh"
#include "cuda/dispatch/bin_reduce_dispatch.cuh"
#include "cuda/gpu_test_util.cuh"
#include "kselect/device.hpp"

namespace kselect::test {
namespace {

// Runs the pre-pass driver on `host` for `ranks`, checks every answer, and says
// whether the pre-pass ran to the end. capacity > 0 shrinks its copy buffer.
template <class T>
bool run_prepass(const std::vector<T>& host, std::span<const std::int64_t> ranks, std::int64_t capacity = 0) {
  using K = plan::key_t<T>;
  const auto n = static_cast<std::int64_t>(host.size());
  device_buffer<T> data(host);
  cuda_detail::workspace_layout layout =
      cuda_detail::plan_workspace<K>(n, static_cast<std::int64_t>(ranks.size()), algorithm::automatic);
  EXPECT_GT(layout.prepass_capacity, 0);
  if (capacity > 0) layout.prepass_capacity = capacity;  // the regions stay as carved: only smaller
  device_buffer<char> ws(layout.total);
  device_buffer<T> out(ranks.size());
  cuda_check(cudaMemset(ws.data(), 0xA5, layout.total), "poison workspace");
  cuda_detail::bin_reduce_driver<T> driver(data.data(), n, ranks.data(), static_cast<std::int64_t>(ranks.size()),
                                           out.data(), nullptr, device::select_config{}, ws.data(), layout);
  EXPECT_EQ(driver.run(), cudaSuccess) << device::last_error_message();
  cuda_check(cudaDeviceSynchronize(), "sync");
  const std::vector<T> expected = reference_multiselect<T>(host, ranks);
  const std::vector<T> got = out.to_host();
  for (std::size_t i = 0; i < ranks.size(); ++i)
    EXPECT_TRUE(same_value(expected[i], got[i])) << "rank " << ranks[i] << ": expected " << +expected[i]
                                                 << ", got " << +got[i];
  return driver.used_prepass();
}

std::vector<std::int64_t> percentile_ranks(std::int64_t n) {
  std::vector<std::int64_t> r;
  for (int i = 0; i <= 100; ++i) r.push_back(static_cast<std::int64_t>(i * (n - 1) / 100));
  return r;
}

template <class T>
void every_distribution() {
  const std::int64_t n = (std::int64_t(1) << 21) + 5;
  const std::vector<std::int64_t> pct = percentile_ranks(n);
  const std::vector<std::int64_t> random = standard_ranks(n, 1000, 77);
  for (dist d : all_dists()) {
    SCOPED_TRACE(name(d));
    const std::vector<T> host = generate<T>(d, n, 31);
    const bool ran = run_prepass<T>(host, pct);
    run_prepass<T>(host, random);
    if (d == dist::uniform || d == dist::normal || d == dist::sorted || d == dist::reversed)
      EXPECT_TRUE(ran) << "the pre-pass should run on continuous input";
    if (d == dist::all_equal || d == dist::two_values || d == dist::sixteen_values)
      EXPECT_FALSE(ran) << "few distinct values should go to the general driver";
    if (::testing::Test::HasFailure()) return;
  }
}

TEST(GpuBinReduce, EveryDistributionFloat) { every_distribution<float>(); }
TEST(GpuBinReduce, EveryDistributionDouble) { every_distribution<double>(); }
TEST(GpuBinReduce, EveryDistributionInt32) { every_distribution<std::int32_t>(); }
TEST(GpuBinReduce, EveryDistributionUint64) { every_distribution<std::uint64_t>(); }

TEST(GpuBinReduce, CopyLargerThanItsBufferFallsBack) {
  const std::int64_t n = (std::int64_t(1) << 20) + 1;
  const std::vector<float> host = generate<float>(dist::uniform, n, 4);
  EXPECT_FALSE(run_prepass<float>(host, percentile_ranks(n), 64));
}

// Not 16-byte aligned: the passes load one key at a time.
TEST(GpuBinReduce, UnalignedInput) {
  const std::int64_t n = (std::int64_t(1) << 20) + 7;
  const std::vector<float> host = generate<float>(dist::normal, n + 1, 6);
  device_buffer<float> data(host);
  const std::vector<float> tail(host.begin() + 1, host.end());
  const std::vector<std::int64_t> ranks = percentile_ranks(n);
  const std::vector<float> got = gpu_multiselect<float>(data.data() + 1, n, ranks, algorithm::automatic);
  const std::vector<float> expected = reference_multiselect<float>(tail, ranks);
  for (std::size_t i = 0; i < ranks.size(); ++i) ASSERT_TRUE(same_value(expected[i], got[i])) << "rank " << ranks[i];
}

}  // namespace
}  // namespace kselect::test
