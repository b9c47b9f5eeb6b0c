// cub::DeviceRadixSort::SortPairs for the four pairs of unsigned widths the
// rank-range finish sorts ((key, index), (index, key), (index, raw value)), and
// SortKeys for the two key widths (the distributed Sort&Choose), instantiated once
// in radix_sort_pairs.cu instead of in every key type's translation unit (a radix
// sort instantiation is the slowest thing to compile).
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

/// Exclusive prefix sums of count 64-bit counters, in place allowed.
cudaError_t exclusive_sum_u64(void* temp, std::size_t& temp_bytes, const unsigned long long* in,
                              unsigned long long* out, std::int64_t count, cudaStream_t stream);

}  // namespace kselect::cuda
