// The single-rank driver (window levels chained on the device): its common case
// needs one host round trip and no fallback; its fallback (a prediction that
// misses, a window that overflows its buffer) still gives the exact answer; the
// pass reads unaligned inputs (no 16-byte loads) correctly.
#include <gtest/gtest.h>

#include <vector>

#include "common/common.hpp"
#include "common/device_data.cuh"
#include "cuda/dispatch/window_select_dispatch.cuh"
#include "cuda/gpu_test_util.cuh"
#include "kselect/device.hpp"

namespace kselect::test {
namespace {

struct run_result {
  bool fell_back;
  int round_trips;
};

// Runs the window driver on d_in[0..n) for rank k with the given prediction
// knobs and buffer capacity (0: the workspace's own), and checks the answer.
template <class T>
run_result run_window(const std::vector<T>& host, const T* d_in, std::int64_t n, std::int64_t k,
                      cuda::window_params params, std::int64_t capacity = 0) {
  using K = core::key_t<T>;
  const cuda::tuning::policy* policy = nullptr;
  cuda_check(cuda::current_policy(policy), "policy");
  cuda::workspace_layout layout = cuda::plan_workspace<K>(n, 1, algorithm::automatic, *policy);
  if (capacity > 0) {
    layout.capacity = capacity;
    layout.buffer_b = layout.buffer_a + (capacity * sizeof(K) + 255) / 256 * 256;
    layout.total = layout.buffer_b + capacity * sizeof(K);
  }
  device_buffer<char> ws(layout.total);
  device_buffer<T> out(1);
  cuda_check(cudaMemset(ws.data(), 0xA5, layout.total), "poison workspace");
  cuda::window_select_driver<T> driver(d_in, n, k, out.data(), nullptr, device::select_config{}, ws.data(),
                                              layout, params);
  EXPECT_EQ(driver.run(), cudaSuccess) << device::last_error_message();
  cuda_check(cudaDeviceSynchronize(), "sync");
  const std::int64_t one[] = {k};
  const T expected = reference_multiselect<T>(host, one)[0];
  const T got = out.to_host()[0];
  EXPECT_TRUE(same_value(expected, got)) << "rank " << k << ": expected " << +expected << ", got " << +got;
  return {driver.fell_back(), driver.round_trips()};
}

std::vector<std::int64_t> some_ranks(std::int64_t n) { return {0, 1, n / 3, n / 2, n - 2, n - 1}; }

TEST(GpuWindowSelect, CommonCaseIsOneRoundTripWithoutFallback) {
  const std::int64_t n = (std::int64_t(1) << 22) + 17;
  for (dist d : {dist::uniform, dist::normal, dist::sorted, dist::reversed, dist::clustered}) {
    SCOPED_TRACE(name(d));
    const std::vector<float> host = generate<float>(d, n, 5);
    device_buffer<float> data(host);
    for (std::int64_t k : some_ranks(n)) {
      const run_result r = run_window<float>(host, data.data(), n, k, {});
      EXPECT_FALSE(r.fell_back) << "rank " << k;
      EXPECT_EQ(r.round_trips, 1) << "rank " << k;
    }
  }
}

// sigmas = margin = 0: the window is a single sample gap, so most levels miss
// and the general driver must take over, exactly.
template <class T>
void forced_misses() {
  cuda::window_params narrow;
  narrow.sigmas = 0;
  narrow.margin = 0;
  int fallbacks = 0, runs = 0;
  for (dist d : all_dists()) {
    for (std::int64_t n : {std::int64_t(4097), std::int64_t(100003), std::int64_t(1) << 20}) {
      SCOPED_TRACE(testing::Message() << name(d) << " n=" << n);
      const std::vector<T> host = generate<T>(d, n, 21 + n);
      device_buffer<T> data(host);
      for (std::int64_t k : some_ranks(n)) {
        fallbacks += run_window<T>(host, data.data(), n, k, narrow).fell_back;
        ++runs;
        if (::testing::Test::HasFailure()) return;
      }
    }
  }
  // The test is only worth something if the fallback ran.
  EXPECT_GT(fallbacks, runs / 10) << fallbacks << " of " << runs;
}

TEST(GpuWindowSelect, ForcedMissesFallBackExactlyFloat) { forced_misses<float>(); }
TEST(GpuWindowSelect, ForcedMissesFallBackExactlyDouble) { forced_misses<double>(); }
TEST(GpuWindowSelect, ForcedMissesFallBackExactlyInt64) { forced_misses<std::int64_t>(); }

TEST(GpuWindowSelect, WindowOverflowingItsBufferFallsBack) {
  const std::int64_t n = 300001;
  for (dist d : all_dists()) {
    SCOPED_TRACE(name(d));
    const std::vector<std::uint32_t> host = generate<std::uint32_t>(d, n, 3);
    device_buffer<std::uint32_t> data(host);
    for (std::int64_t k : some_ranks(n)) run_window<std::uint32_t>(host, data.data(), n, k, {}, 64);
  }
}

// An input that is not 16-byte aligned takes the pass's one-key-at-a-time loads.
TEST(GpuWindowSelect, UnalignedInput) {
  const std::int64_t n = (std::int64_t(1) << 20) + 3;
  for (dist d : all_dists()) {
    SCOPED_TRACE(name(d));
    const std::vector<float> host = generate<float>(d, n + 1, 8);
    device_buffer<float> data(host);
    const std::vector<float> tail(host.begin() + 1, host.end());
    for (std::int64_t k : some_ranks(n)) run_window<float>(tail, data.data() + 1, n, k, {});
    const std::vector<double> hd = generate<double>(d, n + 1, 9);
    device_buffer<double> dd(hd);
    const std::vector<double> td(hd.begin() + 1, hd.end());
    for (std::int64_t k : some_ranks(n)) run_window<double>(td, dd.data() + 1, n, k, {});
  }
}

}  // namespace
}  // namespace kselect::test
