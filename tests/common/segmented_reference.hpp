// The reference of the segmented (batched) calls: every segment on its own through
// the standard library (nth_element, partial_sort, sort) on the order-preserving
// keys of core/key_traits.hpp, so that NaN orders after +inf (all NaNs tie) and -0.0
// ties with +0.0, as kselect orders; the quantiles by core/quantile_math.hpp's NumPy
// recipe. All eight key types. Segments are given by their m + 1 offsets (equal rows
// too: row_offsets), results are row-major (m, r) as the calls write them. The
// values come as a span, so the key type is named at the call
// (reference_segmented_topk<T>(...)). The loop over segments runs in parallel where
// OpenMP is on (a million segments, or one of 2^25 next to many small ones). Host
// code, header-only.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <numeric>
#include <span>
#include <vector>

#include "common/range_reference.hpp"
#include "common/reference.hpp"
#include "core/key_traits.hpp"
#include "core/quantile_math.hpp"
#include "core/segments.hpp"
#include "kselect/types.hpp"

namespace kselect::test {

/// The order-preserving key of x (NaN last, -0.0 == +0.0).
template <class T>
core::key_t<T> key_of(T x) {
  return core::key_traits<T>::to_key(x);
}

/// Whether key k is NaN's (never, for integer types).
template <class T>
bool is_nan_key(core::key_t<T> k) {
  if constexpr (is_floating_key_v<T>) return k == core::key_traits<T>::nan_key;
  return false;
}

/// What a rank outside its segment answers (kselect/device_segmented.hpp): NaN for
/// floating types, 0 for integers.
template <class T>
T missing_value() {
  if constexpr (is_floating_key_v<T>) {
    return core::key_traits<T>::from_key(core::key_traits<T>::nan_key);
  } else {
    return T{};
  }
}

/// out[j] = the value at rank ranks[j] of values[begin, end) sorted, as its
/// canonical element (from_key: +0.0, the quiet NaN), or missing_value<T>() for a
/// rank outside [0, end - begin).
template <class T>
void segment_ranks(const T* values, std::int64_t begin, std::int64_t end, std::span<const std::int64_t> ranks, T* out) {
  using K = core::key_t<T>;
  const std::int64_t length = end - begin;
  std::vector<std::int64_t> inside;
  for (const std::int64_t r : ranks)
    if (r >= 0 && r < length) inside.push_back(r);
  std::vector<K> picked;
  if (!inside.empty()) {
    std::vector<K> keys(static_cast<std::size_t>(length));
    for (std::int64_t i = 0; i < length; ++i) keys[static_cast<std::size_t>(i)] = key_of(values[begin + i]);
    picked = reference_multiselect<K>(std::move(keys), inside);
  }
  std::size_t next = 0;
  for (std::size_t j = 0; j < ranks.size(); ++j) {
    const bool in = ranks[j] >= 0 && ranks[j] < length;
    out[j] = in ? core::key_traits<T>::from_key(picked[next++]) : missing_value<T>();
  }
}

/// f(i, begin, end) for every segment i, in parallel where OpenMP is on.
template <class F>
void for_each_segment(std::span<const std::int64_t> offsets, F&& f) {
  const auto m = static_cast<std::int64_t>(offsets.size()) - 1;
#ifdef _OPENMP
#pragma omp parallel for schedule(dynamic, 64)
#endif
  for (std::int64_t i = 0; i < m; ++i) f(i, offsets[i], offsets[i + 1]);
}

/// segmented_multiselect (and segmented_select: one rank): (m, ranks.size()).
template <class T>
std::vector<T> reference_segmented_multiselect(std::span<const T> values, std::span<const std::int64_t> offsets,
                                               std::span<const std::int64_t> ranks) {
  const std::size_t r = ranks.size();
  std::vector<T> out((offsets.size() - 1) * r);
  for_each_segment(offsets, [&](std::int64_t i, std::int64_t begin, std::int64_t end) {
    segment_ranks(values.data(), begin, end, ranks, out.data() + static_cast<std::size_t>(i) * r);
  });
  return out;
}

/// segmented_select_each: out[i] is rank ks[i] of segment i.
template <class T>
std::vector<T> reference_segmented_select_each(std::span<const T> values, std::span<const std::int64_t> offsets,
                                               std::span<const std::int64_t> ks) {
  std::vector<T> out(offsets.size() - 1);
  for_each_segment(offsets, [&](std::int64_t i, std::int64_t begin, std::int64_t end) {
    segment_ranks(values.data(), begin, end, ks.subspan(static_cast<std::size_t>(i), 1), out.data() + i);
  });
  return out;
}

/// What d_invalid_segment receives: the smallest segment for which one of `ranks`
/// (the same for every segment) lies outside it, or -1.
inline std::int64_t first_invalid_segment(std::span<const std::int64_t> offsets, std::span<const std::int64_t> ranks) {
  for (std::size_t i = 0; i + 1 < offsets.size(); ++i)
    for (const std::int64_t r : ranks)
      if (r < 0 || r >= offsets[i + 1] - offsets[i]) return static_cast<std::int64_t>(i);
  return -1;
}

/// The same with one rank per segment (segmented_select_each).
inline std::int64_t first_invalid_segment_each(std::span<const std::int64_t> offsets,
                                               std::span<const std::int64_t> ks) {
  for (std::size_t i = 0; i + 1 < offsets.size(); ++i)
    if (ks[i] < 0 || ks[i] >= offsets[i + 1] - offsets[i]) return static_cast<std::int64_t>(i);
  return -1;
}

/// core::combine for every key type: 16-bit keys through their (exact) float values.
template <class T>
quantile_value_t<T> combine_values(const core::quantile_point& p, T a, T b) {
  if constexpr (is_half_key_v<T>) {
    return core::combine(p, to_float(a), to_float(b));
  } else {
    return core::combine(p, a, b);
  }
}

/// segmented_quantile: (m, qs.size()). NaN for an empty segment, for a segment
/// holding a NaN (numpy.quantile), or, ignoring NaN, for one holding only NaNs.
template <class T>
std::vector<quantile_value_t<T>> reference_segmented_quantile(std::span<const T> values,
                                                              std::span<const std::int64_t> offsets,
                                                              std::span<const double> qs, quantile_method method,
                                                              bool ignore_nan) {
  using R = quantile_value_t<T>;
  const std::size_t nq = qs.size();
  std::vector<R> out((offsets.size() - 1) * nq);
  for_each_segment(offsets, [&](std::int64_t i, std::int64_t begin, std::int64_t end) {
    R* row = out.data() + static_cast<std::size_t>(i) * nq;
    std::int64_t nans = 0;
    for (std::int64_t j = begin; j < end; ++j) nans += is_nan_key<T>(key_of(values[j]));
    const std::int64_t valid = ignore_nan ? end - begin - nans : end - begin;
    if (valid == 0 || (!ignore_nan && nans > 0)) {
      std::fill(row, row + nq, std::numeric_limits<R>::quiet_NaN());
      return;
    }
    // NaNs sort last: the ranks below `valid` are those of the values that count.
    std::vector<core::quantile_point> points;
    std::vector<std::int64_t> ranks;
    for (const double q : qs) {
      points.push_back(core::quantile_point_of(valid, q, method));
      ranks.push_back(points.back().lo);
      ranks.push_back(points.back().hi);
    }
    std::vector<T> v(ranks.size());
    segment_ranks(values.data(), begin, end, std::span<const std::int64_t>(ranks), v.data());
    for (std::size_t j = 0; j < nq; ++j) row[j] = combine_values(points[j], v[2 * j], v[2 * j + 1]);
  });
  return out;
}

/// segmented_median: numpy.median of every segment written out from its definition,
/// not from core::median_of: the middle value of the sorted segment, or the two middle
/// values summed and halved in the result type (np.mean: float in float, integers in
/// double, 16-bit keys in float). NaN for an empty segment or one holding a NaN;
/// ignoring NaN, for an all-NaN one.
template <class T>
std::vector<quantile_value_t<T>> reference_segmented_median(std::span<const T> values,
                                                            std::span<const std::int64_t> offsets,
                                                            bool ignore_nan = false) {
  using R = quantile_value_t<T>;
  std::vector<R> out(offsets.size() - 1);
  const auto as_result = [](T v) {
    if constexpr (is_half_key_v<T>) return static_cast<R>(to_float(v));
    else return static_cast<R>(v);
  };
  for_each_segment(offsets, [&](std::int64_t i, std::int64_t begin, std::int64_t end) {
    std::int64_t nans = 0;
    for (std::int64_t j = begin; j < end; ++j) nans += is_nan_key<T>(key_of(values[j]));
    const std::int64_t valid = ignore_nan ? end - begin - nans : end - begin;
    if (valid == 0 || (!ignore_nan && nans > 0)) {
      out[static_cast<std::size_t>(i)] = std::numeric_limits<R>::quiet_NaN();
      return;
    }
    const std::int64_t middle[2] = {(valid - 1) / 2, valid / 2};
    T v[2];
    segment_ranks(values.data(), begin, end, std::span<const std::int64_t>(middle), v);
    const R sum = as_result(v[0]) + as_result(v[1]);
    out[static_cast<std::size_t>(i)] = valid % 2 == 1 ? as_result(v[0]) : sum / R(2);
  });
  return out;
}

/// Top-k rows as the calls write them: (m, k) values and indices local to the
/// segment (empty indices: the call wrote none). The shape of a range selection's answer.
template <class T>
using topk_rows = range_answer<T>;

/// segmented_topk: the k smallest (largest) of every segment, ties by the smaller
/// index; in index order, or sorted by key (descending for largest) then index; a
/// segment shorter than k padded with index -1 and core::topk_padding.
template <class T>
topk_rows<T> reference_segmented_topk(std::span<const T> values, std::span<const std::int64_t> offsets, std::int64_t k,
                                      bool largest, bool sorted) {
  using K = core::key_t<T>;
  const auto cells = (offsets.size() - 1) * static_cast<std::size_t>(k);
  topk_rows<T> out;
  out.values.resize(cells);
  out.indices.resize(cells);
  const T padding = core::topk_padding<T>(largest);
  for_each_segment(offsets, [&](std::int64_t i, std::int64_t begin, std::int64_t end) {
    const std::int64_t length = end - begin;
    std::vector<K> keys(static_cast<std::size_t>(length));
    for (std::int64_t j = 0; j < length; ++j) keys[static_cast<std::size_t>(j)] = key_of(values[begin + j]);
    std::vector<std::int64_t> idx(static_cast<std::size_t>(length));
    std::iota(idx.begin(), idx.end(), std::int64_t{0});
    // A total order (key, then index): partial_sort then gives the stable answer.
    const auto before = [&](std::int64_t a, std::int64_t b) {
      const K ka = keys[static_cast<std::size_t>(a)], kb = keys[static_cast<std::size_t>(b)];
      if (ka != kb) return largest ? ka > kb : ka < kb;
      return a < b;
    };
    const std::int64_t taken = std::min(k, length);
    std::partial_sort(idx.begin(), idx.begin() + taken, idx.end(), before);
    idx.resize(static_cast<std::size_t>(taken));
    if (!sorted) std::sort(idx.begin(), idx.end());
    for (std::int64_t j = 0; j < k; ++j) {
      const auto at = static_cast<std::size_t>(i * k + j);
      out.indices[at] = j < taken ? idx[static_cast<std::size_t>(j)] : -1;
      out.values[at] = j < taken ? values[static_cast<std::size_t>(begin + idx[static_cast<std::size_t>(j)])] : padding;
    }
  });
  return out;
}

}  // namespace kselect::test
