// The count kernel of streamed selection (declared in stream_count.hpp). The pass is
// bound by the host-to-device copy, tens of times slower than a device read, so the
// kernel stays simple: a binary search of the table per key, a block histogram in
// shared memory, and one atomic per warp for the kept elements' positions.
#include "cuda/streamed/stream_count.hpp"

#include <cstdint>
#include <type_traits>

#include "core/key_traits.hpp"
#include "kselect/types.hpp"

namespace kselect::cuda_backend {
namespace {

template <class T>
__global__ void __launch_bounds__(stream_count_threads)
    stream_count_kernel(const T* chunk, std::int64_t count, const core::stream_interval<core::key_t<T>>* table,
                        int intervals, std::uint32_t buckets, unsigned long long* counts, T* kept,
                        std::int64_t* kept_indices, std::int64_t first_index, unsigned long long* kept_keys,
                        unsigned long long* noncanonical, unsigned long long capacity) {
  using traits = core::key_traits<T>;
  using U = core::key_t<T>;
  extern __shared__ unsigned int histogram[];  // buckets words, when they fit
  const bool in_shared = buckets <= core::stream_max_buckets;
  if (in_shared)
    for (std::uint32_t b = threadIdx.x; b < buckets; b += blockDim.x) histogram[b] = 0;
  __syncthreads();
  const unsigned lane = threadIdx.x & 31u;
  // Every warp runs the same number of iterations (the stride is a multiple of the
  // block), so the ballot below sees all 32 lanes.
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t base = static_cast<std::int64_t>(blockIdx.x) * blockDim.x; base < count; base += stride) {
    const std::int64_t i = base + threadIdx.x;
    bool keep = false, odd_bits = false;
    T value{};
    if (i < count) {
      value = chunk[i];
      const U key = traits::to_key(value);
      if constexpr (std::is_floating_point_v<T>) odd_bits = traits::bits_of(value) != traits::bits_of(traits::from_key(key));
      int lo = 0, hi = intervals;  // the first interval whose lo is above the key
      while (lo < hi) {
        const int mid = (lo + hi) / 2;
        if (table[mid].lo <= key) lo = mid + 1;
        else hi = mid;
      }
      if (lo > 0 && key <= table[lo - 1].hi) {
        const core::stream_interval<U>& iv = table[lo - 1];
        const U offset = static_cast<U>(key - iv.lo) >> iv.shift;
        const std::uint32_t b =
            iv.first + static_cast<std::uint32_t>(offset < iv.buckets - 1 ? offset : U(iv.buckets - 1));
        if (in_shared) atomicAdd(&histogram[b], 1u);
        else atomicAdd(&counts[b], 1ull);
        keep = iv.keep;
      }
    }
    const unsigned odd = __ballot_sync(0xffffffffu, odd_bits);
    if (odd != 0 && static_cast<int>(lane) == __ffs(static_cast<int>(odd)) - 1)
      atomicAdd(noncanonical, static_cast<unsigned long long>(__popc(odd)));
    const unsigned mask = __ballot_sync(0xffffffffu, keep);
    if (mask != 0) {
      const int leader = __ffs(static_cast<int>(mask)) - 1;
      unsigned long long first = 0;
      if (static_cast<int>(lane) == leader) first = atomicAdd(kept_keys, static_cast<unsigned long long>(__popc(mask)));
      first = __shfl_sync(0xffffffffu, first, leader);
      const unsigned long long at = first + static_cast<unsigned>(__popc(mask & ((1u << lane) - 1u)));
      if (keep && at < capacity) {
        kept[at] = value;
        if (kept_indices) kept_indices[at] = first_index + i;
      }
    }
  }
  if (in_shared) {
    __syncthreads();
    for (std::uint32_t b = threadIdx.x; b < buckets; b += blockDim.x)
      if (histogram[b] != 0) atomicAdd(&counts[b], static_cast<unsigned long long>(histogram[b]));
  }
}

}  // namespace

template <class T>
cudaError_t launch_stream_count(const T* d_chunk, std::int64_t count,
                                const core::stream_interval<core::key_t<T>>* d_table, int intervals,
                                std::uint32_t buckets, unsigned long long* d_counts, T* d_kept,
                                std::int64_t* d_kept_indices, std::int64_t first_index,
                                unsigned long long* d_kept_keys, unsigned long long* d_noncanonical,
                                std::int64_t capacity, int blocks, cudaStream_t stream) {
  if (count <= 0) return cudaSuccess;
  const std::size_t shared = buckets <= core::stream_max_buckets ? buckets * sizeof(unsigned int) : 0;
  stream_count_kernel<T><<<blocks, stream_count_threads, shared, stream>>>(
      d_chunk, count, d_table, intervals, buckets, d_counts, d_kept, d_kept_indices, first_index, d_kept_keys,
      d_noncanonical,
      static_cast<unsigned long long>(capacity));
  return cudaGetLastError();
}

#define KSELECT_INSTANTIATE_STREAM_COUNT(T)                                                              \
  template cudaError_t launch_stream_count<T>(const T*, std::int64_t,                                   \
                                              const core::stream_interval<core::key_t<T>>*, int,         \
                                              std::uint32_t, unsigned long long*, T*, std::int64_t*,     \
                                              std::int64_t, unsigned long long*, unsigned long long*,    \
                                              std::int64_t, int, cudaStream_t);
KSELECT_FOR_EACH_KEY_TYPE(KSELECT_INSTANTIATE_STREAM_COUNT)
#undef KSELECT_INSTANTIATE_STREAM_COUNT

}  // namespace kselect::cuda_backend
