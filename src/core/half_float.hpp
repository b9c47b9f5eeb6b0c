// float16 and bfloat16 widened to float on the host and the device (the segmented
// quantiles interpolate in float; include/kselect/types.hpp has the host-only
// narrowing conversions).
#pragma once

#include <cstdint>
#include <cstring>

#include "hd.hpp"
#include "kselect/types.hpp"

namespace kselect::core {

KSELECT_HD float float_from_bits(std::uint32_t u) {
  float x;
  std::memcpy(&x, &u, sizeof x);
  return x;
}

KSELECT_HD float widen(float16 x) {
  const std::uint32_t sign = static_cast<std::uint32_t>(x.bits & 0x8000u) << 16;
  const std::uint32_t exponent = (x.bits >> 10) & 0x1fu;
  const std::uint32_t mantissa = x.bits & 0x3ffu;
  if (exponent == 0) {  // zero or subnormal: mantissa * 2^-24, exact in float
    const float magnitude = static_cast<float>(mantissa) * 5.9604644775390625e-8f;
    return sign ? -magnitude : magnitude;
  }
  if (exponent == 0x1f) return float_from_bits(sign | 0x7f800000u | (mantissa << 13));
  return float_from_bits(sign | ((exponent - 15 + 127) << 23) | (mantissa << 13));
}

KSELECT_HD float widen(bfloat16 x) { return float_from_bits(static_cast<std::uint32_t>(x.bits) << 16); }

}  // namespace kselect::core
