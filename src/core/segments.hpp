// Segmented (batched) selection: the pieces every backend shares. Where segment i
// lies, the checks of a batch's shape and ranks (their messages name the segment),
// and the padding of short top-k rows (the rule of include/kselect/segmented.hpp).
#pragma once

#include <cstdint>
#include <limits>
#include <span>
#include <type_traits>

#include "hd.hpp"
#include "key_traits.hpp"
#include "kselect/types.hpp"

namespace kselect::core {

/// [begin, end) of one segment.
struct segment_bounds {
  std::int64_t begin;
  std::int64_t end;
  KSELECT_HD std::int64_t length() const { return end - begin; }
};

/// Segment i of either layout: ragged when offsets is not null, else rows of row_length.
KSELECT_HD segment_bounds bounds_of(std::int64_t i, const std::int64_t* offsets, std::int64_t row_length) {
  if (offsets) return segment_bounds{offsets[i], offsets[i + 1]};
  return segment_bounds{i * row_length, (i + 1) * row_length};
}

/// Throws std::invalid_argument unless offsets (m + 1 host values) starts at 0, never
/// decreases and ends at n: "kselect: offsets[4] = 10 is less than offsets[3] = 12
/// (offsets must not decrease)", "kselect: offsets[8] = 90 but n = 100 (the last
/// offset must equal the number of values)".
void check_offsets(std::span<const std::int64_t> offsets, std::int64_t n);

/// Throws std::invalid_argument unless m >= 1 and (rows) m * cols == n with cols >= 0,
/// or (ragged) the offsets check out. `offsets` is the host copy for ragged segments.
void check_segments(std::int64_t m, std::int64_t row_length, const std::int64_t* host_offsets, std::int64_t n);

/// Throws std::invalid_argument naming the first segment for which rank k is outside
/// [0, length): "kselect: k = 5 is outside [0, 3) for segment 7 (length 3)". `what`
/// names the rank ("k", "ks[7]", "ranks[2]").
void check_rank_in_segment(std::int64_t k, std::int64_t segment, std::int64_t length, const char* what);

/// The value that pads a top-k row of a segment shorter than k: what sorts after every
/// element in the requested direction (smallest: NaN, or the type's maximum; largest:
/// -inf, or the type's minimum).
template <class T>
KSELECT_HD T topk_padding(bool largest) {
  using U = key_t<T>;
  if (!largest) return key_traits<T>::from_key(static_cast<U>(~U(0)));  // NaN, or the maximum
  if constexpr (is_half_key_v<T>) {
    return T{static_cast<std::uint16_t>(key_traits<T>::sign_bit | key_traits<T>::exponent_mask)};  // -inf
  } else if constexpr (std::is_floating_point_v<T>) {
    return -std::numeric_limits<T>::infinity();
  } else {
    return std::numeric_limits<T>::lowest();
  }
}

}  // namespace kselect::core
