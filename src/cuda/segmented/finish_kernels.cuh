// The last step of a segmented call: answers from the keys at the ranks
// (select, multiselect, quantiles), or the top-k rows gathered from the input
// (bit for bit) with their indices and padding.
#pragma once

#include "core/half_float.hpp"
#include "core/key_traits.hpp"
#include "cuda/segmented/tables.cuh"
#include "cuda/segmented/warp_rank.cuh"

namespace kselect::cuda::segmented {

/// The value an answer of a segment that has none takes: NaN, or 0 for integers.
template <class R>
__device__ __forceinline__ R missing_value() {
  if constexpr (std::is_floating_point_v<R>) return R(NAN);
  else if constexpr (is_half_key_v<R>) return core::key_traits<R>::from_key(core::key_traits<R>::nan_key);
  else return R(0);
}

/// A quantile from the keys a (rank p.lo) and b (rank p.hi).
template <class T>
__device__ quantile_value_t<T> quantile_of(const core::quantile_point& p, core::key_t<T> a, core::key_t<T> b) {
  const T x = core::key_traits<T>::from_key(a), y = core::key_traits<T>::from_key(b);
  if constexpr (is_half_key_v<T>) return core::combine<float>(p, core::widen(x), core::widen(y));
  else return core::combine<T>(p, x, y);
}

/// numpy.median of `valid` keys from the middle ones a and b (core::median_of).
template <class T>
__device__ quantile_value_t<T> median_of_keys(std::int64_t valid, core::key_t<T> a, core::key_t<T> b) {
  const T x = core::key_traits<T>::from_key(a), y = core::key_traits<T>::from_key(b);
  if constexpr (is_half_key_v<T>) return core::median_of<float>(valid, core::widen(x), core::widen(y));
  else return core::median_of<T>(valid, x, y);
}

/// One thread per (segment, column).
template <class T>
__global__ void finish_kernel(request req, tables<core::key_t<T>> t, void* out, std::int64_t columns,
                              std::int64_t* first_invalid, std::int64_t* user_invalid) {
  using U = core::key_t<T>;
  const std::int64_t total = req.m * columns;
  const std::int64_t stride = std::int64_t(gridDim.x) * blockDim.x;
  const std::int64_t first = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (first == 0 && user_invalid) *user_invalid = *first_invalid == no_invalid ? -1 : *first_invalid;
  for (std::int64_t i = first; i < total; i += stride) {
    const std::int64_t s = i / columns;
    const int c = static_cast<int>(i % columns);
    const int count = t.valid_ranks[s];
    const U* answers = t.answers + s * t.width;
    if (req.op != op_kind::quantile) {
      const int e = req.op == op_kind::multiselect ? req.list.entry_of_column[c] : 0;
      static_cast<T*>(out)[i] = e < count ? core::key_traits<T>::from_key(answers[e]) : missing_value<T>();
      continue;
    }
    using R = quantile_value_t<T>;
    R* result = static_cast<R*>(out);
    const std::int64_t len = req.bounds(s).length();
    const std::int64_t valid = req.ignore_nan ? len - t.nan_count[s] : len;
    bool has_nan = false;
    if constexpr (is_floating_key_v<T>)
      has_nan = !req.ignore_nan && count > 0 && answers[count - 1] == core::key_traits<T>::nan_key;
    if (valid <= 0 || count == 0 || has_nan) {
      result[i] = missing_value<R>();
      continue;
    }
    const core::quantile_point p = core::quantile_point_of(valid, req.list.qs[req.list.entry_of_column[c]], req.method);
    const std::int64_t* row = t.ranks + s * t.width;
    const U a = answers[entry_of_rank(row, count, p.lo)], b = answers[entry_of_rank(row, count, p.hi)];
    result[i] = req.numpy_median ? median_of_keys<T>(valid, a, b) : quantile_of<T>(p, a, b);
  }
}

/// One thread per (segment, j < k): the j-th chosen key of the segment, read again
/// from the input so that it is the element itself; padding past the segment's end.
template <class T, class IndexT>
__global__ void topk_gather_kernel(const T* in, request req, const core::key_t<T>* chosen_keys,
                                   const std::int64_t* chosen_index, T* keys_out, IndexT* indices_out) {
  const std::int64_t total = req.m * req.k;
  const std::int64_t stride = std::int64_t(gridDim.x) * blockDim.x;
  for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < total; i += stride) {
    const std::int64_t s = i / req.k, j = i % req.k;
    const core::segment_bounds b = req.bounds(s);
    if (j < b.length()) {
      const std::int64_t index = chosen_index[i];
      keys_out[i] = in[b.begin + index];
      if (indices_out) indices_out[i] = static_cast<IndexT>(index);
    } else {
      keys_out[i] = core::topk_padding<T>(req.topk_largest);
      if (indices_out) indices_out[i] = IndexT(-1);
    }
  }
}

/// Sorted top-k rows of at most warp_sort_max keys: a warp per row ranks each chosen
/// key by (key, place), and places are in index order, so the order is (key, index).
template <class U>
__global__ void __launch_bounds__(256) sort_rows_kernel(request req, const U* keys, const std::int64_t* index,
                                                        U* keys_out, std::int64_t* index_out) {
  constexpr int per_lane = warp_sort_max / 32;
  const int lane = threadIdx.x & 31;
  const std::int64_t warps = std::int64_t(gridDim.x) * (blockDim.x / 32);
  for (std::int64_t s = std::int64_t(blockIdx.x) * (blockDim.x / 32) + threadIdx.x / 32; s < req.m; s += warps) {
    const std::int64_t len = req.bounds(s).length();
    const int count = static_cast<int>(len < req.k ? len : req.k);
    const U* row = keys + s * req.k;
    U mine[per_lane];
#pragma unroll
    for (int i = 0; i < per_lane; ++i) mine[i] = i * 32 + lane < count ? row[i * 32 + lane] : U(0);
    int rank[per_lane];
    rank_by_counting(mine, count, rank);
#pragma unroll
    for (int i = 0; i < per_lane; ++i) {
      if (i * 32 + lane >= count) continue;
      keys_out[s * req.k + rank[i]] = mine[i];
      index_out[s * req.k + rank[i]] = index[s * req.k + i * 32 + lane];
    }
  }
}

/// The end of segment s's chosen keys in the (m, k) rows: s * k + min(length, k).
struct chosen_end {
  const std::int64_t* offsets;
  std::int64_t row_length;
  std::int64_t k;
  __host__ __device__ std::int64_t operator()(std::int64_t s) const {
    const std::int64_t len = core::bounds_of(s, offsets, row_length).length();
    return s * k + (len < k ? len : k);
  }
};
struct row_begin {
  std::int64_t k;
  __host__ __device__ std::int64_t operator()(std::int64_t s) const { return s * k; }
};

}  // namespace kselect::cuda::segmented
