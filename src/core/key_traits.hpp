// Order-preserving maps from each key type to an unsigned integer of the same
// width, shared by every backend. Selecting on the mapped keys gives the same
// ranks as sorting the values with NumPy's order:
//   - NaN orders after +inf (every NaN maps to the largest key, so all NaNs tie);
//   - -0.0 and +0.0 are equal (both map to the key of +0.0);
//   - signed integers order below unsigned keys by flipping the sign bit.
// from_key(to_key(x)) returns x, except that -0.0 comes back as +0.0 and every
// NaN as the canonical quiet NaN.
#pragma once

#include <cstdint>
#include <cstring>
#include <optional>
#include <type_traits>

#include "hd.hpp"
#include "kselect/types.hpp"

namespace kselect::core {

template <class T>
struct key_traits;

namespace detail {
template <class F, class U>
struct float_key_traits {
  using value_type = F;
  using key_type = U;
  static constexpr U sign_bit = U(1) << (sizeof(U) * 8 - 1);
  static constexpr U exponent_mask = sizeof(U) == 4 ? U(0x7f800000u) : U(0x7ff0000000000000ull);
  static constexpr U mantissa_mask = sizeof(U) == 4 ? U(0x007fffffu) : U(0x000fffffffffffffull);
  static constexpr U nan_key = ~U(0);

  KSELECT_HD static U bits_of(F x) {
    U u;
    std::memcpy(&u, &x, sizeof u);
    return u;
  }
  KSELECT_HD static F from_bits(U u) {
    F x;
    std::memcpy(&x, &u, sizeof x);
    return x;
  }
  // Branch-free and short: the streaming kernels transform every key they read
  // (measured: this function was a sixth of the count pass's instructions).
  // Integer operations only, so flush-to-zero modes cannot merge denormals with 0:
  // -0.0 becomes +0.0, then negative keys flip all bits, positive ones the sign bit.
  KSELECT_HD static U to_key(F x) {
    U u = bits_of(x);
    u = u == sign_bit ? U(0) : u;
    using S = std::make_signed_t<U>;
    const U flip = static_cast<U>(static_cast<S>(u) >> (sizeof(U) * 8 - 1)) | sign_bit;
    const bool is_nan = (u & ~sign_bit) > exponent_mask;
    return is_nan ? nan_key : (u ^ flip);
  }
  // The order-preserving flip of x's bits alone: to_key(x) without its two exceptions,
  // so equal to it wherever has_plain_key(x) (every value but -0.0 and the NaNs). A pass
  // that tests a group of values once (has_plain_key) takes the flip for the group, two
  // operations per value instead of to_key's seven.
  KSELECT_HD static U plain_key(F x) {
    const U u = bits_of(x);
    using S = std::make_signed_t<U>;
    return u ^ (static_cast<U>(static_cast<S>(u) >> (sizeof(U) * 8 - 1)) | sign_bit);
  }
  KSELECT_HD static bool has_plain_key(F x) {
    const U u = bits_of(x);
    return u != sign_bit && static_cast<U>(u << 1) <= static_cast<U>(exponent_mask << 1);
  }
  // Pre-keys: a cheaper order-preserving map for comparing many keys against a few
  // splitters (the window pass). Three integer operations instead of to_key's
  // eight: -0.0 and +0.0 get adjacent pre-keys and each NaN its own, all above
  // +inf; pre_key_first/last give the pre-keys of every value whose key is k, so
  //   to_key(x) <  k  <=>  pre_key(x) <  pre_key_first(k)
  //   to_key(x) == k  <=>  pre_key_first(k) <= pre_key(x) <= pre_key_last(k).
  // The shift by mantissa_mask moves -inf to 0 and the negative NaNs (below -inf
  // after the flip) above every other value.
  KSELECT_HD static U pre_key(F x) {
    const U u = bits_of(x);
    using S = std::make_signed_t<U>;
    return (u ^ (static_cast<U>(static_cast<S>(u) >> (sizeof(U) * 8 - 1)) | sign_bit)) - mantissa_mask;
  }
  static constexpr U pre_key_of_inf = (exponent_mask | sign_bit) - mantissa_mask;
  KSELECT_HD static U pre_key_first(U k) {
    if (k == nan_key) return pre_key_of_inf + 1;
    if (k == sign_bit) return pre_key(-F(0));  // +0.0 and -0.0
    return pre_key(from_key(k));
  }
  KSELECT_HD static U pre_key_last(U k) { return k == nan_key ? ~U(0) : pre_key(from_key(k)); }
  /// The value whose pre-key is p (pre_key's inverse).
  KSELECT_HD static F from_pre_key(U p) {
    const U v = static_cast<U>(p + mantissa_mask);
    return from_bits((v & sign_bit) ? (v ^ sign_bit) : static_cast<U>(~v));
  }
  /// The key of pre-key p (-0.0's and +0.0's pre-keys give one key, every NaN's the NaN key).
  KSELECT_HD static U key_of_pre_key(U p) { return to_key(from_pre_key(p)); }
  KSELECT_HD static F from_key(U k) {
    if (k == nan_key) return from_bits(exponent_mask | ((mantissa_mask >> 1) + 1));  // quiet NaN
    return from_bits((k & sign_bit) ? (k & ~sign_bit) : ~k);
  }
  /// Whether from_key(k) is, bit for bit, every value whose key is k: all but the
  /// zeros' key (-0.0 and +0.0) and the NaNs'.
  KSELECT_HD static bool restores_bits(U k) { return k != sign_bit && k != nan_key; }
};

template <class I, class U>
struct int_key_traits {
  using value_type = I;
  using key_type = U;
  static constexpr U flip = std::is_signed_v<I> ? (U(1) << (sizeof(U) * 8 - 1)) : U(0);
  KSELECT_HD static U bits_of(I x) { return static_cast<U>(x); }
  KSELECT_HD static U to_key(I x) { return static_cast<U>(x) ^ flip; }
  KSELECT_HD static U plain_key(I x) { return to_key(x); }
  KSELECT_HD static bool has_plain_key(I) { return true; }
  KSELECT_HD static I from_key(U k) { return static_cast<I>(k ^ flip); }
  KSELECT_HD static bool restores_bits(U) { return true; }
  // Integers: the key itself (see float_key_traits::pre_key).
  KSELECT_HD static U pre_key(I x) { return to_key(x); }
  KSELECT_HD static U pre_key_first(U k) { return k; }
  KSELECT_HD static U pre_key_last(U k) { return k; }
  KSELECT_HD static I from_pre_key(U p) { return from_key(p); }
  KSELECT_HD static U key_of_pre_key(U p) { return p; }
};
// float16 and bfloat16: the float map on 16 bits (sign, then exponent and mantissa).
// The keys are exact, so pre-keys are the keys themselves.
template <class H, std::uint16_t ExponentMask, std::uint16_t MantissaMask>
struct half_key_traits {
  using value_type = H;
  using key_type = std::uint16_t;
  static constexpr std::uint16_t sign_bit = 0x8000u;
  static constexpr std::uint16_t exponent_mask = ExponentMask;
  static constexpr std::uint16_t mantissa_mask = MantissaMask;
  static constexpr std::uint16_t nan_key = 0xffffu;

  KSELECT_HD static std::uint16_t to_key(H x) {
    std::uint16_t u = x.bits;
    u = u == sign_bit ? std::uint16_t(0) : u;
    const std::uint16_t flip = (u & sign_bit) ? std::uint16_t(0xffffu) : sign_bit;
    const bool is_nan = (u & std::uint16_t(~sign_bit)) > exponent_mask;
    return is_nan ? nan_key : static_cast<std::uint16_t>(u ^ flip);
  }
  KSELECT_HD static H from_key(std::uint16_t k) {
    if (k == nan_key) return H{static_cast<std::uint16_t>(exponent_mask | ((mantissa_mask >> 1) + 1))};
    return H{static_cast<std::uint16_t>((k & sign_bit) ? (k & ~sign_bit) : ~k)};
  }
  KSELECT_HD static bool restores_bits(std::uint16_t k) { return k != sign_bit && k != nan_key; }
  KSELECT_HD static std::uint16_t pre_key(H x) { return to_key(x); }
  KSELECT_HD static std::uint16_t pre_key_first(std::uint16_t k) { return k; }
  KSELECT_HD static std::uint16_t pre_key_last(std::uint16_t k) { return k; }
  KSELECT_HD static H from_pre_key(std::uint16_t p) { return from_key(p); }
  KSELECT_HD static std::uint16_t key_of_pre_key(std::uint16_t p) { return p; }
};
}  // namespace detail

template <>
struct key_traits<float16> : detail::half_key_traits<float16, 0x7c00u, 0x03ffu> {};
template <>
struct key_traits<bfloat16> : detail::half_key_traits<bfloat16, 0x7f80u, 0x007fu> {};

template <>
struct key_traits<float> : detail::float_key_traits<float, std::uint32_t> {};
template <>
struct key_traits<double> : detail::float_key_traits<double, std::uint64_t> {};
template <>
struct key_traits<std::int32_t> : detail::int_key_traits<std::int32_t, std::uint32_t> {};
template <>
struct key_traits<std::uint32_t> : detail::int_key_traits<std::uint32_t, std::uint32_t> {};
template <>
struct key_traits<std::int64_t> : detail::int_key_traits<std::int64_t, std::uint64_t> {};
template <>
struct key_traits<std::uint64_t> : detail::int_key_traits<std::uint64_t, std::uint64_t> {};

template <class T>
using key_t = typename key_traits<T>::key_type;

/// The bits that every element with key `key` shares, if they share one pattern, from
/// `equal` such elements of which `other` have bits other than from_key(key)'s (-0.0
/// among the zeros; NaNs of another sign or payload): from_key(key) when other is 0
/// (checked first: `equal` is then not read), -0.0 when every zero is -0.0 (the only
/// other zero). Answers of that key are then this value without a lookup of the
/// element. Host code (the owning API, the distributed engine).
template <class T>
std::optional<T> shared_bit_pattern(key_t<T> key, std::int64_t equal, std::int64_t other) {
  if (other == 0) return key_traits<T>::from_key(key);
  if constexpr (std::is_floating_point_v<T>) {
    if (key == key_traits<T>::to_key(T(0)) && other == equal) return T(-0.0);
  }
  return std::nullopt;
}

}  // namespace kselect::core
