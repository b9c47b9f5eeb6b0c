// The CUDA shard's passes over the caller's values for a first round laid out in radix
// slots (core::radix_slots, distributed/dibms_plan.hpp) and for the round after it:
//  - slot_count_kernel counts every key into the slot table's buckets: a key's bucket is
//    its slot's entry and one multiply (core::radix_slot_bucket), with no interval to find;
//  - slot_refine_kernel, the second round's pass (count and keep), finds a key's
//    first-round bucket the same way and, through one 16-bit word per first-round bucket
//    (its interval in the second round's table, or none), the few keys in contention;
//    only those are staged per warp and then worked through 32 at a time: interval,
//    bucket, extremes, kept.
// A map with dense slots (repeated values, clusters) sends their keys through one more
// record and word; a map without them is compiled without that branch (Dense).
// count_kernel (shard_kernels.cuh) does the same for any table through the interval
// directory; these two exist because the two rounds that read every value then cost far
// fewer instructions per key, with no search and no per-key branch (docs/performance.md,
// issue 26).
#pragma once

#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

#include <cub/warp/warp_scan.cuh>

#include "core/bucket_table.hpp"
#include "core/key_traits.hpp"
#include "cuda/distributed/shard_kernels.cuh"
#include "cuda/kernels/atomic_keys.cuh"
#include "cuda/kernels/load_tile.cuh"
#include "cuda/kernels/warp_stage.cuh"

namespace kselect::cuda::distributed {

/// A slot table on the device (core::radix_slot_map's arrays, in global memory, and
/// their sizes), and the table's buckets.
template <class U>
struct slot_map_args {
  /// The map's arrays in global memory and its lookup constants, made by the host
  /// (core::make_radix_slot_map): from a kernel argument the compiler cannot tell that
  /// `scale` is a power of two, and keeps its multiplies on the FMA pipe instead of
  /// turning them into shifts on the integer ALU, which bounds the passes.
  core::radix_slot_map<U> lookup;
  std::uint32_t slots;
  std::uint32_t num_dense;
  std::uint32_t num_sub_words;
  std::uint32_t buckets;  ///< the table's buckets
};

/// slot_refine_kernel's entry of a plain slot none of whose buckets is routed: no entry
/// is 0, and its bucket is 0, in range (its route is not read).
inline constexpr core::radix_slot_entry unrouted_entry{};

/// slot_count_kernel's arguments.
template <class U>
struct slot_count_args {
  slot_map_args<U> map;
  unsigned long long* counts;        ///< global, map.buckets (zeroed by the host)
  unsigned long long* noncanonical;  ///< shard::noncanonical_seen()'s tally (Tally only)
};

/// slot_refine_kernel's arguments: the first round's map, each first-round bucket's
/// interval of this round (route: 0 for none, else the interval + 1), this round's
/// intervals and outputs (as count_args).
template <class U>
struct slot_refine_args {
  slot_map_args<U> previous;         ///< its entries unrouted_entry where no bucket of the slot is routed
  const std::uint16_t* route;        ///< global, previous.buckets
  const U* lo;                       ///< global, num_intervals
  const U* hi;
  const U* scale;
  const std::uint32_t* first;
  int num_intervals;
  std::uint32_t buckets;
  unsigned long long* counts;        ///< global, buckets (zeroed by the host)
  U* interval_min;                   ///< global, num_intervals (~0 first)
  U* interval_max;                   ///< global, num_intervals (0 first)
  U* kept;                           ///< compaction target (capacity keys)
  std::int64_t capacity;
  unsigned long long* kept_count;
};

/// Dynamic shared memory of the two kernels, in bytes, 16-byte aligned parts: the slot
/// map (entries, dense records, sub-slot words), the histogram, then for the refining pass
/// the routes, interval records and extremes.
struct slot_shared_layout {
  std::size_t dense = 0, sub_words = 0, histogram = 0, route = 0, records = 0, minmax = 0, bytes = 0;
  __host__ __device__ static constexpr std::size_t align(std::size_t b) { return (b + 15) / 16 * 16; }
  template <class U>
  __host__ __device__ static slot_shared_layout of(const slot_map_args<U>& map, std::uint32_t histogram_buckets) {
    slot_shared_layout l;
    l.dense = align((map.slots + 2) * sizeof(core::radix_slot_entry));
    l.sub_words = align(l.dense + map.num_dense * sizeof(core::radix_dense_record<U>));
    l.histogram = align(l.sub_words + map.num_sub_words * sizeof(std::uint32_t));
    l.bytes = l.histogram + histogram_buckets * sizeof(std::uint32_t);
    return l;
  }
  template <class U>
  __host__ __device__ static slot_shared_layout count(const slot_count_args<U>& a) {
    return of(a.map, a.map.buckets);
  }
  template <class U>
  __host__ __device__ static slot_shared_layout refine(const slot_refine_args<U>& a) {
    slot_shared_layout l = of(a.previous, a.buckets);
    const auto ni = static_cast<std::size_t>(a.num_intervals);
    l.route = align(l.bytes);
    l.records = align(l.route + a.previous.buckets * sizeof(std::uint16_t));
    l.minmax = l.records + ni * sizeof(interval_record<U>);
    l.bytes = l.minmax + 2 * ni * sizeof(U);
    return l;
  }
};

/// Copies a slot map into shared memory (the caller synchronises) and returns the map
/// over the shared copies.
template <int threads, class U>
__device__ __forceinline__ core::radix_slot_map<U> load_slot_map(const slot_map_args<U>& m, unsigned char* shared,
                                                                 const slot_shared_layout& layout) {
  auto* entries = reinterpret_cast<core::radix_slot_entry*>(shared);
  auto* dense = reinterpret_cast<core::radix_dense_record<U>*>(shared + layout.dense);
  auto* sub_words = reinterpret_cast<std::uint32_t*>(shared + layout.sub_words);
  copy_to_shared<threads>(entries, m.lookup.entries, (m.slots + 2) * sizeof(core::radix_slot_entry));
  copy_to_shared<threads>(dense, m.lookup.dense, m.num_dense * sizeof(core::radix_dense_record<U>));
  copy_to_shared<threads>(sub_words, m.lookup.sub_words, m.num_sub_words * sizeof(std::uint32_t));
  core::radix_slot_map<U> map = m.lookup;
  map.entries = entries;
  map.dense = dense;
  map.sub_words = sub_words;
  return map;
}

/// A key's bucket in a slot map on the device (core::radix_bucket_of_entry) by its entry
/// e: with Dense, the dense slots' record and sub-slot word are read for every key and
/// the bucket chosen by a select (core::radix_bucket_of_entry_by_selects), so that keys
/// do not branch apart and their loads overlap; the map then has at least one dense slot.
template <bool Dense, class U>
__device__ __forceinline__ std::uint32_t slot_bucket_of_entry(const core::radix_slot_map<U>& map,
                                                              core::radix_slot_entry e, U top, U key) {
  if constexpr (Dense) return core::radix_bucket_of_entry_by_selects(map, e, top, key);
  else return core::radix_bucket_of_entry<false>(map, e, top, key);
}

template <bool Dense, class U>
__device__ __forceinline__ std::uint32_t slot_bucket(const core::radix_slot_map<U>& map, U key) {
  U top;
  const core::radix_slot_entry e = map.entries[core::radix_entry_index(map, key, top)];
  return slot_bucket_of_entry<Dense>(map, e, top, key);
}

/// Walks the block's tiles of m keys: f(raw, base, full) for each, with `full` a
/// compile-time constant (std::true_type for a full tile, whose keys need no bounds
/// check: the per-key check cost a 64-bit compare per key). Full tiles of 16-byte
/// aligned values take 16-byte loads (key i of the thread is then not base + i *
/// threads + t, which neither pass needs); the last tile takes checked scalar loads.
template <int items, int threads, class T, class F>
__device__ __forceinline__ void for_each_tile(const T* values, std::int64_t m, F&& f) {
  constexpr int tile = items * threads;
  const bool aligned = reinterpret_cast<std::uintptr_t>(values) % 16 == 0;
  for (std::int64_t base = static_cast<std::int64_t>(blockIdx.x) * tile; base < m;
       base += static_cast<std::int64_t>(gridDim.x) * tile) {
    T raw[items];
    if (base + tile <= m) {
      if (aligned) load_vector_tile<items, threads>(values + base, raw);
      else load_tile<items, threads>(values, base, m, raw);
      f(raw, base, std::true_type{});
    } else {
      load_tile<items, threads>(values, base, m, raw);
      f(raw, base, std::false_type{});
    }
  }
}

/// Keys a pass takes at a time: the keys of one 16-byte load, consecutive in memory
/// when the tile is vector-loaded (for_each_tile).
template <class T>
inline constexpr int key_group = 16 / static_cast<int>(sizeof(T));

/// The keys (to_key) of a thread's group of values, and with Tally the number of them
/// whose bits are not their key's value's added to `seen`. A group of the warp with no
/// -0.0 and no NaN (nearly all of them) takes plain_key, equal to to_key there: one
/// test per value and one vote, instead of to_key's mapping of those two exceptions and
/// the tally's test for every value.
template <bool Tally, int group, class T>
__device__ __forceinline__ void keys_of_group(const T* raw, const bool (&valid)[group], core::key_t<T> (&key)[group],
                                              unsigned& seen) {
  using traits = core::key_traits<T>;
  if constexpr (std::is_floating_point_v<T>) {
    bool plain = true;
#pragma unroll
    for (int j = 0; j < group; ++j) plain &= traits::has_plain_key(raw[j]);  // &: no branch
    if (__all_sync(0xffffffffu, plain)) {  // warp-uniform
#pragma unroll
      for (int j = 0; j < group; ++j) key[j] = traits::plain_key(raw[j]);
      return;
    }
  }
#pragma unroll
  for (int j = 0; j < group; ++j) {
    key[j] = traits::to_key(raw[j]);
    if constexpr (Tally) seen += valid[j] && noncanonical_bits(raw[j]) ? 1 : 0;
  }
}

/// A thread's keys of a tile at `base` (of m keys; all valid in a `full` one, a
/// compile-time constant), group by group: f(g, key, valid) for its keys g .. g + group
/// - 1 (keys_of_group, with Tally adding to `seen`) and whether each lies inside.
template <bool Tally, int items, int threads, class T, class Full, class F>
__device__ __forceinline__ void for_each_key_group(const T (&raw)[items], std::int64_t base, std::int64_t m, Full full,
                                                   unsigned& seen, F&& f) {
  constexpr int group = key_group<T>;
  static_assert(items % group == 0, "a thread's keys fill whole groups");
#pragma unroll
  for (int g = 0; g < items; g += group) {
    bool valid[group];
#pragma unroll
    for (int j = 0; j < group; ++j) valid[j] = full || base + (g + j) * threads + threadIdx.x < m;
    core::key_t<T> key[group];
    keys_of_group<Tally>(raw + g, valid, key, seen);
    f(g, key, valid);
  }
}

/// Adds one to `bucket` of a shared histogram for each lane that counts, as one add of
/// 32 when every lane of the warp counts into the same bucket (sorted input would
/// otherwise serialise 32 atomics on one address). Predicated, no branch.
__device__ __forceinline__ void add_to_histogram(std::uint32_t* histogram, std::uint32_t bucket, bool counted) {
  const std::uint32_t leader = __shfl_sync(0xffffffffu, bucket, 0);
  const bool same = __all_sync(0xffffffffu, counted && bucket == leader);
  if (same ? (threadIdx.x & 31) == 0 : counted) atomicAdd(histogram + bucket, same ? 32u : 1u);
}

/// Adds one to bucket[j] of a shared histogram for each counted key j of a thread's
/// group of keys (the keys of one 16-byte load when the tile is vector-loaded, so
/// consecutive in memory): one add of 32 * group by one lane when every key of the
/// warp's groups falls in one bucket (sorted input would otherwise serialise 32 atomics
/// on one address), one add of `group` when the thread's own keys do, else one add per
/// key. One warp vote per group instead of one per key (add_to_histogram), and no
/// branch per key: the group's loads and lookups can overlap.
template <int group>
__device__ __forceinline__ void add_group_to_histogram(std::uint32_t* histogram, const std::uint32_t (&bucket)[group],
                                                       const bool (&counted)[group]) {
  bool run = counted[0];
#pragma unroll
  for (int j = 1; j < group; ++j) run &= counted[j] & (bucket[j] == bucket[0]);
  const std::uint32_t leader = __shfl_sync(0xffffffffu, bucket[0], 0);
  if (__all_sync(0xffffffffu, run && bucket[0] == leader)) {  // warp-uniform
    if ((threadIdx.x & 31) == 0) atomicAdd(histogram + leader, 32u * group);
    return;
  }
  if (counted[0]) atomicAdd(histogram + bucket[0], run ? static_cast<std::uint32_t>(group) : 1u);
#pragma unroll
  for (int j = 1; j < group; ++j)
    if (counted[j] && !run) atomicAdd(histogram + bucket[j], 1u);
}

/// The first round over the caller's values, laid out in radix slots: counts every key
/// into its bucket; with Tally, also the values whose bits are not their key's value's.
/// Dense: the map has dense slots (core::radix_bucket_of_word).
template <class T, bool Tally, bool Dense>
__global__ void __launch_bounds__(shard_tuning::count_threads, shard_tuning::count_blocks_per_sm)
    slot_count_kernel(const T* values, std::int64_t m, slot_count_args<core::key_t<T>> a) {
  using U = core::key_t<T>;
  constexpr int threads = shard_tuning::count_threads, items = shard_tuning::items;
  extern __shared__ __align__(16) unsigned char shared[];
  const slot_shared_layout layout = slot_shared_layout::count(a);
  auto* histogram = reinterpret_cast<std::uint32_t*>(shared + layout.histogram);
  const core::radix_slot_map<U> map = load_slot_map<threads>(a.map, shared, layout);
  for (std::uint32_t b = threadIdx.x; b < a.map.buckets; b += threads) histogram[b] = 0;
  __syncthreads();
  unsigned seen = 0;  // per thread: fewer than 2^32 keys (at least one block per SM, m < 2^31 * SMs)
  constexpr int group = key_group<T>;
  for_each_tile<items, threads>(values, m, [&](const T (&raw)[items], std::int64_t base, auto full) {
    for_each_key_group<Tally, items, threads>(raw, base, m, full, seen, [&](int, const U (&key)[group],
                                                                             const bool (&valid)[group]) {
      std::uint32_t bucket[group];
#pragma unroll
      for (int j = 0; j < group; ++j) bucket[j] = slot_bucket<Dense>(map, key[j]);
      add_group_to_histogram(histogram, bucket, valid);
    });
  });
  if constexpr (Tally) {
    const unsigned long long warp_seen = warp_sum(seen);
    if ((threadIdx.x & 31) == 0 && warp_seen) atomicAdd(a.noncanonical, warp_seen);
  }
  __syncthreads();
  flush_histogram(histogram, a.map.buckets, a.counts, threads);
}

/// Keys a warp of slot_refine_kernel stages before working through them (24 KiB per
/// block), and the keys a thread routes between two of the warp's scans: the most
/// whose routed keys (32 lanes' worth) always fit the stage, so that a tile's
/// staging checks for room once per scan.
template <class U>
inline constexpr int slot_refine_stage_keys =
    shard_tuning::refine_stage_bytes / (shard_tuning::count_threads / 32 * static_cast<int>(sizeof(U)));
template <class U>
inline constexpr int slot_refine_chunk = [] {
  int chunk = shard_tuning::items;
  while (chunk > 1 && 32 * chunk > slot_refine_stage_keys<U>) chunk /= 2;
  return chunk;
}();

/// The second round over the caller's values after a slot-table first round: counts the
/// keys inside this round's intervals into its buckets, tracks each interval's minimum
/// and maximum and appends those keys to `kept` (per-warp stages, as count_kernel).
template <class T, bool Dense>
__global__ void __launch_bounds__(shard_tuning::count_threads, shard_tuning::count_blocks_per_sm)
    slot_refine_kernel(const T* values, std::int64_t m, slot_refine_args<core::key_t<T>> a) {
  using U = core::key_t<T>;
  constexpr int threads = shard_tuning::count_threads, items = shard_tuning::items, warps = threads / 32;
  constexpr int stage_keys = slot_refine_stage_keys<U>, chunk = slot_refine_chunk<U>;
  static_assert(items % chunk == 0 && 32 * chunk <= stage_keys, "a scan's routed keys fit an empty stage");
  extern __shared__ __align__(16) unsigned char shared[];
  __shared__ __align__(16) U stage_memory[warps * stage_keys];
  __shared__ typename cub::WarpScan<int>::TempStorage scan_storage[warps];
  const slot_shared_layout layout = slot_shared_layout::refine(a);
  const int ni = a.num_intervals;
  auto* histogram = reinterpret_cast<std::uint32_t*>(shared + layout.histogram);
  auto* route = reinterpret_cast<std::uint16_t*>(shared + layout.route);
  auto* records = reinterpret_cast<interval_record<U>*>(shared + layout.records);
  U* mins = reinterpret_cast<U*>(shared + layout.minmax);
  U* maxs = mins + ni;
  const core::radix_slot_map<U> map = load_slot_map<threads>(a.previous, shared, layout);
  for (std::uint32_t b = threadIdx.x; b < a.buckets; b += threads) histogram[b] = 0;
  copy_to_shared<threads>(route, a.route, a.previous.buckets * sizeof(std::uint16_t));
  for (int i = threadIdx.x; i < ni; i += threads) {
    records[i] = interval_record<U>{a.lo[i], a.hi[i], a.scale[i], a.first[i]};
    mins[i] = ~U(0);
    maxs[i] = U(0);
  }
  __syncthreads();
  const bool minmax = a.interval_min != nullptr;
  // A key's interval of this round, or -1: its first round's bucket (core::radix_slot_bucket)
  // and that bucket's route, unless the slot routes none of its buckets (most keys: no
  // second load).
  const auto interval_of = [&](U key) {
    U top;
    const core::radix_slot_entry e = map.entries[core::radix_entry_index(map, key, top)];
    const bool idle = e.word == 0u;  // unrouted_entry
    const std::uint32_t b = slot_bucket_of_entry<Dense>(map, e, top, key);
    return idle ? -1 : static_cast<int>(route[b]) - 1;
  };
  // The routed keys are staged per warp and then worked through 32 at a time: their
  // interval again, its bounds (it may be clipped to the extremes), bucket, extremes, and
  // the ones inside moved to the stage's front and appended to `kept` with one atomic.
  // Routed keys are few and scattered (on uniform data 1.6 %, in four warp steps of ten):
  // a thread marks its tile's routed keys and one warp scan per `chunk` keys gives each
  // lane its place in the stage. A ballot and branch per key, with this work inlined at
  // every key of the unrolled tile, made the pass 2.2 reads and its code 290 KiB.
  U* stage = stage_memory + threadIdx.x / 32 * stage_keys;
  const unsigned lane = threadIdx.x & 31, lanes_below = (1u << lane) - 1u;
  int staged = 0;  // warp-uniform
  const auto work_through_stage = [&] {
    __syncwarp();
    int inside_count = 0;  // warp-uniform: the stage's first inside_count keys are inside
    for (int from = 0; from < staged; from += 32) {
      const int j = from + static_cast<int>(lane);
      const bool has = j < staged;
      const U key = has ? stage[j] : U(0);
      const int iv = has ? interval_of(key) : -1;
      __syncwarp();
      bool inside = false;
      std::uint32_t bucket = 0;
      if (iv >= 0) {
        const interval_record<U> r = records[iv];
        inside = key >= r.lo && key <= r.hi;
        bucket = r.bucket_of(key);
        if (inside && minmax) note_extremes(mins, maxs, iv, key);
      }
      add_to_histogram(histogram, bucket, inside);
      const unsigned mask = __ballot_sync(0xffffffffu, inside);
      if (inside) stage[inside_count + __popc(mask & lanes_below)] = key;  // at or before j: read already
      inside_count += __popc(mask);
      __syncwarp();
    }
    // Beyond the capacity: not written, but counted (the host sees it and fails).
    flush_warp_stage(stage, inside_count, a.kept_count, a.kept, a.capacity, [](U k) { return k; });
    staged = 0;
  };
  cub::WarpScan<int> scan(scan_storage[threadIdx.x / 32]);
  constexpr int group = key_group<T>;
  for_each_tile<items, threads>(values, m, [&](const T (&raw)[items], std::int64_t base, auto full) {
    U keys[items];
    std::uint32_t routed = 0;  // bit i: key i is in contention
    unsigned no_tally = 0;
    for_each_key_group<false, items, threads>(raw, base, m, full, no_tally, [&](int g, const U (&key)[group],
                                                                                const bool (&valid)[group]) {
#pragma unroll
      for (int j = 0; j < group; ++j) {
        keys[g + j] = key[j];
        routed |= (valid[j] && interval_of(key[j]) >= 0 ? 1u : 0u) << (g + j);
      }
    });
#pragma unroll
    for (int c = 0; c < items; c += chunk) {
      const std::uint32_t mine = (routed >> c) & ((1u << chunk) - 1u);
      int before = 0, total = 0;
      scan.ExclusiveSum(__popc(mine), before, total);
      if (total == 0) continue;  // warp-uniform
      if (staged + total > stage_keys) work_through_stage();
      int at = staged + before;
#pragma unroll
      for (int i = 0; i < chunk; ++i)
        if ((mine >> i) & 1u) stage[at++] = keys[c + i];
      staged += total;
    }
  });
  if (staged > 0) work_through_stage();
  __syncthreads();
  flush_histogram(histogram, a.buckets, a.counts, threads);
  if (minmax) flush_extremes(mins, maxs, ni, a.interval_min, a.interval_max, threads);
}

}  // namespace kselect::cuda::distributed
