// Small integer helpers of the planning code and the kernels, for host and device.
#pragma once

#include <bit>
#include <cstdint>

#include "hd.hpp"

namespace kselect::core {

/// The first index i in [0, count) for which before(i) is false, or count; before
/// must be true on a prefix of the range and false after it (std::partition_point
/// over indices, for host and device).
template <class Before>
KSELECT_HD std::int64_t partition_point(std::int64_t count, Before before) {
  std::int64_t lo = 0, hi = count;
  while (lo < hi) {
    const std::int64_t mid = lo + (hi - lo) / 2;
    if (before(mid)) lo = mid + 1; else hi = mid;
  }
  return lo;
}

/// Bits needed to write x (0 for 0); the device's clz, std::countl_zero on the host.
template <class U>
KSELECT_HD int bit_width_of(U x) {
#ifdef __CUDA_ARCH__
  if constexpr (sizeof(U) == 8)
    return 64 - __clzll(static_cast<long long>(x));
  else
    return 32 - __clz(static_cast<int>(x));
#else
  return static_cast<int>(sizeof(U) * 8) - std::countl_zero(x);
#endif
}

/// Bits of a position below n (at least 1): what a radix sort by position sorts.
KSELECT_HD int position_bits(std::int64_t n) {
  return n > 1 ? bit_width_of(static_cast<std::uint64_t>(n - 1)) : 1;
}

}  // namespace kselect::core
