// The fused pass of a rank-range selection: every key is read once and
// classified by the tests of range_plan_kernel (plan/range_plan.hpp); keys inside
// the range go straight to the output (with their indices), keys in a boundary
// window to the candidate buffer (value and index), keys below the range are
// counted. Later levels run the same pass over the previous level's candidates.
//
// Writes are compacted per warp (ballot-based, as in the ballot compaction
// paper): each warp counts its selected keys, one global atomic per class
// reserves the warp's run, and the warp writes its keys slot by slot with
// consecutive lanes on consecutive addresses, so a dense range (top-k with
// k = n/2) streams out coalesced. The order across warps follows the atomics
// (not deterministic: range_dispatch.cuh orders the output afterwards when asked).
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

/// explicit_idx: the source is a previous level's candidates, whose input
/// positions are in src_idx; otherwise the input itself.
template <class T, bool explicit_idx>
__global__ void __launch_bounds__(tuning::stream_threads, tuning::stream_min_blocks)
    range_pass_kernel(range_state<plan::key_t<T>>* st, const T* src, const std::uint64_t* src_idx, std::int64_t size,
                      range_pass_out<T> out) {
  using K = plan::key_t<T>;
  constexpr int threads = tuning::stream_threads;
  constexpr int items = tuning::stream_items;
  constexpr std::int64_t tile = tuning::tile_keys;
  constexpr int per_vec = 16 / static_cast<int>(sizeof(T));
  static_assert(items <= 16, "two class bits per key in one 32-bit word");

  const plan::range_tests<K> t = st->tests;
  const int lane = threadIdx.x % 32;
  const unsigned lanes_before = (1u << lane) - 1;
  const bool aligned = reinterpret_cast<std::uintptr_t>(src) % 16 == 0;
  unsigned below = 0, lo_cand = 0;

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
    if (full) classify(std::true_type{});
    else classify(std::false_type{});
    const unsigned n_in = __popc(classes & 0x55555555u), n_cand = __popc(classes & 0xaaaaaaaau);
    const unsigned w_in = __reduce_add_sync(0xffffffffu, n_in);
    const unsigned w_cand = __reduce_add_sync(0xffffffffu, n_cand);
    if (w_in + w_cand == 0) continue;  // warp-uniform
    // One atomic per warp and class reserves the warp's run: no block barrier,
    // so no warp waits for the slowest one's loads (a per-tile barrier made the
    // pass 2x the read floor on the H100 even when nothing was selected).
    unsigned long long base_in = 0, base_cand = 0;
    if (lane == 0) {
      if (w_in) base_in = atomicAdd(&st->inside, static_cast<unsigned long long>(w_in));
      if (w_cand) base_cand = atomicAdd(&st->cand, static_cast<unsigned long long>(w_cand));
    }
    std::int64_t at_in = static_cast<std::int64_t>(__shfl_sync(0xffffffffu, base_in, 0));
    std::int64_t at_cand = static_cast<std::int64_t>(__shfl_sync(0xffffffffu, base_cand, 0));
#pragma unroll
    for (int i = 0; i < items; ++i) {
      const unsigned c = (classes >> (2 * i)) & 3u;
      const unsigned b_in = __ballot_sync(0xffffffffu, c == 1u);
      const unsigned b_cand = __ballot_sync(0xffffffffu, c == 2u);
      if (c == 1u) {
        const std::int64_t at = at_in + __popc(b_in & lanes_before);
        if (at < out.capacity) {
          out.keys[out.at + at] = vals[i];
          if (out.indices)
            store_index(out.indices, out.index_bytes, out.at + at, static_cast<std::int64_t>(input_index(i)));
        }
      } else if (c == 2u) {
        const std::int64_t at = at_cand + __popc(b_cand & lanes_before);
        if (at < out.cand_capacity) {
          out.cand_vals[at] = vals[i];
          out.cand_idx[at] = input_index(i);
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
