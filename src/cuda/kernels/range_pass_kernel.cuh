// The fused pass of a rank-range selection: every key is read once and
// classified by the tests of range_plan_kernel (core/range_plan.hpp); keys inside
// the range go straight to the output (with their indices), keys in a boundary
// window to the candidate buffer (value and index), keys below the range are
// counted. Later levels run the same pass over the previous level's candidates.
//
// Writes are staged per warp in shared memory: after classifying its tile, a
// warp stores its keys item by item into its stage (the output run from the
// front, the candidates from the back; a lane's slot is a ballot's prefix,
// the stores predicated: no branch per key), and when the next tile might not
// fit, the warp reserves output slots with one global atomic per class and
// copies the stage out coalesced. The stage holds a whole warp tile, so a dense
// range (k = n/2) takes the same path as a sparse one, and a sparse one still
// fills the stage over many tiles before it reserves. (A returning atomic per warp tile, tried
// first, serialised at one L2 slice: at k = 2^20 of 2^28 the pass took 2.5x the
// read floor; a decoupled look-back per warp tile took 3.5x. The per-key
// form this replaces (ballots and a branch per key and class, a direct path
// for dense tiles) ran ~92 warp instructions per 32 keys at k = n/2, and its
// unrolled size missed the instruction cache (48% of stalls at k = 2^20):
// Nsight Compute, H100, bench/results/h100-2026-11-22-0671479-ncu.txt.) The order across warps
// follows the atomics (not deterministic: range_dispatch.cuh orders the output
// afterwards when asked).
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "cuda/kernels/load_tile.cuh"
#include "cuda/kernels/range_state.cuh"
#include "cuda/kernels/warp_stage.cuh"
#include "cuda/tuning.hpp"
#include "core/range_plan.hpp"

namespace kselect::cuda {

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
  /// Deterministic order by bitmap (level 0 only, else null;
  /// range_order_kernels.cuh): a bit per input position, set for the inside
  /// keys (the words where the warp has any; the bitmap was cleared); and the
  /// inside keys per input tile, added to.
  std::uint32_t* order_bits;
  unsigned long long* order_counts;
};

/// Stores index `pos` as a 4- or 8-byte integer.
__device__ __forceinline__ void store_index(void* indices, int index_bytes, std::int64_t at, std::int64_t pos) {
  if (index_bytes == 4) static_cast<std::int32_t*>(indices)[at] = static_cast<std::int32_t>(pos);
  else static_cast<std::int64_t*>(indices)[at] = pos;
}

/// Stores v to shared memory at a 32-bit shared address if `take`, as one
/// predicated store. (Written in C++, the compiler branched around the stores
/// and, short of registers, rebuilt the stage's address from the block's shared
/// window before each: ~27 instructions a key where this takes ~16.)
__device__ __forceinline__ void store_shared_if(bool take, std::uint32_t addr, std::uint32_t v) {
  asm volatile("{ .reg .pred p; setp.ne.u32 p, %2, 0; @p st.shared.b32 [%0], %1; }" ::"r"(addr), "r"(v),
               "r"(static_cast<unsigned>(take))
               : "memory");
}
__device__ __forceinline__ void store_shared_if(bool take, std::uint32_t addr, std::uint64_t v) {
  asm volatile("{ .reg .pred p; setp.ne.u32 p, %2, 0; @p st.shared.b64 [%0], %1; }" ::"r"(addr), "l"(v),
               "r"(static_cast<unsigned>(take))
               : "memory");
}

/// The order bitmap's words of this warp's part of a tile (range_pass_out::
/// order_bits): bit p of the tile's words is set when the key at tile offset p
/// is inside. Vector loads gave each lane per_vec consecutive keys per vector,
/// so a word gathers the bits of 32 / per_vec lanes; scalar loads, a ballot.
/// Vectors (items) where no lane of the warp has an inside key are skipped
/// (w_classes: the warp's classes or-ed): their words stay clear. (Written for
/// every vector, the words cost the k = 2^20 pass 0.07 ms.)
template <class T>
__device__ __forceinline__ void write_order_words(std::uint32_t* words, unsigned classes, unsigned w_classes,
                                                  bool vector) {
  constexpr int threads = tuning::stream_threads, items = tuning::stream_items;
  constexpr int per_vec = 16 / static_cast<int>(sizeof(T)), lanes_per_word = 32 / per_vec;
  const unsigned lane = threadIdx.x % 32;
  if (vector) {
#pragma unroll
    for (int v = 0; v < items / per_vec; ++v) {
      unsigned inside_bits = 0;
#pragma unroll
      for (int s = 0; s < per_vec; ++s) inside_bits |= 1u << (2 * (v * per_vec + s));
      if ((w_classes & inside_bits) == 0) continue;  // uniform
      std::uint32_t bits = 0;
#pragma unroll
      for (int s = 0; s < per_vec; ++s) bits |= ((classes >> (2 * (v * per_vec + s))) & 1u) << s;
      bits <<= per_vec * (lane % lanes_per_word);
#pragma unroll
      for (int d = 1; d < lanes_per_word; d *= 2) bits |= __shfl_xor_sync(0xffffffffu, bits, d);
      if (lane % lanes_per_word == 0) words[((v * threads + threadIdx.x) * per_vec) / 32] = bits;
    }
  } else {
#pragma unroll
    for (int i = 0; i < items; ++i) {
      if (((w_classes >> (2 * i)) & 1u) == 0) continue;  // uniform
      const std::uint32_t bits = __ballot_sync(0xffffffffu, (classes >> (2 * i)) & 1u);
      if (lane == 0) words[(i * threads + threadIdx.x) / 32] = bits;
    }
  }
}

/// Tile rounds a block may take in the range pass: a staged key's position is
/// kept as (round << 12 | offset in the tile) in 32 bits (range_dispatch.cuh
/// raises the grid so that no block takes more).
inline constexpr std::int64_t range_pass_max_rounds = std::int64_t(1) << (32 - 12);
static_assert(tuning::tile_keys == 4096, "12 bits of a staged position are the offset in the tile");

/// explicit_idx: the source is a previous level's candidates, whose input
/// positions are in src_idx; otherwise the input itself.
template <class T, bool explicit_idx>
__global__ void __launch_bounds__(tuning::stream_threads, tuning::stream_min_blocks)
    range_pass_kernel(range_state<core::key_t<T>>* st, const T* src, const std::uint64_t* src_idx, std::int64_t size,
                      range_pass_out<T> out) {
  using K = core::key_t<T>;
  constexpr int threads = tuning::stream_threads;
  constexpr int warps = threads / 32;
  constexpr int items = tuning::stream_items;
  constexpr std::int64_t tile = tuning::tile_keys;
  constexpr int per_vec = 16 / static_cast<int>(sizeof(T));
  // A stage holds a whole warp tile: the output run grows from its front, the
  // candidates from its back.
  constexpr unsigned stage = 32 * items;
  static_assert(items <= 16, "two class bits per key in one 32-bit word");

  __shared__ T stage_keys[warps][stage];
  __shared__ std::uint32_t stage_pos[warps][stage];
  const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const unsigned lanes_before = (1u << lane) - 1;
  T* const keys = stage_keys[warp];
  std::uint32_t* const pos = stage_pos[warp];
  unsigned fill[2] = {0, 0};  // warp-uniform: staged output keys, staged candidates
  using uint_bits = std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>;
  const auto keys_addr = static_cast<std::uint32_t>(__cvta_generic_to_shared(keys));
  const auto pos_addr = static_cast<std::uint32_t>(__cvta_generic_to_shared(pos));

  const core::range_tests<K> t = st->tests;
  const bool aligned = reinterpret_cast<std::uintptr_t>(src) % 16 == 0;
  unsigned below = 0, lo_cand = 0;

  // A class's stage goes out in two steps: reserve (lane 0's atomic, its
  // result not yet waited for), then copy_out (the first slot to every lane,
  // the stage copied out coalesced, emptied).
  // (fill is read and written by constant index only: indexed by a runtime
  // class, it went to local memory.)
  auto staged = [&](int cls) { return cls == 0 ? fill[0] : fill[1]; };
  auto reserve = [&](int cls) -> unsigned long long {
    unsigned long long first = 0;
    if (lane == 0) first = atomicAdd(cls == 0 ? &st->inside : &st->cand, static_cast<unsigned long long>(staged(cls)));
    return first;
  };
  auto copy_out = [&](int cls, unsigned long long reserved) {
    const unsigned count = staged(cls);
    const auto first = static_cast<std::int64_t>(__shfl_sync(0xffffffffu, reserved, 0));
    const unsigned from = cls == 0 ? 0u : stage - count;
    for (unsigned j = lane; j < count; j += 32) {
      const std::uint32_t p = pos[from + j];
      const std::int64_t tl = blockIdx.x + static_cast<std::int64_t>(p >> 12) * gridDim.x;
      const std::int64_t at_src = tl * tile + (p & (tile - 1));
      std::uint64_t index = static_cast<std::uint64_t>(at_src);
      if constexpr (explicit_idx) index = src_idx[at_src];
      const T key = keys[from + j];
      const std::int64_t at = first + j;
      if (cls == 0) {
        if (at < out.capacity) {
          out.keys[out.at + at] = key;
          if (out.indices) store_index(out.indices, out.index_bytes, out.at + at, static_cast<std::int64_t>(index));
        }
      } else if (at < out.cand_capacity) {
        out.cand_vals[at] = key;
        out.cand_idx[at] = index;
      }
    }
    if (cls == 0) fill[0] = 0;
    else fill[1] = 0;
  };
  auto flush = [&](int cls) {
    if (staged(cls) != 0) copy_out(cls, reserve(cls));  // uniform
  };

  const std::int64_t tiles = (size + tile - 1) / tile;
  std::uint32_t round = 0;
  for (std::int64_t tl = blockIdx.x; tl < tiles; tl += gridDim.x, ++round) {
    const std::int64_t base = tl * tile;
    const bool full = base + tile <= size;
    const bool vector = full && aligned;
    // Offset of key i of this thread in the tile: vector loads give each thread
    // per_vec consecutive keys per vector; scalar loads stride by the block.
    auto offset = [&](int i) -> std::uint32_t {
      if (vector) return static_cast<std::uint32_t>(((i / per_vec) * threads + threadIdx.x) * per_vec + i % per_vec);
      return static_cast<std::uint32_t>(i * threads + threadIdx.x);
    };
    // A class whose stage holds a quarter of it or more reserves its output
    // slots before this tile's loads are issued and is copied out after: the
    // atomic's round trip overlaps the loads. (Reserved between a tile's keys
    // and the next tile's loads, the wait for it was two thirds of the stall
    // samples of the pass at k = n/2, which then took 1.50 ms: Nsight
    // Compute, H100.)
    const bool early[2] = {fill[0] >= stage / 4, fill[1] >= stage / 4};  // uniform
    unsigned long long reserved[2] = {0, 0};
    if (early[0]) reserved[0] = reserve(0);
    if (early[1]) reserved[1] = reserve(1);
    T vals[items];
    if (vector) {
      const int4* vsrc = reinterpret_cast<const int4*>(src + base);
      int4 raw[items / per_vec];
#pragma unroll
      for (int v = 0; v < items / per_vec; ++v) raw[v] = __ldg(vsrc + v * threads + threadIdx.x);
      std::memcpy(vals, raw, sizeof vals);
    } else {
#pragma unroll
      for (int i = 0; i < items; ++i) {
        const std::int64_t at = base + offset(i);
        vals[i] = at < size ? load_readonly(src + at) : T{};
      }
    }
    if (early[0] || early[1]) {  // uniform
      __syncwarp();  // the stage as the last tile's stores left it
      // One copy of the copy loop (the code's size matters: see above).
#pragma unroll 1
      for (int cls = 0; cls < 2; ++cls)
        if (cls == 0 ? early[0] : early[1]) copy_out(cls, cls == 0 ? reserved[0] : reserved[1]);
      __syncwarp();
    }

    // Classify: two bits per key (1 inside, 2 candidate). Full tiles take a
    // copy of the loop without the bounds test (the 64-bit position arithmetic
    // of every key would triple the instructions per key).
    unsigned classes = 0;
    auto classify = [&](auto full_tag) {
#pragma unroll
      for (int i = 0; i < items; ++i) {
        bool valid = true;
        if constexpr (!decltype(full_tag)::value) valid = base + offset(i) < size;
        const K p = core::range_pre_key<T>(vals[i], t.flip);
        below += valid && t.below.contains(p);
        const bool in_lo = valid && t.lo_window.contains(p);
        lo_cand += in_lo;
        const bool cand = in_lo || (valid && t.hi_window.contains(p));
        const bool in = valid && t.inside.contains(p);
        classes |= (in ? 1u : 0u) << (2 * i);
        classes |= (cand ? 2u : 0u) << (2 * i);
      }
    };
    // Top-k's form (core::split_test): nothing below, no low window; ~11 SASS
    // instructions a key against ~20.
    auto classify_split = [&](auto full_tag) {
#pragma unroll
      for (int i = 0; i < items; ++i) {
        bool valid = true;
        if constexpr (!decltype(full_tag)::value) valid = base + offset(i) < size;
        const K d = static_cast<K>(core::range_pre_key<T>(vals[i], t.flip) - t.split.first);
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
    // Items where no lane of the warp has a key are skipped below (a sparse
    // selection has a key or two in most warp tiles).
    const unsigned w_classes = __reduce_or_sync(0xffffffffu, classes);
    if constexpr (!explicit_idx)
      if (out.order_bits != nullptr)
        write_order_words<T>(out.order_bits + tl * (tile / 32), classes, w_classes, vector);
    // The warp's counts of the two classes, packed (at most 512 each).
    const unsigned total =
        __reduce_add_sync(0xffffffffu, __popc(classes & 0x55555555u) | (__popc(classes & 0xaaaaaaaau) << 16));
    if (total == 0) continue;  // warp-uniform
    const unsigned w_in = total & 0xffffu, w_cand = total >> 16;
    if constexpr (!explicit_idx)
      if (out.order_counts != nullptr && lane == 0 && w_in != 0) atomicAdd(&out.order_counts[tl], w_in);
    if (fill[0] + fill[1] + w_in + w_cand > stage) {  // uniform: no room, copy out now
      __syncwarp();
#pragma unroll 1
      for (int cls = 0; cls < 2 && fill[0] + fill[1] + w_in + w_cand > stage; ++cls) flush(cls);
      __syncwarp();
    }
    // Item by item, the lanes of a class take consecutive slots (a ballot's
    // prefix), so the stores hit consecutive banks. (Offsets from a scan of
    // the lanes' counts put a lane's keys side by side instead: at k = n/2
    // lanes 8 slots apart, 8-way bank conflicts, the pass 40% slower.)
    unsigned run_in = fill[0], run_cand = stage - 1 - fill[1];
    const std::uint32_t tag = round << 12;
#pragma unroll
    for (int i = 0; i < items; ++i) {
      if (((w_classes >> (2 * i)) & 3u) == 0) continue;  // uniform
      const unsigned c = (classes >> (2 * i)) & 3u;
      const unsigned b_in = __ballot_sync(0xffffffffu, c == 1), b_cand = __ballot_sync(0xffffffffu, c == 2);
      const unsigned at = c == 1 ? run_in + __popc(b_in & lanes_before) : run_cand - __popc(b_cand & lanes_before);
      store_shared_if(c != 0, keys_addr + at * static_cast<unsigned>(sizeof(T)), std::bit_cast<uint_bits>(vals[i]));
      store_shared_if(c != 0, pos_addr + at * 4u, tag | offset(i));
      run_in += __popc(b_in);
      run_cand -= __popc(b_cand);
    }
    fill[0] += w_in;
    fill[1] += w_cand;
  }
  __syncwarp();
#pragma unroll 1
  for (int cls = 0; cls < 2; ++cls) flush(cls);
  const unsigned long long b = warp_sum(below), l = warp_sum(lo_cand);
  if (lane == 0) {
    if (b) atomicAdd(&st->below, b);
    if (l) atomicAdd(&st->lo_cand, l);
  }
}

}  // namespace kselect::cuda
