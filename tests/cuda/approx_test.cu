// The device API's approximate multiselection (device::approx_multiselect) against a
// std::sort reference: each answer is what the sorted input holds at its reported
// rank, within the error bound, an input element bit for bit when away from its
// rank; every key type x distribution, bounds 0, small, 0.1% of n and n, 2 to
// 4096 buckets; the narrow-window mode (single and close ranks, forced sampling
// misses, window keys in the partial last tile); ties answered exactly; the
// error one pass leaves on large smooth inputs; the same answers as the CPU
// backend (same sample, same rules); the owning backend; bad arguments and the
// workspace protocol; the stream-ordered form (approx_multiselect_async), also
// captured in a CUDA graph and replayed on new data.
#include <gtest/gtest.h>

#include <algorithm>
#include <span>
#include <string>
#include <vector>

#include "common/approx_check.hpp"
#include "common/common.hpp"
#include "common/device_data.cuh"
#include "common/graph_replay.cuh"
#include "cpu/cpu_select.hpp"
#include "cuda/backend.hpp"
#include "kselect/device.hpp"
#include "core/approx.hpp"

namespace kselect::test {
namespace {

template <class T>
struct gpu_answers {
  std::vector<T> values;
  std::vector<std::int64_t> ranks;
};

/// Runs the device API as a user would: size query, poisoned workspace and
/// outputs, a non-blocking stream; returns the answers on the host.
/// stream_ordered: approx_multiselect_async with the ranks in device memory, its
/// status word in *status (when not null).
template <class T>
gpu_answers<T> gpu_approx(const T* d_in, std::int64_t n, std::span<const std::int64_t> ranks, std::int64_t bound,
                          int buckets, std::uint64_t seed = kselect::detail::default_seed, bool window = true,
                          bool stream_ordered = false, std::int32_t* status = nullptr) {
  cudaStream_t stream;
  cuda_check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "stream");
  device::approx_config cfg;
  cfg.buckets = buckets;
  cfg.seed = seed;
  cfg.window = window;
  const auto r = static_cast<std::int64_t>(ranks.size());
  const device_buffer<std::int64_t> d_ranks(std::vector<std::int64_t>(ranks.begin(), ranks.end()));
  device_buffer<std::int32_t> d_status(1);
  auto call = [&](void* ws, std::size_t& bytes, T* out, std::int64_t* out_ranks) {
    return stream_ordered ? device::approx_multiselect_async<T>(ws, bytes, d_in, out, out_ranks, d_status.data(), n,
                                                                d_ranks.data(), r, bound, stream, cfg)
                          : device::approx_multiselect<T>(ws, bytes, d_in, out, out_ranks, n, ranks.data(), r, bound,
                                                          stream, cfg);
  };
  std::size_t bytes = 0;
  cudaError_t st = call(nullptr, bytes, nullptr, nullptr);
  EXPECT_EQ(st, cudaSuccess) << device::last_error_message();
  device_buffer<char> ws(bytes);
  device_buffer<T> out(ranks.size());
  device_buffer<std::int64_t> out_ranks(ranks.size());
  cuda_check(cudaMemsetAsync(ws.data(), 0xA5, bytes, stream), "poison workspace");
  cuda_check(cudaMemsetAsync(out.data(), 0x5A, ranks.size() * sizeof(T), stream), "poison output");
  cuda_check(cudaMemsetAsync(out_ranks.data(), 0xFF, ranks.size() * sizeof(std::int64_t), stream), "poison ranks");
  st = call(ws.data(), bytes, out.data(), out_ranks.data());
  EXPECT_EQ(st, cudaSuccess) << device::last_error_message();
  cuda_check(cudaStreamSynchronize(stream), "sync");
  cuda_check(cudaStreamDestroy(stream), "stream destroy");
  if (stream_ordered && status != nullptr) *status = d_status.to_host()[0];
  return {out.to_host(), out_ranks.to_host()};
}

std::vector<std::int64_t> test_ranks(std::int64_t n) {
  std::vector<std::int64_t> ranks = standard_ranks(n, 20, 77);
  const std::vector<std::int64_t> pct = percentile_ranks_101(n);
  ranks.insert(ranks.end(), pct.begin(), pct.end());
  std::sort(ranks.begin(), ranks.end());
  ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
  return ranks;
}

template <class T>
class GpuApprox : public ::testing::Test {};
using KeyTypes = ::testing::Types<float, double, std::int32_t, std::uint32_t, std::int64_t, std::uint64_t>;
TYPED_TEST_SUITE(GpuApprox, KeyTypes);

TYPED_TEST(GpuApprox, AnswersWithinTheBound) {
  using T = TypeParam;
  for (dist d : all_dists()) {
    for (std::int64_t n : {std::int64_t(1), std::int64_t(3), std::int64_t(4097), std::int64_t(100003),
                           (std::int64_t(1) << 20) + 7}) {
      SCOPED_TRACE(testing::Message() << name(d) << ", n = " << n);
      const std::vector<T> host = generate<T>(d, n, 500 + static_cast<std::uint64_t>(n));
      const auto ref = make_approx_reference(host);
      const device_buffer<T> data(host);
      const std::vector<std::int64_t> ranks = test_ranks(n);
      for (std::int64_t bound : {std::int64_t(0), std::int64_t(3), n / 1000, n}) {
        for (int buckets : {2, 128, 1024, 4096}) {
          const gpu_answers<T> got = gpu_approx<T>(data.data(), n, ranks, bound, buckets);
          ASSERT_TRUE(check_approx_answers<T>(ref, ranks, got.values, got.ranks, bound))
              << "bound " << bound << ", buckets " << buckets;
        }
      }
    }
  }
}

// approx_multiselect_async (ranks in device memory, the histogram mode, the
// exact descent when an answer exceeds the bound): the same checks, and the
// status word says which answered.
TYPED_TEST(GpuApprox, StreamOrderedAnswersWithinTheBound) {
  using T = TypeParam;
  for (dist d : all_dists()) {
    for (std::int64_t n : {std::int64_t(1), std::int64_t(4097), std::int64_t(100003), (std::int64_t(1) << 20) + 7}) {
      SCOPED_TRACE(testing::Message() << name(d) << ", n = " << n);
      const std::vector<T> host = generate<T>(d, n, 900 + static_cast<std::uint64_t>(n));
      const auto ref = make_approx_reference(host);
      const device_buffer<T> data(host);
      const std::vector<std::int64_t> ranks = test_ranks(n);
      for (std::int64_t bound : {std::int64_t(0), std::int64_t(3), n / 1000, n}) {
        for (int buckets : {2, 1024}) {
          std::int32_t status = -1;
          const gpu_answers<T> got = gpu_approx<T>(data.data(), n, ranks, bound, buckets,
                                                   kselect::detail::default_seed, true, true, &status);
          ASSERT_TRUE(check_approx_answers<T>(ref, ranks, got.values, got.ranks, bound))
              << "bound " << bound << ", buckets " << buckets;
          ASSERT_TRUE(status == device::async_answered || status == device::async_fell_back) << status;
          // Fell back: the descent answered every rank exactly.
          if (status == device::async_fell_back) EXPECT_EQ(got.ranks, ranks) << "bound " << bound;
        }
      }
    }
  }
}

// For one seed both backends draw the same sample and apply the same rules, so
// the answers agree bit for bit (values and ranks), fallbacks included.
TYPED_TEST(GpuApprox, SameAnswersAsTheCpuBackend) {
  using T = TypeParam;
  const std::int64_t n = 300001;
  for (dist d : {dist::uniform, dist::normal, dist::special, dist::clustered}) {
    const std::vector<T> host = generate<T>(d, n, 31);
    const device_buffer<T> data(host);
    const std::vector<std::int64_t> ranks = test_ranks(n);
    const auto r = static_cast<std::int64_t>(ranks.size());
    for (std::int64_t bound : {std::int64_t(5), n / 1000, n}) {
      for (int buckets : {2, 1024, 4096}) {
        const gpu_answers<T> got = gpu_approx<T>(data.data(), n, ranks, bound, buckets);
        std::vector<T> want(ranks.size());
        std::vector<std::int64_t> want_ranks(ranks.size());
        cpu::approx_multiselect(host.data(), n, ranks.data(), r, bound, want.data(), want_ranks.data(), buckets, 2);
        SCOPED_TRACE(testing::Message() << name(d) << ", bound " << bound << ", buckets " << buckets);
        ASSERT_EQ(got.ranks, want_ranks);
        for (std::size_t i = 0; i < ranks.size(); ++i)
          ASSERT_EQ(bit_pattern(got.values[i]), bit_pattern(want[i])) << "rank " << ranks[i];
      }
    }
  }
}

/// The CPU backend's answers (same sample, same plan, same rules).
template <class T>
gpu_answers<T> cpu_approx(const std::vector<T>& host, std::span<const std::int64_t> ranks, std::int64_t bound,
                          int buckets, bool window = true) {
  gpu_answers<T> want{std::vector<T>(ranks.size()), std::vector<std::int64_t>(ranks.size())};
  cpu::approx_multiselect(host.data(), static_cast<std::int64_t>(host.size()), ranks.data(),
                          static_cast<std::int64_t>(ranks.size()), bound, want.values.data(), want.ranks.data(),
                          buckets, 2, window);
  return want;
}

template <class T>
::testing::AssertionResult same_answers(const gpu_answers<T>& got, const gpu_answers<T>& want) {
  if (got.ranks != want.ranks) return ::testing::AssertionFailure() << "reported ranks differ from the CPU backend's";
  for (std::size_t i = 0; i < got.values.size(); ++i)
    if (bit_pattern(got.values[i]) != bit_pattern(want.values[i]))
      return ::testing::AssertionFailure() << "answer " << i << " differs from the CPU backend's";
  return ::testing::AssertionSuccess();
}

// The narrow-window mode (one rank, or a few close ones): single ranks at 0, 1,
// n/2 and n - 1 and a cluster of four, every distribution (all-equal and two
// values: every key inside the window, through the warps' rings; NaN, inf and
// -0.0), bounds from 1 to n, 2 to 4096 buckets, a partial last tile and an
// input not 16-byte aligned; each answer checked against the sort and against
// the CPU backend bit for bit (its window mode counts with plain loops).
TYPED_TEST(GpuApprox, WindowModeRanks) {
  using T = TypeParam;
  for (dist d : all_dists()) {
    for (std::int64_t n : {std::int64_t(1), std::int64_t(4097), (std::int64_t(1) << 20) + 7}) {
      SCOPED_TRACE(testing::Message() << name(d) << ", n = " << n);
      const std::vector<T> host = generate<T>(d, n, 800 + static_cast<std::uint64_t>(n));
      const auto ref = make_approx_reference(host);
      const device_buffer<T> data(host);
      std::vector<std::vector<std::int64_t>> rank_sets;
      for (std::int64_t r : single_ranks(n)) rank_sets.push_back({r});
      if (n > 100) rank_sets.push_back({n / 2 - 50, n / 2, n / 2 + 3, n / 2 + 90});
      for (const auto& ranks : rank_sets) {
        ASSERT_TRUE(core::approx_choose_candidates(n, ranks, 1, 1024, true).window);
        for (std::int64_t bound : {std::int64_t(1), std::int64_t(3), n / 1000, n / 100, n}) {
          if (bound <= 0) continue;
          for (int buckets : {2, 128, 1024, 4096}) {
            SCOPED_TRACE(testing::Message() << "ranks from " << ranks.front() << " (" << ranks.size() << "), bound "
                                            << bound << ", buckets " << buckets);
            const gpu_answers<T> got = gpu_approx<T>(data.data(), n, ranks, bound, buckets);
            ASSERT_TRUE(check_approx_answers<T>(ref, ranks, got.values, got.ranks, bound));
            ASSERT_TRUE(same_answers(got, cpu_approx(host, ranks, bound, buckets)));
          }
        }
      }
      // Unaligned input (the kernel's scalar loads): the keys from the second on.
      if (n > 1) {
        const std::vector<T> tail(host.begin() + 1, host.end());
        const auto tail_ref = make_approx_reference(tail);
        const std::vector<std::int64_t> ranks = {(n - 1) / 2};
        const gpu_answers<T> got = gpu_approx<T>(data.data() + 1, n - 1, ranks, (n - 1) / 100, 1024);
        ASSERT_TRUE(check_approx_answers<T>(tail_ref, ranks, got.values, got.ranks, (n - 1) / 100));
        ASSERT_TRUE(same_answers(got, cpu_approx(tail, ranks, (n - 1) / 100, 1024)));
      }
    }
  }
}

// A sample that misleads (test::sampling_miss_input for the call's seed): the
// middle ranks fall outside their window and are selected exactly.
TYPED_TEST(GpuApprox, WindowModeSamplingMiss) {
  using T = TypeParam;
  const std::int64_t n = (std::int64_t(1) << 20) + 3;
  for (const std::uint64_t seed : {kselect::detail::default_seed, std::uint64_t(12345)}) {
    for (const bool sample_high : {true, false}) {
      const std::vector<T> host = sampling_miss_input<T>(n, seed, sample_high);
      const auto ref = make_approx_reference(host);
      const device_buffer<T> data(host);
      for (const std::vector<std::int64_t>& ranks :
           {std::vector<std::int64_t>{n / 2}, std::vector<std::int64_t>{n / 2, n / 2 + 5}}) {
        ASSERT_TRUE(core::approx_choose_candidates(n, ranks, n / 1000, 1024, true).window);
        for (std::int64_t bound : {std::int64_t(3), n / 1000}) {
          SCOPED_TRACE(testing::Message() << "seed " << seed << ", sample_high " << sample_high << ", bound "
                                          << bound << ", ranks " << ranks.size());
          const gpu_answers<T> got = gpu_approx<T>(data.data(), n, ranks, bound, 1024, seed);
          ASSERT_TRUE(check_approx_answers<T>(ref, ranks, got.values, got.ranks, bound));
          EXPECT_EQ(got.ranks, ranks);  // the fallback's: exact
          const T key = ref.sorted[static_cast<std::size_t>(ranks[0])];
          EXPECT_TRUE(key >= T(1000) && key < T(100000));  // an unsampled key: outside the sample's range
        }
      }
    }
  }
}

/// An input whose partial last tile (its last n % 4096 keys, all of them for n
/// < 4096) holds keys around the median: distinct values 2^23 - tail / 2 + j in
/// a scrambled order; the keys before it are spread over [0, 2^24). The ranks
/// near n / 2 then fall among the tail's keys.
template <class T>
std::vector<T> window_tail_input(std::int64_t n, std::int64_t tail) {
  std::vector<T> v(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n - tail; ++i)
    v[static_cast<std::size_t>(i)] = static_cast<T>(random_word(61, static_cast<std::uint64_t>(i)) >> 40);
  for (std::int64_t j = 0; j < tail; ++j)  // 1237 is coprime with the tails used: a permutation
    v[static_cast<std::size_t>(n - tail + j)] = static_cast<T>((std::int64_t(1) << 23) - tail / 2 + (j * 1237) % tail);
  return v;
}

/// How many of the last `tail` keys lie in the window the plan takes for these
/// ranks: [first, last] candidate keys of the sorted sample (the kernel's window
/// runs from the first splitter boundary to the last).
template <class T>
std::int64_t tail_keys_in_window(const std::vector<T>& host, std::int64_t tail, std::span<const std::int64_t> ranks,
                                 std::int64_t bound) {
  const auto n = static_cast<std::int64_t>(host.size());
  const core::approx_candidates c = core::approx_choose_candidates(n, ranks, bound, 1024, true);
  std::vector<T> sample(core::approx_sample_size);
  for (std::int64_t j = 0; j < core::approx_sample_size; ++j)
    sample[static_cast<std::size_t>(j)] = host[static_cast<std::size_t>(
        core::sample_position(j, core::approx_sample_size, n, kselect::detail::default_seed))];
  std::sort(sample.begin(), sample.end());  // non-negative values: the pre-key order
  const T lo = sample[static_cast<std::size_t>(c.first)], hi = sample[static_cast<std::size_t>(c.first + c.width)];
  return std::count_if(host.end() - tail, host.end(), [&](T x) { return x >= lo && x <= hi; });
}

// The window mode with the window's keys in the partial last tile (n not a
// multiple of the 4096-key tile; the kernel's bounds-checked tile, its inside
// bits, ballots and ring): one rank and four close ones around n / 2, bounds 3
// and n / 300, an input that is one partial tile and one with 256 full tiles
// before it, 16-byte aligned and not (the keys from the second on); each answer
// checked against the sort and against the CPU backend bit for bit.
TYPED_TEST(GpuApprox, WindowModeKeysInThePartialTile) {
  using T = TypeParam;
  constexpr std::int64_t tile = 4096;  // tuning::tile_keys
  for (const std::int64_t size : {std::int64_t(3001), (std::int64_t(1) << 20) + 3001}) {
    const std::vector<T> full_input = window_tail_input<T>(size, size % tile);
    const device_buffer<T> data(full_input);
    for (const bool aligned : {true, false}) {
      const std::vector<T> host = aligned ? full_input : std::vector<T>(full_input.begin() + 1, full_input.end());
      const T* d_in = aligned ? data.data() : data.data() + 1;
      const auto n = static_cast<std::int64_t>(host.size());
      const std::int64_t tail = n % tile;
      const auto ref = make_approx_reference(host);
      for (const std::vector<std::int64_t>& ranks :
           {std::vector<std::int64_t>{n / 2}, std::vector<std::int64_t>{n / 2 - 50, n / 2, n / 2 + 3, n / 2 + 90}}) {
        for (const std::int64_t bound : {std::int64_t(3), n / 300}) {
          SCOPED_TRACE(testing::Message() << "n = " << n << (aligned ? "" : " (unaligned)") << ", ranks "
                                          << ranks.size() << ", bound " << bound);
          ASSERT_TRUE(core::approx_choose_candidates(n, ranks, bound, 1024, true).window);
          // Keys of the partial tile inside the window (else this tests nothing
          // new): about 95 for n = 3001, the whole tail for the larger input.
          ASSERT_GE(tail_keys_in_window(host, tail, ranks, bound), std::min<std::int64_t>(64, tail));
          for (const int buckets : {128, 1024}) {
            const gpu_answers<T> got = gpu_approx<T>(d_in, n, ranks, bound, buckets);
            ASSERT_TRUE(check_approx_answers<T>(ref, ranks, got.values, got.ranks, bound)) << "buckets " << buckets;
            ASSERT_TRUE(same_answers(got, cpu_approx(host, ranks, bound, buckets))) << "buckets " << buckets;
          }
        }
      }
    }
  }
}

// Runs of equal keys are answered exactly by their splitter.
TYPED_TEST(GpuApprox, TiesAnsweredExactly) {
  using T = TypeParam;
  const std::int64_t n = 200003;
  for (dist d : {dist::all_equal, dist::two_values, dist::sixteen_values}) {
    const std::vector<T> host = generate<T>(d, n, 9);
    const auto ref = make_approx_reference(host);
    const device_buffer<T> data(host);
    std::vector<std::int64_t> ranks;
    for (std::int64_t r = 0; r < n; r += 991) ranks.push_back(r);
    ranks.push_back(n - 1);
    for (int buckets : {128, 1024, 4096}) {
      const gpu_answers<T> got = gpu_approx<T>(data.data(), n, ranks, n, buckets);
      std::int64_t max_error = -1;
      ASSERT_TRUE(check_approx_answers<T>(ref, ranks, got.values, got.ranks, n, &max_error));
      EXPECT_EQ(max_error, 0) << name(d) << ", buckets " << buckets;
    }
  }
}

/// The quality tests' input: 2^22 floats of a smooth distribution generated on
/// the device, their host copy and its reference.
struct smooth_input {
  static constexpr std::int64_t n = std::int64_t(1) << 22;
  device_buffer<float> data;
  std::vector<float> host;
  approx_reference<float> ref;
  smooth_input(device_dist d, std::uint64_t seed) : data(static_cast<std::size_t>(n)) {
    generate_on_device<float>(data.data(), n, d, seed);
    cuda_check(cudaDeviceSynchronize(), "generate");
    host = data.to_host();
    ref = make_approx_reference(host);
  }
};

// One pass over a large smooth input: the error of 101 percentiles is at most
// about half the gap between splitters, n / (2 (b - 1)), as on the CPU; with the
// bound at 0.1% of n every answer is within it (fallbacks included).
TEST(GpuApproxQuality, ErrorOfOnePass) {
  const std::int64_t n = smooth_input::n;
  for (device_dist d : {device_dist::uniform, device_dist::normal}) {
    const smooth_input in(d, 7);
    const device_buffer<float>& data = in.data;
    const auto& ref = in.ref;
    const std::vector<std::int64_t> ranks = percentile_ranks_101(n);
    struct limit_t {
      int buckets;
      double max_fraction;
    };
    for (const limit_t l : {limit_t{128, 0.006}, limit_t{1024, 0.0015}, limit_t{4096, 0.0005}}) {
      SCOPED_TRACE(testing::Message() << device_dist_name(d) << ", buckets " << l.buckets);
      std::int64_t max_error = -1;
      const gpu_answers<float> one_pass = gpu_approx<float>(data.data(), n, ranks, n, l.buckets);
      ASSERT_TRUE(check_approx_answers<float>(ref, ranks, one_pass.values, one_pass.ranks, n, &max_error));
      EXPECT_LE(static_cast<double>(max_error), l.max_fraction * static_cast<double>(n));
      EXPECT_GT(max_error, 0);
      const gpu_answers<float> bounded = gpu_approx<float>(data.data(), n, ranks, n / 1000, l.buckets);
      ASSERT_TRUE(check_approx_answers<float>(ref, ranks, bounded.values, bounded.ranks, n / 1000));
    }
  }
}

// The window mode on a large smooth input: the median is answered by the
// window's splitters (error > 0: not the fallback's) within half the bound, in
// both modes; and for 101 percentiles (the histogram mode) the flag changes
// nothing.
TEST(GpuApproxQuality, WindowModeOnePass) {
  const std::int64_t n = smooth_input::n;
  for (device_dist d : {device_dist::uniform, device_dist::normal}) {
    const smooth_input in(d, 8);
    const device_buffer<float>& data = in.data;
    const std::vector<float>& host = in.host;
    const auto& ref = in.ref;
    for (const std::int64_t bound : {n / 1000, n / 100}) {
      SCOPED_TRACE(testing::Message() << device_dist_name(d) << ", bound " << bound);
      const std::vector<std::int64_t> median = {n / 2};
      for (const bool window : {true, false}) {
        std::int64_t max_error = -1;
        const gpu_answers<float> got = gpu_approx<float>(data.data(), n, median, bound, 1024,
                                                         kselect::detail::default_seed, window);
        ASSERT_TRUE(check_approx_answers<float>(ref, median, got.values, got.ranks, bound, &max_error));
        EXPECT_GT(max_error, 0) << "window " << window;
        if (window) EXPECT_LE(max_error, bound / 2);
        ASSERT_TRUE(same_answers(got, cpu_approx(host, median, bound, 1024, window)));
      }
      const std::vector<std::int64_t> pct = percentile_ranks_101(n);
      const gpu_answers<float> with = gpu_approx<float>(data.data(), n, pct, bound, 1024);
      const gpu_answers<float> without =
          gpu_approx<float>(data.data(), n, pct, bound, 1024, kselect::detail::default_seed, false);
      ASSERT_TRUE(same_answers(with, without));
    }
  }
}

// The owning backend runs the device API with its defaults and copies back.
TEST(GpuApproxBackend, OwningGlue) {
  const std::int64_t n = 500009;
  const std::vector<double> host = generate<double>(dist::normal, n, 3);
  const device_buffer<double> data(host);
  const std::vector<std::int64_t> ranks = test_ranks(n);
  const auto r = static_cast<std::int64_t>(ranks.size());
  std::vector<double> out(ranks.size());
  std::vector<std::int64_t> out_ranks(ranks.size());
  cuda_backend::approx_multiselect<double>(data.data(), n, ranks.data(), r, n / 1000, out.data(), out_ranks.data(),
                                           options{});
  const gpu_answers<double> direct =
      gpu_approx<double>(data.data(), n, ranks, n / 1000, device::approx_config{}.buckets);
  EXPECT_EQ(out_ranks, direct.ranks);
  for (std::size_t i = 0; i < out.size(); ++i) EXPECT_EQ(bit_pattern(out[i]), bit_pattern(direct.values[i]));
  EXPECT_TRUE(check_approx_answers<double>(make_approx_reference(host), ranks, out, out_ranks, n / 1000));
}

// approx_multiselect_async captured once in a CUDA graph and replayed 100 times
// on new data of the same size (distributions where the counting pass answers,
// and all-equal or 16-value keys where ties decide), every answer checked.
TEST(GpuApproxStreamOrdered, GraphReplayOnNewData) {
  const std::int64_t n = (std::int64_t(1) << 20) + 5;
  cudaStream_t stream;
  cuda_check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "stream");
  device_buffer<float> d_in(n);
  const std::vector<std::int64_t> ranks = percentile_ranks_101(n);
  const auto r = static_cast<std::int64_t>(ranks.size());
  const device_buffer<std::int64_t> d_ranks(ranks);
  device_buffer<float> out(ranks.size());
  device_buffer<std::int64_t> out_ranks(ranks.size());
  device_buffer<std::int32_t> status(2);
  // A bound the counting pass usually meets, and one it never does (3: the descent).
  const std::int64_t wide = n / 1000, tight = 3;
  device_buffer<float> out_tight(ranks.size());
  device_buffer<std::int64_t> out_ranks_tight(ranks.size());
  std::size_t b1 = 0, b2 = 0;
  ASSERT_EQ(device::approx_multiselect_async<float>(nullptr, b1, d_in.data(), out.data(), out_ranks.data(),
                                                    status.data(), n, d_ranks.data(), r, wide, stream),
            cudaSuccess);
  ASSERT_EQ(device::approx_multiselect_async<float>(nullptr, b2, d_in.data(), out_tight.data(),
                                                    out_ranks_tight.data(), status.data() + 1, n, d_ranks.data(), r,
                                                    tight, stream),
            cudaSuccess);
  device_buffer<char> ws1(b1), ws2(b2);
  cudaError_t e1 = cudaSuccess, e2 = cudaSuccess;
  const captured_graph graph(stream, [&] {
    e1 = device::approx_multiselect_async<float>(ws1.data(), b1, d_in.data(), out.data(), out_ranks.data(),
                                                 status.data(), n, d_ranks.data(), r, wide, stream);
    e2 = device::approx_multiselect_async<float>(ws2.data(), b2, d_in.data(), out_tight.data(),
                                                 out_ranks_tight.data(), status.data() + 1, n, d_ranks.data(), r,
                                                 tight, stream);
  });
  ASSERT_EQ(e1, cudaSuccess) << device::last_error_message();
  ASSERT_EQ(e2, cudaSuccess) << device::last_error_message();
  int fell_back[2] = {0, 0};
  graph.replay_on_new_data(stream, d_in.data(), n, 3000, [&](device_dist d, int replay) {
    SCOPED_TRACE(testing::Message() << device_dist_name(d) << " replay " << replay);
    const auto ref = make_approx_reference(d_in.to_host());
    ASSERT_TRUE(check_approx_answers<float>(ref, ranks, out.to_host(), out_ranks.to_host(), wide));
    ASSERT_TRUE(check_approx_answers<float>(ref, ranks, out_tight.to_host(), out_ranks_tight.to_host(), tight));
    const std::vector<std::int32_t> st = status.to_host();
    for (int i = 0; i < 2; ++i) {
      ASSERT_TRUE(st[i] == device::async_answered || st[i] == device::async_fell_back) << st[i];
      fell_back[i] += st[i];
    }
  });
  if (::testing::Test::HasFatalFailure()) return;
  std::printf("[          ] fell back to the descent: %d of 100 (bound n/1000), %d of 100 (bound 3)\n", fell_back[0],
              fell_back[1]);
  cudaStreamDestroy(stream);
}

TEST(GpuApproxStreamOrdered, BadRanksAndArguments) {
  const std::int64_t n = 1000;
  device_buffer<float> data(generate<float>(dist::uniform, n, 2));
  device_buffer<float> out(4);
  device_buffer<std::int64_t> out_ranks(4);
  device_buffer<std::int32_t> status(1);
  for (const std::vector<std::int64_t>& bad : {std::vector<std::int64_t>{5, 3}, std::vector<std::int64_t>{4, 4},
                                               std::vector<std::int64_t>{-1, 2}, std::vector<std::int64_t>{0, n}}) {
    for (const std::int64_t bound : {std::int64_t(0), std::int64_t(10)}) {
      const device_buffer<std::int64_t> d_ranks(bad);
      std::size_t bytes = 0;
      ASSERT_EQ(device::approx_multiselect_async<float>(nullptr, bytes, data.data(), out.data(), out_ranks.data(),
                                                        status.data(), n, d_ranks.data(), 2, bound),
                cudaSuccess);
      device_buffer<char> ws(bytes);
      ASSERT_EQ(device::approx_multiselect_async<float>(ws.data(), bytes, data.data(), out.data(), out_ranks.data(),
                                                        status.data(), n, d_ranks.data(), 2, bound),
                cudaSuccess);
      cuda_check(cudaDeviceSynchronize(), "sync");
      EXPECT_EQ(status.to_host()[0], device::async_invalid_ranks) << bad[0] << ", " << bad[1] << " bound " << bound;
    }
  }
  const std::vector<std::int64_t> host_ranks{1, 2};
  std::size_t bytes = 1 << 22;
  device_buffer<char> ws(bytes);
  auto message = [] { return std::string(device::last_error_message()); };
  EXPECT_EQ(device::approx_multiselect_async<float>(ws.data(), bytes, data.data(), out.data(), out_ranks.data(),
                                                    status.data(), n, host_ranks.data(), 2, 10),
            cudaErrorInvalidValue);
  EXPECT_NE(message().find("d_ranks is not device memory"), std::string::npos) << message();
  EXPECT_EQ(device::approx_multiselect_async<float>(ws.data(), bytes, data.data(), out.data(), out_ranks.data(),
                                                    status.data(), n, nullptr, 2, 10),
            cudaErrorInvalidValue);
  EXPECT_NE(message().find("d_ranks is null"), std::string::npos) << message();
  const device_buffer<std::int64_t> d_ranks(std::vector<std::int64_t>{0, 1, 2, 3});
  EXPECT_EQ(device::approx_multiselect_async<float>(ws.data(), bytes, data.data(), out.data(), out_ranks.data(),
                                                    status.data(), 3, d_ranks.data(), 4, 10),
            cudaErrorInvalidValue);
  EXPECT_NE(message().find("more ranks than elements"), std::string::npos) << message();
  EXPECT_EQ(device::approx_multiselect_async<float>(ws.data(), bytes, data.data(), out.data(), out_ranks.data(),
                                                    status.data(), n, d_ranks.data(), 4, -1),
            cudaErrorInvalidValue);
  EXPECT_NE(message().find("max_rank_error is negative"), std::string::npos) << message();
}

TEST(GpuApproxApi, BadArgumentsAndWorkspace) {
  const std::int64_t n = 1000;
  std::vector<float> host = generate<float>(dist::uniform, n, 2);
  device_buffer<float> data(host);
  device_buffer<float> out(4);
  device_buffer<std::int64_t> out_ranks(4);
  const std::int64_t ranks[] = {1, 2, 3};
  std::size_t bytes = 0;
  ASSERT_EQ(device::approx_multiselect<float>(nullptr, bytes, data.data(), nullptr, nullptr, n, ranks, 3, 10),
            cudaSuccess);
  // The size depends on the type, n and the rank count, not on the buckets.
  for (int buckets : {2, 128, 4096}) {
    device::approx_config cfg;
    cfg.buckets = buckets;
    std::size_t b = 0;
    ASSERT_EQ(device::approx_multiselect<float>(nullptr, b, data.data(), nullptr, nullptr, n, ranks, 3, 10, nullptr,
                                                cfg),
              cudaSuccess);
    EXPECT_EQ(b, bytes);
  }
  device_buffer<char> ws(bytes);
  auto call = [&](const float* in, std::int64_t nn, const std::int64_t* r, std::int64_t nr, std::int64_t bound,
                  float* o, std::int64_t* orank, int buckets = 1024, std::size_t given = 0) {
    std::size_t b = given ? given : bytes;
    device::approx_config cfg;
    cfg.buckets = buckets;
    return device::approx_multiselect<float>(ws.data(), b, in, o, orank, nn, r, nr, bound, nullptr, cfg);
  };
  auto expect_invalid = [](cudaError_t st, const std::string& needle) {
    EXPECT_EQ(st, cudaErrorInvalidValue);
    EXPECT_NE(std::string(device::last_error_message()).find(needle), std::string::npos)
        << device::last_error_message();
  };
  for (int b : {1, 0, -3, 4097})
    expect_invalid(call(data.data(), n, ranks, 3, 10, out.data(), out_ranks.data(), b),
                   "buckets = " + std::to_string(b) + " is outside [2, 4096]");
  // Refused at the size query too.
  {
    device::approx_config cfg;
    cfg.buckets = 5000;
    std::size_t b = 0;
    expect_invalid(device::approx_multiselect<float>(nullptr, b, data.data(), nullptr, nullptr, n, ranks, 3, 10,
                                                     nullptr, cfg),
                   "buckets = 5000");
  }
  expect_invalid(call(data.data(), n, ranks, 3, 10, out.data(), out_ranks.data(), 1024, bytes - 1),
                 "workspace too small: " + std::to_string(bytes - 1) + " bytes given, " + std::to_string(bytes) +
                     " needed");
  expect_invalid(call(data.data(), n, ranks, 3, -1, out.data(), out_ranks.data()), "max_rank_error is negative");
  expect_invalid(call(data.data(), 0, ranks, 3, 10, out.data(), out_ranks.data()), "empty input");
  const std::int64_t unsorted[] = {5, 3};
  expect_invalid(call(data.data(), n, unsorted, 2, 10, out.data(), out_ranks.data()), "sorted ascending");
  const std::int64_t duplicate[] = {3, 3};
  expect_invalid(call(data.data(), n, duplicate, 2, 10, out.data(), out_ranks.data()), "without duplicates");
  const std::int64_t out_of_range[] = {0, n};
  expect_invalid(call(data.data(), n, out_of_range, 2, 10, out.data(), out_ranks.data()), "outside [0, 1000)");
  expect_invalid(call(data.data(), n, nullptr, 3, 10, out.data(), out_ranks.data()), "ranks is null");
  const device_buffer<std::int64_t> device_ranks(std::vector<std::int64_t>{1, 2, 3});
  expect_invalid(call(data.data(), n, device_ranks.data(), 3, 10, out.data(), out_ranks.data()),
                 "ranks must be a host array");
  expect_invalid(call(host.data(), n, ranks, 3, 10, out.data(), out_ranks.data()), "d_in is not device memory");
  std::vector<float> host_out(3);
  std::vector<std::int64_t> host_ranks(3);
  expect_invalid(call(data.data(), n, ranks, 3, 10, host_out.data(), out_ranks.data()), "d_out is not device memory");
  expect_invalid(call(data.data(), n, ranks, 3, 10, out.data(), host_ranks.data()),
                 "d_out_ranks is not device memory");
  // Zero ranks: nothing to do.
  EXPECT_EQ(call(data.data(), n, ranks, 0, 10, out.data(), out_ranks.data()), cudaSuccess);
  EXPECT_STREQ(device::last_error_message(), "");
}

}  // namespace
}  // namespace kselect::test
