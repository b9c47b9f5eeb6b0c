// One block sorts threads x items keys into shared memory: the sample sort of
// the splitter and window-plan kernels and the base case's sort of a whole small
// task. cub::BlockRadixSort, then the sorted keys stored (blocked) over its
// temporary storage, so both fit in one union.
#pragma once

#include <cub/block/block_radix_sort.cuh>

#include <cstdint>

#include "core/key_traits.hpp"

namespace kselect::cuda {

template <class K, int threads, int items>
struct block_sorter {
  using sort_t = cub::BlockRadixSort<K, threads, items>;
  static constexpr int size = threads * items;
  union storage {
    typename sort_t::TempStorage sort;
    K sorted[size];
  };

  /// Sorts keys (all threads call it); afterwards s.sorted holds them ascending.
  static __device__ __forceinline__ void sort(K (&keys)[items], storage& s) {
    sort_t(s.sort).Sort(keys);
    __syncthreads();
#pragma unroll
    for (int i = 0; i < items; ++i) s.sorted[threadIdx.x * items + i] = keys[i];
    __syncthreads();
  }

  /// Loads a whole task of at most `size` keys (blocked), padded with the largest
  /// key so that the real keys come first once sorted.
  template <class Src>
  static __device__ __forceinline__ void load_padded(const Src* src, std::int64_t count, K (&keys)[items]) {
#pragma unroll
    for (int i = 0; i < items; ++i) {
      const std::int64_t idx = threadIdx.x * items + i;
      keys[i] = idx < count ? core::key_traits<Src>::to_key(src[idx]) : static_cast<K>(~K(0));
    }
  }
};

}  // namespace kselect::cuda
