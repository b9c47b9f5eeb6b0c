// CPU backend (OpenMP): the same algorithm shape as the GPU's SampleSelect
// (sample, splitters, classify and count, filter the buckets holding ranks, recurse).
#pragma once

#include <cstdint>

namespace kselect::cpu {

/// out[i] = value of rank ranks[i] in values[0..n). `ranks` sorted ascending,
/// unique, each in [0, n); validated by the caller. num_threads 0 = OpenMP default.
template <class T>
void multiselect(const T* values, std::int64_t n, const std::int64_t* ranks, std::int64_t num_ranks,
                 T* out, int num_threads = 0);

/// The elements at positions [lo, hi) of the stable sort of values[0..n) by key
/// (core::key_traits order; descending: the reversed key order, ties still by
/// ascending index), 0 <= lo <= hi <= n, validated by the caller. Writes hi - lo
/// elements (the input's values, bit for bit) to out_values and, if not null,
/// their indices to out_indices. Unsorted: ascending index order. Sorted:
/// (key, index) order. Always deterministic.
template <class T>
void range_select(const T* values, std::int64_t n, std::int64_t lo, std::int64_t hi, bool descending,
                  bool sorted, T* out_values, std::int64_t* out_indices, int num_threads = 0);

/// For each ranks[i] (sorted ascending, unique, in [0, n)), an element out[i] and
/// its exact rank out_ranks[i] in the ascending sort, |ranks[i] - out_ranks[i]| <=
/// max_rank_error (0: exact). `buckets`: splitters + 1 of the counting pass (in
/// the narrow-window mode, at most). `allow_window`: the narrow-window mode when
/// the ranks are few and close (core::approx_choose_candidates); false: always
/// the histogram over the whole sample.
template <class T>
void approx_multiselect(const T* values, std::int64_t n, const std::int64_t* ranks, std::int64_t num_ranks,
                        std::int64_t max_rank_error, T* out, std::int64_t* out_ranks, int buckets = 1024,
                        int num_threads = 0, bool allow_window = true);

/// Number of NaNs in values[0..n) (0 for integer types).
template <class T>
std::int64_t count_nan(const T* values, std::int64_t n, int num_threads = 0);

}  // namespace kselect::cpu
