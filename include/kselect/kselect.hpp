// kselect: exact selection (k-th smallest, many ranks, quantiles) on GPU and CPU.
//
// The owning API. It validates its arguments, picks a backend (CUDA when the
// input pointer is device memory, the CPU otherwise, unless options::device
// says), allocates whatever workspace it needs and returns results in host
// memory. Caller mistakes throw std::invalid_argument with a message that names
// the argument; other failures (CUDA errors, out of memory) throw kselect::error.
//
// Order: NaN orders after +inf (as NumPy's sort); -0.0 equals +0.0. The answer
// for rank k is the value the ascending sorted array holds at position k (0-based).
//
// Supported key types: float, double, int32_t, uint32_t, int64_t, uint64_t.
//
// Order-preserving filtering (filter_if, partition, count_if, ...) is declared in
// kselect/filter.hpp, and the segmented (batched) calls in kselect/segmented.hpp,
// both included here.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "kselect/filter.hpp"
#include "kselect/segmented.hpp"
#include "kselect/types.hpp"

namespace kselect {

/// The k-th smallest of values[0..n) (k is 0-based). Throws std::invalid_argument
/// when n == 0 or k is outside [0, n).
template <class T>
T select(const T* values, std::int64_t n, std::int64_t k, const options& opt = {});

/// Values at several ranks in one pass. `ranks` may be in any order and may repeat;
/// result[i] is the value of rank ranks[i]. Each rank must lie in [0, n).
template <class T>
std::vector<T> multiselect(const T* values, std::int64_t n, std::span<const std::int64_t> ranks,
                           const options& opt = {});

/// numpy.quantile(values, qs, method=m): each q in [0, 1]. If the input holds any
/// NaN every result is NaN (as NumPy). Integer inputs give double results.
template <class T>
std::vector<quantile_value_t<T>> quantile(const T* values, std::int64_t n,
                                          std::span<const double> qs,
                                          quantile_method m = quantile_method::linear,
                                          const options& opt = {});

/// numpy.nanquantile: as quantile, ignoring NaNs; all-NaN input gives NaN results.
template <class T>
std::vector<quantile_value_t<T>> nanquantile(const T* values, std::int64_t n,
                                             std::span<const double> qs,
                                             quantile_method m = quantile_method::linear,
                                             const options& opt = {});

/// Elements chosen by topk / rank_range: their values (the input's elements,
/// bit for bit) and their positions in the input, in the same order (indices is
/// empty when the options' `indices` is false).
template <class T>
struct selection {
  std::vector<T> values;
  std::vector<std::int64_t> indices;
};

/// The k smallest (or, with opt.largest, the k largest) of values[0..n), with
/// their indices; 0 <= k <= n. Ties at the k-th value: any of the tied elements
/// unless t.deterministic, which takes the smaller indices (see topk_options).
template <class T>
selection<T> topk(const T* values, std::int64_t n, std::int64_t k, const topk_options& t = {},
                  const options& opt = {});

/// The elements whose positions in the ascending stable sort of values[0..n)
/// (NaN last, -0.0 equal to +0.0, ties by index) lie in [lo, hi);
/// 0 <= lo <= hi <= n. Unsorted unless r.sorted.
template <class T>
selection<T> rank_range(const T* values, std::int64_t n, std::int64_t lo, std::int64_t hi,
                        const range_options& r = {}, const options& opt = {});

/// An element of the input and its exact rank: `value` is what the ascending
/// sorted array holds at position `rank`.
template <class T>
struct ranked_value {
  T value;
  std::int64_t rank;
};

/// Approximate multiselection: for each requested rank r, an element whose exact
/// rank r' satisfies |r - r'| <= max_rank_error, with r' reported. One counting
/// pass answers the ranks its splitters come near enough; the others are
/// selected exactly. max_rank_error = 0 is exact selection. `ranks` may be in any
/// order and repeat; result[i] answers ranks[i].
template <class T>
std::vector<ranked_value<T>> approx_multiselect(const T* values, std::int64_t n,
                                                std::span<const std::int64_t> ranks,
                                                std::int64_t max_rank_error, const options& opt = {});

/// approx_multiselect for one rank.
template <class T>
ranked_value<T> approx_select(const T* values, std::int64_t n, std::int64_t k,
                              std::int64_t max_rank_error, const options& opt = {});

// Conveniences on host containers.
template <class T>
T select(std::span<const T> values, std::int64_t k, const options& opt = {}) {
  return select(values.data(), static_cast<std::int64_t>(values.size()), k, opt);
}
template <class T>
T select(const std::vector<T>& values, std::int64_t k, const options& opt = {}) {
  return select(values.data(), static_cast<std::int64_t>(values.size()), k, opt);
}
template <class T>
std::vector<T> multiselect(const std::vector<T>& values, std::span<const std::int64_t> ranks,
                           const options& opt = {}) {
  return multiselect(values.data(), static_cast<std::int64_t>(values.size()), ranks, opt);
}
template <class T>
std::vector<quantile_value_t<T>> quantile(const std::vector<T>& values, std::span<const double> qs,
                                          quantile_method m = quantile_method::linear,
                                          const options& opt = {}) {
  return quantile(values.data(), static_cast<std::int64_t>(values.size()), qs, m, opt);
}
template <class T>
std::vector<quantile_value_t<T>> nanquantile(const std::vector<T>& values,
                                             std::span<const double> qs,
                                             quantile_method m = quantile_method::linear,
                                             const options& opt = {}) {
  return nanquantile(values.data(), static_cast<std::int64_t>(values.size()), qs, m, opt);
}

template <class T>
selection<T> topk(const std::vector<T>& values, std::int64_t k, const topk_options& t = {},
                  const options& opt = {}) {
  return topk(values.data(), static_cast<std::int64_t>(values.size()), k, t, opt);
}
template <class T>
selection<T> rank_range(const std::vector<T>& values, std::int64_t lo, std::int64_t hi,
                        const range_options& r = {}, const options& opt = {}) {
  return rank_range(values.data(), static_cast<std::int64_t>(values.size()), lo, hi, r, opt);
}

/// True when this build has the CUDA backend and a CUDA device is usable.
bool cuda_available() noexcept;

/// Where a pointer lives: device_kind::cuda for device (or managed) memory,
/// device_kind::cpu otherwise (also in builds without CUDA).
device_kind pointer_location(const void* p) noexcept;

#define KSELECT_DECLARE_OWNING_API(T)                                                        \
  extern template T select<T>(const T*, std::int64_t, std::int64_t, const options&);        \
  extern template std::vector<T> multiselect<T>(const T*, std::int64_t,                      \
                                                std::span<const std::int64_t>, const options&); \
  extern template std::vector<quantile_value_t<T>> quantile<T>(                              \
      const T*, std::int64_t, std::span<const double>, quantile_method, const options&);     \
  extern template std::vector<quantile_value_t<T>> nanquantile<T>(                           \
      const T*, std::int64_t, std::span<const double>, quantile_method, const options&);     \
  extern template selection<T> topk<T>(const T*, std::int64_t, std::int64_t,                 \
                                       const topk_options&, const options&);                 \
  extern template selection<T> rank_range<T>(const T*, std::int64_t, std::int64_t,          \
                                             std::int64_t, const range_options&,             \
                                             const options&);                                \
  extern template std::vector<ranked_value<T>> approx_multiselect<T>(                        \
      const T*, std::int64_t, std::span<const std::int64_t>, std::int64_t, const options&);  \
  extern template ranked_value<T> approx_select<T>(const T*, std::int64_t, std::int64_t,     \
                                                   std::int64_t, const options&);
KSELECT_FOR_EACH_KEY_TYPE(KSELECT_DECLARE_OWNING_API)
#undef KSELECT_DECLARE_OWNING_API

}  // namespace kselect
