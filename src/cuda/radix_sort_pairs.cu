// The sorts and scans of the rank-range finish and the distributed Sort&Choose (radix_sort_pairs.hpp).
#include "cuda/radix_sort_pairs.hpp"

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>

namespace kselect::cuda {

template <class K, class V>
cudaError_t sort_pairs(void* temp, std::size_t& temp_bytes, cub::DoubleBuffer<K>& keys, cub::DoubleBuffer<V>& values,
                       std::int64_t count, int begin_bit, int end_bit, cudaStream_t stream) {
  return cub::DeviceRadixSort::SortPairs(temp, temp_bytes, keys, values, count, begin_bit, end_bit, stream);
}

template cudaError_t sort_pairs<std::uint32_t, std::uint32_t>(void*, std::size_t&, cub::DoubleBuffer<std::uint32_t>&,
                                                              cub::DoubleBuffer<std::uint32_t>&, std::int64_t, int,
                                                              int, cudaStream_t);
template cudaError_t sort_pairs<std::uint32_t, std::uint64_t>(void*, std::size_t&, cub::DoubleBuffer<std::uint32_t>&,
                                                              cub::DoubleBuffer<std::uint64_t>&, std::int64_t, int,
                                                              int, cudaStream_t);
template cudaError_t sort_pairs<std::uint64_t, std::uint32_t>(void*, std::size_t&, cub::DoubleBuffer<std::uint64_t>&,
                                                              cub::DoubleBuffer<std::uint32_t>&, std::int64_t, int,
                                                              int, cudaStream_t);
template cudaError_t sort_pairs<std::uint64_t, std::uint64_t>(void*, std::size_t&, cub::DoubleBuffer<std::uint64_t>&,
                                                              cub::DoubleBuffer<std::uint64_t>&, std::int64_t, int,
                                                              int, cudaStream_t);

template <class K>
cudaError_t sort_keys(void* temp, std::size_t& temp_bytes, cub::DoubleBuffer<K>& keys, std::int64_t count,
                      cudaStream_t stream) {
  return cub::DeviceRadixSort::SortKeys(temp, temp_bytes, keys, count, 0, 8 * static_cast<int>(sizeof(K)), stream);
}

template cudaError_t sort_keys<std::uint32_t>(void*, std::size_t&, cub::DoubleBuffer<std::uint32_t>&, std::int64_t,
                                              cudaStream_t);
template cudaError_t sort_keys<std::uint64_t>(void*, std::size_t&, cub::DoubleBuffer<std::uint64_t>&, std::int64_t,
                                              cudaStream_t);

cudaError_t exclusive_sum_u64(void* temp, std::size_t& temp_bytes, const unsigned long long* in,
                              unsigned long long* out, std::int64_t count, cudaStream_t stream) {
  return cub::DeviceScan::ExclusiveSum(temp, temp_bytes, in, out, count, stream);
}

}  // namespace kselect::cuda
