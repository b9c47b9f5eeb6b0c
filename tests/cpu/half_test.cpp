// kselect::float16 and kselect::bfloat16 (include/kselect/types.hpp): the host
// conversions (src/api/half.cpp) over every bit pattern and against a rounding
// reference computed in double, and the key maps (core::key_traits) against the
// float order for all pairs of a sample.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "common/rng.hpp"
#include "core/key_traits.hpp"
#include "kselect/types.hpp"

namespace kselect {
namespace {

/// The layout of each 16-bit type: mantissa bits, exponent bias, and the narrowing.
template <class H>
struct half_format;
template <>
struct half_format<float16> {
  static constexpr int mantissa_bits = 10;
  static constexpr int bias = 15;
  static float16 narrow(float x) { return to_float16(x); }
};
template <>
struct half_format<bfloat16> {
  static constexpr int mantissa_bits = 7;
  static constexpr int bias = 127;
  static bfloat16 narrow(float x) { return to_bfloat16(x); }
};

/// The exponent bits: also the pattern of +inf.
template <class H>
constexpr auto exponent_mask = static_cast<std::uint16_t>(0x7fffu & ~((1u << half_format<H>::mantissa_bits) - 1));

template <class H>
bool is_nan_bits(std::uint16_t bits) {
  return (bits & 0x7fffu) > exponent_mask<H>;
}

/// The value of a finite or infinite bit pattern, from the format's definition, in double.
/// The pattern just above the largest finite value (the infinity) stands for the next
/// power of two when `inf_as_next` (the rounding reference's boundary).
template <class H>
double value_of(std::uint16_t bits, bool inf_as_next = false) {
  constexpr int mb = half_format<H>::mantissa_bits;
  const double sign = (bits & 0x8000u) ? -1.0 : 1.0;
  const int exponent = (bits & 0x7fffu) >> mb;
  const double mantissa = bits & ((1u << mb) - 1);
  if ((bits & 0x7fffu) == exponent_mask<H> && !inf_as_next) return sign * std::numeric_limits<double>::infinity();
  if (exponent == 0) return sign * std::ldexp(mantissa, 1 - half_format<H>::bias - mb);
  return sign * std::ldexp(1.0 + std::ldexp(mantissa, -mb), exponent - half_format<H>::bias);
}

/// Round to nearest, ties to even, in double: between the two neighbouring magnitudes
/// (patterns p and p + 1 are adjacent values), the nearer, or the even pattern.
template <class H>
std::uint16_t reference_round(float x) {
  const double a = std::fabs(static_cast<double>(x));
  const std::uint16_t sign = std::signbit(x) ? 0x8000u : 0u;
  if (a >= value_of<H>(exponent_mask<H>, true)) return sign | exponent_mask<H>;
  std::uint16_t lo = 0, hi = exponent_mask<H>;  // value_of(lo) <= a < value_of(hi)
  while (hi - lo > 1) {
    const auto mid = static_cast<std::uint16_t>((lo + hi) / 2);
    (value_of<H>(mid) <= a ? lo : hi) = mid;
  }
  const double below = a - value_of<H>(lo), above = value_of<H>(hi, true) - a;
  const std::uint16_t nearest = below < above ? lo : above < below ? hi : ((lo & 1u) ? hi : lo);
  return sign | nearest;
}

template <class H>
class HalfConversion : public testing::Test {};
using half_types = testing::Types<float16, bfloat16>;
struct half_names {
  template <class H>
  static std::string GetName(int) {
    return std::is_same_v<H, float16> ? "float16" : "bfloat16";
  }
};
TYPED_TEST_SUITE(HalfConversion, half_types, half_names);

TYPED_TEST(HalfConversion, EveryBitPatternWidensExactlyAndRoundTrips) {
  using H = TypeParam;
  for (std::uint32_t u = 0; u <= 0xffffu; ++u) {
    const auto bits = static_cast<std::uint16_t>(u);
    const float f = to_float(H{bits});
    const H back = half_format<H>::narrow(f);
    if (is_nan_bits<H>(bits)) {
      ASSERT_TRUE(std::isnan(f)) << std::hex << u;
      ASSERT_TRUE(is_nan_bits<H>(back.bits)) << std::hex << u;
      ASSERT_EQ(back.bits & 0x8000u, bits & 0x8000u) << "the sign of NaN " << std::hex << u;
      continue;
    }
    ASSERT_EQ(static_cast<double>(f), value_of<H>(bits)) << std::hex << u;
    ASSERT_EQ(std::signbit(f), (bits & 0x8000u) != 0) << std::hex << u;
    ASSERT_EQ(back.bits, bits) << std::hex << u;
  }
}

TYPED_TEST(HalfConversion, RoundsToNearestEven) {
  using H = TypeParam;
  std::vector<float> xs;
  // Every midpoint between adjacent finite magnitudes (ties: to even), and just around it.
  for (std::uint16_t p = 0; p < exponent_mask<H>; ++p) {
    const auto mid = static_cast<float>((value_of<H>(p) + value_of<H>(static_cast<std::uint16_t>(p + 1), true)) / 2);
    xs.push_back(mid);
    xs.push_back(std::nextafter(mid, 0.0f));
    xs.push_back(std::nextafter(mid, std::numeric_limits<float>::infinity()));
  }
  // Random floats over the whole range, both signs.
  for (std::uint64_t i = 0; i < 200000; ++i) {
    const auto w = static_cast<std::uint32_t>(test::random_word(77, i));
    float x;
    std::memcpy(&x, &w, sizeof x);
    if (!std::isnan(x)) xs.push_back(x);
  }
  xs.push_back(std::numeric_limits<float>::max());
  xs.push_back(std::numeric_limits<float>::denorm_min());
  for (const float x : xs) {
    ASSERT_EQ(half_format<H>::narrow(x).bits, reference_round<H>(x)) << x;
    ASSERT_EQ(half_format<H>::narrow(-x).bits, reference_round<H>(-x)) << -x;
  }
}

TYPED_TEST(HalfConversion, KeysOrderAsTheFloats) {
  using H = TypeParam;
  using traits = core::key_traits<H>;
  std::vector<std::uint16_t> sample = {0x0000u, 0x8000u, 0x0001u, 0x8001u, exponent_mask<H>,
                                       static_cast<std::uint16_t>(0x8000u | exponent_mask<H>),
                                       static_cast<std::uint16_t>(exponent_mask<H> + 1), 0xffffu, 0x7fffu};
  for (std::uint64_t i = 0; i < 700; ++i) sample.push_back(static_cast<std::uint16_t>(test::random_word(5, i)));
  // NaN after everything, -0.0 equal to +0.0: the float order with NaNs tied last.
  const auto less = [](float a, float b) { return std::isnan(a) ? false : (std::isnan(b) || a < b); };
  for (const std::uint16_t a : sample) {
    const H x{a};
    const float fx = to_float(x);
    // from_key(to_key(x)) is x, except -0.0 (+0.0) and NaNs (the canonical quiet NaN).
    const H round_trip = traits::from_key(traits::to_key(x));
    EXPECT_EQ(traits::restores_bits(traits::to_key(x)), !std::isnan(fx) && fx != 0.0f) << std::hex << a;
    if (std::isnan(fx)) {
      EXPECT_EQ(traits::to_key(x), traits::nan_key);
      const auto quiet_bit = static_cast<std::uint16_t>(1u << (half_format<H>::mantissa_bits - 1));
      EXPECT_EQ(round_trip.bits, exponent_mask<H> | quiet_bit);
    } else {
      EXPECT_EQ(round_trip.bits, fx == 0.0f ? 0u : a) << std::hex << a;
    }
    for (const std::uint16_t b : sample) {
      const float fy = to_float(H{b});
      ASSERT_EQ(traits::to_key(x) < traits::to_key(H{b}), less(fx, fy)) << std::hex << a << " " << b;
      ASSERT_EQ(traits::to_key(x) == traits::to_key(H{b}), !less(fx, fy) && !less(fy, fx)) << std::hex << a << " " << b;
    }
  }
}

}  // namespace
}  // namespace kselect
