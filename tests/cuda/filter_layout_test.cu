// Input layouts beyond the aligned key types of filter_key_types_test.cu: input 4
// and 12 bytes off 16-byte alignment (the bulk-copy and vector-load paths off), and
// keys of 1, 2 and 16 bytes with a functor of the caller's. Every device filter, as
// expect_device_filters runs them (filter_test_util.cuh).
#include <gtest/gtest.h>

#include <cstdint>
#include <type_traits>
#include <vector>

#include "cuda/filter_test_util.cuh"

namespace kselect::test {
namespace {

// Input 4 and 12 bytes (float) or 8 bytes (double) off 16-byte alignment: the single
// pass without its bulk copy, the three phases with scalar loads; and 16 bytes off
// a 256-byte boundary, still aligned. In place at the same offsets.
TEST(FilterGpu, MisalignedInput) {
  std::vector<std::int64_t> sizes = gpu_sizes();
  sizes.push_back((std::int64_t{1} << 20) + 3);
  for (const std::int64_t offset : {1, 3, 4})
    for (const std::int64_t n : sizes) {
      expect_mask<float>(mask_pattern::random, n, 0.5, 101 + static_cast<std::uint64_t>(n), true, offset);
      expect_mask<float>(mask_pattern::runs, n, 0, 103 + static_cast<std::uint64_t>(n), true, offset);
      if (HasFailure()) return;
    }
  for (const std::int64_t n : sizes) {
    expect_mask<double>(mask_pattern::random, n, 0.5, 107 + static_cast<std::uint64_t>(n), true, 1);
    expect_mask<double>(mask_pattern::alternating, n, 0, 109 + static_cast<std::uint64_t>(n), true, 1);
    if (HasFailure()) return;
  }
}

/// A 16-byte key, selected by its first word; the other three are carried along.
struct key16 {
  std::uint32_t a, b, c, d;
};

/// x < split for the unsigned keys; for key16, x.a < split.
template <class T>
struct below {
  T split;
  __host__ __device__ bool operator()(T x) const { return x < split; }
};
template <>
struct below<key16> {
  std::uint32_t split;
  __host__ __device__ bool operator()(const key16& x) const { return x.a < split; }
};

/// Keys that below{2^(bits - 1)} (for key16: on the first word) selects exactly by `mask`.
template <class T>
std::vector<T> other_keys_for_mask(const std::vector<std::uint8_t>& mask, std::uint64_t seed) {
  std::vector<T> v(mask.size());
  for (std::size_t i = 0; i < mask.size(); ++i) {
    const std::uint64_t w = random_word(seed, i);
    if constexpr (std::is_same_v<T, key16>) {
      const auto low = static_cast<std::uint32_t>(w & 0x7fffffffu);
      v[i] = {mask[i] ? low : 0x80000000u | low, static_cast<std::uint32_t>(w >> 32),
              static_cast<std::uint32_t>(random_word(seed + 1, i)), static_cast<std::uint32_t>(i)};
    } else {
      constexpr std::uint64_t half = std::uint64_t{1} << (sizeof(T) * 8 - 1);
      v[i] = static_cast<T>(mask[i] ? w % half : half + w % half);
    }
  }
  return v;
}

// Keys of 1, 2 and 16 bytes, which the device API takes too (any trivially copyable
// key whose size divides 16) with the caller's functor: tiles of 8192 one- and
// two-byte keys and of 2048 sixteen-byte ones; 16 one-byte keys a vector load;
// one-byte keys 1 and 3 bytes off alignment, two-byte keys 2 bytes off.
TEST(FilterGpu, KeysOf1And2And16Bytes) {
  std::vector<std::int64_t> sizes = gpu_sizes();
  sizes.push_back((std::int64_t{1} << 20) + 3);
  const std::pair<mask_pattern, double> masks[] = {{mask_pattern::random, 0.5},
                                                   {mask_pattern::random, 0.01},
                                                   {mask_pattern::runs, 0.0},
                                                   {mask_pattern::last_only, 0.0}};
  for (const std::int64_t n : sizes)
    for (const auto& [pat, sel] : masks) {
      SCOPED_TRACE(testing::Message() << "n = " << n << ", " << name(pat) << ", selectivity " << sel);
      const std::uint64_t seed = 601 + static_cast<std::uint64_t>(n);
      const std::vector<std::uint8_t> mask = selection_mask(pat, n, sel, seed);
      const std::vector<std::uint8_t> bytes = other_keys_for_mask<std::uint8_t>(mask, seed + 1);
      for (const std::int64_t offset : {0, 1, 3}) {
        SCOPED_TRACE(testing::Message() << "uint8_t keys, offset " << offset);
        expect_device_filters(bytes, below<std::uint8_t>{0x80}, offset);
      }
      const std::vector<std::uint16_t> halves = other_keys_for_mask<std::uint16_t>(mask, seed + 2);
      for (const std::int64_t offset : {0, 1}) {
        SCOPED_TRACE(testing::Message() << "uint16_t keys, offset " << offset);
        expect_device_filters(halves, below<std::uint16_t>{0x8000}, offset);
      }
      {
        SCOPED_TRACE("16-byte keys");
        expect_device_filters(other_keys_for_mask<key16>(mask, seed + 3), below<key16>{0x80000000u});
      }
      if (HasFailure()) return;
    }
}

}  // namespace
}  // namespace kselect::test
