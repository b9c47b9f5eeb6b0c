// CPU backend of the segmented calls (include/kselect/segmented.hpp): every segment
// answered on its own, with the contract's semantics (canonical zeros and NaNs from
// the selections, NumPy's quantiles, deterministic padded top-k). Short segments
// run in parallel, one thread each; big ones one after another, each with every
// thread (cpu/segment_select.hpp). Arguments are validated by the caller (the
// owning API): segments checked, `segs.offsets` host memory, every rank inside
// every segment, qs in [0, 1]. num_threads 0: OpenMP's default.
#pragma once

#include <cstdint>

#include "kselect/segmented.hpp"
#include "kselect/types.hpp"

namespace kselect::cpu {

/// out[i] = the ks[i]-th (k-th when ks is null) smallest of segment i.
template <class T>
void segmented_select(const T* values, const segments& segs, std::int64_t k, const std::int64_t* ks, T* out,
                      int num_threads = 0);

/// out[i * num_ranks + j] = the ranks[j]-th smallest of segment i (ranks in any order, repeats allowed).
template <class T>
void segmented_multiselect(const T* values, const segments& segs, const std::int64_t* ranks,
                           std::int64_t num_ranks, T* out, int num_threads = 0);

/// out[i * num_qs + j] = numpy.quantile (ignore_nan: numpy.nanquantile) of segment i at qs[j].
template <class T>
void segmented_quantile(const T* values, const segments& segs, const double* qs, std::int64_t num_qs,
                        quantile_method method, bool ignore_nan, quantile_value_t<T>* out, int num_threads = 0);

/// out[i] = numpy.median of segment i (core::median_of of its middle keys; NaN for an
/// empty segment or one holding a NaN).
template <class T>
void segmented_median(const T* values, const segments& segs, quantile_value_t<T>* out, int num_threads = 0);

/// Row i of out_values and out_indices (if not null), k entries each: segment i's
/// top-k with local indices, padded with core::topk_padding and -1 where it is shorter.
template <class T>
void segmented_topk(const T* values, const segments& segs, std::int64_t k, bool largest, bool sorted,
                    T* out_values, std::int64_t* out_indices, int num_threads = 0);

}  // namespace kselect::cpu
