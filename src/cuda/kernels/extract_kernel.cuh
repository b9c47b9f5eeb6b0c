// Extract pass (SampleSelect): copy the keys of the buckets that hold target ranks, each bucket to
// its own region of the destination buffer (order inside a bucket is irrelevant to
// selection). A key's bucket comes from its oracle when the count pass wrote one,
// otherwise it is classified again (reading the key costs no more than the oracle
// when buckets need more than one byte).
//
// Per tile: shared counters give each key its place among the tile's keys of its
// bucket; then one global atomic per (tile, touched bucket) reserves the space.
// Where a launch extracts many buckets, a tile whose runs are short is staged in
// shared memory ordered by bucket and written out from there, so that a warp's
// stores cover a run or two of one bucket. Written straight from the threads,
// each lane's key went to another bucket's run (101 ranks: about 28 sectors per
// warp store; docs/performance.md). Long runs (sorted input) and launches of few
// buckets (one rank) write straight: staging gains them nothing and costs a scan
// and barriers per tile part, and in a kernel shared with the staged path the
// straight writes lost registers to it (extract_kernel keeps its own).
#pragma once

#include <cub/block/block_scan.cuh>

#include <cstddef>

#include "cuda/kernels/load_tile.cuh"
#include "cuda/kernels/classifier.cuh"
#include "cuda/kernels/tile_walk.cuh"
#include "cuda/task.cuh"
#include "cuda/tuning.hpp"
#include "core/buckets.hpp"
#include "core/key_traits.hpp"

namespace kselect::cuda {

using extract_scan = cub::BlockScan<unsigned, tuning::stream_threads>;

template <class K>
struct extract_shared {
  bucket_classifier<K> classifier;
  unsigned count[tuning::max_buckets];     ///< the tile's keys of bucket b, then where their run starts in the stage
  std::int64_t base[tuning::max_buckets];  ///< where the tile's run of bucket b goes in dst
  unsigned wanted[(tuning::max_buckets + 31) / 32];  ///< bit b: bucket b is extracted
  std::uint16_t wanted_list[tuning::max_buckets];    ///< the extracted buckets, listed
  int num_wanted;
};

static_assert(tuning::max_buckets <= 65536, "a staged key's bucket is 16-bit");
/// extract_reserve_runs scans a bucket's keys and whether it has any as one word:
/// keys in the low 16 bits (a part's keys cannot carry into the runs), runs above.
inline constexpr int extract_run_shift = 16;
static_assert(tuning::tile_keys < (1 << extract_run_shift), "a part's staged keys fit below the runs");

/// A tile is counted, staged and written in this many parts: two for 8-byte keys,
/// whose whole tile staged left room for two blocks per SM, which slowed the
/// tiles written straight (sorted input; docs/performance.md), one for 4-byte keys.
template <class K>
constexpr int extract_stage_parts = sizeof(K) == 8 ? 2 : 1;
static_assert(tuning::stream_items % 2 == 0, "a tile's items split in two parts");
/// extract_kernel's dynamic shared memory where it stages: a part's keys, ordered
/// by bucket, and their buckets.
template <class K>
constexpr std::size_t extract_stage_bytes =
    std::size_t(tuning::tile_keys / extract_stage_parts<K>) * (sizeof(K) + sizeof(std::uint16_t));
/// A launch stages where one of its tasks extracts at least this many buckets...
inline constexpr int extract_stage_min_buckets = 8;
/// ...and then a tile whose runs hold fewer keys than this on average: 128 keys
/// are 512 bytes of floats, so that a warp's 32 keys written straight meet one
/// or two runs.
inline constexpr unsigned extract_stage_max_run = 128;

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

/// Where the tile's run of `count` keys of bucket b goes in dst: one global atomic.
template <class K>
__device__ __forceinline__ void extract_reserve_run(extract_shared<K>& shared, const task_desc<K>& t,
                                                    int max_buckets, int b, unsigned count,
                                                    const std::int64_t* extract_at, unsigned long long* cursors) {
  const std::int64_t slot = std::int64_t(t.stats_slot) * max_buckets + b;
  shared.base[b] =
      extract_at[slot] + static_cast<std::int64_t>(atomicAdd(cursors + slot, static_cast<unsigned long long>(count)));
}

/// Zeroes the wanted buckets' counters (only those are touched).
template <class K>
__device__ __forceinline__ void extract_zero_counts(extract_shared<K>& shared) {
  for (int j = threadIdx.x; j < shared.num_wanted; j += tuning::stream_threads) shared.count[shared.wanted_list[j]] = 0;
}

/// Stores `Items` keys of wanted buckets straight from the thread at their
/// places: their run's place in dst (shared.base) plus their place in the run.
template <int Items, class K>
__device__ __forceinline__ void extract_store_straight(const extract_shared<K>& shared, const K* keys,
                                                       const int* bucket, const unsigned* local, K* dst) {
#pragma unroll
  for (int i = 0; i < Items; ++i)
    if (bucket[i] >= 0) dst[shared.base[bucket[i]] + local[i]] = keys[i];
}

/// A tile's keys of wanted buckets, written straight from the threads (a launch
/// that does not stage); the counters zeroed before the tile's loads.
template <class K>
__device__ __forceinline__ void extract_write_straight(extract_shared<K>& shared, const task_desc<K>& t,
                                                       int max_buckets, const K (&keys)[tuning::stream_items],
                                                       const int (&bucket)[tuning::stream_items],
                                                       const std::int64_t* extract_at, unsigned long long* cursors,
                                                       K* dst) {
  constexpr int threads = tuning::stream_threads;
  constexpr int items = tuning::stream_items;
  unsigned local[items];
#pragma unroll
  for (int i = 0; i < items; ++i) local[i] = count_into(shared.count, bucket[i]);
  __syncthreads();
  for (int j = threadIdx.x; j < shared.num_wanted; j += threads) {
    const int b = shared.wanted_list[j];
    if (shared.count[b] != 0) extract_reserve_run(shared, t, max_buckets, b, shared.count[b], extract_at, cursors);
  }
  __syncthreads();
  extract_store_straight<items>(shared, keys, bucket, local, dst);
  __syncthreads();
}

/// Keys staged and runs (wanted buckets with keys) of a tile part.
struct extract_staged {
  unsigned keys = 0, runs = 0;
};

/// For each wanted bucket with keys in the tile: its run's place in dst and, in
/// shared.count, its run's start in the stage (a block scan over the wanted
/// buckets in bucket order, which also counts the runs).
template <class K>
__device__ __forceinline__ extract_staged extract_reserve_runs(extract_shared<K>& shared,
                                                               extract_scan::TempStorage& scan_storage,
                                                               const task_desc<K>& t, int max_buckets,
                                                               const std::int64_t* extract_at,
                                                               unsigned long long* cursors) {
  constexpr int threads = tuning::stream_threads;
  constexpr unsigned keys_mask = (1u << extract_run_shift) - 1u;
  extract_staged staged;
  for (int first = 0; first < shared.num_wanted; first += threads) {
    const int j = first + static_cast<int>(threadIdx.x);
    const int b = j < shared.num_wanted ? shared.wanted_list[j] : -1;
    const unsigned count = b >= 0 ? shared.count[b] : 0u;
    if (count != 0) extract_reserve_run(shared, t, max_buckets, b, count, extract_at, cursors);
    unsigned start = 0, chunk = 0;
    extract_scan(scan_storage).ExclusiveSum(count != 0 ? count | (1u << extract_run_shift) : 0u, start, chunk);
    if (count != 0) shared.count[b] = staged.keys + (start & keys_mask);
    staged.keys += chunk & keys_mask;
    staged.runs += chunk >> extract_run_shift;
    __syncthreads();  // the scan's storage, reused by the next chunk
  }
  return staged;
}

/// The tiles of a block: before each tile's loads prepare(), then its keys of
/// wanted buckets and their buckets (extract_tile_buckets) to write(task, keys,
/// bucket); the block's classifier and wanted buckets loaded at each task's first tile.
template <class Src, class K, class Prepare, class Write>
__device__ __forceinline__ void extract_tiles(extract_shared<K>& shared, const task_desc<K>* tasks, int num_tasks,
                                              std::int64_t total_tiles, stats_view<K> stats,
                                              const std::uint8_t* oracles, const std::int64_t* extract_at,
                                              Prepare prepare, Write write) {
  constexpr int items = tuning::stream_items;
  const tile_run run = block_tile_run(total_tiles);
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
    prepare();
    const std::int64_t base = (tile - t.tile_begin) * tuning::tile_keys;
    K keys[items];
    int bucket[items];
    extract_tile_buckets<Src>(shared, t, oracles, base, keys, bucket);
    write(t, keys, bucket);
  }
}

/// extract_at[slot * stats.max_buckets() + b]: element offset in dst of bucket b's region, or -1.
/// cursors[slot * stats.max_buckets() + b]: keys of bucket b written so far (zeroed by the host).
/// Each key is written straight from its thread: the kernel of launches that
/// extract few buckets (extract_stage_min_buckets).
template <class Src, class K>
__global__ void __launch_bounds__(tuning::stream_threads, tuning::stream_min_blocks)
    extract_kernel(const task_desc<K>* tasks, int num_tasks, std::int64_t total_tiles,
                  stats_view<K> stats, const std::uint8_t* oracles,
                  const std::int64_t* extract_at, unsigned long long* cursors, K* dst) {
  __shared__ extract_shared<K> shared;
  const int max_buckets = stats.max_buckets();
  extract_tiles<Src>(shared, tasks, num_tasks, total_tiles, stats, oracles, extract_at,
                     [&] {
                       extract_zero_counts(shared);
                       __syncthreads();
                     },
                     [&](const task_desc<K>& t, const K(&keys)[tuning::stream_items],
                         const int(&bucket)[tuning::stream_items]) {
                       extract_write_straight(shared, t, max_buckets, keys, bucket, extract_at, cursors, dst);
                     });
}

/// extract_kernel's counterpart for launches that extract many buckets: a part of
/// a tile at a time, a part whose runs are short staged by bucket and written
/// from the stage. Dynamic shared memory: extract_stage_bytes<K>.
template <class Src, class K>
__global__ void __launch_bounds__(tuning::stream_threads, tuning::stream_min_blocks)
    extract_staged_kernel(const task_desc<K>* tasks, int num_tasks, std::int64_t total_tiles,
                          stats_view<K> stats, const std::uint8_t* oracles,
                          const std::int64_t* extract_at, unsigned long long* cursors, K* dst) {
  constexpr int threads = tuning::stream_threads;
  constexpr int items = tuning::stream_items;
  constexpr int part_items = items / extract_stage_parts<K>;
  constexpr int stage_keys = tuning::tile_keys / extract_stage_parts<K>;
  __shared__ extract_shared<K> shared;
  // Apart from extract_shared, so that extract_kernel's block stays as small.
  __shared__ extract_scan::TempStorage scan_storage;
  extern __shared__ __align__(16) unsigned char extract_stage[];
  K* stage_key = reinterpret_cast<K*>(extract_stage);
  auto* stage_bucket = reinterpret_cast<std::uint16_t*>(extract_stage + sizeof(K) * stage_keys);
  const int max_buckets = stats.max_buckets();
  extract_tiles<Src>(shared, tasks, num_tasks, total_tiles, stats, oracles, extract_at, [] {},
                     [&](const task_desc<K>& t, const K(&keys)[items], const int(&bucket)[items]) {
#pragma unroll
    for (int part = 0; part < extract_stage_parts<K>; ++part) {
      const int first = part * part_items;
      extract_zero_counts(shared);
      __syncthreads();
      unsigned local[part_items];
#pragma unroll
      for (int i = 0; i < part_items; ++i) local[i] = count_into(shared.count, bucket[first + i]);
      __syncthreads();
      const extract_staged staged = extract_reserve_runs(shared, scan_storage, t, max_buckets, extract_at, cursors);
      if (staged.keys >= staged.runs * extract_stage_max_run) {
        extract_store_straight<part_items>(shared, keys + first, bucket + first, local, dst);
      } else {
#pragma unroll
        for (int i = 0; i < part_items; ++i)
          if (bucket[first + i] >= 0) {
            const unsigned at = shared.count[bucket[first + i]] + local[i];
            stage_key[at] = keys[first + i];
            stage_bucket[at] = static_cast<std::uint16_t>(bucket[first + i]);
          }
        __syncthreads();
        for (unsigned at = threadIdx.x; at < staged.keys; at += threads) {
          const int b = stage_bucket[at];
          dst[shared.base[b] + (at - shared.count[b])] = stage_key[at];
        }
      }
      __syncthreads();
    }
  });
}

}  // namespace kselect::cuda
