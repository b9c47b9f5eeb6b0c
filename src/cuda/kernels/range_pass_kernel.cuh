// The fused pass of a rank-range selection: every key is read once and
// classified by the tests of range_plan_kernel (plan/range_plan.hpp); keys inside
// the range go straight to the output (with their indices), keys in a boundary
// window to the candidate buffer (value and index), keys below the range are
// counted. Later levels run the same pass over the previous level's candidates.
//
// Writes are compacted per warp (ballot-based, as in the ballot compaction
// paper) into a staging run in shared memory, per warp and class; a warp
// reserves output slots with one global atomic when its run fills (or for a
// tile with more keys than the run holds, written straight out) and copies the
// run out coalesced. A returning atomic per warp tile, as before, serialised at
// one L2 slice: at k = 2^20 of 2^28 (a key or two in most of the 2^19 warp
// tiles) the pass took 2.5x the read floor. (A decoupled look-back per warp
// tile, tried instead, took 3.5x: its 32-lane status reads and spins are
// latency the pass cannot hide.) The order across warps follows the atomics
// (not deterministic: range_dispatch.cuh orders the output afterwards when
// asked).
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "cuda/kernels/load_tile.cuh"
#include "cuda/kernels/range_state.cuh"
#include "cuda/kernels/warp_stage.cuh"
#include "cuda/tuning.hpp"
#include "plan/range_plan.hpp"

namespace kselect::cuda_detail {

/// Where the pass writes.
template <class T>
struct range_pass_out {
  T* keys;                  ///< the output; inside keys go to [at, at + capacity), as read
  void* indices;            ///< their input positions (index_bytes each), same places, or null
  int index_bytes;
  std::int64_t at;          ///< output position of this pass's first inside key
  std::int64_t capacity;    ///< room left in the output
  T* cand_vals;             ///< candidates, as read
  std::uint64_t* cand_idx;  ///< candidates' input positions
  std::int64_t cand_capacity;
};

/// Stores index `pos` as a 4- or 8-byte integer.
__device__ __forceinline__ void store_index(void* indices, int index_bytes, std::int64_t at, std::int64_t pos) {
  if (index_bytes == 4) static_cast<std::int32_t*>(indices)[at] = static_cast<std::int32_t>(pos);
  else static_cast<std::int64_t*>(indices)[at] = pos;
}

/// A warp's staging run of one class in shared memory: keys and their input
/// positions, flushed to global memory when full.
template <class T>
struct stage_run {
  T* keys;
  std::uint64_t* pos;
  unsigned fill;
};

/// Reserves `count` slots of a global run with one atomic (lane 0) and returns
/// the first to every lane.
__device__ __forceinline__ std::int64_t reserve_slots(unsigned long long* counter, unsigned count) {
  unsigned long long first = 0;
  if (threadIdx.x % 32 == 0) first = atomicAdd(counter, static_cast<unsigned long long>(count));
  return static_cast<std::int64_t>(__shfl_sync(0xffffffffu, first, 0));
}

/// explicit_idx: the source is a previous level's candidates, whose input
/// positions are in src_idx; otherwise the input itself.
template <class T, bool explicit_idx>
__global__ void __launch_bounds__(tuning::stream_threads, tuning::stream_min_blocks)
    range_pass_kernel(range_state<plan::key_t<T>>* st, const T* src, const std::uint64_t* src_idx, std::int64_t size,
                      range_pass_out<T> out) {
  using K = plan::key_t<T>;
  constexpr int threads = tuning::stream_threads;
  constexpr int warps = threads / 32;
  constexpr int items = tuning::stream_items;
  constexpr std::int64_t tile = tuning::tile_keys;
  constexpr int per_vec = 16 / static_cast<int>(sizeof(T));
  constexpr unsigned run = tuning::range_stage_keys;
  static_assert(items <= 16, "two class bits per key in one 32-bit word");

  __shared__ T stage_keys[2][warps][run];
  __shared__ std::uint64_t stage_pos[2][warps][run];
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  stage_run<T> runs[2] = {{stage_keys[0][warp], stage_pos[0][warp], 0}, {stage_keys[1][warp], stage_pos[1][warp], 0}};

  const plan::range_tests<K> t = st->tests;
  const unsigned lanes_before = (1u << lane) - 1;
  const bool aligned = reinterpret_cast<std::uintptr_t>(src) % 16 == 0;
  unsigned below = 0, lo_cand = 0;

  // Writes entry j of a class's output run (0: the output, 1: the candidates).
  auto write_out = [&](int cls, std::int64_t at, T key, std::uint64_t pos) {
    if (cls == 0) {
      if (at < out.capacity) {
        out.keys[out.at + at] = key;
        if (out.indices) store_index(out.indices, out.index_bytes, out.at + at, static_cast<std::int64_t>(pos));
      }
    } else if (at < out.cand_capacity) {
      out.cand_vals[at] = key;
      out.cand_idx[at] = pos;
    }
  };
  // Copies a class's staging run out (one reservation) and empties it.
  auto flush = [&](int cls) {
    stage_run<T>& r = runs[cls];
    if (r.fill == 0) return;  // uniform
    __syncwarp();
    const std::int64_t first = reserve_slots(cls == 0 ? &st->inside : &st->cand, r.fill);
    for (unsigned j = lane; j < r.fill; j += 32) write_out(cls, first + j, r.keys[j], r.pos[j]);
    __syncwarp();
    r.fill = 0;
  };

  const std::int64_t tiles = (size + tile - 1) / tile;
  for (std::int64_t tl = blockIdx.x; tl < tiles; tl += gridDim.x) {
    const std::int64_t base = tl * tile;
    const bool full = base + tile <= size;
    // Position of key i of this thread in the tile: vector loads give each thread
    // per_vec consecutive keys per vector; scalar loads stride by the block.
    auto position = [&](int i) -> std::int64_t {
      if (full && aligned) return base + (static_cast<std::int64_t>(i / per_vec) * threads + threadIdx.x) * per_vec + i % per_vec;
      return base + static_cast<std::int64_t>(i) * threads + threadIdx.x;
    };
    auto input_index = [&](int i) -> std::uint64_t {
      if constexpr (explicit_idx) return src_idx[position(i)];
      else return static_cast<std::uint64_t>(position(i));
    };
    T vals[items];
    if (full && aligned) {
      const int4* vsrc = reinterpret_cast<const int4*>(src + base);
      int4 raw[items / per_vec];
#pragma unroll
      for (int v = 0; v < items / per_vec; ++v) raw[v] = __ldg(vsrc + v * threads + threadIdx.x);
      std::memcpy(vals, raw, sizeof vals);
    } else {
#pragma unroll
      for (int i = 0; i < items; ++i) {
        const std::int64_t at = position(i);
        vals[i] = at < size ? load_readonly(src + at) : T{};
      }
    }

    // Classify: two bits per key (1 inside, 2 candidate). Full tiles take a
    // copy of the loop without the bounds test: with it, the 64-bit position
    // arithmetic of every key tripled the instructions per key, and the pass
    // is bound by integer throughput, not memory, at ~25 instructions a key.
    unsigned classes = 0;
    auto classify = [&](auto full_tag) {
#pragma unroll
      for (int i = 0; i < items; ++i) {
        bool valid = true;
        if constexpr (!decltype(full_tag)::value) valid = position(i) < size;
        const K p = plan::range_pre_key<T>(vals[i], t.flip);
        below += valid && t.below.contains(p);
        const bool in_lo = valid && t.lo_window.contains(p);
        lo_cand += in_lo;
        const bool cand = in_lo || (valid && t.hi_window.contains(p));
        const bool in = valid && t.inside.contains(p);
        classes |= (in ? 1u : 0u) << (2 * i);
        classes |= (cand ? 2u : 0u) << (2 * i);
      }
    };
    // Top-k's form (plan::split_test): nothing below, no low window; ~11 SASS
    // instructions a key against ~20.
    auto classify_split = [&](auto full_tag) {
#pragma unroll
      for (int i = 0; i < items; ++i) {
        bool valid = true;
        if constexpr (!decltype(full_tag)::value) valid = position(i) < size;
        const K d = static_cast<K>(plan::range_pre_key<T>(vals[i], t.flip) - t.split.first);
        const bool below_split = d < t.split.split;
        const bool in = valid && below_split;
        const bool cand = valid && !below_split && d <= t.split.last;
        classes |= (in ? 1u : 0u) << (2 * i);
        classes |= (cand ? 2u : 0u) << (2 * i);
      }
    };
    if (t.split.enabled) {  // uniform
      if (full) classify_split(std::true_type{});
      else classify_split(std::false_type{});
    } else {
      if (full) classify(std::true_type{});
      else classify(std::false_type{});
    }
    const unsigned n_in = __popc(classes & 0x55555555u), n_cand = __popc(classes & 0xaaaaaaaau);
    const unsigned w_count[2] = {__reduce_add_sync(0xffffffffu, n_in), __reduce_add_sync(0xffffffffu, n_cand)};
    if (w_count[0] + w_count[1] == 0) continue;  // warp-uniform
    // Per class: keys that fit the staging run go there (flushed first if they
    // would overflow it); a tile with more keys than a run holds (a dense range)
    // reserves its own slots and writes straight out.
    bool direct[2];
    std::int64_t at[2] = {0, 0};
#pragma unroll
    for (int cls = 0; cls < 2; ++cls) {
      direct[cls] = w_count[cls] > run;
      if (w_count[cls] == 0) continue;
      if (direct[cls]) at[cls] = reserve_slots(cls == 0 ? &st->inside : &st->cand, w_count[cls]);
      else if (runs[cls].fill + w_count[cls] > run) flush(cls);
    }
    // Items where no lane of the warp has a key are skipped (a sparse
    // selection has a key or two in most warp tiles).
    const unsigned w_classes = __reduce_or_sync(0xffffffffu, classes);
#pragma unroll
    for (int i = 0; i < items; ++i) {
      const unsigned wc = (w_classes >> (2 * i)) & 3u;
      if (wc == 0) continue;  // uniform
      const unsigned c = (classes >> (2 * i)) & 3u;
#pragma unroll
      for (int cls = 0; cls < 2; ++cls) {
        if (!(wc & (1u << cls))) continue;  // uniform
        const unsigned b = __ballot_sync(0xffffffffu, c == 1u + cls);
        if (c == 1u + cls) {
          const unsigned rank = __popc(b & lanes_before);
          if (direct[cls]) {
            write_out(cls, at[cls] + rank, vals[i], input_index(i));
          } else {
            runs[cls].keys[runs[cls].fill + rank] = vals[i];
            runs[cls].pos[runs[cls].fill + rank] = input_index(i);
          }
        }
        if (direct[cls]) at[cls] += __popc(b);
        else runs[cls].fill += __popc(b);
      }
    }
  }
  flush(0);
  flush(1);
  const unsigned long long b = warp_sum(below), l = warp_sum(lo_cand);
  if (lane == 0) {
    if (b) atomicAdd(&st->below, b);
    if (l) atomicAdd(&st->lo_cand, l);
  }
}

}  // namespace kselect::cuda_detail
