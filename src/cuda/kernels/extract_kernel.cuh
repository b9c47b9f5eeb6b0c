// Extract pass (SampleSelect): copy the keys of the buckets that hold target ranks, each bucket to
// its own region of the destination buffer (order inside a bucket is irrelevant to
// selection). A key's bucket comes from its oracle when the count pass wrote one,
// otherwise it is classified again (reading the key costs no more than the oracle
// when buckets need more than one byte).
//
// Per tile: shared counters give each key its place among the tile's keys of its
// bucket; then one global atomic per (tile, touched bucket) reserves the space.
#pragma once

#include "cuda/kernels/load_tile.cuh"
#include "cuda/kernels/classifier.cuh"
#include "cuda/kernels/tile_walk.cuh"
#include "cuda/task.cuh"
#include "cuda/tuning.hpp"
#include "core/buckets.hpp"
#include "core/key_traits.hpp"

namespace kselect::cuda {

template <class K>
struct extract_shared {
  bucket_classifier<K> classifier;
  unsigned count[tuning::max_buckets];
  std::int64_t base[tuning::max_buckets];
  unsigned wanted[(tuning::max_buckets + 31) / 32];  ///< bit b: bucket b is extracted
  std::uint16_t wanted_list[tuning::max_buckets];    ///< the extracted buckets, listed
  int num_wanted;
};

/// Prepares the block for task t's tiles: its classifier, and which of its buckets
/// are extracted (a bitmap, and a list: few are).
template <class K>
__device__ __forceinline__ void extract_load_task(extract_shared<K>& shared, const task_desc<K>& t, stats_view<K> stats,
                                                 const std::int64_t* extract_at) {
  constexpr int threads = tuning::stream_threads;
  const int max_buckets = stats.max_buckets();
  const int num_splitters = static_cast<int>(stats.header(t.stats_slot)[0]);
  const K* splitters = stats.splitters(t.stats_slot);
  const int num_buckets = core::num_buckets(num_splitters);
  __syncthreads();
  shared.classifier.build(splitters, num_splitters, static_cast<classifier_kind>(t.classifier), threads);
  for (int w = threadIdx.x; w < (tuning::max_buckets + 31) / 32; w += threads) {
    unsigned bits = 0;
    for (int k = 0; k < 32; ++k) {
      const int b = w * 32 + k;
      if (b < num_buckets && extract_at[std::int64_t(t.stats_slot) * max_buckets + b] >= 0) bits |= 1u << k;
    }
    shared.wanted[w] = bits;
  }
  __syncthreads();
  if (threadIdx.x == 0) {  // few buckets are wanted: list them once per task
    int count = 0;
    for (int w = 0; w < (num_buckets + 31) / 32; ++w)
      for (unsigned bits = shared.wanted[w]; bits != 0; bits &= bits - 1)
        shared.wanted_list[count++] = w * 32 + __ffs(bits) - 1;
    shared.num_wanted = count;
  }
  __syncthreads();
}

/// This thread's keys of the tile at `base` that belong to wanted buckets, and
/// their buckets (-1: not extracted). With an oracle, only those keys are read.
template <class Src, class K>
__device__ __forceinline__ void extract_tile_buckets(const extract_shared<K>& shared, const task_desc<K>& t,
                                                     const std::uint8_t* oracles, std::int64_t base,
                                                     K (&keys)[tuning::stream_items],
                                                     int (&bucket)[tuning::stream_items]) {
  constexpr int threads = tuning::stream_threads;
  constexpr int items = tuning::stream_items;
  const Src* src = static_cast<const Src*>(t.src);
  if (t.oracle >= 0) {
    // Oracles first (1 byte per key); only keys of wanted buckets are read.
    std::uint8_t oracle[items];
    load_tile<items, threads>(oracles + t.oracle, base, t.size, oracle);
#pragma unroll
    for (int i = 0; i < items; ++i) {
      const std::int64_t idx = base + i * threads + threadIdx.x;
      const int b = oracle[i];
      bucket[i] = idx < t.size && ((shared.wanted[b >> 5] >> (b & 31)) & 1u) ? b : -1;
    }
#pragma unroll
    for (int i = 0; i < items; ++i)
      if (bucket[i] >= 0)
        keys[i] = core::key_traits<Src>::to_key(load_readonly(src + base + i * threads + threadIdx.x));
  } else {
    Src raw[items];
    load_tile<items, threads>(src, base, t.size, raw);
#pragma unroll
    for (int i = 0; i < items; ++i) {
      const std::int64_t idx = base + i * threads + threadIdx.x;
      keys[i] = core::key_traits<Src>::to_key(raw[i]);
      bucket[i] = -1;
      if (idx < t.size && keys[i] >= t.lo && keys[i] <= t.hi) {
        const int b = shared.classifier.classify(keys[i]);
        if ((shared.wanted[b >> 5] >> (b & 31)) & 1u) bucket[i] = b;
      }
    }
  }
}

/// extract_at[slot * stats.max_buckets() + b]: element offset in dst of bucket b's region, or -1.
/// cursors[slot * stats.max_buckets() + b]: keys of bucket b written so far (zeroed by the host).
template <class Src, class K>
__global__ void __launch_bounds__(tuning::stream_threads, tuning::stream_min_blocks)
    extract_kernel(const task_desc<K>* tasks, int num_tasks, std::int64_t total_tiles,
                  stats_view<K> stats, const std::uint8_t* oracles,
                  const std::int64_t* extract_at, unsigned long long* cursors, K* dst) {
  constexpr int threads = tuning::stream_threads;
  constexpr int items = tuning::stream_items;
  const int max_buckets = stats.max_buckets();
  __shared__ extract_shared<K> shared;

  const tile_run run = block_tile_run(total_tiles);
  if (run.begin >= run.end) return;
  int ti = -1;
  std::int64_t next_begin = 0;
  task_desc<K> t{};

  for (std::int64_t tile = run.begin; tile < run.end; ++tile) {
    if (ti < 0 || tile >= next_begin) {
      ti = task_of_tile(tasks, num_tasks, tile);
      next_begin = ti + 1 < num_tasks ? tasks[ti + 1].tile_begin : total_tiles;
      t = tasks[ti];
      extract_load_task(shared, t, stats, extract_at);
    }
    // Per tile only the wanted buckets' counters are touched.
    for (int j = threadIdx.x; j < shared.num_wanted; j += threads) shared.count[shared.wanted_list[j]] = 0;
    __syncthreads();

    const std::int64_t base = (tile - t.tile_begin) * tuning::tile_keys;
    K keys[items];
    int bucket[items];
    unsigned local[items];
    extract_tile_buckets<Src>(shared, t, oracles, base, keys, bucket);
#pragma unroll
    for (int i = 0; i < items; ++i) local[i] = count_into(shared.count, bucket[i]);
    __syncthreads();
    for (int j = threadIdx.x; j < shared.num_wanted; j += threads) {
      const int b = shared.wanted_list[j];
      if (shared.count[b] != 0) {
        const std::int64_t slot = std::int64_t(t.stats_slot) * max_buckets + b;
        shared.base[b] = extract_at[slot] + static_cast<std::int64_t>(atomicAdd(
                                                cursors + slot, static_cast<unsigned long long>(shared.count[b])));
      }
    }
    __syncthreads();
#pragma unroll
    for (int i = 0; i < items; ++i)
      if (bucket[i] >= 0) dst[shared.base[bucket[i]] + local[i]] = keys[i];
    __syncthreads();
  }
}

}  // namespace kselect::cuda
