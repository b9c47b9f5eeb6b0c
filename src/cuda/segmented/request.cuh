// What the segmented kernels know of a call: the layout, the operation and its
// (host-sorted) ranks or quantiles, passed by value as a launch parameter so that a
// call needs no host-to-device copy (kselect/device_segmented.hpp).
#pragma once

#include <cstdint>

#include "core/quantile_math.hpp"
#include "core/segments.hpp"
#include "kselect/device_segmented.hpp"

namespace kselect::cuda::segmented {

using op_kind = kselect::detail::segmented_request::kind;

/// Ranks (multiselect) or quantiles, sorted and unique, and where each caller's
/// column finds its entry.
struct sorted_list {
  union {
    std::int64_t ranks[device::max_segmented_ranks];
    double qs[device::max_segmented_ranks];
  };
  std::int16_t entry_of_column[device::max_segmented_ranks];
  int entries = 0;  ///< sorted unique entries
  int columns = 0;  ///< the caller's count (output columns)
};

struct request {
  const std::int64_t* offsets;  ///< null: rows of row_length
  std::int64_t row_length;
  std::int64_t m;
  op_kind op;
  std::int64_t k;            ///< select, topk
  const std::int64_t* ks;    ///< select_each
  quantile_method method;
  bool ignore_nan;
  bool numpy_median;         ///< quantile: numpy.median's mean instead of the lerp
  bool floating;             ///< the key type has NaN
  bool few_segments;         ///< m <= few_segments_max: no warp tiers (tables.cuh)
  bool topk_largest;
  int rank_width;            ///< R: rank slots per segment in the rank table
  sorted_list list;

  __host__ __device__ core::segment_bounds bounds(std::int64_t s) const {
    return core::bounds_of(s, offsets, row_length);
  }
};

/// Rank slots per segment for a request: one rank for select and top-k, the sorted
/// unique ranks of multiselect, and for quantiles the low and high neighbours of each
/// q plus (without ignore_nan, for floating keys) the last rank, whose key tells
/// whether the segment holds a NaN.
inline int rank_width_of(const request& r) {
  switch (r.op) {
    case op_kind::multiselect:
      return r.list.entries;
    case op_kind::quantile:
      return 2 * r.list.entries + (r.floating && !r.ignore_nan ? 1 : 0);
    default:
      return 1;
  }
}

}  // namespace kselect::cuda::segmented
