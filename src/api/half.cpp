// Conversions of kselect::float16 and kselect::bfloat16 (include/kselect/types.hpp)
// on the host, bit by bit, so that builds without CUDA have them too.
#include <cmath>
#include <cstdint>
#include <cstring>

#include "kselect/types.hpp"

namespace kselect {
namespace {

std::uint32_t bits_of(float x) {
  std::uint32_t u;
  std::memcpy(&u, &x, sizeof u);
  return u;
}
float float_of(std::uint32_t u) {
  float x;
  std::memcpy(&x, &u, sizeof x);
  return x;
}

}  // namespace

float to_float(float16 x) noexcept {
  const std::uint32_t sign = static_cast<std::uint32_t>(x.bits & 0x8000u) << 16;
  const std::uint32_t exponent = (x.bits >> 10) & 0x1fu;
  const std::uint32_t mantissa = x.bits & 0x3ffu;
  if (exponent == 0) {  // zero or subnormal: mantissa * 2^-24, exact in float
    const float magnitude = std::ldexp(static_cast<float>(mantissa), -24);
    return sign ? -magnitude : magnitude;
  }
  if (exponent == 0x1f) return float_of(sign | 0x7f800000u | (mantissa << 13));  // inf, NaN (payload kept)
  return float_of(sign | ((exponent - 15 + 127) << 23) | (mantissa << 13));
}

float to_float(bfloat16 x) noexcept { return float_of(static_cast<std::uint32_t>(x.bits) << 16); }

float16 to_float16(float x) noexcept {
  const std::uint32_t f = bits_of(x);
  const auto sign = static_cast<std::uint16_t>((f >> 16) & 0x8000u);
  const std::uint32_t magnitude = f & 0x7fffffffu;
  if (magnitude > 0x7f800000u)  // NaN: quiet, top payload bits kept
    return float16{static_cast<std::uint16_t>(sign | 0x7e00u | ((magnitude >> 13) & 0x3ffu))};
  if (magnitude >= 0x477ff000u) return float16{static_cast<std::uint16_t>(sign | 0x7c00u)};  // >= 65520: inf
  if (magnitude < 0x38800000u) {  // below 2^-14: a subnormal (or zero) in units of 2^-24
    const float units = std::nearbyint(float_of(magnitude) * 16777216.0f);  // ties to even
    return float16{static_cast<std::uint16_t>(sign | static_cast<std::uint16_t>(units))};
  }
  const std::uint32_t exponent = (magnitude >> 23) - 127 + 15;
  std::uint32_t h = (exponent << 10) | ((magnitude >> 13) & 0x3ffu);
  const std::uint32_t rest = magnitude & 0x1fffu;
  if (rest > 0x1000u || (rest == 0x1000u && (h & 1u))) ++h;  // a carry moves into the exponent, as it should
  return float16{static_cast<std::uint16_t>(sign | h)};
}

bfloat16 to_bfloat16(float x) noexcept {
  const std::uint32_t f = bits_of(x);
  if ((f & 0x7fffffffu) > 0x7f800000u) return bfloat16{static_cast<std::uint16_t>((f >> 16) | 0x40u)};
  const std::uint32_t bias = 0x7fffu + ((f >> 16) & 1u);
  return bfloat16{static_cast<std::uint16_t>((f + bias) >> 16)};
}

}  // namespace kselect
