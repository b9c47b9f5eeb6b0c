// The passes of the multiselection pre-pass (core/bin_map.hpp): a count pass
// (every key into a shared-memory histogram of up to 8192 bins), a filter pass
// that copies the values of the selected bins (by bin, or by pre-key intervals
// where those are few: two kernels, one of which returns at once), and a
// scatter of that copy into one region per selected bin (bin_reduce_kernel
// placed them). Each returns at once when an earlier step told the host to run
// the general driver instead (bin_prepass_state::proceed).
#pragma once

#include <cub/block/block_scan.cuh>

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "cuda/kernels/bin_plan_kernels.cuh"
#include "cuda/kernels/stream_tiles.cuh"
#include "cuda/kernels/warp_stage.cuh"
#include "cuda/tuning.hpp"
#include "core/bin_intervals.hpp"
#include "core/bin_map.hpp"
#include "core/key_traits.hpp"
#include "core/prepass_speculation.hpp"

namespace kselect::cuda {

/// bin_extract_kernel's warps flush their stage past this many values; 8-byte
/// values sooner, so the block (map, bitmap, stages) fits 48 KiB of static shared
/// memory. (That filter rarely runs on 8-byte keys: their count pass tags them.)
template <class K>
constexpr int bin_extract_flush_at = sizeof(K) == 8 ? 32 : 256;
/// Values per thread per tile of the scatter: its tile is staged in shared memory.
template <class K>
constexpr int bin_scatter_items = sizeof(K) == 8 ? tuning::compiled.prepass.scatter_k64.items_per_thread
                                                 : tuning::compiled.prepass.scatter_k32.items_per_thread;

/// The type CUDA's atomics take for a key (the 64-bit overloads take unsigned
/// long long, which std::uint64_t is not).
template <class K>
using atomic_word = std::conditional_t<sizeof(K) == 8, unsigned long long, unsigned>;

/// Widens the bounds [*lo, *hi] to hold [low, high].
template <class K>
__device__ __forceinline__ void atomic_widen(K* lo, K* hi, K low, K high) {
  atomicMin(reinterpret_cast<atomic_word<K>*>(lo), static_cast<atomic_word<K>>(low));
  atomicMax(reinterpret_cast<atomic_word<K>*>(hi), static_cast<atomic_word<K>>(high));
}

/// Region (the selected bin's index among the selected bins) of a selected bin b.
__device__ __forceinline__ unsigned bin_region_of(const std::uint32_t* selected, const std::uint32_t* before_word,
                                                  unsigned b) {
  return before_word[b / 32] + __popc(selected[b / 32] & ((1u << (b % 32)) - 1u));
}

/// A thread's tags of one tile, in registers: word w holds those of its keys 2w
/// (low half) and 2w + 1.
using bin_tag_words = std::uint32_t[tuning::stream_items / 2];

/// This thread's tag vector v of tile tl (the layout: bin_prepass_types.cuh).
template <class Tag>
__device__ __forceinline__ auto* bin_tag_vector(Tag* tags, std::int64_t tl, int v) {
  using vector = std::conditional_t<std::is_const_v<Tag>, const uint4, uint4>;
  return reinterpret_cast<vector*>(tags + tl * tuning::tile_keys +
                                   (static_cast<std::int64_t>(v) * tuning::stream_threads + threadIdx.x) *
                                       bin_tags_per_vector);
}

/// Adds the count of every key's bin to hist (64-bit, one atomic per bin per block).
/// Where bin_map_kernel planned a speculative copy (core/prepass_speculation.hpp)
/// and the slices of `spec_out` (spec_capacity slots) have room for what the sample
/// expects, also copies the keys of its run of bins, each thread into its slice:
/// slot 0 the count, then the keys as read. `Tagged`: the kernel that runs where
/// bin_map_kernel set state->tagged, and also writes each key's bin to `tags`
/// (bin_prepass_types.cuh), for the filter; the other returns at once. Two
/// kernels, launched one after the other: the tags' registers would cost the
/// untagged loops their occupancy (8-byte keys: 64 -> 72 registers, 4 -> 3 blocks an SM).
template <class T, bool Tagged = false>
__global__ void __launch_bounds__(tuning::stream_threads, Tagged ? tuning::bin_tagged_count_min_blocks
                                                                 : tuning::stream_min_blocks)
    bin_count_kernel(const T* in, std::int64_t n, const core::bin_map<core::key_t<T>>* map, bin_prepass_state* state,
                     unsigned long long* hist, T* spec_out, std::int64_t spec_capacity, std::uint16_t* tags) {
  using K = core::key_t<T>;
  static_assert(!Tagged || tuning::bin_tags<K>, "tags only for the key types that take them");
  __shared__ core::bin_map<K> sm_map;
  // 32-bit: a block counts at most n / grid keys, and the host sizes the grid so
  // that this stays below 2^32.
  __shared__ unsigned counts[core::bin_map_max_bins];
  if (state->proceed == 0 || (state->tagged != 0) != Tagged) return;
  copy_bin_map(&sm_map, map);
  for (int b = threadIdx.x; b < int(core::bin_map_max_bins); b += blockDim.x) counts[b] = 0;
  __syncthreads();
  // Dense ranges: with one-step hints or none, the loops below; with three-step
  // hints or the search, the same loops, copying where planned.
  const std::uint32_t dense = sm_map.num_dense;  // in a register: no shared read per key
  const std::uint32_t steps = dense != 0 ? sm_map.hint_steps : 0u;
  // The copy: a slice per thread, used where the map's loop can copy and the
  // slices have twice the room the sample expects them to need (the same choice
  // in every block).
  const std::uint32_t spec_first = state->spec_first, spec_span = state->spec_span;
  const std::int64_t slices = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  const std::int64_t slice = spec_capacity / slices;
  const bool speculate = dense != 0 && steps != 1 && spec_span != core::no_speculation &&
                         slice >= core::speculation_min_slice && state->spec_expected * 2 <= (slice - 1) * slices;
  T* my_slice = spec_out + (static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) * slice;
  const auto spec_room = static_cast<std::uint32_t>(speculate ? slice - 1 : 0);
  std::uint32_t spec_kept = 0;
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    state->spec_slice = speculate ? slice : 0;
    state->spec_slices = slices;
  }
  // Each thread adds runs of equal bins among its own keys (sorted input and runs
  // of equal keys: one add per tile). A warp vote measured slower: its shuffle
  // takes a shared-memory wavefront per key, the resource this pass is bound by.
  // With dense ranges a key's bin costs a search: a thread's key equal to its
  // previous one (all keys equal, long runs) takes the previous bin instead.
  unsigned run_bin = 0, run = 0;
  K last_pre = 0;
  // Copy: std::true_type where the loop copies the run's keys (a loop of its own:
  // the test costs the loops that copy nothing). Returns the key's bin.
  const auto count_key = [&](T x, auto bin_of, auto copy) {
    const K pre = core::key_traits<T>::pre_key(x);
    const unsigned b = dense != 0 && run != 0 && pre == last_pre ? run_bin : bin_of(pre);
    if constexpr (decltype(copy)::value) {
      if (b - spec_first <= spec_span) {
        if (spec_kept < spec_room) my_slice[1 + spec_kept] = x;
        ++spec_kept;
      }
    }
    last_pre = pre;
    if (b != run_bin) {
      if (run != 0) atomicAdd(&counts[run_bin], run);
      run_bin = b;
      run = 0;
    }
    ++run;
    return b;
  };
  // Tag: std::true_type where the loop also writes the keys' bins (a tile at a
  // time: a thread's tags are whole 16-byte vectors).
  const auto count_keys = [&](auto bin_of, auto copy, auto tag) {
    if constexpr (decltype(tag)::value) {
      std::int64_t tl = blockIdx.x;
      stream_tile_batches(in, n, [&](T(&vals)[tuning::stream_items], std::int64_t tail_base) {
        bin_tag_words words;
#pragma unroll
        for (int i = 0; i < tuning::stream_items; ++i) {
          const bool valid = tail_base < 0 || tail_base + i * tuning::stream_threads + threadIdx.x < n;
          const unsigned b = valid ? count_key(vals[i], bin_of, copy) : 0u;
          words[i / 2] = i % 2 == 0 ? b : words[i / 2] | (b << 16);
        }
        if (tail_base >= 0) tl = tail_base / tuning::tile_keys;
        constexpr int per_vector_words = bin_tags_per_vector / 2;
#pragma unroll
        for (int v = 0; v < tuning::stream_items / bin_tags_per_vector; ++v)
          *bin_tag_vector(tags, tl, v) = make_uint4(words[v * per_vector_words], words[v * per_vector_words + 1],
                                                    words[v * per_vector_words + 2], words[v * per_vector_words + 3]);
        tl += gridDim.x;
      });
    } else {
      stream_tiles(
          in, n,
          [&](T x, bool valid) {
            if (valid) count_key(x, bin_of, copy);
          },
          [] {});
    }
  };
  // The hinted bins where the map has them (the same bins, fewer loads), on
  // loops of their own: one branch per block, none per key. Only the searched and
  // three-step loops copy (may_copy): a map without dense ranges (continuous keys)
  // puts many ranks' windows in the run, too many keys to copy, and one-step hints
  // (few distinct values) put ranks in bins of one key, which need no copy.
  const auto searched = [&](K pre) { return core::bin_of(sm_map, pre, dense); };
  const auto with_bin_of = [&](auto body) {  // body(bin_of, may_copy)
    if (dense == 0)
      body(searched, std::false_type{});
    else if (steps == 1)
      body([&](K pre) { return core::bin_of_hinted<1>(sm_map, pre, dense); }, std::false_type{});
    else if (steps == 3)
      body([&](K pre) { return core::bin_of_hinted<3>(sm_map, pre, dense); }, std::true_type{});
    else
      body(searched, std::true_type{});
  };
  // bin_map_kernel asks for tags only where the count pass copies nothing.
  with_bin_of([&](auto bin_of, auto may_copy) {
    if constexpr (Tagged) {
      count_keys(bin_of, std::false_type{}, std::true_type{});
    } else {
      if constexpr (decltype(may_copy)::value) {
        if (speculate) return count_keys(bin_of, std::true_type{}, std::false_type{});
      }
      count_keys(bin_of, std::false_type{}, std::false_type{});
    }
  });
  if (speculate) {
    reinterpret_cast<std::uint32_t*>(my_slice)[0] = spec_kept;
    if (spec_kept > spec_room) state->spec_overflow = 1;
  }
  if (run != 0) atomicAdd(&counts[run_bin], run);
  __syncthreads();
  for (int b = threadIdx.x; b < int(sm_map.num_bins); b += blockDim.x)
    if (counts[b] != 0) atomicAdd(hist + b, static_cast<unsigned long long>(counts[b]));
}

/// The filters' copy: every value x that `walk` passes with take(x) to out, as
/// read and in any order, through this warp's stage (flushed past
/// bin_extract_flush_at values). walk(key, step_done) calls key(x, valid) for each
/// value, every lane of the warp alike, and step_done() after at most
/// stream_items values a lane (the stage's room: warp_stage_capacity).
template <class K, class T, class Walk, class Take>
__device__ __forceinline__ void bin_copy_taken(Walk walk, std::int64_t capacity, T* my_stage,
                                               unsigned long long* cursor, T* out, Take take) {
  const auto as_read = [](T x) { return x; };
  int staged = 0;
  walk([&](T x, bool valid) { stage_by_ballot(valid && take(x), x, my_stage, staged); },
       [&] {
         if (staged > bin_extract_flush_at<K>) flush_warp_stage(my_stage, staged, cursor, out, capacity, as_read);
       });
  if (staged > 0) flush_warp_stage(my_stage, staged, cursor, out, capacity, as_read);
}

/// bin_copy_taken's walk over the input: stream_tiles.
template <class T>
__device__ __forceinline__ auto walk_input(const T* in, std::int64_t n) {
  return [=](auto&& key, auto&& step_done) { stream_tiles(in, n, key, step_done); };
}

/// bin_copy_taken's walk over the count pass's copy (bin_count_kernel): `slices`
/// slices of `slice` slots at `copy`, each its count (slot 0) and then its keys;
/// a warp takes a slice at a time, its lanes 32 keys a step.
template <class T>
__device__ __forceinline__ auto walk_slices(const T* copy, std::int64_t slices, std::int64_t slice) {
  return [=](auto&& key, auto&& step_done) {
    const int lane = threadIdx.x & 31;
    const std::int64_t warps = static_cast<std::int64_t>(gridDim.x) * (blockDim.x / 32);
    for (std::int64_t s = static_cast<std::int64_t>(blockIdx.x) * (blockDim.x / 32) + threadIdx.x / 32; s < slices;
         s += warps) {
      const T* keys = copy + s * slice;
      const auto kept = static_cast<std::int64_t>(reinterpret_cast<const std::uint32_t*>(keys)[0]);
      for (std::int64_t first = 0; first < kept; first += 32) {  // warp-uniform
        const bool valid = first + lane < kept;
        key(valid ? keys[1 + first + lane] : T{}, valid);
        step_done();
      }
    }
  };
}

/// Copies every value whose bin is set in `selected` to out, as read and in any
/// order (bin_scatter_kernel then moves them into their bins' regions). Writing
/// each value into its region here, with a cursor atomic per region per 32 values,
/// would about double this pass's time. Returns at once where bin_reduce_kernel
/// gave the selected bins as intervals (bin_extract_intervals_kernel copies them)
/// or the keys are tagged with their bins (bin_extract_tagged_kernel).
template <class T>
__global__ void __launch_bounds__(tuning::stream_threads, tuning::stream_min_blocks)
    bin_extract_kernel(const T* in, std::int64_t n, const core::bin_map<core::key_t<T>>* map,
                      const std::uint32_t* selected, const core::bin_intervals<core::key_t<T>>* intervals,
                      const bin_prepass_state* state, unsigned long long* cursor, T* out) {
  using K = core::key_t<T>;
  constexpr int words = bin_selected_words;
  __shared__ core::bin_map<K> sm_map;
  __shared__ std::uint32_t sm_selected[words];
  __shared__ T stage[tuning::stream_threads / 32][warp_stage_capacity<bin_extract_flush_at<K>>];
  // Nothing to copy where every rank's bin holds one key (few distinct values).
  if (state->proceed == 0 || state->kept == 0 || intervals->count != 0 || state->tagged != 0) return;
  copy_bin_map(&sm_map, map);
  for (int w = threadIdx.x; w < words; w += blockDim.x) sm_selected[w] = selected[w];
  __syncthreads();
  const std::uint32_t dense = sm_map.num_dense;
  bin_copy_taken<K>(walk_input(in, n), static_cast<std::int64_t>(state->kept), stage[threadIdx.x / 32], cursor, out,
                    [&](T x) {
    const unsigned b = core::bin_of(sm_map, core::key_traits<T>::pre_key(x), dense);
    return ((sm_selected[b / 32] >> (b % 32)) & 1u) != 0;
  });
}

/// bin_extract_kernel's copy where bin_reduce_kernel gave the selected bins as a
/// few pre-key intervals (core/bin_intervals.hpp): a key's pre-key against their
/// bounds, held in registers, instead of its bin; returns at once where it gave
/// none. A kernel of its own: the bounds' registers, in bin_extract_kernel, cost
/// that kernel's bin test its occupancy (docs/performance.md). Reads the count
/// pass's copy instead of the input where it holds every selected bin's keys
/// (state->spec_ok; core/prepass_speculation.hpp).
template <class T>
__global__ void __launch_bounds__(tuning::stream_threads, tuning::stream_min_blocks)
    bin_extract_intervals_kernel(const T* in, std::int64_t n, const T* spec,
                                 const core::bin_intervals<core::key_t<T>>* intervals, const bin_prepass_state* state,
                                 unsigned long long* cursor, T* out) {
  using K = core::key_t<T>;
  __shared__ T stage[tuning::stream_threads / 32][warp_stage_capacity<bin_extract_flush_at<K>>];
  if (state->proceed == 0 || state->kept == 0) return;
  const core::bin_intervals<K> iv = *intervals;
  if (iv.count == 0) return;
  const auto capacity = static_cast<std::int64_t>(state->kept);
  const auto take = [&](T x) { return core::in_bin_intervals(iv, core::key_traits<T>::pre_key(x)); };
  if (state->spec_ok != 0)
    bin_copy_taken<K>(walk_slices(spec, state->spec_slices, state->spec_slice), capacity, stage[threadIdx.x / 32],
                      cursor, out, take);
  else
    bin_copy_taken<K>(walk_input(in, n), capacity, stage[threadIdx.x / 32], cursor, out, take);
}

/// bin_extract_kernel's copy where the count pass tagged every key with its bin
/// (state->tagged; the layout: bin_prepass_types.cuh): a thread reads its tags of
/// a tile (the next tile's are loaded while it works on this one) and stages the
/// positions of its keys whose bins are selected; a warp's flush loads those keys
/// and writes them out (flush_gathered). So the input is read only in the sectors
/// that hold a selected key, and no key's bin is found again. Positions, not
/// values, are staged: a load per tile would leave each tile waiting for it, where
/// a flush waits once for the loads of many tiles. Returns at once elsewhere.
template <class T>
__global__ void __launch_bounds__(tuning::stream_threads)
    bin_extract_tagged_kernel(const T* in, std::int64_t n, const std::uint32_t* selected, const std::uint16_t* tags,
                              const bin_prepass_state* state, unsigned long long* cursor, T* out) {
  constexpr int words = bin_selected_words, items = tuning::stream_items;
  constexpr int vectors = items / bin_tags_per_vector;
  constexpr int flush_at = bin_extract_flush_at<std::int64_t>;
  __shared__ std::uint32_t sm_selected[words];
  __shared__ std::int64_t stage[tuning::stream_threads / 32][warp_stage_capacity<flush_at>];
  if (state->proceed == 0 || state->kept == 0 || state->tagged == 0) return;
  for (int w = threadIdx.x; w < words; w += blockDim.x) sm_selected[w] = selected[w];
  __syncthreads();
  const auto capacity = static_cast<std::int64_t>(state->kept);
  const std::int64_t tiles = (n + tuning::tile_keys - 1) / tuning::tile_keys, full_tiles = n / tuning::tile_keys;
  const bool aligned = reinterpret_cast<std::uintptr_t>(in) % 16 == 0;
  std::int64_t* my_stage = stage[threadIdx.x / 32];
  int staged = 0;
  uint4 next[vectors];
  const auto load_tags = [&](std::int64_t tl) {
#pragma unroll
    for (int v = 0; v < vectors; ++v) next[v] = __ldg(bin_tag_vector(tags, tl, v));
  };
  // Tiles tl, tl + grid, ...: the tiles stream_tiles deals this block.
  std::int64_t tl = blockIdx.x;
  if (tl < tiles) load_tags(tl);
  for (; tl < tiles; tl += gridDim.x) {  // block-uniform
    std::uint16_t bins[items];
    std::memcpy(bins, next, sizeof bins);
    if (tl + gridDim.x < tiles) load_tags(tl + gridDim.x);
#pragma unroll
    for (int i = 0; i < items; ++i) {
      const std::int64_t at = stream_key_index<T>(tl, i, aligned && tl < full_tiles);
      const bool take = at < n && ((sm_selected[bins[i] / 32] >> (bins[i] % 32)) & 1u) != 0;
      stage_by_ballot(take, at, my_stage, staged);
    }
    if (staged > flush_at) flush_gathered(my_stage, staged, cursor, out, capacity, in);
  }
  if (staged > 0) flush_gathered(my_stage, staged, cursor, out, capacity, in);
}

/// bin_scatter_kernel, per tile: reserves each region's run in the copy (one
/// atomic per region), widens the region's key bounds, and turns the runs'
/// counts (run_start) into their starts in the tile.
template <class K, class ScanStorage>
__device__ __forceinline__ void bin_scatter_reserve_runs(std::uint32_t* run_start, std::uint32_t* run_dest,
                                                         const K* run_min, const K* run_max,
                                                         bin_region<K>* region_state, int regions,
                                                         ScanStorage& scan_storage) {
  constexpr int threads = tuning::stream_threads;
  constexpr int regions_per_thread = tuning::bin_prepass_max_ranks / threads;
  std::uint32_t count[regions_per_thread], start[regions_per_thread];
#pragma unroll
  for (int i = 0; i < regions_per_thread; ++i) {
    const int r = threadIdx.x * regions_per_thread + i;
    count[i] = r < regions ? run_start[r] : 0u;
    if (count[i] != 0) {
      run_dest[r] = static_cast<std::uint32_t>(
          atomicAdd(&region_state[r].cursor, static_cast<unsigned long long>(count[i])));
      atomic_widen(&region_state[r].min, &region_state[r].max, run_min[r], run_max[r]);
    }
  }
  cub::BlockScan<std::uint32_t, threads>(scan_storage).ExclusiveSum(count, start);
#pragma unroll
  for (int i = 0; i < regions_per_thread; ++i) {
    const int r = threadIdx.x * regions_per_thread + i;
    if (r < regions) run_start[r] = start[i];
  }
}

/// Moves the filter's copy (values, any order) into the selected bins' regions,
/// as keys (key_traits::to_key), and widens each region's [min, max] key bounds.
/// Per tile of the copy, a block counts the values of each region in shared
/// memory, reserves their places with one atomic per region, orders the tile by
/// region in shared memory and writes each region's run contiguously. The bins
/// come from the values as read, as in the filter: a key alone would lose which
/// of -0.0 / +0.0 or which NaN it was, and so its bin.
template <class T>
__global__ void __launch_bounds__(tuning::stream_threads)
    bin_scatter_kernel(const T* copy, const core::bin_map<core::key_t<T>>* map, const std::uint32_t* selected,
                       const std::uint32_t* selected_before_word, bin_region<core::key_t<T>>* region_state,
                       const bin_prepass_state* state, core::key_t<T>* out) {
  using K = core::key_t<T>;
  constexpr int words = bin_selected_words;
  constexpr int threads = tuning::stream_threads, items = bin_scatter_items<K>, tile = threads * items;
  constexpr int max_regions = tuning::bin_prepass_max_ranks;
  using scan = cub::BlockScan<std::uint32_t, threads>;
  __shared__ core::bin_map<K> sm_map;
  __shared__ std::uint32_t sm_selected[words];
  __shared__ std::uint32_t sm_before[words];
  __shared__ typename scan::TempStorage scan_storage;
  // Per region: the tile's values (then where its run starts in the tile), where
  // the run goes in the copy (32 bits: the copy holds fewer than 2^32 keys,
  // workspace.hpp caps it), and the tile's smallest and largest key.
  __shared__ std::uint32_t run_start[max_regions];
  __shared__ std::uint32_t run_dest[max_regions];
  __shared__ K run_min[max_regions];
  __shared__ K run_max[max_regions];
  __shared__ K staged_key[tile];
  __shared__ std::uint16_t staged_region[tile];
  if (state->proceed == 0) return;
  const auto kept = static_cast<std::int64_t>(state->kept);
  const int regions = static_cast<int>(state->regions);
  copy_bin_map(&sm_map, map);
  for (int w = threadIdx.x; w < words; w += threads) {
    sm_selected[w] = selected[w];
    sm_before[w] = selected_before_word[w];
  }
  for (std::int64_t base = blockIdx.x * std::int64_t(tile); base < kept; base += gridDim.x * std::int64_t(tile)) {
    for (int r = threadIdx.x; r < regions; r += threads) {
      run_start[r] = 0;
      run_min[r] = static_cast<K>(~K(0));
      run_max[r] = 0;
    }
    __syncthreads();
    T x[items];
#pragma unroll
    for (int i = 0; i < items; ++i) {
      const std::int64_t idx = base + i * threads + threadIdx.x;
      x[i] = idx < kept ? copy[idx] : T{};
    }
    unsigned region[items], offset[items];
#pragma unroll
    for (int i = 0; i < items; ++i) {
      if (base + i * threads + threadIdx.x >= kept) continue;
      region[i] = bin_region_of(sm_selected, sm_before, core::bin_of(sm_map, core::key_traits<T>::pre_key(x[i])));
      const K key = core::key_traits<T>::to_key(x[i]);
      offset[i] = atomicAdd(&run_start[region[i]], 1u);
      atomic_widen(&run_min[region[i]], &run_max[region[i]], key, key);
    }
    __syncthreads();
    bin_scatter_reserve_runs(run_start, run_dest, run_min, run_max, region_state, regions, scan_storage);
    __syncthreads();
#pragma unroll
    for (int i = 0; i < items; ++i) {
      if (base + i * threads + threadIdx.x >= kept) continue;
      const unsigned at = run_start[region[i]] + offset[i];
      staged_key[at] = core::key_traits<T>::to_key(x[i]);
      staged_region[at] = static_cast<std::uint16_t>(region[i]);
    }
    __syncthreads();
    const int in_tile = static_cast<int>(kept - base < tile ? kept - base : tile);
    for (int at = threadIdx.x; at < in_tile; at += threads) {
      const unsigned r = staged_region[at];
      out[run_dest[r] + (at - run_start[r])] = staged_key[at];
    }
    __syncthreads();
  }
}

}  // namespace kselect::cuda
