// Count pass: classify every key of every task against its splitters, count the
// buckets in shared memory, optionally record each key's bucket in a 1-byte oracle,
// and (window tasks) extract the keys of the predicted window in the same pass.
#pragma once

#include <cub/block/block_scan.cuh>

#include "cuda/kernels/load_tile.cuh"
#include "cuda/kernels/search_tree.cuh"
#include "cuda/kernels/tile_walk.cuh"
#include "cuda/kernels/warp_aggregate.cuh"
#include "cuda/task.cuh"
#include "cuda/tuning.hpp"
#include "plan/buckets.hpp"
#include "plan/key_traits.hpp"

namespace kselect::cuda_detail {

template <class K>
struct count_shared {
  unsigned hist[tuning::max_buckets];  ///< 32-bit: flushed every flush_tiles tiles
  bucket_classifier<K> classifier;
  typename cub::BlockScan<int, tuning::stream_threads>::TempStorage scan;
  unsigned long long extract_base;
  int num_splitters;
  int window_bucket;
};

/// Tasks with at most this many splitters (window tasks) count in registers:
/// 2 splitters give 5 buckets, counted with compares instead of atomics.
inline constexpr int register_count_splitters = 2;
inline constexpr int register_buckets = 2 * register_count_splitters + 1;

template <class K>
__device__ __forceinline__ void flush_histogram(count_shared<K>& sm, stats_view<K> stats, int ti,
                                                unsigned (&reg)[register_buckets]) {
  if (sm.num_splitters <= register_count_splitters) {
#pragma unroll
    for (int j = 0; j < register_buckets; ++j) {
      const unsigned sum = __reduce_add_sync(0xffffffffu, reg[j]);
      if ((threadIdx.x & 31) == 0 && sum != 0) atomicAdd(&sm.hist[j], sum);
      reg[j] = 0;
    }
  }
  __syncthreads();
  unsigned long long* hist = stats.hist(ti);
  const int nb = plan::num_buckets(sm.num_splitters);
  for (int b = threadIdx.x; b < nb; b += tuning::stream_threads) {
    if (sm.hist[b] != 0) atomicAdd(hist + b, static_cast<unsigned long long>(sm.hist[b]));
    sm.hist[b] = 0;
  }
  __syncthreads();
}

template <class K>
__device__ __forceinline__ void load_task_state(count_shared<K>& sm, stats_view<K> stats, int ti) {
  const std::int64_t* header = stats.header(ti);
  const K* splitters = stats.splitters(ti);
  const int m = static_cast<int>(header[0]);
  sm.classifier.build(splitters, m, tuning::stream_threads);
  for (int b = threadIdx.x; b < plan::num_buckets(m); b += tuning::stream_threads) sm.hist[b] = 0;
  if (threadIdx.x == 0) {
    sm.num_splitters = m;
    sm.window_bucket = static_cast<int>(header[1]);
  }
  __syncthreads();
}

template <class Src, class K>
__global__ void __launch_bounds__(tuning::stream_threads)
    count_kernel(const task_desc<K>* tasks, int num_tasks, std::int64_t total_tiles,
                 stats_view<K> stats, std::uint8_t* oracles, K* dst) {
  constexpr int threads = tuning::stream_threads;
  constexpr int items = tuning::stream_items;
  __shared__ count_shared<K> sm;

  const tile_run run = block_tile_run(total_tiles);
  if (run.begin >= run.end) return;
  int ti = task_of_tile(tasks, num_tasks, run.begin);
  task_desc<K> t = tasks[ti];
  std::int64_t next_begin = ti + 1 < num_tasks ? tasks[ti + 1].tile_begin : total_tiles;
  load_task_state(sm, stats, ti);
  std::int64_t tiles_since_flush = 0;
  unsigned reg[register_buckets] = {};

  for (std::int64_t tile = run.begin; tile < run.end; ++tile) {
    if (tile >= next_begin || tiles_since_flush == tuning::flush_tiles) {
      flush_histogram(sm, stats, ti, reg);
      tiles_since_flush = 0;
      if (tile >= next_begin) {
        while (tile >= next_begin) {
          ++ti;
          next_begin = ti + 1 < num_tasks ? tasks[ti + 1].tile_begin : total_tiles;
        }
        t = tasks[ti];
        load_task_state(sm, stats, ti);
      }
    }
    ++tiles_since_flush;

    const Src* src = static_cast<const Src*>(t.src);
    const std::int64_t base = (tile - t.tile_begin) * tuning::tile_keys;
    const int m = sm.num_splitters;
    const int wb = sm.window_bucket;
    const K s0 = sm.classifier.small[0], s1 = sm.classifier.small[1];
    Src raw[items];
    load_tile<items, threads>(src, base, t.size, raw);
    K keys[items];
    int bucket[items];
#pragma unroll
    for (int i = 0; i < items; ++i) {
      const std::int64_t idx = base + i * threads + threadIdx.x;
      keys[i] = plan::key_traits<Src>::to_key(raw[i]);
      const bool inside = idx < t.size && keys[i] >= t.lo && keys[i] <= t.hi;
      bucket[i] = -1;
      if (inside) {
        bucket[i] = m <= register_count_splitters ? classify_small(keys[i], s0, s1, m)
                                                  : sm.classifier.tree.classify(keys[i]);
        if (t.oracle >= 0) oracles[t.oracle + idx] = static_cast<std::uint8_t>(bucket[i]);
      }
    }
    if (m <= register_count_splitters) {
#pragma unroll
      for (int i = 0; i < items; ++i)
#pragma unroll
        for (int j = 0; j < register_buckets; ++j) reg[j] += bucket[i] == j;
    } else {
#pragma unroll
      for (int i = 0; i < items; ++i) aggregated_increment(sm.hist, bucket[i]);
    }
    if (wb >= 0) {  // uniform across the block: the task's window extraction
      int mine = 0;
#pragma unroll
      for (int i = 0; i < items; ++i) mine += bucket[i] == wb;
      int offset = 0, total = 0;
      cub::BlockScan<int, threads>(sm.scan).ExclusiveSum(mine, offset, total);
      if (threadIdx.x == 0 && total > 0) {
        auto* cursor = reinterpret_cast<unsigned long long*>(stats.header(ti) + 2);
        sm.extract_base = atomicAdd(cursor, static_cast<unsigned long long>(total));
      }
      __syncthreads();
      if (total > 0) {
        const std::int64_t pos0 = static_cast<std::int64_t>(sm.extract_base) + offset;
        int k = 0;
#pragma unroll
        for (int i = 0; i < items; ++i) {
          if (bucket[i] == wb) {
            const std::int64_t pos = pos0 + k++;
            if (pos < t.extract_cap) dst[t.extract_at + pos] = keys[i];
          }
        }
      }
      __syncthreads();  // sm.scan and sm.extract_base are reused by the next tile
    }
  }
  flush_histogram(sm, stats, ti, reg);
}

}  // namespace kselect::cuda_detail
