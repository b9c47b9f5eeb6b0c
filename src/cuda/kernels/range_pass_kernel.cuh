// The fused pass of a rank-range selection: every key is read once and
// classified by the tests of range_plan_kernel (plan/range_plan.hpp); keys inside
// the range go straight to the output (with their indices), keys in a boundary
// window to the candidate buffer (ordered key and index), keys below the range
// are counted.
//
// Writes are compacted per tile (ballot-based, as in the ballot compaction
// paper): each warp counts its selected keys, one barrier shares the warp
// totals, one global atomic per class reserves the tile's run, and each warp
// then writes its keys with consecutive lanes on consecutive addresses, so a
// dense range (top-k with k = n/2) streams out coalesced. Within a tile the
// order is slot by slot; across tiles it follows the atomics (not
// deterministic: range_dispatch.cuh orders the output afterwards when asked).
#pragma once

#include <cstdint>
#include <cstring>

#include "cuda/kernels/load_tile.cuh"
#include "cuda/kernels/range_state.cuh"
#include "cuda/kernels/warp_stage.cuh"
#include "cuda/tuning.hpp"
#include "plan/range_plan.hpp"

namespace kselect::cuda_detail {

/// Where the pass writes.
template <class T>
struct range_pass_out {
  T* keys;                       ///< inside keys, as read
  void* indices;                 ///< their input positions (index_bytes each), or null
  int index_bytes;
  std::int64_t capacity;         ///< hi - lo
  plan::key_t<T>* cand_keys;     ///< candidates' ordered keys (flipped)
  std::uint64_t* cand_idx;  ///< candidates' input positions
  std::int64_t cand_capacity;
};

/// Stores index `pos` as a 4- or 8-byte integer.
__device__ __forceinline__ void store_index(void* indices, int index_bytes, std::int64_t at, std::int64_t pos) {
  if (index_bytes == 4) static_cast<std::int32_t*>(indices)[at] = static_cast<std::int32_t>(pos);
  else static_cast<std::int64_t*>(indices)[at] = pos;
}

template <class T>
__global__ void __launch_bounds__(tuning::stream_threads, tuning::stream_min_blocks)
    range_pass_kernel(range_state<plan::key_t<T>>* st, const T* src, std::int64_t size, range_pass_out<T> out) {
  using K = plan::key_t<T>;
  constexpr int threads = tuning::stream_threads;
  constexpr int items = tuning::stream_items;
  constexpr int warps = threads / 32;
  constexpr std::int64_t tile = tuning::tile_keys;
  constexpr int per_vec = 16 / static_cast<int>(sizeof(T));
  static_assert(items <= 16, "two class bits per key in one 32-bit word");
  static_assert(tile / warps <= 0xffff, "a warp's count of one class fits 16 bits");

  // Warp totals (inside << 16 | candidates) and the tile's bases, double-buffered
  // by tile parity so that a warp may start the next tile while others read.
  __shared__ unsigned warp_totals[2][warps];
  __shared__ unsigned long long tile_base[2][2];

  const plan::range_tests<K> t = st->tests;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const unsigned lanes_before = (1u << lane) - 1;
  const bool aligned = reinterpret_cast<std::uintptr_t>(src) % 16 == 0;
  unsigned below = 0, lo_cand = 0;
  int parity = 0;

  const std::int64_t tiles = (size + tile - 1) / tile;
  for (std::int64_t tl = blockIdx.x; tl < tiles; tl += gridDim.x, parity ^= 1) {
    const std::int64_t base = tl * tile;
    const bool full = base + tile <= size;
    // Position of key i of this thread in the tile: vector loads give each thread
    // per_vec consecutive keys per vector; scalar loads stride by the block.
    auto position = [&](int i) -> std::int64_t {
      if (full && aligned) return base + (static_cast<std::int64_t>(i / per_vec) * threads + threadIdx.x) * per_vec + i % per_vec;
      return base + static_cast<std::int64_t>(i) * threads + threadIdx.x;
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

    // Classify: two bits per key (1 inside, 2 candidate).
    unsigned classes = 0, n_in = 0, n_cand = 0;
#pragma unroll
    for (int i = 0; i < items; ++i) {
      const bool valid = full || position(i) < size;
      const K p = plan::range_pre_key<T>(vals[i], t.flip);
      below += valid && t.below.contains(p);
      const bool in_lo = valid && t.lo_window.contains(p);
      lo_cand += in_lo;
      const bool cand = in_lo || (valid && t.hi_window.contains(p));
      const bool in = valid && t.inside.contains(p);
      classes |= (in ? 1u : 0u) << (2 * i);
      classes |= (cand ? 2u : 0u) << (2 * i);
      n_in += in;
      n_cand += cand;
    }
    const unsigned w_in = __reduce_add_sync(0xffffffffu, n_in);
    const unsigned w_cand = __reduce_add_sync(0xffffffffu, n_cand);
    if (lane == 0) warp_totals[parity][warp] = (w_in << 16) | w_cand;
    __syncthreads();
    unsigned tile_in = 0, tile_cand = 0, before_in = 0, before_cand = 0;
#pragma unroll
    for (int w = 0; w < warps; ++w) {
      const unsigned v = warp_totals[parity][w];
      if (w == warp) {
        before_in = tile_in;
        before_cand = tile_cand;
      }
      tile_in += v >> 16;
      tile_cand += v & 0xffffu;
    }
    if (tile_in + tile_cand == 0) continue;  // block-uniform
    if (threadIdx.x == 0) {
      tile_base[parity][0] = tile_in ? atomicAdd(&st->inside, static_cast<unsigned long long>(tile_in)) : 0;
      tile_base[parity][1] = tile_cand ? atomicAdd(&st->cand, static_cast<unsigned long long>(tile_cand)) : 0;
    }
    __syncthreads();
    std::int64_t at_in = static_cast<std::int64_t>(tile_base[parity][0]) + before_in;
    std::int64_t at_cand = static_cast<std::int64_t>(tile_base[parity][1]) + before_cand;
    if (w_in + w_cand == 0) continue;  // warp-uniform
#pragma unroll
    for (int i = 0; i < items; ++i) {
      const unsigned c = (classes >> (2 * i)) & 3u;
      const unsigned b_in = __ballot_sync(0xffffffffu, c == 1u);
      const unsigned b_cand = __ballot_sync(0xffffffffu, c == 2u);
      if (c == 1u) {
        const std::int64_t at = at_in + __popc(b_in & lanes_before);
        if (at < out.capacity) {
          out.keys[at] = vals[i];
          if (out.indices) store_index(out.indices, out.index_bytes, at, position(i));
        }
      } else if (c == 2u) {
        const std::int64_t at = at_cand + __popc(b_cand & lanes_before);
        if (at < out.cand_capacity) {
          out.cand_keys[at] = static_cast<K>(plan::key_traits<T>::to_key(vals[i]) ^ t.flip);
          out.cand_idx[at] = static_cast<std::uint64_t>(position(i));
        }
      }
      at_in += __popc(b_in);
      at_cand += __popc(b_cand);
    }
  }
  const unsigned long long b = warp_sum(below), l = warp_sum(lo_cand);
  if (lane == 0) {
    if (b) atomicAdd(&st->below, b);
    if (l) atomicAdd(&st->lo_cand, l);
  }
}

}  // namespace kselect::cuda_detail
