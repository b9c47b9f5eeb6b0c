// Conversions of kselect::float16 and kselect::bfloat16 (include/kselect/types.hpp)
// on the host, bit by bit, so that builds without CUDA have them too. Widening is
// core::widen, which the CUDA backend uses too.
#include <cmath>
#include <cstdint>
#include <cstring>

#include "core/half_float.hpp"
#include "kselect/types.hpp"

namespace kselect {
namespace {

std::uint32_t bits_of(float x) {
  std::uint32_t u;
  std::memcpy(&u, &x, sizeof u);
  return u;
}

}  // namespace

float to_float(float16 x) noexcept { return core::widen(x); }

float to_float(bfloat16 x) noexcept { return core::widen(x); }

float16 to_float16(float x) noexcept {
  const std::uint32_t f = bits_of(x);
  const auto sign = static_cast<std::uint16_t>((f >> 16) & 0x8000u);
  const std::uint32_t magnitude = f & 0x7fffffffu;
  if (magnitude > 0x7f800000u)  // NaN: quiet, top payload bits kept
    return float16{static_cast<std::uint16_t>(sign | 0x7e00u | ((magnitude >> 13) & 0x3ffu))};
  if (magnitude >= 0x477ff000u) return float16{static_cast<std::uint16_t>(sign | 0x7c00u)};  // >= 65520: inf
  if (magnitude < 0x38800000u) {  // below 2^-14: a subnormal (or zero) in units of 2^-24
    const float units = std::nearbyint(core::float_from_bits(magnitude) * 16777216.0f);  // ties to even
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
