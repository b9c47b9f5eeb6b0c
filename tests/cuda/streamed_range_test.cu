// Rank ranges and top-k of host arrays on the GPU, streamed through it
// (options::device = cuda with host input, src/cuda/streamed/streamed_range.cpp):
// exactly the stable sort's elements (values bit for bit, indices, and order: index
// order, or sorted), from every distribution, with device memory limits so small that
// the output buffer goes back to the host many times and ties at a boundary span
// many chunks, from pageable and pinned memory; in one pass where the candidates fit
// the device and in three otherwise.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cstring>
#include <span>
#include <vector>

#include "common/common.hpp"
#include "common/device_data.cuh"
#include "common/expect_invalid.hpp"
#include "common/range_check.hpp"
#include "cuda/streamed/streamed_range.hpp"
#include "kselect/kselect.hpp"

namespace kselect::test {
namespace {

options streamed(std::size_t limit) {
  options o;
  o.device = device_kind::cuda;
  o.device_memory_limit = limit;
  return o;
}

/// The streamed range [lo, hi) against the stable sort (`order`: stable_order of the
/// input in that direction), exactly; returns what the call did.
template <class T>
cuda_backend::range_stream_stats expect_streamed_range(const std::vector<T>& values, std::span<const std::int64_t> order,
                                                       std::int64_t lo, std::int64_t hi, bool descending, bool sorted,
                                                       std::size_t limit, const T* input = nullptr) {
  const auto n = static_cast<std::int64_t>(values.size());
  std::vector<T> got(static_cast<std::size_t>(hi - lo));
  std::vector<std::int64_t> indices(got.size());
  cuda_backend::range_stream_stats stats;
  cuda_backend::streamed_range_select<T>(input ? input : values.data(), n, lo, hi, descending, sorted, got.data(),
                                         indices.data(), streamed(limit), &stats);
  EXPECT_TRUE(check_range_result(values.data(), n, order, lo, hi, descending, sorted, /*deterministic=*/true,
                                 got.data(), indices.data()))
      << "[" << lo << ", " << hi << ")" << (descending ? " descending" : "") << (sorted ? " sorted" : "")
      << ", limit " << limit;
  return stats;
}

/// The ranges every size is tried with: the first and last position, a small top-k,
/// a middle third, everything.
std::vector<std::pair<std::int64_t, std::int64_t>> ranges_of(std::int64_t n) {
  return {{0, 1}, {n - 1, n}, {0, std::min<std::int64_t>(n, 1000)}, {n / 3, std::max(n / 3 + 1, 2 * n / 3)}, {0, n}};
}

template <class T>
class StreamedRange : public ::testing::Test {};
using KeyTypes = ::testing::Types<float, double, std::int32_t, std::uint32_t, std::int64_t, std::uint64_t>;
TYPED_TEST_SUITE(StreamedRange, KeyTypes);

// Every distribution and direction, with the default limit (one chunk for the smaller
// arrays) and with 1 MiB (chunks of 64 KiB, an output buffer smaller than the range).
TYPED_TEST(StreamedRange, MatchesTheStableSort) {
  using T = TypeParam;
  ASSERT_TRUE(cuda_available());
  for (const dist d : all_dists())
    for (const std::int64_t n : {std::int64_t{1}, std::int64_t{2}, std::int64_t{33}, std::int64_t{4097},
                                 (std::int64_t{1} << 20) + 3}) {
      const std::vector<T> values = generate<T>(d, n, 41 + static_cast<std::uint64_t>(n));
      for (const bool descending : {false, true}) {
        const std::vector<std::int64_t> order = stable_order(values.data(), n, descending);
        int variant = 0;
        for (const auto& [lo, hi] : ranges_of(n))
          for (const std::size_t limit : {std::size_t{0}, std::size_t{1} << 20}) {
            SCOPED_TRACE(testing::Message() << name(d) << ", n = " << n);
            expect_streamed_range(values, order, lo, hi, descending, /*sorted=*/(variant++ % 3) == 1, limit);
          }
      }
    }
}

// Sixteen values over 2^22 floats under 1 MiB: each boundary value's elements span
// hundreds of chunks, of which the host takes the one or two it takes in part; a
// range of 2^21 elements goes back through the output buffer many times.
TEST(StreamedRangePaths, TiesAcrossManyChunks) {
  ASSERT_TRUE(cuda_available());
  const std::int64_t n = std::int64_t{1} << 22;
  const std::vector<float> values = generate<float>(dist::sixteen_values, n, 13);
  for (const bool descending : {false, true}) {
    const std::vector<std::int64_t> order = stable_order(values.data(), n, descending);
    const cuda_backend::range_stream_stats half =
        expect_streamed_range(values, order, n / 4, n / 4 + n / 2, descending, false, std::size_t{1} << 20);
    EXPECT_GT(half.flushes, 1);
    EXPECT_GE(half.host_chunks, 1);
    EXPECT_LE(half.host_chunks, 4);
    EXPECT_GT(half.device_chunks, 100);
    const cuda_backend::range_stream_stats top = expect_streamed_range(values, order, 0, 1000, descending, true, 1 << 20);
    EXPECT_EQ(top.flushes, 1);
  }
}

// Uniform data 4 times the limit: a small top-k or a narrow range is answered by the
// one-pass form (the sample's key interval, kept and selected on the device); half
// the array does not fit and takes the three passes.
TEST(StreamedRangePaths, OnePassWhenTheCandidatesFit) {
  ASSERT_TRUE(cuda_available());
  const std::int64_t n = std::int64_t{1} << 24;
  const std::vector<float> values = generate<float>(dist::uniform, n, 18);
  const std::size_t limit = std::size_t{16} << 20;
  for (const bool descending : {false, true}) {
    const std::vector<std::int64_t> order = stable_order(values.data(), n, descending);
    EXPECT_TRUE(expect_streamed_range(values, order, 0, 1000, descending, false, limit).one_pass);
    EXPECT_TRUE(expect_streamed_range(values, order, n / 2 - 500, n / 2 + 500, descending, true, limit).one_pass);
    EXPECT_FALSE(expect_streamed_range(values, order, 0, n / 2, descending, false, limit).one_pass);
  }
}

// An array in pinned memory is copied to the device without staging.
TEST(StreamedRangePaths, PinnedInput) {
  ASSERT_TRUE(cuda_available());
  const std::int64_t n = (std::int64_t{1} << 21) + 17;
  const std::vector<double> values = generate<double>(dist::special, n, 14);
  double* pinned = nullptr;
  cuda_check(cudaMallocHost(&pinned, values.size() * sizeof(double)), "cudaMallocHost");
  std::memcpy(pinned, values.data(), values.size() * sizeof(double));
  const std::vector<std::int64_t> order = stable_order(values.data(), n, true);
  for (const std::size_t limit : {std::size_t{0}, std::size_t{2} << 20})
    expect_streamed_range(values, order, 0, 4096, true, true, limit, pinned);
  cudaFreeHost(pinned);
}

// Through the owning API: topk and rank_range of a host array on CUDA equal the CPU
// backend's (which is deterministic), with and without indices.
TEST(StreamedRangePaths, OwningApi) {
  ASSERT_TRUE(cuda_available());
  const std::int64_t n = 3000017;
  const std::vector<float> values = generate<float>(dist::clustered, n, 15);
  options cpu;
  cpu.device = device_kind::cpu;
  for (const bool largest : {false, true})
    for (const bool sorted : {false, true})
      for (const bool with_indices : {false, true}) {
        const topk_options t{largest, sorted, false, with_indices};
        const selection<float> got = topk(values, 12345, t, streamed(4 << 20));
        const selection<float> want = topk(values, 12345, t, cpu);
        ASSERT_EQ(got.values.size(), want.values.size());
        EXPECT_EQ(0, std::memcmp(got.values.data(), want.values.data(), got.values.size() * sizeof(float)));
        EXPECT_EQ(got.indices, want.indices);
        EXPECT_EQ(got.indices.empty(), !with_indices);
      }
  const selection<float> got = rank_range(values.data(), n, n / 2, n / 2 + 777, {true, false, true}, streamed(0));
  const selection<float> want = rank_range(values.data(), n, n / 2, n / 2 + 777, {true, false, true}, cpu);
  EXPECT_EQ(0, std::memcmp(got.values.data(), want.values.data(), got.values.size() * sizeof(float)));
  EXPECT_EQ(got.indices, want.indices);
}

TEST(StreamedRangePaths, CallerMistakes) {
  ASSERT_TRUE(cuda_available());
  const std::vector<float> values = generate<float>(dist::uniform, 1 << 20, 16);
  expect_invalid([&] { topk(values, 5, {}, streamed(1000)); }, "options.device_memory_limit = 1000 bytes is too small");
  expect_invalid([&] { topk(values, (1 << 20) + 1, {}, streamed(0)); }, "is outside [0, n]");
  expect_invalid([&] { rank_range(values.data(), 1 << 20, 6, 5, {}, streamed(0)); }, "is greater than hi");
  // Calls that do not stream host input refuse it on CUDA.
  expect_invalid([&] { approx_select(values.data(), 1 << 20, 5, 100, streamed(0)); },
                 "only select, multiselect, quantile, nanquantile, topk and rank_range");
}

}  // namespace
}  // namespace kselect::test
