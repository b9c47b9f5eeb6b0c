// kselect: segmented (batched) selection with the CUB-style device API: many rows
// or ragged segments answered together, on one stream, with no host round trip.
//
// As the rest of the device API (kselect/device.hpp): call once with d_workspace ==
// nullptr to learn workspace_bytes, allocate, call again. The workspace depends on
// the key type, the layout's count and num_items and the request's sizes (ranks, qs,
// k), never on the data or on the offsets' values. The calls do not allocate, do not
// synchronise and do not copy anything to the host: a whole batch is a fixed number
// of launches on `stream`, so it may be captured in a CUDA graph and replayed (the
// offsets, ks and data may change between replays; the sizes may not).
// They return cudaSuccess, cudaErrorInvalidValue for bad arguments (the reason in
// last_error_message()), or the first CUDA error met.
//
// The device trusts d_offsets (non-decreasing, d_offsets[0] = 0, d_offsets[m] =
// num_items) and d_ks: it cannot report bad values without a round trip. A rank
// outside a segment answers NaN (floating types) or 0 (integers), and, when
// segmented_config::d_invalid_segment is set, the smallest such segment index is
// written there (-1 when there is none). The owning API (kselect/segmented.hpp)
// checks everything and throws.
//
// Key types: those of kselect/segmented.hpp, and __half and __nv_bfloat16 themselves.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <type_traits>

#if __has_include(<cuda_fp16.h>) && __has_include(<cuda_bf16.h>)
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#define KSELECT_HAS_CUDA_HALF 1
#endif

#include "kselect/detail/arguments.hpp"
#include "kselect/detail/nvtx.hpp"
#include "kselect/device.hpp"
#include "kselect/types.hpp"

namespace kselect::device {

/// Most ranks (segmented_multiselect) or quantiles (segmented_quantile) per call:
/// they travel to the device as a launch parameter, which keeps the call free of
/// host-to-device copies (and capturable).
inline constexpr int max_segmented_ranks = 256;

/// Segments of a flattened device array.
struct segment_layout {
  std::int64_t count = 0;                  ///< m, the number of segments (1 to 2^31 - 1)
  std::int64_t num_items = 0;              ///< n, the total: a host value, sizes workspace and grids
  const std::int64_t* d_offsets = nullptr;  ///< m + 1 device offsets, or null for equal rows
  std::int64_t row_length = 0;             ///< equal rows: the columns

  /// m equal rows of `cols` elements (row-major).
  static segment_layout rows(std::int64_t m, std::int64_t cols) { return {m, m * cols, nullptr, cols}; }
  /// Segment i is [d_offsets[i], d_offsets[i+1]); d_offsets[m] must equal n.
  static segment_layout ragged(const std::int64_t* d_offsets, std::int64_t m, std::int64_t n) {
    return {m, n, d_offsets, 0};
  }
};

struct segmented_config {
  /// Device int64 or null: receives the smallest segment index whose rank is outside
  /// the segment, or -1 (select and multiselect; see the top of this file).
  std::int64_t* d_invalid_segment = nullptr;
};

}  // namespace kselect::device

namespace kselect::detail {

/// The key type the library is compiled for: __half and __nv_bfloat16 travel as
/// kselect::float16 and kselect::bfloat16 (the same two bytes).
template <class T>
struct key_storage {
  using type = T;
};
#ifdef KSELECT_HAS_CUDA_HALF
template <>
struct key_storage<__half> {
  using type = float16;
};
template <>
struct key_storage<__nv_bfloat16> {
  using type = bfloat16;
};
#endif
template <class T>
using key_storage_t = typename key_storage<T>::type;

/// What the typed wrappers below forward to (one instantiation per key type).
struct segmented_request {
  enum class kind { select, select_each, multiselect, quantile, topk };
  kind op = kind::select;
  std::int64_t k = 0;                   ///< select, topk
  const std::int64_t* d_ks = nullptr;   ///< select_each
  const std::int64_t* h_ranks = nullptr;  ///< multiselect (any order, repeats allowed)
  const double* h_qs = nullptr;         ///< quantile
  int count = 0;                        ///< entries of h_ranks or h_qs
  quantile_method method = quantile_method::linear;
  bool ignore_nan = false;              ///< nanquantile
  bool numpy_median = false;            ///< quantile at 0.5 as numpy.median's mean (core::median_of)
  void* d_indices_out = nullptr;        ///< topk: local indices, or null
  int index_bytes = 0;                  ///< 4 or 8
  device::topk_config topk{};
  std::int64_t* d_invalid_segment = nullptr;
};

template <class K>
cudaError_t segmented_run(void* d_workspace, std::size_t& workspace_bytes, const K* d_in, void* d_out,
                          const device::segment_layout& segs, const segmented_request& req, cudaStream_t stream);

}  // namespace kselect::detail

namespace kselect::device {

/// The k-th smallest (0-based) of every segment: d_out[i] for segment i (m values).
template <class T>
cudaError_t segmented_select(void* d_workspace, std::size_t& workspace_bytes, const T* d_in, T* d_out,
                             const segment_layout& segs, std::int64_t k, cudaStream_t stream = nullptr,
                             const segmented_config& cfg = {}) {
  KSELECT_NVTX_RANGE("kselect::device::segmented_select");
  using K = kselect::detail::key_storage_t<T>;
  kselect::detail::segmented_request req;
  req.k = k;
  req.d_invalid_segment = cfg.d_invalid_segment;
  return kselect::detail::segmented_run<K>(d_workspace, workspace_bytes, reinterpret_cast<const K*>(d_in), d_out,
                                           segs, req, stream);
}

/// A k per segment: d_out[i] is the d_ks[i]-th smallest of segment i (d_ks: m device int64).
template <class T>
cudaError_t segmented_select_each(void* d_workspace, std::size_t& workspace_bytes, const T* d_in, T* d_out,
                                  const segment_layout& segs, const std::int64_t* d_ks,
                                  cudaStream_t stream = nullptr, const segmented_config& cfg = {}) {
  KSELECT_NVTX_RANGE("kselect::device::segmented_select_each");
  using K = kselect::detail::key_storage_t<T>;
  kselect::detail::segmented_request req;
  req.op = kselect::detail::segmented_request::kind::select_each;
  req.d_ks = d_ks;
  req.d_invalid_segment = cfg.d_invalid_segment;
  return kselect::detail::segmented_run<K>(d_workspace, workspace_bytes, reinterpret_cast<const K*>(d_in), d_out,
                                           segs, req, stream);
}

/// The same ranks in every segment: d_out[i * num_ranks + j] is the h_ranks[j]-th
/// smallest of segment i. h_ranks: HOST array, any order, repeats allowed,
/// 1 <= num_ranks <= max_segmented_ranks.
template <class T>
cudaError_t segmented_multiselect(void* d_workspace, std::size_t& workspace_bytes, const T* d_in, T* d_out,
                                  const segment_layout& segs, const std::int64_t* h_ranks, int num_ranks,
                                  cudaStream_t stream = nullptr, const segmented_config& cfg = {}) {
  KSELECT_NVTX_RANGE("kselect::device::segmented_multiselect");
  using K = kselect::detail::key_storage_t<T>;
  kselect::detail::segmented_request req;
  req.op = kselect::detail::segmented_request::kind::multiselect;
  req.h_ranks = h_ranks;
  req.count = num_ranks;
  req.d_invalid_segment = cfg.d_invalid_segment;
  return kselect::detail::segmented_run<K>(d_workspace, workspace_bytes, reinterpret_cast<const K*>(d_in), d_out,
                                           segs, req, stream);
}

/// numpy.quantile (ignore_nan: numpy.nanquantile) of every segment:
/// d_out[i * num_qs + j] for h_qs[j] (HOST array, each in [0, 1], 1 <= num_qs <=
/// max_segmented_ranks). d_out holds quantile_value_t of the key (float for 16-bit
/// keys). An empty segment (or, ignoring NaN, an all-NaN one) answers NaN.
template <class T>
cudaError_t segmented_quantile(void* d_workspace, std::size_t& workspace_bytes, const T* d_in,
                               quantile_value_t<kselect::detail::key_storage_t<T>>* d_out,
                               const segment_layout& segs, const double* h_qs, int num_qs,
                               quantile_method method = quantile_method::linear, bool ignore_nan = false,
                               cudaStream_t stream = nullptr) {
  KSELECT_NVTX_RANGE("kselect::device::segmented_quantile");
  using K = kselect::detail::key_storage_t<T>;
  kselect::detail::segmented_request req;
  req.op = kselect::detail::segmented_request::kind::quantile;
  req.h_qs = h_qs;
  req.count = num_qs;
  req.method = method;
  req.ignore_nan = ignore_nan;
  return kselect::detail::segmented_run<K>(d_workspace, workspace_bytes, reinterpret_cast<const K*>(d_in), d_out,
                                           segs, req, stream);
}

/// numpy.median (ignore_nan: numpy.nanmedian) of every segment: d_out[i] for segment
/// i, quantile_value_t of the key (float for 16-bit keys). The middle key, or the mean
/// of the two middle keys as NumPy computes it: their sum halved in the result type
/// (float32 keys in float32, integers in float64), which can differ in the last bit
/// from segmented_quantile at 0.5 (a lerp). NaN for an empty segment, for one holding
/// a NaN, and (ignore_nan) for an all-NaN one.
template <class T>
cudaError_t segmented_median(void* d_workspace, std::size_t& workspace_bytes, const T* d_in,
                             quantile_value_t<kselect::detail::key_storage_t<T>>* d_out,
                             const segment_layout& segs, bool ignore_nan = false, cudaStream_t stream = nullptr) {
  KSELECT_NVTX_RANGE("kselect::device::segmented_median");
  using K = kselect::detail::key_storage_t<T>;
  static constexpr double half = 0.5;
  kselect::detail::segmented_request req;
  req.op = kselect::detail::segmented_request::kind::quantile;
  req.h_qs = &half;
  req.count = 1;
  req.method = quantile_method::linear;  // its neighbours at 0.5 are the middle keys
  req.ignore_nan = ignore_nan;
  req.numpy_median = true;
  return kselect::detail::segmented_run<K>(d_workspace, workspace_bytes, reinterpret_cast<const K*>(d_in), d_out,
                                           segs, req, stream);
}

/// The k smallest (cfg.largest: largest) of every segment into d_keys_out[i * k ..
/// i * k + k) and, when d_indices_out is not null, their indices local to the
/// segment (IndexT: int64_t, or int32_t where every position fits: rows shorter
/// than 2^31, or ragged segments of num_items < 2^31 in all, since the host cannot
/// see the longest segment; otherwise cudaErrorInvalidValue). A segment shorter than k is padded as
/// kselect/segmented.hpp says (index -1). Ties at the k-th value go to the smaller
/// indices: the output is the same every run (cfg.deterministic is implied).
/// Unsorted output is in index order; cfg.sorted: by key (descending for largest),
/// then index.
template <class T, class IndexT = std::int64_t>
  requires kselect::detail::is_index_type_v<IndexT>
cudaError_t segmented_topk(void* d_workspace, std::size_t& workspace_bytes, const T* d_in, T* d_keys_out,
                           IndexT* d_indices_out, const segment_layout& segs, std::int64_t k,
                           cudaStream_t stream = nullptr, const topk_config& cfg = {}) {
  KSELECT_NVTX_RANGE("kselect::device::segmented_topk");
  using K = kselect::detail::key_storage_t<T>;
  kselect::detail::segmented_request req;
  req.op = kselect::detail::segmented_request::kind::topk;
  req.k = k;
  req.d_indices_out = d_indices_out;
  req.index_bytes = d_indices_out ? static_cast<int>(sizeof(IndexT)) : 0;
  req.topk = cfg;
  return kselect::detail::segmented_run<K>(d_workspace, workspace_bytes, reinterpret_cast<const K*>(d_in),
                                           d_keys_out, segs, req, stream);
}

/// segmented_topk without indices (d_indices_out given as nullptr).
template <class T>
cudaError_t segmented_topk(void* d_workspace, std::size_t& workspace_bytes, const T* d_in, T* d_keys_out,
                           std::nullptr_t, const segment_layout& segs, std::int64_t k,
                           cudaStream_t stream = nullptr, const topk_config& cfg = {}) {
  return segmented_topk(d_workspace, workspace_bytes, d_in, d_keys_out, static_cast<std::int64_t*>(nullptr), segs,
                        k, stream, cfg);
}

}  // namespace kselect::device
