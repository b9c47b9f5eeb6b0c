// Kernels of the CUDA shard (cuda_shard.cuh): a distributed call's local passes over
// one process's device keys. Every pass walks block tiles of `shard_tuning` shape
// (load_tile.cuh: all of a thread's loads issued before any is used) and reads the
// caller's values (converted to order-preserving keys on the fly) or the shard's
// compacted keys.
#pragma once

#include <cub/block/block_load.cuh>
#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>

#include <cstdint>
#include <limits>
#include <type_traits>

#include "core/bucket_table.hpp"
#include "core/key_traits.hpp"
#include "core/sampling.hpp"
#include "cuda/kernels/atomic_keys.cuh"
#include "cuda/kernels/load_tile.cuh"
#include "cuda/kernels/warp_stage.cuh"

namespace kselect::cuda::distributed {

/// Launch shape of the passes. 1024 threads x 16 keys: 16 independent loads in
/// flight per thread, and few blocks, so that the per-block histograms flushed to
/// global memory at the end of the count pass cost few atomics (one block per SM
/// flushes 8192 counters, against the 2^26 keys a process counts). Initial choice,
/// to be measured: bench/mpi (kselect-mpi-bench) times the passes end to end.
struct shard_tuning {
  static constexpr int threads = 1024;
  static constexpr int items = 16;
  static constexpr int tile = threads * items;
  /// The count pass: two 512-thread blocks per SM instead of one of 1024, so that one
  /// block's loads are in flight while the other counts (with one block, an SM's
  /// memory idled while its 32 warps worked through their keys, and the compaction's
  /// block scan lined them all up at every tile). 64 registers a thread either way.
  static constexpr int count_threads = 512;
  static constexpr int count_blocks_per_sm = 2;
  static constexpr int count_tile = count_threads * items;
  /// The count pass's compaction: every warp's stage of kept keys, 16 KiB per block.
  static constexpr int stage_bytes = 16384;
  /// The slot refining pass's stages of routed keys, 24 KiB per block (its interval
  /// records, routes and histogram take the rest of two blocks' shared memory).
  static constexpr int refine_stage_bytes = 24576;
  /// The top-k take pass: one tile per block (its scans are block-wide).
  static constexpr int take_threads = 256;
  static constexpr int take_items = 16;
  static constexpr int take_tile = take_threads * take_items;
};

/// Reads key i of the keys in contention: the caller's values through to_key, or the
/// shard's compacted keys as they are.
template <class T, bool FromValues>
struct key_source {
  using U = core::key_t<T>;
  using raw_type = std::conditional_t<FromValues, T, U>;
  const raw_type* data;
  __device__ __forceinline__ static U key(raw_type raw) {
    if constexpr (FromValues) return core::key_traits<T>::to_key(raw); else return raw;
  }
};

/// The round's table on the device as arrays (structure of arrays: a pass reads one
/// field at a time), its directory (core::interval_directory), and where the count
/// pass keeps its state.
template <class U>
struct count_args {
  const U* lo;                                  ///< global, num_intervals: each interval's first key
  const U* hi;                                  ///< global, num_intervals: its last key
  const U* scale;                               ///< global, num_intervals: core::bucket_interval::scale
  const std::uint32_t* first;                   ///< global, num_intervals: its first bucket
  const std::uint32_t* directory;               ///< global, directory_slots words
  U directory_base;
  int directory_shift;
  int directory_slots;                          ///< 0: no directory
  std::uint32_t directory_below, directory_above;  ///< the words of the keys outside the slots
  int num_intervals;
  std::uint32_t buckets;
  unsigned long long* counts;                   ///< global, buckets (zeroed by the host); null: no counting
  U* interval_min;                              ///< global, num_intervals (~0 first); null: no min/max
  U* interval_max;                              ///< global, num_intervals (0 first)
  U* kept;                                      ///< compaction target (capacity keys); null: no compaction
  std::int64_t capacity;
  unsigned long long* kept_count;               ///< keys appended (written or not); with kept only
  /// Where a pass over the caller's values adds the elements whose bits are not their
  /// key's value's (-0.0, NaNs but the canonical one): shard::noncanonical_seen().
  unsigned long long* noncanonical;
  /// The table, directory and extremes in shared memory, and the histogram too when
  /// counting (32-bit counters flushed once per block); otherwise all in global memory.
  bool in_shared;
};

/// The bits of a value (floating-point values compared bit for bit).
template <class T>
__device__ __forceinline__ auto bits_of(T v) {
  using B = std::conditional_t<sizeof(T) == 8, unsigned long long, unsigned>;
  B b;
  memcpy(&b, &v, sizeof(T));
  return b;
}

/// Whether a value's bits are not those its key maps back to: -0.0, or a NaN other than
/// the positive quiet NaN (one key stands for each of those groups), from the bits
/// alone, without mapping the key back.
template <class T>
__device__ __forceinline__ bool noncanonical_bits(T v) {
  if constexpr (std::is_floating_point_v<T>) {
    using B = decltype(bits_of(v));
    constexpr B sign = B(1) << (8 * sizeof(T) - 1);
    const B bits = bits_of(v);
    const B canonical_nan = bits_of(core::key_traits<T>::from_key(core::key_traits<T>::nan_key));
    const B infinity = bits_of(std::numeric_limits<T>::infinity());
    return bits == sign || ((bits & ~sign) > infinity && bits != canonical_nan);
  } else {
    return false;
  }
}

/// What the count pass reads of a key's interval once the search has found it, in one
/// record, so that a key costs one 16-byte shared load (two for 64-bit keys) instead
/// of four.
template <class U>
struct alignas(16) interval_record {
  U lo, hi, scale;
  std::uint32_t first;
  /// The bucket of a key inside the interval (core::bucket_offset).
  __device__ __forceinline__ std::uint32_t bucket_of(U key) const { return first + core::bucket_offset(lo, scale, key); }
};

/// Takes a key inside interval iv into the interval's running minimum and maximum,
/// read first: once an interval's extremes are found (few updates on most data) no
/// atomic is issued.
template <class U>
__device__ __forceinline__ void note_extremes(U* mins, U* maxs, int iv, U key) {
  if (key < mins[iv]) atomic_min_key(mins + iv, key);
  if (key > maxs[iv]) atomic_max_key(maxs + iv, key);
}

/// A block's end: its 32-bit shared histogram added into the global 64-bit counts
/// (non-empty buckets only), and its intervals' extremes into the global ones (those
/// it saw).
__device__ __forceinline__ void flush_histogram(const std::uint32_t* histogram, std::uint32_t buckets,
                                                unsigned long long* counts, int threads) {
  for (std::uint32_t b = threadIdx.x; b < buckets; b += threads)
    if (histogram[b]) atomicAdd(counts + b, static_cast<unsigned long long>(histogram[b]));
}
template <class U>
__device__ __forceinline__ void flush_extremes(const U* mins, const U* maxs, int intervals, U* global_min,
                                               U* global_max, int threads) {
  for (int i = threadIdx.x; i < intervals; i += threads) {
    if (mins[i] != ~U(0)) atomic_min_key(global_min + i, mins[i]);
    if (maxs[i] != U(0)) atomic_max_key(global_max + i, maxs[i]);
  }
}

/// Dynamic shared memory of count_kernel with in_shared: [histogram u32, when counting]
/// [records][lo][min][max, with min/max][directory u32]. Offsets in bytes; lo (the
/// search's keys) repeats the records' lo so that the search reads consecutive keys.
template <class U>
struct count_shared_layout {
  std::size_t histogram = 0, records = 0, lo = 0, minmax = 0, directory = 0, bytes = 0;
  __host__ __device__ explicit count_shared_layout(const count_args<U>& a) {
    const auto ni = static_cast<std::size_t>(a.num_intervals);
    constexpr std::size_t record = sizeof(interval_record<U>);
    histogram = 0;
    records = ((a.counts ? a.buckets * sizeof(std::uint32_t) : 0) + record - 1) / record * record;
    lo = records + ni * record;
    minmax = lo + ni * sizeof(U);
    directory = (minmax + (a.interval_min ? 2 * ni * sizeof(U) : 0) + 15) / 16 * 16;  // copy_to_shared's vectors
    bytes = directory + static_cast<std::size_t>(a.directory_slots > 0 ? a.directory_slots : 1) * sizeof(std::uint32_t);
  }
};

/// What a count pass does besides counting (the histogram itself: a.counts, null for
/// extract()): keep the keys inside the intervals (a.kept), track each interval's
/// minimum and maximum (a.interval_min), tally the noncanonical values (a.noncanonical,
/// a pass over the caller's floating-point values). As compile-time constants for the
/// table in shared memory (the common case: every key pays for each test the compiler
/// cannot fold, and a round uses one combination), as runtime flags otherwise.
template <bool Keep, bool MinMax, bool Tally>
struct fixed_flags {
  static constexpr bool keep = Keep, minmax = MinMax, tally = Tally;
};
struct runtime_flags {
  bool keep, minmax, tally;
};

/// The count pass over block tiles, with the table where InShared says: pointers
/// derived from the kernel's shared array (so that the compiler emits shared-memory
/// loads and atomics, not generic ones) or the global arrays read through the
/// read-only cache. Every key in contention inside an interval goes to its bucket
/// (core/bucket_table.hpp), updates its interval's min and max, and is appended to
/// `kept` (in no particular order). Full tiles take a path without bounds checks.
template <class T, bool FromValues, bool InShared, class Flags>
__device__ __forceinline__ void count_tiles(key_source<T, FromValues> src, std::int64_t m,
                                            const count_args<core::key_t<T>>& a, unsigned char* shared,
                                            unsigned char* stage_memory, Flags flags) {
  using U = core::key_t<T>;
  using raw_type = typename key_source<T, FromValues>::raw_type;
  constexpr int threads = shard_tuning::count_threads, items = shard_tuning::items, tile = shard_tuning::count_tile;
  constexpr std::uint32_t no_bucket = ~std::uint32_t(0);
  const int ni = a.num_intervals, slots = a.directory_slots;
  const U* lo = a.lo;
  const std::uint32_t* directory = a.directory;
  U* mins = a.interval_min;
  U* maxs = a.interval_max;
  std::uint32_t* histogram = nullptr;
  const interval_record<U>* records = nullptr;
  if constexpr (InShared) {
    const count_shared_layout<U> layout(a);
    auto* s_records = reinterpret_cast<interval_record<U>*>(shared + layout.records);
    U* s_lo = reinterpret_cast<U*>(shared + layout.lo);
    U* s_min = reinterpret_cast<U*>(shared + layout.minmax);
    U* s_max = s_min + ni;
    auto* s_directory = reinterpret_cast<std::uint32_t*>(shared + layout.directory);
    for (int i = threadIdx.x; i < ni; i += threads) {
      s_records[i] = interval_record<U>{a.lo[i], a.hi[i], a.scale[i], a.first[i]};
      s_lo[i] = a.lo[i];
      if (flags.minmax) {
        s_min[i] = ~U(0);
        s_max[i] = U(0);
      }
    }
    copy_to_shared<threads>(s_directory, a.directory, static_cast<std::size_t>(slots) * sizeof(std::uint32_t));
    // Every pointer from here on is the shared array's, unconditionally (a pointer
    // that may also be null or global would make the compiler emit generic loads).
    histogram = reinterpret_cast<std::uint32_t*>(shared + layout.histogram);
    if (a.counts)
      for (std::uint32_t b = threadIdx.x; b < a.buckets; b += threads) histogram[b] = 0;
    records = s_records;
    lo = s_lo;
    directory = s_directory;
    mins = s_min;
    maxs = s_max;
    __syncthreads();
  }
  // The directory (core::interval_directory, table in shared memory) names most keys'
  // interval, or their absence, with one load, with selects and predicated loads only
  // (a branch taken by some keys of a warp costs the whole warp both paths, and the
  // bookkeeping of per-key branches is instructions every key pays). The keys of slots an
  // interval boundary crosses search among that slot's intervals, behind one branch
  // per warp and key. With the table in global memory every key searches every interval.
  const U dir_base = a.directory_base;
  const int dir_shift = a.directory_shift;
  const U dir_last = core::directory_last_offset<U>(slots, dir_shift, dir_base);
  const std::uint32_t dir_below = a.directory_below, dir_above = a.directory_above;
  const auto searched_bucket = [&](U key, std::uint32_t w) -> std::uint32_t {
    int iv = 0;
    if constexpr (InShared) {
      bool whole = false;
      iv = core::directory_resolve(lo, ni, w, key, whole);
    } else {
      iv = core::last_interval_at_most(lo, ni, key);
    }
    if (iv < 0) return no_bucket;
    interval_record<U> r;
    if constexpr (InShared) r = records[iv];
    else r = interval_record<U>{load_readonly(lo + iv), load_readonly(a.hi + iv), load_readonly(a.scale + iv),
                                load_readonly(a.first + iv)};
    if (key < r.lo || key > r.hi) return no_bucket;
    if (flags.minmax) note_extremes(mins, maxs, iv, key);
    return r.bucket_of(key);
  };

  const unsigned lane = threadIdx.x % 32;
  const bool counting = a.counts != nullptr;
  const auto add_count = [&](std::uint32_t bucket, unsigned amount) {
    if constexpr (InShared) atomicAdd(histogram + bucket, amount); else atomicAdd(a.counts + bucket, amount + 0ull);
  };
  // Counts a key's bucket, found through the directory or by the search. Where keys
  // may repeat much (a first round whose sample repeats a key: minmax), once per warp when all 32 lanes share a bucket:
  // all-equal and few-valued data would otherwise serialise 32 conflicting atomics on
  // one address. Elsewhere one atomic per key inside an interval (later rounds count
  // only the few keys of the ranks' buckets).
  const auto count_fast = [&](std::uint32_t bucket) {
    if (!counting) return;
    if (flags.minmax && !flags.keep) {
      const std::uint32_t leader = __shfl_sync(0xffffffffu, bucket, 0);
      if (__all_sync(0xffffffffu, bucket == leader)) {
        if (lane == 0 && leader != no_bucket) add_count(leader, 32u);
        return;
      }
    }
    if (bucket != no_bucket) add_count(bucket, 1u);
  };
  // Compaction, warp by warp with no block barrier: a warp stages its kept keys in
  // shared memory (a ballot per load step gives each its slot) and appends them to
  // `kept` when its stage is nearly full, and at the end: one atomic per flush on the
  // global counter. Kept keys are few (a round keeps about ranks / buckets of them),
  // so flushes are rare. (A block scan per tile and one atomic per tile made every
  // tile wait at two block barriers; an atomic per warp step with a kept key
  // contended on one address.)
  constexpr int stage_keys = shard_tuning::stage_bytes / (threads / 32 * static_cast<int>(sizeof(U)));
  static_assert(stage_keys >= 64, "a warp's stage holds at least two load steps");
  U* stage = reinterpret_cast<U*>(stage_memory) + threadIdx.x / 32 * stage_keys;
  int staged = 0;  // the warp's keys in its stage (the same in every lane)
  // Beyond the capacity: not written, but counted (the host sees it and fails).
  const auto flush = [&] { flush_warp_stage(stage, staged, a.kept_count, a.kept, a.capacity, [](U k) { return k; }); };
  const unsigned lanes_below = (1u << lane) - 1u;
  const bool tally = FromValues && std::is_floating_point_v<T> && flags.tally;
  unsigned long long seen_noncanonical = 0;
  // One tile: every key counted, then the kept ones staged.
  const auto tile_pass = [&](const raw_type (&raw)[items], std::int64_t base, auto full) {
    std::uint32_t inside = 0;  // bit i: item i is kept
#pragma unroll
    for (int i = 0; i < items; ++i) {
      const bool valid = full || base + i * threads + threadIdx.x < m;
      const U key = key_source<T, FromValues>::key(raw[i]);
      if constexpr (FromValues) {
        if (tally) seen_noncanonical += valid && noncanonical_bits(raw[i]) ? 1 : 0;
      }
      std::uint32_t bucket = no_bucket, w = 0;
      bool search = valid;
      if constexpr (InShared) {
        w = core::directory_word(directory, slots, dir_base, dir_shift, dir_last, dir_below, dir_above, key);
        const bool whole = valid && (w & core::directory_whole) != 0;
        search = valid && !whole && w != 0;
        const int iv = whole ? static_cast<int>(w & ~core::directory_whole) : 0;
        interval_record<U> r{};
        if (whole) r = records[iv];  // a predicated load: gaps read nothing
        if (flags.minmax && whole) note_extremes(mins, maxs, iv, key);
        bucket = whole ? r.bucket_of(key) : no_bucket;
      }
      // The search, where any lane of the warp needs it (a branch all lanes take alike).
      if (__any_sync(0xffffffffu, search)) {
        if (search) bucket = searched_bucket(key, w);
      }
      count_fast(bucket);
      inside |= bucket != no_bucket ? 1u << i : 0u;
    }
    if (flags.keep && __any_sync(0xffffffffu, inside != 0)) {
#pragma unroll
      for (int i = 0; i < items; ++i) {
        const unsigned ballot = __ballot_sync(0xffffffffu, inside >> i & 1u);
        if (ballot == 0) continue;
        if (inside >> i & 1u) stage[staged + __popc(ballot & lanes_below)] = key_source<T, FromValues>::key(raw[i]);
        staged += __popc(ballot);
        if (staged > stage_keys - 32) flush();
      }
    }
  };
  if (ni > 0) {
    for (std::int64_t base = static_cast<std::int64_t>(blockIdx.x) * tile; base < m;
         base += static_cast<std::int64_t>(gridDim.x) * tile) {
      raw_type raw[items];
      load_tile<items, threads>(src.data, base, m, raw);
      if (base + tile <= m) tile_pass(raw, base, std::true_type{});
      else tile_pass(raw, base, std::false_type{});
    }
  }
  if (flags.keep && staged > 0) flush();
  if (tally) {
    for (int offset = 16; offset > 0; offset /= 2) seen_noncanonical += __shfl_down_sync(0xffffffffu, seen_noncanonical, offset);
    if (lane == 0 && seen_noncanonical) atomicAdd(a.noncanonical, seen_noncanonical);
  }
  if constexpr (InShared) {
    __syncthreads();
    if (a.counts) flush_histogram(histogram, a.buckets, a.counts, threads);
    if (flags.minmax) flush_extremes(mins, maxs, ni, a.interval_min, a.interval_max, threads);
  }
}

/// The count pass of one DIBMS round (also extract(): counts null, kept set). Flags:
/// fixed_flags for the table in shared memory, one kernel per combination that a round
/// uses (each its own register allocation: one kernel holding all eight bodies spilled),
/// runtime_flags with the table in global memory.
template <class T, bool FromValues, class Flags>
__global__ void __launch_bounds__(shard_tuning::count_threads, shard_tuning::count_blocks_per_sm)
    count_kernel(key_source<T, FromValues> src, std::int64_t m, count_args<core::key_t<T>> a) {
  extern __shared__ __align__(16) unsigned char shared[];
  __shared__ __align__(16) unsigned char stage_memory[shard_tuning::stage_bytes];  // count_tiles' compaction stages
  if constexpr (std::is_same_v<Flags, runtime_flags>)
    count_tiles<T, FromValues, false>(src, m, a, shared, stage_memory,
                                      runtime_flags{a.kept != nullptr, a.interval_min != nullptr, a.noncanonical != nullptr});
  else
    count_tiles<T, FromValues, true>(src, m, a, shared, stage_memory, Flags{});
}

/// Smallest and largest key of the caller's values: out[0] (~0 first), out[1] (0 first).
template <class T>
__global__ void __launch_bounds__(shard_tuning::threads)
    min_max_kernel(const T* values, std::int64_t n, core::key_t<T>* out) {
  using U = core::key_t<T>;
  constexpr int threads = shard_tuning::threads, items = shard_tuning::items, tile = shard_tuning::tile;
  U lo = ~U(0), hi = U(0);
  for (std::int64_t base = static_cast<std::int64_t>(blockIdx.x) * tile; base < n;
       base += static_cast<std::int64_t>(gridDim.x) * tile) {
    T raw[items];
    load_tile<items, threads>(values, base, n, raw);
#pragma unroll
    for (int i = 0; i < items; ++i) {
      if (base + i * threads + threadIdx.x >= n) continue;
      const U k = core::key_traits<T>::to_key(raw[i]);
      lo = k < lo ? k : lo;
      hi = k > hi ? k : hi;
    }
  }
  for (int offset = 16; offset > 0; offset /= 2) {
    const U other_lo = __shfl_down_sync(0xffffffffu, lo, offset), other_hi = __shfl_down_sync(0xffffffffu, hi, offset);
    lo = other_lo < lo ? other_lo : lo;
    hi = other_hi > hi ? other_hi : hi;
  }
  if (threadIdx.x % 32 == 0) {
    if (lo != ~U(0)) atomic_min_key(out, lo);
    if (hi != U(0)) atomic_max_key(out + 1, hi);
  }
}

/// Keys at count positions drawn from the whole array: the CPU shard's stream
/// (cpu_shard.cpp), so that a seed draws the same sample on either backend.
template <class T>
__global__ void sample_kernel(const T* values, std::int64_t n, std::uint64_t state, std::int64_t count,
                              core::key_t<T>* out) {
  const std::int64_t j = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (j >= count) return;
  const std::uint64_t word = core::mix64(state + static_cast<std::uint64_t>(j) * 0x9e3779b97f4a7c15ull);
  out[j] = core::key_traits<T>::to_key(values[core::mul_high(word, static_cast<std::uint64_t>(n))]);
}

/// Every value as its key (Sort&Choose's gather).
template <class T>
__global__ void to_keys_kernel(const T* values, std::int64_t n, core::key_t<T>* out) {
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x)
    out[i] = core::key_traits<T>::to_key(values[i]);
}

/// Whether key k is beyond the top-k threshold (greater when largest, else smaller).
template <class U>
__device__ __forceinline__ bool beyond(U k, U threshold, bool largest) {
  return largest ? k > threshold : k < threshold;
}

/// Top-k, first pass: per take tile, the elements beyond the threshold and equal to
/// it (tile_beyond / tile_equal, one entry per tile of shard_tuning::take_tile, when
/// not null), and their totals added to totals[0] / totals[1]; with other_bits, also
/// the equal elements whose bits are not from_key(threshold)'s, to totals[2]
/// (counts_of_key).
template <class T>
__global__ void __launch_bounds__(shard_tuning::take_threads)
    tile_counts_kernel(const T* values, std::int64_t n, core::key_t<T> threshold, bool largest,
                       unsigned long long* tile_beyond, unsigned long long* tile_equal,
                       unsigned long long* totals, bool other_bits = false) {
  using U = core::key_t<T>;
  constexpr int threads = shard_tuning::take_threads, items = shard_tuning::take_items;
  using block_sum = cub::BlockReduce<unsigned long long, threads>;
  __shared__ typename block_sum::TempStorage storage[3];
  const std::int64_t base = static_cast<std::int64_t>(blockIdx.x) * shard_tuning::take_tile;
  T raw[items];
  load_tile<items, threads>(values, base, n, raw);
  const auto canonical = bits_of(core::key_traits<T>::from_key(threshold));
  unsigned long long b = 0, e = 0, o = 0;
#pragma unroll
  for (int i = 0; i < items; ++i) {
    if (base + i * threads + threadIdx.x >= n) continue;
    const U k = core::key_traits<T>::to_key(raw[i]);
    b += beyond(k, threshold, largest) ? 1 : 0;
    e += k == threshold ? 1 : 0;
    o += k == threshold && bits_of(raw[i]) != canonical ? 1 : 0;
  }
  b = block_sum(storage[0]).Sum(b);
  e = block_sum(storage[1]).Sum(e);
  if (other_bits) o = block_sum(storage[2]).Sum(o);
  if (threadIdx.x == 0) {
    if (tile_beyond) tile_beyond[blockIdx.x] = b;
    if (tile_equal) tile_equal[blockIdx.x] = e;
    if (b) atomicAdd(totals, b);
    if (e) atomicAdd(totals + 1, e);
    if (other_bits && o) atomicAdd(totals + 2, o);
  }
}

/// Top-k, between the passes: per tile, the ties it takes (the first take_ties equal
/// elements in index order, given the equal elements of the tiles before it,
/// equal_before = the exclusive sum of tile_equal) and so the elements it writes.
static __global__ void tile_takes_kernel(const unsigned long long* tile_beyond, const unsigned long long* tile_equal,
                                  const unsigned long long* equal_before, std::int64_t tiles,
                                  unsigned long long take_ties, unsigned long long* tile_ties,
                                  unsigned long long* tile_taken) {
  const std::int64_t t = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t >= tiles) return;
  const unsigned long long left = take_ties > equal_before[t] ? take_ties - equal_before[t] : 0;
  const unsigned long long ties = left < tile_equal[t] ? left : tile_equal[t];
  tile_ties[t] = ties;
  tile_taken[t] = tile_beyond[t] + ties;
}

/// One tile of the take passes in a blocked arrangement: thread t holds the tile's
/// elements [t * items, (t + 1) * items) (loaded coalesced, transposed through shared
/// memory), so that block scans run in index order; with the flags of the elements
/// whose key is `key` and their exclusive ranks among the tile's.
template <class T>
struct blocked_tile {
  static constexpr int threads = shard_tuning::take_threads, items = shard_tuning::take_items;
  using block_load = cub::BlockLoad<T, threads, items, cub::BLOCK_LOAD_WARP_TRANSPOSE>;
  using block_scan = cub::BlockScan<int, threads>;
  union storage_type {
    typename block_load::TempStorage load;
    typename block_scan::TempStorage scan;
  };

  std::int64_t base;
  T raw[items];
  int equal[items], equal_rank[items];

  __device__ __forceinline__ void load_and_rank(storage_type& storage, const T* values, std::int64_t n,
                                                core::key_t<T> key) {
    base = static_cast<std::int64_t>(blockIdx.x) * shard_tuning::take_tile;
    const std::int64_t left = n - base;
    block_load(storage.load).Load(values + base, raw, left < shard_tuning::take_tile ? static_cast<int>(left)
                                                                                      : shard_tuning::take_tile);
    __syncthreads();
#pragma unroll
    for (int i = 0; i < items; ++i) equal[i] = index(i) < n && core::key_traits<T>::to_key(raw[i]) == key ? 1 : 0;
    block_scan(storage.scan).ExclusiveSum(equal, equal_rank);
  }
  __device__ __forceinline__ std::int64_t index(int i) const {
    return base + static_cast<std::int64_t>(threadIdx.x) * items + i;
  }
};

/// Top-k, second pass: each tile writes its elements beyond the threshold and its
/// first tile_ties equal ones, in index order, from its output offset (the exclusive
/// sum of tile_taken): values bit for bit, and local indices when asked.
template <class T>
__global__ void __launch_bounds__(shard_tuning::take_threads)
    take_kernel(const T* values, std::int64_t n, core::key_t<T> threshold, bool largest,
                const unsigned long long* tile_ties, const unsigned long long* tile_offset, T* out_values,
                std::int64_t* out_indices) {
  using U = core::key_t<T>;
  using tile_type = blocked_tile<T>;
  constexpr int items = tile_type::items;
  __shared__ typename tile_type::storage_type storage;
  tile_type tile;
  tile.load_and_rank(storage, values, n, threshold);
  __syncthreads();
  const auto ties = static_cast<long long>(tile_ties[blockIdx.x]);
  int take[items], at[items];
#pragma unroll
  for (int i = 0; i < items; ++i) {
    const U k = core::key_traits<T>::to_key(tile.raw[i]);
    take[i] = tile.index(i) < n && (beyond(k, threshold, largest) || (tile.equal[i] && tile.equal_rank[i] < ties))
                  ? 1 : 0;
  }
  typename tile_type::block_scan(storage.scan).ExclusiveSum(take, at);
  const auto offset = static_cast<std::int64_t>(tile_offset[blockIdx.x]);
#pragma unroll
  for (int i = 0; i < items; ++i) {
    if (!take[i]) continue;
    const std::int64_t to = offset + at[i];
    out_values[to] = tile.raw[i];
    if (out_indices) out_indices[to] = tile.index(i);
  }
}

/// equal_element: the tile holding the ordinal-th element of key `key` (in index
/// order; equal_before = the exclusive sum of the tiles' equal counts) writes it,
/// bits as stored, to *out; every other tile returns at once.
template <class T>
__global__ void __launch_bounds__(shard_tuning::take_threads)
    pick_equal_kernel(const T* values, std::int64_t n, core::key_t<T> key, const unsigned long long* equal_before,
                      const unsigned long long* tile_equal, unsigned long long ordinal, T* out) {
  if (ordinal < equal_before[blockIdx.x] || ordinal >= equal_before[blockIdx.x] + tile_equal[blockIdx.x]) return;
  using tile_type = blocked_tile<T>;
  __shared__ typename tile_type::storage_type storage;
  tile_type tile;
  tile.load_and_rank(storage, values, n, key);
  const auto wanted = static_cast<int>(ordinal - equal_before[blockIdx.x]);
#pragma unroll
  for (int i = 0; i < tile_type::items; ++i)
    if (tile.equal[i] && tile.equal_rank[i] == wanted) *out = tile.raw[i];
}

}  // namespace kselect::cuda::distributed
