// The kernels of the multiselection pre-pass (plan/bin_map.hpp): a sorted sample
// to shape the bins, a count pass (every key into a shared-memory histogram of
// up to 8192 bins), and a filter pass that copies the keys of the selected bins,
// as the input's values, in any order (so the copy is a smaller multiselection
// problem with the same answers).
#pragma once

#include <cub/block/block_radix_sort.cuh>

#include <cstdint>

#include "cuda/kernels/gather_sample.cuh"
#include "cuda/kernels/stream_tiles.cuh"
#include "cuda/kernels/warp_stage.cuh"
#include "cuda/tuning.hpp"
#include "plan/bin_map.hpp"
#include "plan/key_traits.hpp"

namespace kselect::cuda_detail {

namespace bin_pass_detail {
constexpr int max_bins = tuning::bin_target + plan::bin_map_slots;
/// Per-warp stage of the filter: flushed past flush_at values (checked once per
/// tile), so it holds at most flush_at + 32 * stream_items; 8-byte values flush
/// sooner so the block fits 48 KiB of static shared memory.
template <class T>
constexpr int flush_at = sizeof(T) == 8 ? 64 : 256;
template <class T>
constexpr int stage_capacity = flush_at<T> + 32 * tuning::stream_items;

/// Copies the map into shared memory (as words: it is trivially copyable).
template <class K>
__device__ __forceinline__ void load_map(plan::bin_map<K>& dst, const plan::bin_map<K>* src) {
  static_assert(sizeof(plan::bin_map<K>) % 4 == 0, "copied as 32-bit words");
  auto* d = reinterpret_cast<std::uint32_t*>(&dst);
  const auto* s = reinterpret_cast<const std::uint32_t*>(src);
  for (int i = threadIdx.x; i < int(sizeof(plan::bin_map<K>) / 4); i += blockDim.x) d[i] = s[i];
}
}  // namespace bin_pass_detail

/// One block: draws the 4096-key sample, sorts it, writes it (ascending keys).
template <class T>
__global__ void __launch_bounds__(tuning::sample_threads)
    sorted_sample_kernel(const T* in, std::int64_t n, std::uint64_t seed, plan::key_t<T>* out) {
  using K = plan::key_t<T>;
  constexpr int threads = tuning::sample_threads, items = tuning::sample_items;
  using sort_t = cub::BlockRadixSort<K, threads, items>;
  __shared__ typename sort_t::TempStorage sort_storage;
  K keys[items];
  gather_sample<items, threads, tuning::sample_size>(in, n, seed, keys);
  sort_t(sort_storage).Sort(keys);
#pragma unroll
  for (int i = 0; i < items; ++i) out[threadIdx.x * items + i] = keys[i];
}

/// Adds the count of every key's bin to hist (64-bit, one atomic per bin per block).
template <class T>
__global__ void __launch_bounds__(tuning::stream_threads, tuning::stream_min_blocks)
    bin_count_kernel(const T* in, std::int64_t n, const plan::bin_map<plan::key_t<T>>* map,
                     unsigned long long* hist) {
  using K = plan::key_t<T>;
  using namespace bin_pass_detail;
  __shared__ plan::bin_map<K> sm_map;
  // 32-bit: a block counts at most n / grid keys, and the host sizes the grid so
  // that this stays below 2^32.
  __shared__ unsigned counts[max_bins];
  load_map(sm_map, map);
  for (int b = threadIdx.x; b < max_bins; b += blockDim.x) counts[b] = 0;
  __syncthreads();
  const unsigned lane = threadIdx.x & 31;
  stream_tiles(
      in, n,
      [&](T x, bool valid) {
        const unsigned b = plan::bin_of(sm_map, plan::key_traits<T>::pre_key(x));
        // Sorted input and runs of equal keys: the whole warp in one bin, one add.
        const unsigned b0 = __shfl_sync(0xffffffffu, b, 0);
        if (__all_sync(0xffffffffu, valid && b == b0)) {
          if (lane == 0) atomicAdd(&counts[b0], 32u);
        } else if (valid) {
          atomicAdd(&counts[b], 1u);
        }
      },
      [] {});
  __syncthreads();
  for (int b = threadIdx.x; b < int(sm_map.num_bins); b += blockDim.x)
    if (counts[b] != 0) atomicAdd(hist + b, static_cast<unsigned long long>(counts[b]));
}

/// Copies the values whose bin is set in `selected` to out (any order); *cursor
/// ends as the number of such values (those past `capacity` are not written).
template <class T>
__global__ void __launch_bounds__(tuning::stream_threads, tuning::stream_min_blocks)
    bin_filter_kernel(const T* in, std::int64_t n, const plan::bin_map<plan::key_t<T>>* map,
                      const std::uint32_t* selected, T* out, unsigned long long* cursor, std::int64_t capacity) {
  using K = plan::key_t<T>;
  using namespace bin_pass_detail;
  __shared__ plan::bin_map<K> sm_map;
  __shared__ std::uint32_t sm_selected[max_bins / 32];
  __shared__ T stage[tuning::stream_threads / 32][stage_capacity<T>];
  load_map(sm_map, map);
  for (int w = threadIdx.x; w < max_bins / 32; w += blockDim.x) sm_selected[w] = selected[w];
  __syncthreads();
  T* my_stage = stage[threadIdx.x / 32];
  int staged = 0;
  stream_tiles(
      in, n,
      [&](T x, bool valid) {
        const unsigned b = plan::bin_of(sm_map, plan::key_traits<T>::pre_key(x));
        stage_by_ballot(valid && ((sm_selected[b / 32] >> (b % 32)) & 1u), x, my_stage, staged);
      },
      [&] {
        if (staged > flush_at<T>) flush_warp_stage(my_stage, staged, cursor, out, capacity);
      });
  if (staged > 0) flush_warp_stage(my_stage, staged, cursor, out, capacity);
}

}  // namespace kselect::cuda_detail
