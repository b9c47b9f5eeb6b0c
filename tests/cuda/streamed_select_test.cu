// Host arrays selected on the GPU by streaming them through it (options::device =
// cuda with host input, src/cuda/streamed/): the same answers, bit for bit, as the
// CPU backend, with device memory limits so small that the array is many times the
// memory the call may take (the out-of-core case), from pageable and pinned memory,
// and above 2^31 elements (with top-k and a rank range, src/cuda/streamed/streamed_range.cpp).
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "common/common.hpp"
#include "common/device_data.cuh"
#include "common/expect_invalid.hpp"
#include "cuda/streamed/streamed_select.hpp"
#include "kselect/kselect.hpp"

namespace kselect::test {
namespace {

template <class T>
bool same_bits(T a, T b) {
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}

options streamed(std::size_t limit) {
  options o;
  o.device = device_kind::cuda;
  o.device_memory_limit = limit;
  return o;
}

/// The streamed multiselect of `ranks` (sorted, unique) against the CPU backend's,
/// bit for bit; returns what the call did.
template <class T>
cuda_backend::stream_stats expect_streamed_like_cpu(const std::vector<T>& values, const std::vector<std::int64_t>& ranks,
                                                    std::size_t limit, const T* input = nullptr) {
  const auto n = static_cast<std::int64_t>(values.size());
  std::vector<T> got(ranks.size());
  cuda_backend::stream_stats stats;
  cuda_backend::streamed_multiselect<T>(input ? input : values.data(), n, ranks.data(),
                                        static_cast<std::int64_t>(ranks.size()), got.data(), streamed(limit), &stats);
  const std::vector<T> want = reference_multiselect<T>(values, ranks);
  for (std::size_t i = 0; i < ranks.size(); ++i)
    EXPECT_TRUE(same_value(got[i], want[i])) << "rank " << ranks[i] << " of " << n;
  // Through the owning API (which restores the exact element of zeros and NaNs).
  const std::vector<T> owning = multiselect(input ? input : values.data(), n, ranks, streamed(limit));
  options cpu;
  cpu.device = device_kind::cpu;
  const std::vector<T> on_cpu = multiselect(values.data(), n, ranks, cpu);
  for (std::size_t i = 0; i < ranks.size(); ++i)
    EXPECT_TRUE(same_bits(owning[i], on_cpu[i])) << "rank " << ranks[i] << " of " << n << ": bits differ";
  return stats;
}

template <class T>
class StreamedSelect : public ::testing::Test {};
using KeyTypes = ::testing::Types<float, double, std::int32_t, std::uint32_t, std::int64_t, std::uint64_t>;
TYPED_TEST_SUITE(StreamedSelect, KeyTypes);

// Every distribution, with the default limit (one pass keeps the whole array) and with
// 1 MiB, a quarter of the largest array: windows from the sample, and passes that
// narrow by counts where they miss or overflow.
TYPED_TEST(StreamedSelect, MatchesTheCpuBackend) {
  using T = TypeParam;
  ASSERT_TRUE(cuda_available());
  for (const dist d : all_dists())
    for (const std::int64_t n : {std::int64_t{1}, std::int64_t{2}, std::int64_t{33}, std::int64_t{4097},
                                 (std::int64_t{1} << 20) + 3})
      for (const std::size_t limit : {std::size_t{0}, std::size_t{1} << 20}) {
        SCOPED_TRACE(testing::Message() << name(d) << ", n = " << n << ", limit " << limit);
        const std::vector<T> values = generate<T>(d, n, 31 + static_cast<std::uint64_t>(n));
        for (const int random_ranks : {0, 100}) {
          const cuda_backend::stream_stats stats =
              expect_streamed_like_cpu(values, standard_ranks(n, random_ranks, 7), limit);
          EXPECT_GE(stats.passes, 1);
          if (limit == 0) EXPECT_EQ(stats.passes, 1) << "the whole array fits the kept buffer";
        }
      }
}

// Uniform data 16 times the limit: the sampled windows answer one rank in one pass;
// with a limit that cannot hold a window the buffer overflows and the counts narrow.
TEST(StreamedSelectPaths, OneRankOnePassAndOverflow) {
  ASSERT_TRUE(cuda_available());
  const std::int64_t n = std::int64_t{1} << 24;
  const std::vector<float> values = generate<float>(dist::uniform, n, 5);
  const std::vector<std::int64_t> median = {n / 2};
  const cuda_backend::stream_stats fits = expect_streamed_like_cpu(values, median, std::size_t{4} << 20);
  EXPECT_EQ(fits.passes, 1);
  EXPECT_FALSE(fits.overflowed);
  EXPECT_LT(fits.capacity, n);
  // Clustered data: eight clusters narrower than a sample's resolution.
  const std::vector<float> clustered = generate<float>(dist::clustered, n, 6);
  const cuda_backend::stream_stats tight = expect_streamed_like_cpu(clustered, standard_ranks(n, 100, 3), 300 << 10);
  EXPECT_GE(tight.passes, 2);
}

// An array in pinned memory is copied to the device without staging.
TEST(StreamedSelectPaths, PinnedInput) {
  ASSERT_TRUE(cuda_available());
  const std::int64_t n = (std::int64_t{1} << 22) + 17;
  const std::vector<double> values = generate<double>(dist::special, n, 8);
  double* pinned = nullptr;
  cuda_check(cudaMallocHost(&pinned, values.size() * sizeof(double)), "cudaMallocHost");
  std::memcpy(pinned, values.data(), values.size() * sizeof(double));
  for (const std::size_t limit : {std::size_t{0}, std::size_t{2} << 20})
    expect_streamed_like_cpu(values, standard_ranks(n, 50, 4), limit, pinned);
  cudaFreeHost(pinned);
}

// Quantiles and nanquantiles of a host array on CUDA equal the CPU's.
TEST(StreamedSelectPaths, Quantiles) {
  ASSERT_TRUE(cuda_available());
  const std::int64_t n = 1000003;
  std::vector<float> values = generate<float>(dist::normal, n, 9);
  for (std::int64_t i = 0; i < n; i += 997) values[static_cast<std::size_t>(i)] = std::nanf("");
  const std::vector<double> qs = {0.0, 0.001, 0.25, 0.5, 0.75, 0.999, 1.0};
  options cpu;
  cpu.device = device_kind::cpu;
  for (const quantile_method m : {quantile_method::linear, quantile_method::lower, quantile_method::hazen}) {
    const auto got = nanquantile(values.data(), n, qs, m, streamed(1 << 20));
    const auto want = nanquantile(values.data(), n, qs, m, cpu);
    for (std::size_t i = 0; i < qs.size(); ++i) EXPECT_TRUE(same_value(got[i], want[i])) << to_string(m) << " " << qs[i];
    const auto with_nan = quantile(values.data(), n, qs, m, streamed(1 << 20));
    for (const float q : with_nan) EXPECT_TRUE(std::isnan(q));
  }
}

TEST(StreamedSelectPaths, CallerMistakes) {
  ASSERT_TRUE(cuda_available());
  const std::vector<float> values = generate<float>(dist::uniform, 1 << 20, 10);
  expect_invalid([&] { select(values, 5, streamed(1000)); }, "options.device_memory_limit = 1000 bytes is too small");
  expect_invalid([&] { select(values, 5, streamed(1000)); }, "takes at least");
  expect_invalid([&] { select(values, 1 << 20, streamed(0)); }, "1048576 is outside [0, n)");
  // Calls that do not stream host input refuse it on CUDA.
  expect_invalid([&] { approx_select(values.data(), 1 << 20, 5, 100, streamed(0)); }, "values points to host memory");
}

// 2^31 + 12345 floats with NaNs, out of core (256 MiB of device memory for an 8 GiB
// array): against the in-memory GPU selection of the same array, which the other
// suites check against the CPU reference.
TEST(StreamedSelectLarge, AboveTwoToThe31) {
  ASSERT_TRUE(cuda_available());
  const std::int64_t n = (std::int64_t{1} << 31) + 12345;
  std::vector<float> values = generate<float>(dist::normal, n, 11);
  for (std::int64_t i = 0; i < 1000; ++i) values[static_cast<std::size_t>(i * (n / 1000))] = std::nanf("");
  const std::vector<std::int64_t> ranks = standard_ranks(n, 20, 12);
  std::vector<float> got(ranks.size());
  cuda_backend::stream_stats stats;
  cuda_backend::streamed_multiselect<float>(values.data(), n, ranks.data(), static_cast<std::int64_t>(ranks.size()),
                                            got.data(), streamed(std::size_t{256} << 20), &stats);
  // The 2^20 largest (the NaNs among them) and a range around the median, streamed
  // the same way; sorted and deterministic, so the in-memory answer is the same list.
  const topk_options largest{true, true, true, true};
  const std::int64_t k = std::int64_t{1} << 20;
  const selection<float> top = topk(values, k, largest, streamed(std::size_t{256} << 20));
  const range_options middle_options{true, true, true};
  const selection<float> middle = rank_range(values.data(), n, n / 2 - 1000, n / 2 + 1000, middle_options,
                                             streamed(std::size_t{256} << 20));
  const device_buffer<float> on_device(values);
  values.clear();
  values.shrink_to_fit();
  const std::vector<float> want = multiselect(on_device.data(), n, ranks);
  for (std::size_t i = 0; i < ranks.size(); ++i) EXPECT_TRUE(same_value(got[i], want[i])) << "rank " << ranks[i];
  EXPECT_LT(stats.capacity, n / 8);
  RecordProperty("passes", stats.passes);
  const selection<float> top_in_memory = topk(on_device.data(), n, k, largest);
  EXPECT_EQ(0, std::memcmp(top.values.data(), top_in_memory.values.data(), static_cast<std::size_t>(k) * sizeof(float)));
  EXPECT_EQ(top.indices, top_in_memory.indices);
  EXPECT_TRUE(std::isnan(top.values.front()));
  const selection<float> middle_in_memory = rank_range(on_device.data(), n, n / 2 - 1000, n / 2 + 1000, middle_options);
  EXPECT_EQ(0, std::memcmp(middle.values.data(), middle_in_memory.values.data(), 2000 * sizeof(float)));
  EXPECT_EQ(middle.indices, middle_in_memory.indices);
}

}  // namespace
}  // namespace kselect::test
