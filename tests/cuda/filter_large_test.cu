// More than 2^31 keys: filter_if_indices with int64_t positions, one run per
// algorithm, then the positions alone and a partition's positions, against
// std::copy_if on the host (skipped where the GPU has less than about 26 GB free).
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <memory>
#include <vector>

#include "cuda/filter_test_util.cuh"

namespace kselect::test {
namespace {

// n = 2^31 + 4097 floats in [0, 1) made on the device; ge(2^-20) keeps all but about
// 2000, so positions and output offsets both pass 2^31. filter_if_indices with
// int64_t positions under each algorithm, then positions alone, then a partition's
// positions, against std::copy_if on the host.
TEST(FilterGpu, MoreThan2Pow31Keys) {
  const std::int64_t n = (std::int64_t{1} << 31) + 4097;
  const auto un = static_cast<std::size_t>(n);
  std::size_t free_bytes = 0, total_bytes = 0;
  cuda_check(cudaMemGetInfo(&free_bytes, &total_bytes), "cudaMemGetInfo");
  const std::size_t needed = un * (2 * sizeof(float) + sizeof(std::int64_t)) + (std::size_t{1} << 30);
  if (free_bytes < needed)
    GTEST_SKIP() << "needs about " << needed << " bytes of GPU memory, " << free_bytes << " free";

  const device_buffer<float> in(un);
  generate_on_device(in.data(), n, device_dist::uniform, 2031);
  cuda_check(cudaDeviceSynchronize(), "generate");
  const std::unique_ptr<float[]> host(new float[un]);  // not zero-filled: 8.6 GB
  cuda_check(cudaMemcpy(host.get(), in.data(), un * sizeof(float), cudaMemcpyDeviceToHost), "copy input");

  const float c = 0x1p-20f;
  const predicate<float> p = ge(c);
  std::vector<float> want;
  want.reserve(un);
  std::copy_if(host.get(), host.get() + n, std::back_inserter(want), [c](float x) { return x >= c; });
  const auto m = static_cast<std::int64_t>(want.size());
  ASSERT_GT(m, std::int64_t{1} << 31) << "the output should pass 2^31 too";
  ASSERT_LT(m, n) << "some keys should be rejected";

  const device_buffer<float> out(un);
  const device_buffer<std::int64_t> idx(un);
  const device_buffer<std::int64_t> count(1);
  const std::unique_ptr<float[]> got(new float[un]);
  const std::unique_ptr<std::int64_t[]> got_idx(new std::int64_t[un]);
  test_stream stream;
  const cudaStream_t s = stream.get();
  auto poison = [&] {
    cuda_check(cudaMemsetAsync(out.data(), output_poison, un * sizeof(float), s), "poison");
    cuda_check(cudaMemsetAsync(idx.data(), output_poison, un * sizeof(std::int64_t), s), "poison");
    cuda_check(cudaMemsetAsync(count.data(), output_poison, sizeof(std::int64_t), s), "poison");
  };

  for (const filter_algorithm algo : {filter_algorithm::single_pass, filter_algorithm::three_phase}) {
    SCOPED_TRACE(algo_name(algo));
    poison();
    ASSERT_FILTER_OK(two_phase(s, [&](void* ws, std::size_t& bytes) {
      return device::filter_if_indices(ws, bytes, in.data(), out.data(), idx.data(), count.data(), n, p, s,
                                       device::filter_config{algo});
    }));
    ASSERT_EQ(count.to_host()[0], m);
    const auto um = static_cast<std::size_t>(m);
    cuda_check(cudaMemcpy(got.get(), out.data(), um * sizeof(float), cudaMemcpyDeviceToHost), "copy keys");
    cuda_check(cudaMemcpy(got_idx.get(), idx.data(), um * sizeof(std::int64_t), cudaMemcpyDeviceToHost),
               "copy positions");
    EXPECT_EQ(std::memcmp(got.get(), want.data(), um * sizeof(float)), 0) << "the keys differ from std::copy_if's";
    // Ascending, in range, selected, and the key written next to each: with the
    // count right, exactly copy_if's positions.
    std::int64_t bad = 0;
#pragma omp parallel for reduction(+ : bad)
    for (std::int64_t j = 0; j < m; ++j) {
      const std::int64_t i = got_idx[j];
      const bool ok = i >= 0 && i < n && (j == 0 || got_idx[j - 1] < i) && host[i] >= c &&
                      std::bit_cast<std::uint32_t>(host[i]) == std::bit_cast<std::uint32_t>(got[j]);
      bad += ok ? 0 : 1;
    }
    EXPECT_EQ(bad, 0) << "positions wrong";
    EXPECT_GT(got_idx[um - 1], std::int64_t{INT32_MAX});
  }

  {
    // Positions alone (the single pass stages them): exactly those checked above.
    SCOPED_TRACE("filter_if_indices, positions alone");
    poison();
    ASSERT_FILTER_OK(two_phase(s, [&](void* ws, std::size_t& bytes) {
      return device::filter_if_indices(ws, bytes, in.data(), static_cast<float*>(nullptr), idx.data(), count.data(),
                                       n, p, s, device::filter_config{filter_algorithm::single_pass});
    }));
    ASSERT_EQ(count.to_host()[0], m);
    const auto um = static_cast<std::size_t>(m);
    constexpr std::size_t chunk = std::size_t{1} << 24;
    std::vector<std::int64_t> alone(chunk);
    std::size_t differ = 0;
    for (std::size_t j = 0; j < um; j += chunk) {
      const std::size_t len = std::min(chunk, um - j);
      cuda_check(cudaMemcpy(alone.data(), idx.data() + j, len * sizeof(std::int64_t), cudaMemcpyDeviceToHost), "copy");
      differ += std::memcmp(alone.data(), got_idx.get() + j, len * sizeof(std::int64_t)) != 0 ? 1 : 0;
    }
    EXPECT_EQ(differ, 0u) << "positions wrong";
  }

  SCOPED_TRACE("partition_pairs, positions alone");
  poison();
  ASSERT_FILTER_OK(two_phase(s, [&](void* ws, std::size_t& bytes) {
    return device::partition_pairs(ws, bytes, in.data(), static_cast<const float*>(nullptr),
                                   static_cast<float*>(nullptr), static_cast<float*>(nullptr), idx.data(),
                                   count.data(), n, p, s);
  }));
  ASSERT_EQ(count.to_host()[0], m);
  cuda_check(cudaMemcpy(got_idx.get(), idx.data(), un * sizeof(std::int64_t), cudaMemcpyDeviceToHost), "copy");
  // Both parts ascending; the first m selected, the rest not: the partition's order.
  std::int64_t bad = 0;
#pragma omp parallel for reduction(+ : bad)
  for (std::int64_t j = 0; j < n; ++j) {
    const std::int64_t i = got_idx[j];
    const bool ok = i >= 0 && i < n && (j == 0 || j == m || got_idx[j - 1] < i) && (host[i] >= c) == (j < m);
    bad += ok ? 0 : 1;
  }
  EXPECT_EQ(bad, 0) << "partition positions wrong";
}

}  // namespace
}  // namespace kselect::test
