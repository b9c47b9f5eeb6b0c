// Splitter selection, one block per task: draw the sample, sort it in the block,
// pick sorted distinct splitters by the task's rule, and reset the task's counters.
#pragma once

#include <cub/block/block_scan.cuh>

#include "cuda/kernels/block_sort.cuh"
#include "cuda/kernels/gather_sample.cuh"
#include "cuda/task.cuh"
#include "cuda/tuning.hpp"
#include "core/buckets.hpp"
#include "core/key_traits.hpp"
#include "core/sampling.hpp"

namespace kselect::cuda {

/// A window task's bucket to extract (header[1]): the range bucket strictly
/// between the bounds it has (has_lo: candidate 0 is the lower bound), or -1
/// (bounds equal, or not a window task).
__device__ __forceinline__ std::int64_t splitter_window_bucket(bool has_lo, int num_candidates, int num_splitters) {
  const bool has_hi = num_candidates - (has_lo ? 1 : 0) > 0;
  if (has_lo && has_hi) return num_splitters == 2 ? 2 : -1;  // -1: bounds equal
  if (has_hi) return 0;
  if (has_lo) return 2;
  return -1;
}

template <class Src, class K>
__global__ void __launch_bounds__(tuning::sample_threads)
    splitter_kernel(const task_desc<K>* tasks, stats_view<K> stats, std::uint64_t seed) {
  constexpr int threads = tuning::sample_threads;
  constexpr int items = tuning::sample_items;
  constexpr int S = tuning::sample_size;
  constexpr int per_thread = (tuning::max_splitters + threads - 1) / threads;
  using sorter = block_sorter<K, threads, items>;
  using scan_t = cub::BlockScan<int, threads>;
  __shared__ typename sorter::storage smem;
  __shared__ typename scan_t::TempStorage scan_storage;
  __shared__ K candidates[tuning::max_splitters];
  __shared__ int window_pick[2];

  const task_desc<K> t = tasks[blockIdx.x];
  std::int64_t* header = stats.header(blockIdx.x);
  unsigned long long* hist = stats.hist(blockIdx.x);
  K* splitters = stats.splitters(blockIdx.x);

  for (int b = threadIdx.x; b < stats.max_buckets(); b += threads) hist[b] = 0;
  if (threadIdx.x == 0) header[2] = 0;  // extract cursor

  const auto mode = static_cast<task_mode>(t.mode);
  int num_candidates = 0;
  if (mode == task_mode::range_buckets) {
    num_candidates = t.target_splitters;
    for (int j = threadIdx.x; j < num_candidates; j += threads)
      candidates[j] = core::range_splitter(t.lo, t.hi, j, num_candidates);
  } else {
    // Sample: compact tasks only, so every position is one of the task's keys.
    const Src* src = static_cast<const Src*>(t.src);
    K keys[items];
    gather_sample<items, threads, S>(src, t.size, seed + blockIdx.x, keys);
    sorter::sort(keys, smem);
    if (mode == task_mode::window) {
      const auto w = core::predict_window(t.rank, t.count, S, tuning::window_sigmas, tuning::window_margin);
      if (threadIdx.x == 0) {
        int c = 0;
        if (w.first >= 0) candidates[c++] = smem.sorted[w.first];
        if (w.last < S) candidates[c++] = smem.sorted[w.last];
        window_pick[0] = c;
        window_pick[1] = w.first >= 0 ? 1 : 0;  // whether candidate 0 is the lower bound
      }
      __syncthreads();
      num_candidates = window_pick[0];
    } else {
      num_candidates = t.target_splitters;
      for (int j = threadIdx.x; j < num_candidates; j += threads)
        candidates[j] = smem.sorted[core::equal_splitter_index(j, num_candidates, S)];
    }
  }
  __syncthreads();

  // Keep the first of each run of equal candidates (they are sorted).
  int keep[per_thread];
  int kept = 0;
#pragma unroll
  for (int q = 0; q < per_thread; ++q) {
    const int j = threadIdx.x * per_thread + q;
    keep[q] = j < num_candidates && (j == 0 || candidates[j] != candidates[j - 1]);
    kept += keep[q];
  }
  int offset = 0, total = 0;
  scan_t(scan_storage).ExclusiveSum(kept, offset, total);
#pragma unroll
  for (int q = 0; q < per_thread; ++q) {
    const int j = threadIdx.x * per_thread + q;
    if (keep[q]) splitters[offset++] = candidates[j];
  }
  if (threadIdx.x == 0) {
    header[0] = total;
    header[1] = mode == task_mode::window ? splitter_window_bucket(window_pick[1] != 0, num_candidates, total) : -1;
  }
}

}  // namespace kselect::cuda
