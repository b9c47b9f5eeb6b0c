// kselect: order-preserving filtering (stream compaction) in the CUB-style device
// API. Header-only, for .cu files compiled by nvcc (the predicate is your device
// functor); link the kselect library (it holds last_error_message()).
//
// The selected elements of d_in[0..n) go densely to d_out in their input order; the
// count goes to *d_num_selected, in device memory, without a synchronisation. d_out
// needs room for every selected element (n always suffices).
//
//   ```cpp
//   std::size_t bytes = 0;
//   kselect::device::filter_if(nullptr, bytes, d_in, d_out, d_count, n, pred, stream);  // size query
//   cudaMallocAsync(&d_ws, bytes, stream);
//   kselect::device::filter_if(d_ws, bytes, d_in, d_out, d_count, n, pred, stream);
//   ```
//
// Protocol and parameter order as the rest of the device API (kselect/device.hpp)
// and CUB: a null workspace asks for workspace_bytes (which depends on the type, n
// and the algorithm, never on the data); no allocation, no synchronisation;
// everything runs on `stream`. Returns cudaSuccess, cudaErrorInvalidValue for a bad argument (the
// reason in device::last_error_message(): null or host pointers, n < 0 or >= 2^40,
// too small a workspace, d_out overlapping d_in), or the first CUDA error met.
// n == 0 is valid: *d_num_selected becomes 0.
//
// Predicates: any copyable functor with a __device__ bool operator()(T) const, such
// as kselect::lt(0.5f) and the other predicates of kselect/filter.hpp (NumPy's
// comparison semantics: NaN fails every comparison but ne). Keys: any trivially
// copyable type of 1 to 16 bytes whose size divides 16 (the library's key types
// included); payloads (the *_pairs functions): any trivially copyable type.
//
// Algorithms (filter_config::algo, kselect/detail/filter_plan.hpp): the single pass
// (reads the input once; a partition runs it twice) and the paper's three phases
// (predicate bits saved, counts scanned, then written). automatic takes the one
// measured faster (bench/results), the single pass. Outputs must not overlap inputs
// (filter_if_inplace aside).
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "kselect/detail/arguments.hpp"
#include "kselect/detail/filter_dispatch.cuh"
#include "kselect/detail/nvtx.hpp"
#include "kselect/detail/rejection.hpp"
#include "kselect/device.hpp"  // last_error_message()
#include "kselect/filter.hpp"

namespace kselect::detail {
template <class T>
inline constexpr bool is_filter_key_v =
    std::is_trivially_copyable_v<T> && sizeof(T) <= 16 && 16 % sizeof(T) == 0;
/// int32_t positions need n < 2^31; checked before run_filter, which clears the
/// message itself, so this check clears it first.
template <class IndexT>
cudaError_t check_index_type(std::int64_t n) {
  const std::string problem = index_type_error(sizeof(IndexT), n);
  if (problem.empty()) return cudaSuccess;
  clear_rejection();
  return reject_argument(problem);
}
}  // namespace kselect::detail

namespace kselect::device {

struct filter_config {
  filter_algorithm algo = filter_algorithm::automatic;
};

/// The elements x of d_in[0..n) with pred(x), in input order, into d_out.
template <class T, class Pred>
  requires detail::is_filter_key_v<T>
cudaError_t filter_if(void* d_workspace, std::size_t& workspace_bytes, const T* d_in, T* d_out,
                      std::int64_t* d_num_selected, std::int64_t n, Pred pred, cudaStream_t stream = nullptr,
                      const filter_config& cfg = {}) {
  KSELECT_NVTX_RANGE("kselect::device::filter_if");
  detail::filter_outputs<T, T, std::int64_t> out;
  out.keys = d_out;
  out.num_selected = d_num_selected;
  return detail::run_filter(d_workspace, workspace_bytes, d_in, n, detail::predicate_selector<Pred>{pred}, out,
                            {.algo = cfg.algo}, stream);
}

/// filter_if, also writing each selected element's position in d_in to
/// d_indices_out (IndexT: int32_t, which needs n < 2^31, or int64_t). d_out may be
/// null for the positions alone.
template <class T, class IndexT, class Pred>
  requires(detail::is_filter_key_v<T> && detail::is_index_type_v<IndexT>)
cudaError_t filter_if_indices(void* d_workspace, std::size_t& workspace_bytes, const T* d_in, T* d_out,
                              IndexT* d_indices_out, std::int64_t* d_num_selected, std::int64_t n, Pred pred,
                              cudaStream_t stream = nullptr, const filter_config& cfg = {}) {
  KSELECT_NVTX_RANGE("kselect::device::filter_if_indices");
  KSELECT_CUDA_TRY(detail::check_index_type<IndexT>(n));
  detail::filter_outputs<T, T, IndexT> out;
  out.keys = d_out;
  out.indices = d_indices_out;
  out.num_selected = d_num_selected;
  return detail::run_filter(d_workspace, workspace_bytes, d_in, n, detail::predicate_selector<Pred>{pred}, out,
                            {.algo = cfg.algo, .keys_optional = true, .indices_required = true}, stream);
}

/// filter_if on d_keys_in, gathering d_values_in[i] with every selected key into
/// d_values_out. V: any trivially copyable type.
template <class T, class V, class Pred>
  requires(detail::is_filter_key_v<T> && std::is_trivially_copyable_v<V>)
cudaError_t filter_if_pairs(void* d_workspace, std::size_t& workspace_bytes, const T* d_keys_in,
                            const V* d_values_in, T* d_keys_out, V* d_values_out, std::int64_t* d_num_selected,
                            std::int64_t n, Pred pred, cudaStream_t stream = nullptr,
                            const filter_config& cfg = {}) {
  KSELECT_NVTX_RANGE("kselect::device::filter_if_pairs");
  detail::filter_outputs<T, V, std::int64_t> out;
  out.keys = d_keys_out;
  out.values_in = d_values_in;
  out.values_out = d_values_out;
  out.num_selected = d_num_selected;
  return detail::run_filter(d_workspace, workspace_bytes, d_keys_in, n, detail::predicate_selector<Pred>{pred},
                            out, {.algo = cfg.algo, .values_required = true}, stream);
}

/// filter_if with kselect::in_range(lo, hi): the elements with lo <= x < hi
/// (lo > hi or a NaN bound is rejected, as in the owning API).
template <class T>
  requires detail::is_filter_key_v<T>
cudaError_t filter_range(void* d_workspace, std::size_t& workspace_bytes, const T* d_in, T* d_out,
                         std::int64_t* d_num_selected, std::int64_t n, T lo, T hi, cudaStream_t stream = nullptr,
                         const filter_config& cfg = {}) {
  KSELECT_NVTX_RANGE("kselect::device::filter_range");
  if (!(lo <= hi)) {
    detail::clear_rejection();
    return detail::reject_argument("kselect: filter_range needs lo <= hi and no NaN bound");
  }
  return filter_if(d_workspace, workspace_bytes, d_in, d_out, d_num_selected, n, kselect::in_range(lo, hi), stream,
                   cfg);
}

/// The elements d_in[i] whose flag d_flags[i] converts to true, in input order.
template <class T, class Flag>
  requires detail::is_filter_key_v<T>
cudaError_t filter_flagged(void* d_workspace, std::size_t& workspace_bytes, const T* d_in, const Flag* d_flags,
                           T* d_out, std::int64_t* d_num_selected, std::int64_t n, cudaStream_t stream = nullptr,
                           const filter_config& cfg = {}) {
  KSELECT_NVTX_RANGE("kselect::device::filter_flagged");
  detail::filter_outputs<T, T, std::int64_t> out;
  out.keys = d_out;
  out.num_selected = d_num_selected;
  return detail::run_filter(d_workspace, workspace_bytes, d_in, n, detail::flag_selector<Flag>{d_flags}, out,
                            {.algo = cfg.algo, .flags = d_flags, .flagged = true}, stream);
}

/// filter_flagged, also writing the positions (d_out may be null for them alone).
template <class T, class Flag, class IndexT>
  requires(detail::is_filter_key_v<T> && detail::is_index_type_v<IndexT>)
cudaError_t filter_flagged_indices(void* d_workspace, std::size_t& workspace_bytes, const T* d_in,
                                   const Flag* d_flags, T* d_out, IndexT* d_indices_out,
                                   std::int64_t* d_num_selected, std::int64_t n, cudaStream_t stream = nullptr,
                                   const filter_config& cfg = {}) {
  KSELECT_NVTX_RANGE("kselect::device::filter_flagged_indices");
  KSELECT_CUDA_TRY(detail::check_index_type<IndexT>(n));
  detail::filter_outputs<T, T, IndexT> out;
  out.keys = d_out;
  out.indices = d_indices_out;
  out.num_selected = d_num_selected;
  return detail::run_filter(d_workspace, workspace_bytes, d_in, n, detail::flag_selector<Flag>{d_flags}, out,
                            {.algo = cfg.algo, .flags = d_flags, .flagged = true, .keys_optional = true,
                             .indices_required = true},
                            stream);
}

/// All n elements into d_out[0..n): those with pred(x) first (their count to
/// *d_num_selected), then the others, each part in input order. automatic: three
/// phases; the single pass writes the others backwards from the end, then reverses them.
template <class T, class Pred>
  requires detail::is_filter_key_v<T>
cudaError_t partition(void* d_workspace, std::size_t& workspace_bytes, const T* d_in, T* d_out,
                      std::int64_t* d_num_selected, std::int64_t n, Pred pred, cudaStream_t stream = nullptr,
                      const filter_config& cfg = {}) {
  KSELECT_NVTX_RANGE("kselect::device::partition");
  detail::filter_outputs<T, T, std::int64_t> out;
  out.keys = d_out;
  out.num_selected = d_num_selected;
  out.partition = true;
  return detail::run_filter(d_workspace, workspace_bytes, d_in, n, detail::predicate_selector<Pred>{pred}, out,
                            {.algo = cfg.algo}, stream);
}

/// partition, also writing every output element's position in d_in (d_out may be
/// null for the positions alone) and, when d_values_in is not null, moving the
/// payload d_values_in[i] with every key into d_values_out.
template <class T, class V, class IndexT, class Pred>
  requires(detail::is_filter_key_v<T> && detail::is_index_type_v<IndexT> && std::is_trivially_copyable_v<V>)
cudaError_t partition_pairs(void* d_workspace, std::size_t& workspace_bytes, const T* d_keys_in,
                            const V* d_values_in, T* d_keys_out, V* d_values_out, IndexT* d_indices_out,
                            std::int64_t* d_num_selected, std::int64_t n, Pred pred, cudaStream_t stream = nullptr,
                            const filter_config& cfg = {}) {
  KSELECT_NVTX_RANGE("kselect::device::partition_pairs");
  KSELECT_CUDA_TRY(detail::check_index_type<IndexT>(n));
  detail::filter_outputs<T, V, IndexT> out;
  out.keys = d_keys_out;
  out.values_in = d_values_in;
  out.values_out = d_values_out;
  out.indices = d_indices_out;
  out.num_selected = d_num_selected;
  out.partition = true;
  return detail::run_filter(d_workspace, workspace_bytes, d_keys_in, n, detail::predicate_selector<Pred>{pred},
                            out, {.algo = cfg.algo, .keys_optional = true}, stream);
}

/// The number of elements x of d_in[0..n) with pred(x), into *d_count.
template <class T, class Pred>
  requires detail::is_filter_key_v<T>
cudaError_t count_if(void* d_workspace, std::size_t& workspace_bytes, const T* d_in, std::int64_t* d_count,
                     std::int64_t n, Pred pred, cudaStream_t stream = nullptr) {
  KSELECT_NVTX_RANGE("kselect::device::count_if");
  return detail::run_count(d_workspace, workspace_bytes, d_in, n, detail::predicate_selector<Pred>{pred}, d_count,
                           stream);
}

/// Filters d_data[0..n) in place: the selected elements move, in input order, to
/// d_data[0..*d_num_selected); the rest of d_data is left unspecified. Single pass.
template <class T, class Pred>
  requires detail::is_filter_key_v<T>
cudaError_t filter_if_inplace(void* d_workspace, std::size_t& workspace_bytes, T* d_data,
                              std::int64_t* d_num_selected, std::int64_t n, Pred pred,
                              cudaStream_t stream = nullptr) {
  KSELECT_NVTX_RANGE("kselect::device::filter_if_inplace");
  detail::filter_outputs<T, T, std::int64_t> out;
  out.keys = d_data;
  out.num_selected = d_num_selected;
  return detail::run_filter(d_workspace, workspace_bytes, static_cast<const T*>(d_data), n,
                            detail::predicate_selector<Pred>{pred}, out,
                            {.algo = filter_algorithm::single_pass, .in_place = true}, stream);
}

}  // namespace kselect::device
