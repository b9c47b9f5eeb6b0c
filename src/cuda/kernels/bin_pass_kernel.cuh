// The kernels of the multiselection pre-pass (plan/bin_map.hpp): a sorted sample
// to shape the bins, a count pass (every key into a shared-memory histogram of
// up to 8192 bins), a filter pass that copies the keys (key_traits::to_key) of the
// selected bins in any order, and the answers read off the copy once sorted.
#pragma once

#include <cstdint>

#include "cuda/kernels/block_sort.cuh"
#include "cuda/kernels/gather_sample.cuh"
#include "cuda/kernels/stream_tiles.cuh"
#include "cuda/kernels/warp_stage.cuh"
#include "cuda/tuning.hpp"
#include "plan/bin_map.hpp"
#include "plan/key_traits.hpp"

namespace kselect::cuda_detail {

namespace bin_pass_detail {
constexpr int max_bins = tuning::bin_target + plan::bin_map_slots;
/// The filter's warps flush their stage past this many values; 8-byte values
/// sooner, so the block (map, bitmap, stages) fits 48 KiB of static shared memory.
template <class K>
constexpr int flush_at = sizeof(K) == 8 ? 64 : 256;

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
  using sorter = block_sorter<K, threads, items>;
  __shared__ typename sorter::storage smem;
  K keys[items];
  gather_sample<items, threads, tuning::sample_size>(in, n, seed, keys);
  sorter::sort(keys, smem);
  for (int i = threadIdx.x; i < sorter::size; i += threads) out[i] = smem.sorted[i];
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

/// Copies the keys of the values whose bin is set in `selected` to out (any
/// order); *cursor ends as their number (those past `capacity` are not written).
template <class T>
__global__ void __launch_bounds__(tuning::stream_threads, tuning::stream_min_blocks)
    bin_filter_kernel(const T* in, std::int64_t n, const plan::bin_map<plan::key_t<T>>* map,
                      const std::uint32_t* selected, plan::key_t<T>* out, unsigned long long* cursor,
                      std::int64_t capacity) {
  using K = plan::key_t<T>;
  using namespace bin_pass_detail;
  __shared__ plan::bin_map<K> sm_map;
  __shared__ std::uint32_t sm_selected[max_bins / 32];
  __shared__ T stage[tuning::stream_threads / 32][warp_stage_capacity<flush_at<K>>];
  load_map(sm_map, map);
  for (int w = threadIdx.x; w < max_bins / 32; w += blockDim.x) sm_selected[w] = selected[w];
  __syncthreads();
  T* my_stage = stage[threadIdx.x / 32];
  const auto to_key = [](T x) { return plan::key_traits<T>::to_key(x); };
  int staged = 0;
  stream_tiles(
      in, n,
      [&](T x, bool valid) {
        const unsigned b = plan::bin_of(sm_map, plan::key_traits<T>::pre_key(x));
        const bool take = valid && ((sm_selected[b / 32] >> (b % 32)) & 1u);
        stage_by_ballot(take, x, my_stage, staged);
      },
      [&] {
        if (staged > flush_at<K>) flush_warp_stage(my_stage, staged, cursor, out, capacity, to_key);
      });
  if (staged > 0) flush_warp_stage(my_stage, staged, cursor, out, capacity, to_key);
}

/// out[i] = the value of key sorted[ranks[i]].
template <class T>
__global__ void gather_answers_kernel(const plan::key_t<T>* sorted, const std::int64_t* ranks, std::int64_t count,
                                      T* out) {
  const std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x;
  if (i < count) out[i] = plan::key_traits<T>::from_key(sorted[ranks[i]]);
}

}  // namespace kselect::cuda_detail
