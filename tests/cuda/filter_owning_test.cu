// The owning filters (kselect/filter.hpp) on device memory against the CPU backend
// on a host copy, every key type; host and device arrays mixed in one call, and a
// CPU backend asked for with device pointers, rejected.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

#include "common/expect_invalid.hpp"
#include "common/probe_values.hpp"
#include "cuda/filter_test_util.cuh"

namespace kselect::test {
namespace {

/// Every owning filter on a device copy of `host` (options `gpu`, so the CUDA
/// backend) against the same call on `host` (the CPU backend), and filter_if also
/// against the reference.
template <class T>
void expect_owning_matches_cpu(const std::vector<T>& host, const predicate<T>& p, const options& gpu) {
  const auto n = static_cast<std::int64_t>(host.size());
  options cpu;
  cpu.device = device_kind::cpu;
  const device_buffer<T> dev(host);
  ASSERT_EQ(pointer_location(dev.data()), device_kind::cuda);

  std::vector<std::uint8_t> flags(host.size());
  for (std::size_t i = 0; i < host.size(); ++i) flags[i] = p(host[i]) ? static_cast<std::uint8_t>(1 + i % 255) : 0;
  const device_buffer<std::uint8_t> dev_flags(flags);
  const std::vector<triple> t = payloads<triple>(n);
  const std::vector<double> d = payloads<double>(n);
  const device_buffer<triple> dev_t(t);
  const device_buffer<double> dev_d(d);
  const device_buffer<T> dev_copy(host);  // for filter_if_inplace
  cuda_check(cudaDeviceSynchronize(), "the inputs' copies");  // gpu.stream may not wait for them

  const filtered<T> g = kselect::filter_if(dev.data(), n, p, {}, gpu);
  const filtered<T> c = kselect::filter_if(host.data(), n, p, {}, cpu);
  EXPECT_TRUE(same_bits(g.values, c.values)) << "filter_if";
  EXPECT_TRUE(same_bits(g.values, reference_of(host, p).values)) << "filter_if against std::copy_if";
  EXPECT_TRUE(g.indices.empty());

  const filtered<T> gi = kselect::filter_if(dev.data(), n, p, {.indices = true}, gpu);
  const filtered<T> ci = kselect::filter_if(host.data(), n, p, {.indices = true}, cpu);
  EXPECT_TRUE(same_bits(gi.values, ci.values)) << "filter_if with indices";
  EXPECT_EQ(gi.indices, ci.indices) << "filter_if with indices";

  const T lo = std::numeric_limits<T>::lowest(), hi = split_key<T>();
  const filtered<T> gr = kselect::filter_range(dev.data(), n, lo, hi, {.indices = true}, gpu);
  const filtered<T> cr = kselect::filter_range(host.data(), n, lo, hi, {.indices = true}, cpu);
  EXPECT_TRUE(same_bits(gr.values, cr.values)) << "filter_range";
  EXPECT_EQ(gr.indices, cr.indices) << "filter_range";

  const filtered<T> gf = kselect::filter_flagged(dev.data(), n, dev_flags.data(), {.indices = true}, gpu);
  const filtered<T> cf = kselect::filter_flagged(host.data(), n, flags.data(), {.indices = true}, cpu);
  EXPECT_TRUE(same_bits(gf.values, cf.values)) << "filter_flagged";
  EXPECT_EQ(gf.indices, cf.indices) << "filter_flagged";

  const partitioned<T> gp = kselect::partition(dev.data(), n, p, {.indices = true}, gpu);
  const partitioned<T> cp = kselect::partition(host.data(), n, p, {.indices = true}, cpu);
  EXPECT_EQ(gp.selected, cp.selected) << "partition";
  EXPECT_TRUE(same_bits(gp.values, cp.values)) << "partition";
  EXPECT_EQ(gp.indices, cp.indices) << "partition";
  const partitioned<T> gp_plain = kselect::partition(dev.data(), n, p, {}, gpu);
  EXPECT_TRUE(same_bits(gp_plain.values, cp.values)) << "partition without indices";
  EXPECT_TRUE(gp_plain.indices.empty());

  EXPECT_EQ(kselect::count_if(dev.data(), n, p, gpu), kselect::count_if(host.data(), n, p, cpu)) << "count_if";

  const filtered_pairs<T, triple> g_pairs =
      kselect::filter_if_pairs(dev.data(), dev_t.data(), n, p, {.indices = true}, gpu);
  const filtered_pairs<T, triple> c_pairs =
      kselect::filter_if_pairs(host.data(), t.data(), n, p, {.indices = true}, cpu);
  EXPECT_TRUE(same_bits(g_pairs.values, c_pairs.values)) << "filter_if_pairs";
  EXPECT_TRUE(same_bits(g_pairs.payload, c_pairs.payload)) << "filter_if_pairs";
  EXPECT_EQ(g_pairs.indices, c_pairs.indices) << "filter_if_pairs";

  const filtered_pairs<T, double> gfp =
      kselect::filter_flagged_pairs(dev.data(), dev_d.data(), n, dev_flags.data(), {}, gpu);
  const filtered_pairs<T, double> cfp =
      kselect::filter_flagged_pairs(host.data(), d.data(), n, flags.data(), {}, cpu);
  EXPECT_TRUE(same_bits(gfp.values, cfp.values)) << "filter_flagged_pairs";
  EXPECT_TRUE(same_bits(gfp.payload, cfp.payload)) << "filter_flagged_pairs";
  EXPECT_TRUE(gfp.indices.empty());

  const partitioned_pairs<T, triple> g_parted_pairs =
      kselect::partition_pairs(dev.data(), dev_t.data(), n, p, {.indices = true}, gpu);
  const partitioned_pairs<T, triple> c_parted_pairs =
      kselect::partition_pairs(host.data(), t.data(), n, p, {.indices = true}, cpu);
  EXPECT_EQ(g_parted_pairs.selected, c_parted_pairs.selected) << "partition_pairs";
  EXPECT_TRUE(same_bits(g_parted_pairs.values, c_parted_pairs.values)) << "partition_pairs";
  EXPECT_TRUE(same_bits(g_parted_pairs.payload, c_parted_pairs.payload)) << "partition_pairs";
  EXPECT_EQ(g_parted_pairs.indices, c_parted_pairs.indices) << "partition_pairs";

  // In place: the device array's first `count` elements, bit for bit.
  std::vector<T> host_copy = host;
  const std::int64_t gk = kselect::filter_if_inplace(dev_copy.data(), n, p, gpu);
  const std::int64_t ck = kselect::filter_if_inplace(host_copy.data(), n, p, cpu);
  ASSERT_EQ(gk, ck) << "filter_if_inplace";
  std::vector<T> after = dev_copy.to_host();
  after.resize(static_cast<std::size_t>(gk));
  host_copy.resize(static_cast<std::size_t>(ck));
  EXPECT_TRUE(same_bits(after, host_copy)) << "filter_if_inplace";
}

template <class T>
class FilterGpuOwning : public testing::Test {};
using KeyTypes = testing::Types<float, double, std::int32_t, std::uint32_t, std::int64_t, std::uint64_t>;
TYPED_TEST_SUITE(FilterGpuOwning, KeyTypes);

TYPED_TEST(FilterGpuOwning, MatchesTheCpuBackend) {
  using T = TypeParam;
  ASSERT_TRUE(cuda_available());
  const options by_pointer;  // device pointers: the CUDA backend
  test_stream stream;
  options explicit_cuda;
  explicit_cuda.device = device_kind::cuda;
  explicit_cuda.stream = stream.get();
  const T split = split_key<T>();
  for (const std::int64_t n : {std::int64_t{1}, std::int64_t{4097}, std::int64_t{300007}})
    for (const auto& [pat, sel] : {std::pair{mask_pattern::random, 0.0}, std::pair{mask_pattern::random, 0.01},
                                   std::pair{mask_pattern::random, 0.5}, std::pair{mask_pattern::random, 1.0},
                                   std::pair{mask_pattern::runs, 0.0}}) {
      SCOPED_TRACE(testing::Message() << "n = " << n << ", " << name(pat) << ", selectivity " << sel);
      const std::uint64_t seed = 503 + static_cast<std::uint64_t>(n);
      const std::vector<T> v = keys_for_mask<T>(selection_mask(pat, n, sel, seed), seed + 1);
      expect_owning_matches_cpu(v, lt(split), by_pointer);
      expect_owning_matches_cpu(v, ge(split), explicit_cuda);
      if (this->HasFailure()) return;
    }
  // NaN, infinities, signed zeros, denormals and extremes.
  const std::vector<T> probes = probe_values<T>(40, 5);
  std::vector<T> v(20011);
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = probes[random_word(7, i) % probes.size()];
  expect_owning_matches_cpu(v, ne(T(0)), by_pointer);
  expect_owning_matches_cpu(v, eq(T(0)), by_pointer);
  expect_owning_matches_cpu(v, in_range(T(0), std::numeric_limits<T>::max()), by_pointer);
  if constexpr (std::is_floating_point_v<T>) {
    expect_owning_matches_cpu(v, ne(std::numeric_limits<T>::quiet_NaN()), by_pointer);
    expect_owning_matches_cpu(v, le(std::numeric_limits<T>::infinity()), by_pointer);
  }
  // n == 0 with a device pointer: empty results.
  const device_buffer<T> one(std::vector<T>{T(1)});
  EXPECT_TRUE(kselect::filter_if(one.data(), 0, lt(split)).values.empty());
  EXPECT_EQ(kselect::partition(one.data(), 0, lt(split)).selected, 0);
  EXPECT_EQ(kselect::count_if(one.data(), 0, lt(split)), 0);
}

TEST(FilterGpuOwningErrors, MixedHostAndDeviceArraysAreRejected) {
  const std::int64_t n = 100;
  const std::vector<float> host = generate<float>(dist::uniform, n, 9);
  const device_buffer<float> dev(host);
  const std::vector<std::uint8_t> host_flags(static_cast<std::size_t>(n), 1);
  const device_buffer<std::uint8_t> dev_flags(host_flags);
  const std::vector<double> host_payload(static_cast<std::size_t>(n), 1.0);
  const device_buffer<double> dev_payload(host_payload);

  expect_invalid([&] { kselect::filter_flagged(dev.data(), n, host_flags.data()); },
                 "flags points to host memory but values does not");
  expect_invalid([&] { kselect::filter_flagged(host.data(), n, dev_flags.data()); },
                 "flags points to device memory but values does not");
  expect_invalid([&] { kselect::filter_flagged_pairs(dev.data(), dev_payload.data(), n, host_flags.data()); },
                 "flags points to host memory");
  expect_invalid([&] { kselect::filter_if_pairs(dev.data(), host_payload.data(), n, lt(0.5f)); },
                 "payload points to host memory but values does not");
  expect_invalid([&] { kselect::partition_pairs(host.data(), dev_payload.data(), n, lt(0.5f)); },
                 "payload points to device memory but values does not");
  options cpu;
  cpu.device = device_kind::cpu;
  expect_invalid([&] { kselect::filter_if(dev.data(), n, lt(0.5f), {}, cpu); },
                 "options.device is cpu but values points to device memory");
  expect_invalid([&] { kselect::count_if(dev.data(), n, lt(0.5f), cpu); }, "options.device is cpu");
  // The predicate is checked before any backend runs.
  expect_invalid([&] { kselect::filter_range(dev.data(), n, 1.0f, 0.0f); }, "is greater than hi");
  std::vector<float> copy = host;
  const device_buffer<float> dev_copy(copy);
  expect_invalid([&] { kselect::filter_if_inplace(dev_copy.data(), n, in_range(0.0f, std::nanf(""))); },
                 "hi is NaN");
}

}  // namespace
}  // namespace kselect::test
