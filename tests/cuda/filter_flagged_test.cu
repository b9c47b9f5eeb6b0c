// filter_flagged and filter_flagged_indices (uint8_t and bool flags, int64_t and
// int32_t positions) under every filter_algorithm, against std::copy_if on the host
// (filter_test_util.cuh).
#include <gtest/gtest.h>

#include <cstdint>
#include <utility>
#include <vector>

#include "cuda/filter_test_util.cuh"

namespace kselect::test {
namespace {

/// filter_flagged with uint8_t flags (the nonzero ones not all 1) and bool flags,
/// and filter_flagged_indices with int64_t positions (and keys) and int32_t
/// positions alone, under every algorithm. The keys are the special floats, NaN
/// included, independent of the flags.
void expect_flagged(const std::vector<std::uint8_t>& mask, std::uint64_t seed) {
  const auto n = static_cast<std::int64_t>(mask.size());
  const std::vector<float> v = generate<float>(dist::special, n, seed);
  const reference_selection<float> want =
      reference_filter(v, [&](std::int64_t i) { return mask[static_cast<std::size_t>(i)] != 0; });
  const std::vector<std::int64_t> count_m = {static_cast<std::int64_t>(want.values.size())};
  std::vector<std::uint8_t> bytes(mask.size()), ones(mask.size());
  for (std::size_t i = 0; i < mask.size(); ++i) {
    bytes[i] = mask[i] ? static_cast<std::uint8_t>(1 + i % 255) : 0;
    ones[i] = mask[i] ? 1 : 0;
  }

  test_stream stream;
  const cudaStream_t s = stream.get();
  const device_buffer<float> in(v);
  const device_buffer<std::uint8_t> flags8(bytes);
  const device_buffer<bool> flags_bool(mask.size());
  if (n > 0)
    cuda_check(cudaMemcpy(flags_bool.data(), ones.data(), ones.size(), cudaMemcpyHostToDevice), "copy bool flags");
  const device_output<float> out(n);
  const device_output<std::int64_t> idx64(n);
  const device_output<std::int32_t> idx32(n);
  const device_output<std::int64_t> count(1);
  auto poison = [&] {
    out.poison(s);
    idx64.poison(s);
    idx32.poison(s);
    count.poison(s);
  };

  for (const filter_algorithm algo : all_algorithms) {
    SCOPED_TRACE(algo_name(algo));
    const device::filter_config cfg{algo};
    poison();
    ASSERT_FILTER_OK(two_phase(s, [&](void* ws, std::size_t& b) {
      return device::filter_flagged(ws, b, in.data(), flags8.data(), out.data(), count.data(), n, s, cfg);
    })) << "uint8_t flags";
    EXPECT_TRUE(written_exactly(count.host(), count_m));
    EXPECT_TRUE(written_exactly(out.host(), want.values));

    poison();
    ASSERT_FILTER_OK(two_phase(s, [&](void* ws, std::size_t& b) {
      return device::filter_flagged(ws, b, in.data(), static_cast<const bool*>(flags_bool.data()), out.data(),
                                    count.data(), n, s, cfg);
    })) << "bool flags";
    EXPECT_TRUE(written_exactly(count.host(), count_m));
    EXPECT_TRUE(written_exactly(out.host(), want.values));

    poison();
    ASSERT_FILTER_OK(two_phase(s, [&](void* ws, std::size_t& b) {
      return device::filter_flagged_indices(ws, b, in.data(), flags8.data(), out.data(), idx64.data(), count.data(),
                                            n, s, cfg);
    })) << "int64_t positions";
    EXPECT_TRUE(written_exactly(count.host(), count_m));
    EXPECT_TRUE(written_exactly(out.host(), want.values));
    EXPECT_TRUE(written_exactly(idx64.host(), want.indices));

    poison();
    ASSERT_FILTER_OK(two_phase(s, [&](void* ws, std::size_t& b) {
      return device::filter_flagged_indices(ws, b, in.data(), flags8.data(), static_cast<float*>(nullptr),
                                            idx32.data(), count.data(), n, s, cfg);
    })) << "int32_t positions alone";
    EXPECT_TRUE(written_exactly(count.host(), count_m));
    EXPECT_TRUE(written_exactly(idx32.host(), as_index<std::int32_t>(want.indices)));
    EXPECT_TRUE(written_exactly(out.host(), std::vector<float>{}));
  }
}

TEST(FilterGpu, FlaggedWithByteAndBoolFlags) {
  std::vector<std::int64_t> sizes = gpu_sizes();
  sizes.push_back((std::int64_t{1} << 20) + 7);
  const std::pair<mask_pattern, double> masks[] = {
      {mask_pattern::random, 0.0},       {mask_pattern::random, 0.01},     {mask_pattern::random, 0.5},
      {mask_pattern::random, 1.0},       {mask_pattern::alternating, 0.0}, {mask_pattern::runs, 0.0},
      {mask_pattern::last_only, 0.0},    {mask_pattern::first_only, 0.0}};
  for (const std::int64_t n : sizes)
    for (const auto& [pat, sel] : masks) {
      SCOPED_TRACE(testing::Message() << "n = " << n << ", " << name(pat) << ", selectivity " << sel);
      const std::uint64_t seed = 307 + static_cast<std::uint64_t>(n);
      expect_flagged(selection_mask(pat, n, sel, seed), seed + 1);
      if (HasFailure()) return;
    }
}

}  // namespace
}  // namespace kselect::test
