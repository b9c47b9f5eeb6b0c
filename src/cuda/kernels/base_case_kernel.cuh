// Base case: a task of at most base_case_max keys is sorted in one block and its
// target ranks are read off the sorted keys.
#pragma once

#include "cuda/kernels/block_sort.cuh"

#include "cuda/task.cuh"
#include "cuda/tuning.hpp"
#include "core/key_traits.hpp"

namespace kselect::cuda {

/// ranks: the sorted target ranks (global); answers[r]: key of rank ranks[r].
template <class Src, class K>
__global__ void __launch_bounds__(tuning::base_threads)
    base_case_kernel(const base_task* tasks, const std::int64_t* ranks, K* answers) {
  constexpr int threads = tuning::base_threads;
  constexpr int items = tuning::base_items;
  using sorter = block_sorter<K, threads, items>;
  __shared__ typename sorter::storage smem;

  const base_task t = tasks[blockIdx.x];
  const Src* src = static_cast<const Src*>(t.keys);
  K keys[items];
  sorter::load_padded(src, t.size, keys);
  sorter::sort(keys, smem);
  for (std::int64_t r = t.first_rank + threadIdx.x; r < t.end_rank; r += threads)
    answers[r] = smem.sorted[ranks[r] - t.rank_base];
}

/// d_out[r] = value of answer key r, taking the host-known key where has_host[r].
template <class T, class K>
__global__ void finalize_kernel(const K* device_keys, const K* host_keys,
                                const std::uint8_t* has_host, std::int64_t num_ranks, T* out) {
  const std::int64_t r = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x;
  if (r < num_ranks) out[r] = core::key_traits<T>::from_key(has_host[r] ? host_keys[r] : device_keys[r]);
}

}  // namespace kselect::cuda
