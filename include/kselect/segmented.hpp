// kselect: segmented (batched) selection with the owning API: the same question
// asked of every row of a matrix, or of every segment of a ragged array, in one call.
//
// Shapes (kselect::segments):
//  - segments::rows(m, cols): a row-major (m, cols) array, the operation along the
//    last axis (NumPy's axis=-1); segment i is values[i*cols, (i+1)*cols).
//  - segments::ragged(offsets, m): the values flattened and offsets[0..m]; segment i
//    is values[offsets[i], offsets[i+1]) (CUB's segmented layout). offsets[0] must be
//    0, offsets must not decrease, and offsets[m] must equal n. `offsets` may be
//    host or device memory (it is validated on the host either way).
//
// Results are (m, r) row-major matrices: row i answers segment i.
//
// Segments too short for the request (one rule, the same in C++, the CLI and the
// Python package):
//  - select / multiselect: a rank outside [0, length) of any segment, including
//    every rank of an empty segment, throws std::invalid_argument naming the first
//    such segment ("k = 5 is outside [0, 3) for segment 7").
//  - quantile / median: an empty segment answers NaN for every q; nanquantile also
//    answers NaN for a segment that holds only NaNs.
//  - topk: a segment of length L < k fills the first L entries of its row (in the
//    requested order) and pads the rest with index -1 and the value that sorts
//    after every element in the requested direction (smallest: NaN for floating
//    types, the type's maximum for integers; largest: -inf, or the minimum).
//
// Order: NaN after +inf, -0.0 equal to +0.0, as in kselect.hpp. A selected zero or
// NaN is returned as +0.0 or the canonical quiet NaN (select, multiselect, the
// quantiles); top-k returns the input's elements bit for bit.
//
// Key types: the six of kselect.hpp plus kselect::float16 and kselect::bfloat16
// (pointers to numpy.float16, torch.bfloat16, __half or __nv_bfloat16 data may be
// reinterpret_cast to these).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "kselect/types.hpp"

namespace kselect {

/// The segments of a flattened array (see the top of this file).
struct segments {
  std::int64_t count = 0;                ///< m, the number of segments
  std::int64_t row_length = 0;           ///< equal rows: the columns
  const std::int64_t* offsets = nullptr;  ///< ragged: m + 1 offsets; null for equal rows

  /// m equal rows of `cols` elements.
  static segments rows(std::int64_t m, std::int64_t cols) { return segments{m, cols, nullptr}; }
  /// Ragged segments [offsets[i], offsets[i+1]), i < m.
  static segments ragged(const std::int64_t* offsets, std::int64_t m) { return segments{m, 0, offsets}; }
};

/// A row-major (rows, cols) result: element (i, j) is data[i * cols + j].
template <class T>
struct matrix {
  std::vector<T> data;
  std::int64_t rows = 0;
  std::int64_t cols = 0;
  T& operator()(std::int64_t i, std::int64_t j) { return data[static_cast<std::size_t>(i * cols + j)]; }
  const T& operator()(std::int64_t i, std::int64_t j) const {
    return data[static_cast<std::size_t>(i * cols + j)];
  }
};

/// Top-k of every segment: values(i, j) and indices(i, j), the index local to segment
/// i (0 is the segment's first element); indices is empty when topk_options::indices
/// is false.
template <class T>
struct segmented_selection {
  matrix<T> values;
  matrix<std::int64_t> indices;
};

/// The k-th smallest (0-based) of every segment: result[i] for segment i.
template <class T>
std::vector<T> segmented_select(const T* values, std::int64_t n, const segments& segs, std::int64_t k,
                                const options& opt = {});

/// A k per segment: result[i] is the ks[i]-th smallest of segment i. ks is host memory
/// with one entry per segment.
template <class T>
std::vector<T> segmented_select(const T* values, std::int64_t n, const segments& segs,
                                std::span<const std::int64_t> ks, const options& opt = {});

/// The same ranks in every segment: result(i, j) is the ranks[j]-th smallest of
/// segment i. ranks in any order, repeats allowed.
template <class T>
matrix<T> segmented_multiselect(const T* values, std::int64_t n, const segments& segs,
                                std::span<const std::int64_t> ranks, const options& opt = {});

/// numpy.quantile(segment, qs, method=m) for every segment: result(i, j) for qs[j].
template <class T>
matrix<quantile_value_t<T>> segmented_quantile(const T* values, std::int64_t n, const segments& segs,
                                               std::span<const double> qs,
                                               quantile_method m = quantile_method::linear,
                                               const options& opt = {});

/// numpy.nanquantile for every segment.
template <class T>
matrix<quantile_value_t<T>> segmented_nanquantile(const T* values, std::int64_t n, const segments& segs,
                                                  std::span<const double> qs,
                                                  quantile_method m = quantile_method::linear,
                                                  const options& opt = {});

/// numpy.median of every segment: the middle value, or the mean of the two middle
/// values as NumPy computes it (their sum halved in the result type; this can differ
/// in the last bit from segmented_quantile at 0.5, which interpolates). NaN for an
/// empty segment and for one holding a NaN.
template <class T>
std::vector<quantile_value_t<T>> segmented_median(const T* values, std::int64_t n, const segments& segs,
                                                  const options& opt = {});

/// The k smallest (t.largest: largest) of every segment, as kselect::topk; k >= 0.
/// A (m, k) result; short segments are padded (see the top of this file).
template <class T>
segmented_selection<T> segmented_topk(const T* values, std::int64_t n, const segments& segs, std::int64_t k,
                                      const topk_options& t = {}, const options& opt = {});

#define KSELECT_DECLARE_SEGMENTED_API(T)                                                                    \
  extern template std::vector<T> segmented_select<T>(const T*, std::int64_t, const segments&, std::int64_t, \
                                                     const options&);                                       \
  extern template std::vector<T> segmented_select<T>(const T*, std::int64_t, const segments&,               \
                                                     std::span<const std::int64_t>, const options&);        \
  extern template matrix<T> segmented_multiselect<T>(const T*, std::int64_t, const segments&,               \
                                                     std::span<const std::int64_t>, const options&);        \
  extern template matrix<quantile_value_t<T>> segmented_quantile<T>(                                        \
      const T*, std::int64_t, const segments&, std::span<const double>, quantile_method, const options&);   \
  extern template matrix<quantile_value_t<T>> segmented_nanquantile<T>(                                     \
      const T*, std::int64_t, const segments&, std::span<const double>, quantile_method, const options&);   \
  extern template std::vector<quantile_value_t<T>> segmented_median<T>(const T*, std::int64_t,             \
                                                                       const segments&, const options&);    \
  extern template segmented_selection<T> segmented_topk<T>(const T*, std::int64_t, const segments&,         \
                                                           std::int64_t, const topk_options&, const options&);
KSELECT_FOR_EACH_SEGMENTED_KEY_TYPE(KSELECT_DECLARE_SEGMENTED_API)
#undef KSELECT_DECLARE_SEGMENTED_API

}  // namespace kselect
