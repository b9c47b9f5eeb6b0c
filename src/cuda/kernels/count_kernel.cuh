// Count pass: classify every key of every task against its splitters and count the
// buckets; optionally record each key's bucket in a 1-byte oracle (sample_select),
// and for window tasks extract the keys of the predicted window in the same pass.
//
// Counting: window tasks (<= 2 splitters, 5 buckets) count in registers; others in
// shared memory (count_into). Extraction: each warp stages its window keys in its
// own slice of shared memory and writes them out with one global atomic per ~200
// keys, so no block-wide barrier stalls the loads (a per-tile block scan plus
// atomic makes this pass about three times the read floor).
#pragma once

#include "cuda/kernels/classifier.cuh"
#include "cuda/kernels/load_tile.cuh"
#include "cuda/kernels/tile_walk.cuh"
#include "cuda/task.cuh"
#include "cuda/tuning.hpp"
#include "core/buckets.hpp"
#include "core/key_traits.hpp"

namespace kselect::cuda {

/// Tasks with <= 2 splitters count in registers with compares, not buckets:
/// [0] keys < s0, [1] keys == s0, [2] keys < s1, [3] keys == s1, [4] keys inside;
/// flush_counts turns them into the 2m+1 bucket counts.
inline constexpr int register_counters = 5;
/// Per-warp staging for window keys: flushed when more than stage_flush keys wait,
/// checked every stage_check keys per thread, so it never holds more than
/// stage_flush + 32 * stage_check.
/// (64-bit keys flush sooner so that the block fits the 48 KiB of static shared memory.)
template <class K>
inline constexpr int stage_flush = sizeof(K) == 8 ? 128 : 256;
inline constexpr int stage_check = 4;
template <class K>
inline constexpr int stage_keys = stage_flush<K> + 32 * stage_check;
inline constexpr int count_warps = tuning::stream_threads / 32;

template <class K>
struct count_shared {
  bucket_classifier<K> classifier;
  unsigned hist[tuning::max_buckets];  ///< 32-bit: flushed every flush_tiles tiles
  K stage[count_warps][stage_keys<K>];
  int staged[count_warps];  ///< keys waiting in each warp's stage
  int window_bucket;
};

/// Writes a warp's staged window keys to the task's region (one atomic per batch).
/// All lanes of the warp call it.
template <class K>
__device__ __forceinline__ void flush_stage(K* stage, int& staged_shared, unsigned long long* cursor, K* region,
                                            std::int64_t capacity) {
  __syncwarp();
  const int staged = staged_shared;
  const int lane = threadIdx.x & 31;
  unsigned long long base = 0;
  if (lane == 0 && staged > 0) base = atomicAdd(cursor, static_cast<unsigned long long>(staged));
  base = __shfl_sync(0xffffffffu, base, 0);
  for (int j = lane; j < staged; j += 32) {
    const auto pos = static_cast<std::int64_t>(base) + j;
    if (pos < capacity) region[pos] = stage[j];
  }
  __syncwarp();
  if (lane == 0) staged_shared = 0;
  __syncwarp();
}

/// Adds the block's counts of task ti to its global histogram and resets them.
template <class K>
__device__ __forceinline__ void flush_counts(count_shared<K>& sm, stats_view<K> stats, int ti,
                                             unsigned (&reg)[register_counters]) {
  const int m = sm.classifier.num_splitters;
  if (m <= 2) {
    unsigned c[register_counters];
#pragma unroll
    for (int j = 0; j < register_counters; ++j) {
      c[j] = __reduce_add_sync(0xffffffffu, reg[j]);
      reg[j] = 0;
    }
    if ((threadIdx.x & 31) == 0) {
      if (m == 0) {
        atomicAdd(&sm.hist[0], c[4]);
      } else if (m == 1) {
        atomicAdd(&sm.hist[0], c[0]);
        atomicAdd(&sm.hist[1], c[1]);
        atomicAdd(&sm.hist[2], c[4] - c[0] - c[1]);
      } else {
        atomicAdd(&sm.hist[0], c[0]);
        atomicAdd(&sm.hist[1], c[1]);
        atomicAdd(&sm.hist[2], c[2] - c[0] - c[1]);
        atomicAdd(&sm.hist[3], c[3]);
        atomicAdd(&sm.hist[4], c[4] - c[2] - c[3]);
      }
    }
  }
  __syncthreads();
  unsigned long long* hist = stats.hist(ti);
  for (int b = threadIdx.x; b < core::num_buckets(m); b += tuning::stream_threads) {
    if (sm.hist[b] != 0) atomicAdd(hist + b, static_cast<unsigned long long>(sm.hist[b]));
    sm.hist[b] = 0;
  }
  __syncthreads();
}

template <class K>
__device__ __forceinline__ void load_task(count_shared<K>& sm, stats_view<K> stats, int ti,
                                          const task_desc<K>& t) {
  const int m = static_cast<int>(stats.header(ti)[0]);
  sm.classifier.build(stats.splitters(ti), m, static_cast<classifier_kind>(t.classifier), tuning::stream_threads);
  for (int b = threadIdx.x; b < core::num_buckets(m); b += tuning::stream_threads) sm.hist[b] = 0;
  if (threadIdx.x < count_warps) sm.staged[threadIdx.x] = 0;
  if (threadIdx.x == 0) sm.window_bucket = static_cast<int>(stats.header(ti)[1]);
  __syncthreads();
}

/// Window tasks (<= 2 splitters s0 <= s1): the tile's register counts, by
/// compares only. A full tile of a compact task (nearly every tile) needs no
/// per-key tests.
template <class K>
__device__ __forceinline__ void count_window_compares(const K (&keys)[tuning::stream_items],
                                                      const bool (&inside)[tuning::stream_items], bool compact,
                                                      int remaining, std::int64_t left, K s0, K s1,
                                                      unsigned (&reg)[register_counters]) {
  constexpr int items = tuning::stream_items;
  if (compact && remaining == tuning::tile_keys && left >= std::int64_t(tuning::tile_keys)) {
#pragma unroll
    for (int i = 0; i < items; ++i) {
      reg[0] += keys[i] < s0;
      reg[1] += keys[i] == s0;
      reg[2] += keys[i] < s1;
      reg[3] += keys[i] == s1;
    }
    reg[4] += items;
  } else {
#pragma unroll
    for (int i = 0; i < items; ++i) {
      reg[0] += inside[i] && keys[i] < s0;
      reg[1] += inside[i] && keys[i] == s0;
      reg[2] += inside[i] && keys[i] < s1;
      reg[3] += inside[i] && keys[i] == s1;
      reg[4] += inside[i];
    }
  }
}

/// Window tasks: stages the tile's keys inside the predicted window (above
/// window_lo when need_lo, below window_hi when need_hi) in the warp's stage,
/// which goes to task_index's region of dst when more than stage_flush keys wait.
template <class K>
__device__ __forceinline__ void stage_window_keys(count_shared<K>& sm, bool need_lo, bool need_hi, K window_lo,
                                                  K window_hi, const K (&keys)[tuning::stream_items],
                                                  const bool (&inside)[tuning::stream_items], stats_view<K> stats,
                                                  int task_index, K* region, std::int64_t capacity) {
  constexpr int items = tuning::stream_items;
  const int warp = threadIdx.x / 32;
#pragma unroll
  for (int i = 0; i < items; ++i) {
    if (inside[i] && (!need_lo || keys[i] > window_lo) && (!need_hi || keys[i] < window_hi))
      sm.stage[warp][atomicAdd(&sm.staged[warp], 1)] = keys[i];
    if (i % stage_check == stage_check - 1) {
      __syncwarp();
      if (sm.staged[warp] > stage_flush<K>) {
        auto* const cursor = reinterpret_cast<unsigned long long*>(stats.header(task_index) + 2);
        flush_stage(sm.stage[warp], sm.staged[warp], cursor, region, capacity);
      }
    }
  }
}

template <class Src, class K>
__global__ void __launch_bounds__(tuning::stream_threads, tuning::stream_min_blocks)
    count_kernel(const task_desc<K>* tasks, int num_tasks, std::int64_t total_tiles,
                 stats_view<K> stats, std::uint8_t* oracles, K* dst) {
  constexpr int threads = tuning::stream_threads;
  constexpr int items = tuning::stream_items;
  __shared__ count_shared<K> sm;
  const int warp = threadIdx.x / 32;

  const tile_run run = block_tile_run(total_tiles);
  if (run.begin >= run.end) return;
  int ti = task_of_tile(tasks, num_tasks, run.begin);
  task_desc<K> t = tasks[ti];
  std::int64_t next_begin = ti + 1 < num_tasks ? tasks[ti + 1].tile_begin : total_tiles;
  load_task(sm, stats, ti, t);
  std::int64_t tiles_since_flush = 0;
  unsigned reg[register_counters] = {};
  auto cursor_of = [&](int task) { return reinterpret_cast<unsigned long long*>(stats.header(task) + 2); };

  for (std::int64_t tile = run.begin; tile < run.end; ++tile) {
    if (tile >= next_begin || tiles_since_flush == tuning::flush_tiles) {
      flush_stage(sm.stage[warp], sm.staged[warp], cursor_of(ti), dst + t.extract_at, t.extract_cap);
      flush_counts(sm, stats, ti, reg);
      tiles_since_flush = 0;
      if (tile >= next_begin) {
        while (tile >= next_begin) {
          ++ti;
          next_begin = ti + 1 < num_tasks ? tasks[ti + 1].tile_begin : total_tiles;
        }
        t = tasks[ti];
        load_task(sm, stats, ti, t);
      }
    }
    ++tiles_since_flush;

    const Src* src = static_cast<const Src*>(t.src);
    const std::int64_t base = (tile - t.tile_begin) * tuning::tile_keys;
    // Keys left from this thread's first one: a 32-bit bound test per key.
    const std::int64_t left = t.size - base - threadIdx.x;
    const int remaining = left < tuning::tile_keys ? static_cast<int>(left) : tuning::tile_keys;
    const bool compact = t.compact != 0;
    Src raw[items];
    load_tile<items, threads>(src, base, t.size, raw);
    K keys[items];
    bool inside[items];
#pragma unroll
    for (int i = 0; i < items; ++i) {
      keys[i] = core::key_traits<Src>::to_key(raw[i]);
      inside[i] = i * threads < remaining && (compact || (keys[i] >= t.lo && keys[i] <= t.hi));
    }
    const int m = sm.classifier.num_splitters;
    if (m <= 2) {
      // Windows: compares only. The window is the range bucket between the bounds.
      const K s0 = sm.classifier.small[0], s1 = m == 2 ? sm.classifier.small[1] : s0;
      const int wb = sm.window_bucket;
      const bool need_lo = wb > 0, need_hi = wb < 2 * m;
      const K wlo = wb == 4 ? s1 : s0, whi = wb == 0 ? s0 : s1;
      count_window_compares(keys, inside, compact, remaining, left, s0, s1, reg);
      if (wb >= 0) stage_window_keys(sm, need_lo, need_hi, wlo, whi, keys, inside, stats, ti, dst + t.extract_at,
                                     t.extract_cap);
    } else {
#pragma unroll
      for (int i = 0; i < items; ++i) {
        const int bucket = inside[i] ? sm.classifier.classify(keys[i]) : -1;
        if (inside[i] && t.oracle >= 0)
          oracles[t.oracle + base + i * threads + threadIdx.x] = static_cast<std::uint8_t>(bucket);
        count_into(sm.hist, bucket);
      }
    }
  }
  flush_stage(sm.stage[warp], sm.staged[warp], cursor_of(ti), dst + t.extract_at, t.extract_cap);
  flush_counts(sm, stats, ti, reg);
}

}  // namespace kselect::cuda
