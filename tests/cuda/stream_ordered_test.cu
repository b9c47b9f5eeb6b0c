// The stream-ordered selections (device::select_async, device::multiselect_async,
// and count_nan, which never waited): exact on every distribution, including the
// ones where the sampled fast path gives up (a missed window, few distinct values,
// clustered keys) and the descent answers; the descent alone exact with and
// without its copy buffers; each call captured in a CUDA graph and replayed on
// new data 100 times; bad ranks found on the device reported in the status word;
// the small-input kernel with each cluster size, on unaligned and tiny inputs.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "common/approx_check.hpp"
#include "common/common.hpp"
#include "common/device_data.cuh"
#include "common/device_reference.cuh"
#include "common/graph_replay.cuh"
#include "cuda/dispatch/cluster_select_dispatch.cuh"
#include "cuda/dispatch/device_policy.hpp"
#include "cuda/dispatch/stream_ordered_dispatch.cuh"
#include "cuda/tuning.hpp"
#include "kselect/device.hpp"

namespace kselect::test {
namespace {

/// Ranks spread evenly over [0, n): `count` of them, unique.
std::vector<std::int64_t> spread_ranks(std::int64_t n, std::int64_t count) {
  std::vector<std::int64_t> r;
  for (std::int64_t i = 0; i < count; ++i) r.push_back(count > 1 ? (n - 1) * i / (count - 1) : n / 2);
  r.erase(std::unique(r.begin(), r.end()), r.end());
  return r;
}

/// The rank lists each input is checked with.
std::vector<std::vector<std::int64_t>> rank_lists(std::int64_t n) {
  std::vector<std::vector<std::int64_t>> lists{single_ranks(n), percentile_ranks_101(n)};
  if (n >= 1200) lists.push_back(spread_ranks(n, 1200));  // more than one descent (512 ranks each)
  return lists;
}

/// A stream and device buffers for one stream-ordered call at a time.
template <class T>
struct async_caller {
  cudaStream_t stream{};
  device_buffer<std::int32_t> status{1};
  async_caller() { cuda_check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "stream"); }
  ~async_caller() { cudaStreamDestroy(stream); }

  /// multiselect_async of d_in for `ranks` (select_async when there is one), its status in *status_out.
  std::vector<T> run(const T* d_in, std::int64_t n, const std::vector<std::int64_t>& ranks, std::int32_t* status_out) {
    const auto r = static_cast<std::int64_t>(ranks.size());
    device_buffer<std::int64_t> d_ranks(ranks);
    device_buffer<T> out(ranks.size());
    std::size_t bytes = 0;
    auto call = [&](void* ws) {
      return r == 1 ? device::select_async<T>(ws, bytes, d_in, out.data(), status.data(), n, ranks[0], stream)
                    : device::multiselect_async<T>(ws, bytes, d_in, out.data(), status.data(), n, d_ranks.data(), r,
                                                   stream);
    };
    EXPECT_EQ(call(nullptr), cudaSuccess) << device::last_error_message();
    device_buffer<char> ws(bytes);
    cuda_check(cudaMemsetAsync(ws.data(), 0xA5, bytes, stream), "poison workspace");
    EXPECT_EQ(call(ws.data()), cudaSuccess) << device::last_error_message();
    cuda_check(cudaStreamSynchronize(stream), "sync");
    *status_out = status.to_host()[0];
    return out.to_host();
  }
};

template <class T>
::testing::AssertionResult same_values(const std::vector<T>& got, const std::vector<T>& want) {
  for (std::size_t i = 0; i < want.size(); ++i)
    if (!same_value(got[i], want[i]))
      return ::testing::AssertionFailure() << "answer " << i << ": got " << +got[i] << ", want " << +want[i];
  return ::testing::AssertionSuccess();
}

using KeyTypes = ::testing::Types<float, double, std::int32_t, std::uint32_t, std::int64_t, std::uint64_t>;

template <class T>
class StreamOrdered : public ::testing::Test {};
TYPED_TEST_SUITE(StreamOrdered, KeyTypes);

// Every host distribution (NaN, infinities, -0.0 and denormals in `special`), sizes
// around the tile and sample sizes and across the fast paths' thresholds.
TYPED_TEST(StreamOrdered, ExactOnEveryDistribution) {
  using T = TypeParam;
  async_caller<T> caller;
  for (const std::int64_t n : {1, 2, 31, 33, 4097, 65537, (1 << 20) + 3}) {
    for (const dist d : all_dists()) {
      const std::vector<T> host = generate<T>(d, n, 17 + n);
      device_buffer<T> d_in(host);
      for (const auto& ranks : rank_lists(n)) {
        std::int32_t status = -1;
        const std::vector<T> got = caller.run(d_in.data(), n, ranks, &status);
        EXPECT_TRUE(same_values(got, reference_multiselect(host, ranks)))
            << name(d) << " n=" << n << " ranks=" << ranks.size();
        EXPECT_TRUE(status == device::async_answered || status == device::async_fell_back) << status;
      }
    }
  }
}

// The small-input kernel with every cluster size it may be given (1, 2, 4 and 8
// blocks per rank, whatever this device's SM count would choose): inputs that
// start and end off a 16-byte boundary, fewer 16-byte vectors than blocks, and
// exactly core::small_select_max keys; the type's extremes around the input, so
// that a read past either end changes the answers; ranks from the device and the
// single host rank; the status word for valid and invalid ranks. Sorted and
// reversed keys put whole warps' vectors into one bucket (counted once a warp),
// few distinct values end the descent on a bucket's bounds.
TYPED_TEST(StreamOrdered, ClusterSelectEveryClusterSize) {
  using T = TypeParam;
  cuda::cluster_select_limits limits;
  cuda_check(cuda::cluster_select_device_limits<T>(limits), "cluster limits");
  async_caller<T> caller;  // for its stream
  constexpr std::int64_t pad = 4;
  device_buffer<std::int32_t> status(1);
  device_buffer<std::int32_t> invalid(std::vector<std::int32_t>{0});
  std::vector<int> sizes;  // the cluster sizes this device runs
  for (int blocks = 1; blocks <= cuda::cluster_select_max_blocks; blocks *= 2)
    if (limits.fits(blocks)) sizes.push_back(blocks);
  std::printf("[          ] %d SMs; cluster sizes tested:", limits.sms);
  for (const int blocks : sizes) std::printf(" %d", blocks);
  std::printf("\n");
  for (const int blocks : sizes)
    for (const std::int64_t n : {std::int64_t(1), std::int64_t(3), std::int64_t(17), std::int64_t(33),
                                 std::int64_t(4097), std::int64_t(65536 + 5), core::small_select_max})
      for (const std::int64_t offset : {0, 1, 3})
        for (const dist d : {dist::uniform, dist::normal, dist::sorted, dist::reversed, dist::all_equal,
                             dist::two_values, dist::sixteen_values, dist::clustered, dist::shared_prefix,
                             dist::special}) {
          SCOPED_TRACE(::testing::Message() << "blocks per rank " << blocks << ", n=" << n << ", offset " << offset
                                            << ", " << name(d));
          const std::vector<T> host = generate<T>(d, n, 5 + n + offset);
          std::vector<T> padded(static_cast<std::size_t>(offset), std::numeric_limits<T>::lowest());
          padded.insert(padded.end(), host.begin(), host.end());
          padded.insert(padded.end(), static_cast<std::size_t>(pad), std::numeric_limits<T>::max());
          device_buffer<T> d_padded(padded);
          const T* d_in = d_padded.data() + offset;

          std::vector<std::int64_t> ranks = single_ranks(n);
          for (const std::int64_t r : spread_ranks(n, 9)) ranks.push_back(r);
          std::sort(ranks.begin(), ranks.end());
          ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
          const auto r = static_cast<std::int64_t>(ranks.size());
          device_buffer<std::int64_t> d_ranks(ranks);
          device_buffer<T> out(ranks.size()), out_single(1);
          cuda_check(cudaMemsetAsync(status.data(), 0xff, sizeof(std::int32_t), caller.stream), "status reset");
          cuda_check(cuda::queue_cluster_select<T>(d_in, n, d_ranks.data(), 0, r, nullptr, status.data(), out.data(),
                                                   caller.stream, blocks),
                     "queue_cluster_select");
          const std::vector<std::int64_t> middle{n / 2};
          cuda_check(cuda::queue_cluster_select<T>(d_in, n, nullptr, middle[0], 1, nullptr, nullptr,
                                                   out_single.data(), caller.stream, blocks),
                     "queue_cluster_select, one host rank");
          cuda_check(cudaStreamSynchronize(caller.stream), "sync");
          EXPECT_TRUE(same_values(out.to_host(), reference_multiselect(host, ranks)));
          EXPECT_TRUE(same_values(out_single.to_host(), reference_multiselect(host, middle)));
          EXPECT_EQ(status.to_host()[0], device::async_answered);
        }
  for (const int blocks : sizes) {
    const std::int64_t n = 100;
    device_buffer<T> d_in(generate<T>(dist::uniform, n, 3));
    device_buffer<T> out(2);
    device_buffer<std::int64_t> d_ranks(std::vector<std::int64_t>{0, 1});
    cuda_check(cuda::queue_cluster_select<T>(d_in.data(), n, d_ranks.data(), 0, 2, invalid.data(), status.data(),
                                             out.data(), caller.stream, blocks),
               "queue_cluster_select, invalid ranks");
    cuda_check(cudaStreamSynchronize(caller.stream), "sync");
    EXPECT_EQ(status.to_host()[0], device::async_invalid_ranks) << "blocks per rank " << blocks;
  }
}

// Inputs whose sample misleads the fast path (the rank's key is never sampled):
// the window misses, the descent answers (status async_fell_back).
TYPED_TEST(StreamOrdered, MissedWindowFallsBackExactly) {
  using T = TypeParam;
  constexpr std::int64_t s = cuda::tuning::sample_size;
  const std::int64_t n = 1 << 20;
  std::vector<T> host(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) host[static_cast<std::size_t>(i)] = static_cast<T>(1000 + i % 997);
  for (std::int64_t j = 0; j < s; ++j)
    host[static_cast<std::size_t>(core::sample_position(j, s, n, kselect::detail::default_seed))] =
        static_cast<T>(100000 + j);
  device_buffer<T> d_in(host);
  async_caller<T> caller;
  std::int32_t status = -1;
  const std::vector<std::int64_t> median{n / 2};
  EXPECT_TRUE(same_values(caller.run(d_in.data(), n, median, &status), reference_multiselect(host, median)));
  EXPECT_EQ(status, device::async_fell_back);
}

// The descent on its own (as if the fast path had left every rank open), with
// and without room to copy the groups' keys: exact, on the device distributions.
TYPED_TEST(StreamOrdered, DescentAloneIsExact) {
  using T = TypeParam;
  using K = core::key_t<T>;
  const cuda::tuning::policy* policy = nullptr;
  cuda_check(cuda::current_policy(policy), "policy");
  for (const std::int64_t n : {std::int64_t(4097), (std::int64_t(1) << 21) + 5})
  for (const device_dist d : {device_dist::uniform, device_dist::normal, device_dist::all_equal,
                              device_dist::sixteen_values, device_dist::clustered, device_dist::shared_prefix,
                              device_dist::sorted}) {
    device_buffer<T> d_in(n);
    generate_on_device(d_in.data(), n, d, 99);
    for (const auto& ranks : rank_lists(n)) {
      const std::vector<T> want = device_sort_reference(d_in.data(), n, std::span<const std::int64_t>(ranks));
      for (const bool copies : {true, false}) {
        const auto r = static_cast<std::int64_t>(ranks.size());
        cuda::workspace_layout w = cuda::plan_workspace<K>(n, r, algorithm::automatic, *policy, true);
        if (!copies) w.capacity = 0;
        device_buffer<char> ws(w.total);
        device_buffer<std::int64_t> d_ranks(ranks);
        device_buffer<T> out(ranks.size());
        device_buffer<std::int32_t> status(1);
        cuda_check(cudaMemset(ws.data(), 0xA5, w.total), "poison workspace");
        cuda_check(cuda::queue_descent<T>(d_in.data(), n, d_ranks.data(), 0, r, out.data(), ws.data(), w, nullptr,
                                          nullptr, status.data(), nullptr),
                   "queue_descent");
        cuda_check(cudaDeviceSynchronize(), "sync");
        EXPECT_TRUE(same_values(out.to_host(), want))
            << device_dist_name(d) << " ranks=" << r << (copies ? " copying" : " in place");
        EXPECT_EQ(status.to_host()[0], device::async_fell_back);
      }
    }
  }
}

// Each call captured once in a CUDA graph (global capture mode: any wait or
// host copy inside the call fails the capture) and replayed 100 times, the
// input regenerated before each replay; every answer checked.
TYPED_TEST(StreamOrdered, GraphReplayOnNewData) {
  using T = TypeParam;
  for (const std::int64_t n : {std::int64_t(1) << 16, (std::int64_t(1) << 21) + 7}) {
    cudaStream_t stream;
    cuda_check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "stream");
    device_buffer<T> d_in(n);
    const std::vector<std::int64_t> one{n / 3}, percentiles = percentile_ranks_101(n);
    device_buffer<std::int64_t> d_ranks(percentiles);
    const auto r = static_cast<std::int64_t>(percentiles.size());
    device_buffer<T> out_one(1), out_many(percentiles.size());
    device_buffer<std::int32_t> status(2);
    device_buffer<std::int64_t> nans(1);
    std::size_t b1 = 0, b2 = 0, b3 = 0;
    ASSERT_EQ(device::select_async<T>(nullptr, b1, d_in.data(), out_one.data(), status.data(), n, one[0], stream),
              cudaSuccess);
    ASSERT_EQ(device::multiselect_async<T>(nullptr, b2, d_in.data(), out_many.data(), status.data() + 1, n,
                                           d_ranks.data(), r, stream),
              cudaSuccess);
    ASSERT_EQ(device::count_nan<T>(nullptr, b3, d_in.data(), nans.data(), n, stream), cudaSuccess);
    device_buffer<char> ws1(b1), ws2(b2), ws3(b3);

    cudaError_t e1 = cudaSuccess, e2 = cudaSuccess, e3 = cudaSuccess;
    const captured_graph graph(stream, [&] {
      e1 = device::select_async<T>(ws1.data(), b1, d_in.data(), out_one.data(), status.data(), n, one[0], stream);
      e2 = device::multiselect_async<T>(ws2.data(), b2, d_in.data(), out_many.data(), status.data() + 1, n,
                                        d_ranks.data(), r, stream);
      e3 = device::count_nan<T>(ws3.data(), b3, d_in.data(), nans.data(), n, stream);
    });
    ASSERT_EQ(e1, cudaSuccess) << device::last_error_message() << " " << cudaGetErrorString(e1);
    ASSERT_EQ(e2, cudaSuccess) << device::last_error_message() << " " << cudaGetErrorString(e2);
    ASSERT_EQ(e3, cudaSuccess) << cudaGetErrorString(e3);

    int fell_back = 0;
    graph.replay_on_new_data(stream, d_in.data(), n, 1000, [&](device_dist d, int replay) {
      const std::vector<T> want_one = device_sort_reference(d_in.data(), n, std::span<const std::int64_t>(one));
      const std::vector<T> want_many =
          device_sort_reference(d_in.data(), n, std::span<const std::int64_t>(percentiles));
      ASSERT_TRUE(same_values(out_one.to_host(), want_one))
          << device_dist_name(d) << " n=" << n << " replay " << replay;
      ASSERT_TRUE(same_values(out_many.to_host(), want_many))
          << device_dist_name(d) << " n=" << n << " replay " << replay;
      ASSERT_EQ(nans.to_host()[0], 0);
      for (const std::int32_t s : status.to_host()) {
        ASSERT_TRUE(s == device::async_answered || s == device::async_fell_back) << s;
        fell_back += s;
      }
    });
    if (::testing::Test::HasFatalFailure()) return;
    std::printf("[          ] n=%lld: %d of 200 answers needed the descent\n", static_cast<long long>(n), fell_back);
    cudaStreamDestroy(stream);
  }
}

// The small-input kernel's cluster size: the largest with which every rank's
// cluster runs at once, each block on an SM of its own.
TEST(StreamOrderedClusterSize, FillsTheSmsAndNoMore) {
  cuda::cluster_select_limits h200;  // 132 SMs; 66, 33 and 16 clusters of 2, 4 and 8 blocks resident
  h200.sms = 132;
  h200.clusters = true;
  h200.resident[1] = 66;
  h200.resident[2] = 33;
  h200.resident[3] = 16;
  for (const auto& [ranks, blocks] : std::vector<std::pair<std::int64_t, int>>{
           {1, 8}, {16, 8}, {17, 4}, {33, 4}, {34, 2}, {66, 2}, {67, 1}, {132, 1}, {1200, 1}})
    EXPECT_EQ(cuda::cluster_select_blocks_per_rank(1 << 16, ranks, h200), blocks) << ranks << " ranks";
  // At least 4096 keys a block: 2^12 keys take one block, 2^14 four, 2^15 and more eight.
  for (const auto& [lg, blocks] : std::vector<std::pair<int, int>>{{10, 1}, {12, 1}, {13, 2}, {14, 4}, {15, 8}, {17, 8}})
    EXPECT_EQ(cuda::cluster_select_blocks_per_rank(std::int64_t(1) << lg, 1, h200), blocks) << "n = 2^" << lg;
  cuda::cluster_select_limits fewer_gpcs = h200;  // clusters of 8 limited by the GPCs, not the SMs
  fewer_gpcs.resident[3] = 14;
  EXPECT_EQ(cuda::cluster_select_blocks_per_rank(1 << 16, 14, fewer_gpcs), 8);
  EXPECT_EQ(cuda::cluster_select_blocks_per_rank(1 << 16, 15, fewer_gpcs), 4);
  cuda::cluster_select_limits no_eight = h200;  // a cluster of 8 does not fit at all
  no_eight.resident[3] = 0;
  EXPECT_EQ(cuda::cluster_select_blocks_per_rank(1 << 16, 1, no_eight), 4);
  EXPECT_FALSE(no_eight.fits(8));
  cuda::cluster_select_limits no_clusters = h200;  // before sm_90, or a kernel compiled for it
  no_clusters.clusters = false;
  EXPECT_EQ(cuda::cluster_select_blocks_per_rank(1 << 16, 1, no_clusters), 1);
  EXPECT_TRUE(no_clusters.fits(1));
}

TEST(StreamOrderedErrors, InvalidDeviceRanksSetTheStatus) {
  const std::int64_t n = 1000;
  device_buffer<float> d_in(std::vector<float>(static_cast<std::size_t>(n), 1.0f));
  async_caller<float> caller;
  for (const std::vector<std::int64_t>& bad :
       {std::vector<std::int64_t>{5, 3}, std::vector<std::int64_t>{4, 4, 9}, std::vector<std::int64_t>{-1, 2},
        std::vector<std::int64_t>{0, n}}) {
    std::int32_t status = -1;
    caller.run(d_in.data(), n, bad, &status);
    EXPECT_EQ(status, device::async_invalid_ranks);
  }
}

TEST(StreamOrderedErrors, HostArgumentsAreRejected) {
  const std::int64_t n = 1000;
  device_buffer<float> d_in(std::vector<float>(static_cast<std::size_t>(n), 1.0f));
  device_buffer<float> out(4);
  const std::vector<std::int64_t> host_ranks{1, 2};
  std::size_t bytes = 1 << 20;
  device_buffer<char> ws(bytes);
  auto message = [] { return std::string(device::last_error_message()); };
  EXPECT_EQ(device::multiselect_async<float>(ws.data(), bytes, d_in.data(), out.data(), nullptr, n, host_ranks.data(),
                                             2),
            cudaErrorInvalidValue);
  EXPECT_NE(message().find("d_ranks is not device memory"), std::string::npos) << message();
  EXPECT_EQ(device::multiselect_async<float>(ws.data(), bytes, d_in.data(), out.data(), nullptr, n, nullptr, 2),
            cudaErrorInvalidValue);
  EXPECT_NE(message().find("d_ranks is null"), std::string::npos) << message();
  device_buffer<std::int64_t> d_ranks(std::vector<std::int64_t>(4, 0));
  EXPECT_EQ(device::multiselect_async<float>(ws.data(), bytes, d_in.data(), out.data(), nullptr, 3, d_ranks.data(), 4),
            cudaErrorInvalidValue);
  EXPECT_NE(message().find("more ranks than elements"), std::string::npos) << message();
  EXPECT_EQ(device::select_async<float>(ws.data(), bytes, d_in.data(), out.data(), nullptr, n, n),
            cudaErrorInvalidValue);
  EXPECT_NE(message().find("out of range"), std::string::npos) << message();
  device::select_config cfg;
  cfg.algo = algorithm::sample_select;
  EXPECT_EQ(device::select_async<float>(ws.data(), bytes, d_in.data(), out.data(), nullptr, n, 1, nullptr, cfg),
            cudaErrorInvalidValue);
  EXPECT_NE(message().find("no stream-ordered mode"), std::string::npos) << message();
  std::size_t small = 16;
  EXPECT_EQ(device::select_async<float>(ws.data(), small, d_in.data(), out.data(), nullptr, n, 1),
            cudaErrorInvalidValue);
}

}  // namespace
}  // namespace kselect::test
