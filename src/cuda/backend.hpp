// What the owning API (plain C++) calls in the CUDA backend. Implemented in
// src/cuda/owning_backend.cu; only compiled when KSELECT_WITH_CUDA is set.
#pragma once

#include <cstdint>

#include "kselect/filter.hpp"
#include "kselect/types.hpp"

namespace kselect::cuda_backend {

bool available() noexcept;
bool is_device_pointer(const void* p) noexcept;

/// Like cpu::multiselect, but `values` is device memory; `out` is host memory.
/// Allocates its workspace on opt.stream, throws kselect::error on CUDA failures.
template <class T>
void multiselect(const T* d_values, std::int64_t n, const std::int64_t* ranks,
                 std::int64_t num_ranks, T* h_out, const options& opt);

/// Like cpu::range_select, but `values` is device memory; the outputs are host memory.
template <class T>
void range_select(const T* d_values, std::int64_t n, std::int64_t lo, std::int64_t hi, bool descending,
                  bool sorted, bool deterministic, T* h_values_out, std::int64_t* h_indices_out,
                  const options& opt);

/// Like cpu::approx_multiselect, but `values` is device memory; outputs are host memory.
template <class T>
void approx_multiselect(const T* d_values, std::int64_t n, const std::int64_t* ranks, std::int64_t num_ranks,
                        std::int64_t max_rank_error, T* h_out, std::int64_t* h_out_ranks, const options& opt);

/// NaN count of device array values[0..n).
template <class T>
std::int64_t count_nan(const T* d_values, std::int64_t n, const options& opt);

/// Like the CPU filters (api/dispatch.cpp's run_filter), but `values`, the flags and
/// the payload are device memory; the results go to the target's host vectors.
template <class T>
std::int64_t filter(const T* d_values, std::int64_t n, const kselect::detail::filter_condition<T>& cond,
                    const void* d_payload, std::size_t payload_bytes, bool partition, bool with_indices,
                    kselect::detail::filter_target& target, const options& opt);

/// Number of device keys satisfying pred.
template <class T>
std::int64_t count_if(const T* d_values, std::int64_t n, const predicate<T>& pred, const options& opt);

/// Filters device array values[0..n) in place; returns the count.
template <class T>
std::int64_t filter_inplace(T* d_values, std::int64_t n, const predicate<T>& pred, const options& opt);

/// Where the segments of a segmented call lie (validated by the caller): rows of
/// row_length when offsets is null, else m + 1 offsets in host or device memory.
struct segmented_shape {
  std::int64_t n = 0;
  std::int64_t m = 0;
  std::int64_t row_length = 0;
  const std::int64_t* offsets = nullptr;
  bool offsets_on_device = false;
};

/// Segmented calls on device values (src/cuda/owning_segmented.cu); every output is
/// host memory, row-major (m, r). Arguments validated by the caller (ranks inside
/// every segment, qs in [0, 1], any count: lists longer than the device API's
/// max_segmented_ranks are run in pieces). Throw kselect::error on CUDA failures.
/// select: h_ks (m host values) when not null, else k for every segment.
template <class T>
void segmented_select(const T* d_values, const segmented_shape& shape, std::int64_t k, const std::int64_t* h_ks,
                      T* h_out, const options& opt);
/// The same ranks (any order, repeats allowed) in every segment: h_out is (m, num_ranks).
template <class T>
void segmented_multiselect(const T* d_values, const segmented_shape& shape, const std::int64_t* ranks,
                           std::int64_t num_ranks, T* h_out, const options& opt);
/// numpy.quantile / nanquantile per segment: h_out is (m, num_qs).
template <class T>
void segmented_quantile(const T* d_values, const segmented_shape& shape, const double* qs, std::int64_t num_qs,
                        quantile_method method, bool ignore_nan, quantile_value_t<T>* h_out, const options& opt);
/// numpy.median per segment (device::segmented_median): h_out is (m).
template <class T>
void segmented_median(const T* d_values, const segmented_shape& shape, quantile_value_t<T>* h_out,
                      const options& opt);
/// Top-k per segment, padded as kselect/segmented.hpp says: h_values and (when not
/// null) h_indices are (m, k).
template <class T>
void segmented_topk(const T* d_values, const segmented_shape& shape, std::int64_t k, bool largest, bool sorted,
                    T* h_values, std::int64_t* h_indices, const options& opt);

}  // namespace kselect::cuda_backend
