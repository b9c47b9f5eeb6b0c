// Sorted top-k's sort of the output values themselves (radix_sort_pairs.hpp):
// a translation unit of its own, as its 24 radix sort instantiations are the
// slowest thing in it to compile.
#include <cub/device/device_radix_sort.cuh>

#include "cuda/radix_sort_pairs.hpp"

namespace kselect::cuda {

template <class T, class I>
cudaError_t sort_values(void* temp, std::size_t& temp_bytes, cub::DoubleBuffer<T>& values,
                        cub::DoubleBuffer<I>& indices, std::int64_t count, bool descending, cudaStream_t stream) {
  constexpr int bits = 8 * static_cast<int>(sizeof(T));
  if (descending)
    return cub::DeviceRadixSort::SortPairsDescending(temp, temp_bytes, values, indices, count, 0, bits, stream);
  return cub::DeviceRadixSort::SortPairs(temp, temp_bytes, values, indices, count, 0, bits, stream);
}

#define KSELECT_SORT_VALUES(T, I)                                                                            \
  template cudaError_t sort_values<T, I>(void*, std::size_t&, cub::DoubleBuffer<T>&, cub::DoubleBuffer<I>&, \
                                         std::int64_t, bool, cudaStream_t);
#define KSELECT_SORT_VALUES_BOTH_INDICES(T) \
  KSELECT_SORT_VALUES(T, std::uint32_t)     \
  KSELECT_SORT_VALUES(T, std::uint64_t)

KSELECT_SORT_VALUES_BOTH_INDICES(float)
KSELECT_SORT_VALUES_BOTH_INDICES(double)
KSELECT_SORT_VALUES_BOTH_INDICES(std::int32_t)
KSELECT_SORT_VALUES_BOTH_INDICES(std::int64_t)
KSELECT_SORT_VALUES_BOTH_INDICES(std::uint32_t)
KSELECT_SORT_VALUES_BOTH_INDICES(std::uint64_t)

#undef KSELECT_SORT_VALUES_BOTH_INDICES
#undef KSELECT_SORT_VALUES

}  // namespace kselect::cuda
