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

/// Number of NaNs in values[0..n) (0 for integer types).
template <class T>
std::int64_t count_nan(const T* values, std::int64_t n, int num_threads = 0);

}  // namespace kselect::cpu
