// cub::DeviceRadixSort::SortPairs for the four pairs of unsigned widths the
// rank-range finish sorts ((key, index), (index, key), (index, raw value)), and
// SortKeys for the two key widths (the distributed Sort&Choose), instantiated once
// in radix_sort_pairs.cu instead of in every key type's translation unit (a radix
// sort instantiation is the slowest thing to compile); the sort of sorted top-k's
// values themselves with their indices, in radix_sort_values.cu.
#pragma once

#include <cuda_runtime_api.h>

#include <cub/util_type.cuh>

#include <cstddef>
#include <cstdint>

namespace kselect::cuda {

/// Sorts count pairs by the key bits [begin_bit, end_bit), stably; the results
/// are in keys.Current() / values.Current(). Two-phase like CUB: a null temp
/// returns the bytes needed.
template <class K, class V>
cudaError_t sort_pairs(void* temp, std::size_t& temp_bytes, cub::DoubleBuffer<K>& keys, cub::DoubleBuffer<V>& values,
                       std::int64_t count, int begin_bit, int end_bit, cudaStream_t stream);

/// Sorts count unsigned keys (32 or 64 bits) ascending; the result is in keys.Current().
template <class K>
cudaError_t sort_keys(void* temp, std::size_t& temp_bytes, cub::DoubleBuffer<K>& keys, std::int64_t count,
                      cudaStream_t stream);

/// Sorts count (value, index) pairs by CUB's order of the values, ascending or
/// descending, stably; the results are in values.Current() / indices.Current().
/// CUB's order is kselect's for integers; for floating point it differs in that
/// -0.0 sorts before +0.0 and negative NaNs sort below -inf (the caller mends the
/// NaNs: range_rotate_nans_kernel). Two-phase like CUB. Instantiated for the
/// range types (float, double, int32, int64, uint32, uint64) with 32- and 64-bit
/// indices.
template <class T, class I>
cudaError_t sort_values(void* temp, std::size_t& temp_bytes, cub::DoubleBuffer<T>& values,
                        cub::DoubleBuffer<I>& indices, std::int64_t count, bool descending, cudaStream_t stream);

/// Exclusive prefix sums of count 64-bit counters, in place allowed.
cudaError_t exclusive_sum_u64(void* temp, std::size_t& temp_bytes, const unsigned long long* in,
                              unsigned long long* out, std::int64_t count, cudaStream_t stream);

}  // namespace kselect::cuda
