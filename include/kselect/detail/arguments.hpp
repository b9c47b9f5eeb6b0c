// The limits and argument rules that the device API (compiled and header-only), the
// approximate selection's shared checks and the CPU backend's defaults have in
// common, written once so that their values and messages stay the same. Plain C++:
// no CUDA headers, so src/core and the CPU backend use it too.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>

namespace kselect::detail {

/// The sampling seed when the caller gives none: the device API's configs, the CPU
/// backend's tuning and the approximate selection's CPU path, so that both backends
/// draw the same sample by default.
inline constexpr std::uint64_t default_seed = 0x9e3779b97f4a7c15ull;

/// The device API and the approximate selection take fewer than 2^40 elements: the
/// samplers' products of a size or rank and a sample index then fit in 64 bits
/// (core/sampling.hpp, core/bin_map.hpp).
inline constexpr std::int64_t max_input_size = std::int64_t(1) << 40;

/// The position types the device API writes (top-k, rank ranges, filters).
template <class I>
inline constexpr bool is_index_type_v = std::is_same_v<I, std::int32_t> || std::is_same_v<I, std::int64_t>;

/// Why n is not an input size the device API takes, or "" if it is: 1 <= n < 2^40,
/// or 0 <= n < 2^40 where an empty input is valid (the filters).
inline std::string input_size_error(std::int64_t n, bool empty_allowed = false) {
  if (empty_allowed && n < 0) return "kselect: n = " + std::to_string(n) + " is negative";
  if (!empty_allowed && n <= 0) return "kselect: empty input (n = " + std::to_string(n) + ")";
  if (n >= max_input_size) return "kselect: n = " + std::to_string(n) + " exceeds 2^40";
  return {};
}

/// int32_t positions address n elements: n < 2^31.
constexpr bool fits_int32_indices(std::int64_t n) { return n <= INT32_MAX; }

/// Why positions of index_bytes bytes cannot address n elements, or "" if they can:
/// 4 (int32_t, n < 2^31) or 8 (int64_t).
inline std::string index_type_error(std::size_t index_bytes, std::int64_t n) {
  if (index_bytes != 4 && index_bytes != 8) return "kselect: indices must be int32_t or int64_t";
  if (index_bytes == 4 && !fits_int32_indices(n))
    return "kselect: int32_t indices need n < 2^31 (n = " + std::to_string(n) + "); use int64_t";
  return {};
}

}  // namespace kselect::detail
