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
// fills the stage over many tiles before it reserves. Reserving per warp tile
// instead (a returning atomic, or a decoupled look-back) serialises at one L2
// slice; per-key ballots and branches cost several times the instructions and
// overflow the instruction cache. The order across warps follows the atomics
// (not deterministic: range_dispatch.cuh orders the output afterwards when
// asked).
//
// range_pass_agent holds a warp's steps; range_pass_kernel runs its tiles and
// the final flush.
#pragma once

#include <bit>
#include <cstdint>
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
  /// The stream-ordered top-k's exact take (range_take_kernels.cuh): the pass
  /// returns at once when *skip is 1 (the one-pass path answered). Else null.
  const std::int32_t* skip;
};

/// Whether a kernel of the stream-ordered top-k's exact take returns at once:
/// its word is not 0 (the one-pass path answered; for the tied take's pass, any
/// word but take_spec_run; skip may be null: never; range_take_kernels.cuh).
__device__ __forceinline__ bool skipped(const std::int32_t* skip) { return skip != nullptr && *skip != 0; }

/// Stores index `pos` as a 4- or 8-byte integer.
__device__ __forceinline__ void store_index(void* indices, int index_bytes, std::int64_t at, std::int64_t pos) {
  if (index_bytes == 4) static_cast<std::int32_t*>(indices)[at] = static_cast<std::int32_t>(pos);
  else static_cast<std::int64_t*>(indices)[at] = pos;
}

/// Stores v to shared memory at a 32-bit shared address if `take`, as one
/// predicated store. (Written in C++, the compiler branches around the stores
/// and, short of registers, rebuilds the stage's address from the block's
/// shared window before each, nearly doubling the instructions per key.)
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
/// (warp_classes: the warp's classes or-ed): their words stay clear, and a
/// sparse selection writes few words.
template <class T>
__device__ __forceinline__ void write_order_words(std::uint32_t* words, unsigned classes, unsigned warp_classes,
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
      if ((warp_classes & inside_bits) == 0) continue;  // uniform
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
      if (((warp_classes >> (2 * i)) & 1u) == 0) continue;  // uniform
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

/// One warp's part of the range pass: its stage, its counts and the steps of a
/// tile (load, classify, stage, reserve and copy out). Every lane of the warp
/// runs every step; the stage's fill is warp-uniform. A step that stores in a
/// loop reads the members it uses into locals first: the compiler cannot tell
/// that the stores leave the agent unchanged, and would read them again after
/// each store.
/// explicit_idx: the source is a previous level's candidates, whose input
/// positions are in src_idx; otherwise the input itself.
template <class T, bool explicit_idx>
struct range_pass_agent {
  using K = core::key_t<T>;
  using uint_bits = std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>;
  static constexpr int threads = tuning::stream_threads;
  static constexpr int warps = threads / 32;
  static constexpr int items = tuning::stream_items;
  static constexpr std::int64_t tile = tuning::tile_keys;
  static constexpr int per_vec = 16 / static_cast<int>(sizeof(T));
  // A stage holds a whole warp tile: the output run grows from its front, the
  // candidates from its back.
  static constexpr unsigned stage = 32 * items;
  static_assert(items <= 16, "two class bits per key in one 32-bit word");

  range_state<K>* const st;
  const T* const src;
  const std::uint64_t* const src_idx;
  const std::int64_t size;
  const range_pass_out<T> out;
  const unsigned lane, warp;
  const unsigned lanes_before;
  const std::uint32_t keys_addr, pos_addr;  ///< the warp's stage as 32-bit shared addresses
  const core::range_tests<K> tests;
  const bool aligned;
  // Warp-uniform: staged output keys, staged candidates. (Read and written by
  // constant index only: indexed by a runtime class, it goes to local memory.)
  unsigned fill[2] = {0, 0};
  unsigned below = 0, lo_cand = 0;  ///< this thread's keys below the range and in the low window
  /// Warp-uniform: the candidate buffer is full (a reservation reached its
  /// capacity), so the warp's later candidates are only counted, in
  /// `uncopied`: with heavy ties at a boundary (all keys equal, few distinct
  /// values) nearly every key is one, and staging them would cost several
  /// reads' time for keys no one reads (the count alone sends the call on).
  bool cand_full = false;
  unsigned uncopied = 0;

  __device__ __forceinline__ range_pass_agent(range_state<K>* state, const T* source, const std::uint64_t* source_idx,
                                              std::int64_t source_size, range_pass_out<T> outputs)
      : st(state), src(source), src_idx(source_idx), size(source_size), out(outputs), lane(threadIdx.x % 32),
        warp(threadIdx.x / 32), lanes_before((1u << lane) - 1),
        keys_addr(static_cast<std::uint32_t>(__cvta_generic_to_shared(stage_keys()[warp]))),
        pos_addr(static_cast<std::uint32_t>(__cvta_generic_to_shared(stage_pos()[warp]))), tests(state->tests),
        aligned(reinterpret_cast<std::uintptr_t>(source) % 16 == 0) {}

  // The warps' stages, reached as block-wide variables (not through pointers
  // the agent holds, so that the compiler may load from them early).
  __device__ __forceinline__ static auto stage_keys() -> T (&)[warps][stage] {
    __shared__ T keys[warps][stage];
    return keys;
  }
  __device__ __forceinline__ static auto stage_pos() -> std::uint32_t (&)[warps][stage] {
    __shared__ std::uint32_t pos[warps][stage];
    return pos;
  }

  // A class's stage goes out in two steps: reserve (lane 0's atomic, its
  // result not yet waited for), then copy_out (the first slot to every lane,
  // the stage copied out coalesced, emptied).
  __device__ __forceinline__ unsigned staged(int cls) const { return cls == 0 ? fill[0] : fill[1]; }

  __device__ __forceinline__ unsigned long long reserve(int cls) const {
    unsigned long long first = 0;
    if (lane == 0) first = atomicAdd(cls == 0 ? &st->inside : &st->cand, static_cast<unsigned long long>(staged(cls)));
    return first;
  }

  __device__ __forceinline__ void copy_out(int cls, unsigned long long reserved) {
    const unsigned count = staged(cls);
    const auto first = static_cast<std::int64_t>(__shfl_sync(0xffffffffu, reserved, 0));
    const unsigned from = cls == 0 ? 0u : stage - count;
    const T* const keys = stage_keys()[warp];
    const std::uint32_t* const pos = stage_pos()[warp];
    const range_pass_out<T> outputs = out;  // (read before the stores: see range_pass_agent)
    const std::uint64_t* const source_idx = src_idx;
    if (cls != 0 && first + count >= outputs.cand_capacity) cand_full = true;  // uniform
    for (unsigned j = lane; j < count; j += 32) {
      const std::uint32_t packed = pos[from + j];
      const std::int64_t tile_index = blockIdx.x + static_cast<std::int64_t>(packed >> 12) * gridDim.x;
      const std::int64_t at_src = tile_index * tile + (packed & (tile - 1));
      std::uint64_t index = static_cast<std::uint64_t>(at_src);
      if constexpr (explicit_idx) index = source_idx[at_src];
      const T key = keys[from + j];
      const std::int64_t at = first + j;
      if (cls == 0) {
        if (at < outputs.capacity) {
          outputs.keys[outputs.at + at] = key;
          if (outputs.indices)
            store_index(outputs.indices, outputs.index_bytes, outputs.at + at, static_cast<std::int64_t>(index));
        }
      } else if (at < outputs.cand_capacity) {
        outputs.cand_vals[at] = key;
        outputs.cand_idx[at] = index;
      }
    }
    if (cls == 0) fill[0] = 0;
    else fill[1] = 0;
  }

  __device__ __forceinline__ void flush(int cls) {
    if (staged(cls) != 0) copy_out(cls, reserve(cls));  // uniform
  }

  /// Offset of key i of this thread in the tile: vector loads give each thread
  /// per_vec consecutive keys per vector; scalar loads stride by the block.
  __device__ __forceinline__ static std::uint32_t offset(int i, bool vector) {
    if (vector) return static_cast<std::uint32_t>(((i / per_vec) * threads + threadIdx.x) * per_vec + i % per_vec);
    return static_cast<std::uint32_t>(i * threads + threadIdx.x);
  }

  /// This thread's keys of the tile at `base`: 16-byte loads when the tile is
  /// full and the source aligned, else bounds-checked scalar ones.
  __device__ __forceinline__ void load_tile(std::int64_t base, bool vector, T (&vals)[items]) const {
    if (vector) {
      load_vector_tile<items, threads>(src + base, vals);
    } else {
#pragma unroll
      for (int i = 0; i < items; ++i) {
        const std::int64_t at = base + offset(i, vector);
        vals[i] = at < size ? load_readonly(src + at) : T{};
      }
    }
  }

  /// The classes reserved early (before the tile's loads) are copied out now,
  /// after them.
  __device__ __forceinline__ void copy_out_early(const bool (&early)[2], const unsigned long long (&reserved)[2]) {
    __syncwarp();  // the stage as the last tile's stores left it
    // One copy of the copy loop (the code's size matters: see above).
#pragma unroll 1
    for (int cls = 0; cls < 2; ++cls)
      if (cls == 0 ? early[0] : early[1]) copy_out(cls, cls == 0 ? reserved[0] : reserved[1]);
    __syncwarp();
  }

  /// Two class bits per key (1 inside, 2 candidate) by the general tests;
  /// counts the keys below and in the low window. Full tiles take a copy of
  /// the loop without the bounds test (the 64-bit position arithmetic of every
  /// key would triple the instructions per key).
  template <bool full>
  __device__ __forceinline__ unsigned classify(std::int64_t base, bool vector, const T (&vals)[items]) {
    unsigned classes = 0;
#pragma unroll
    for (int i = 0; i < items; ++i) {
      bool valid = true;
      if constexpr (!full) valid = base + offset(i, vector) < size;
      const K pre_key = core::range_pre_key<T>(vals[i], tests.flip);
      below += valid && tests.below.contains(pre_key);
      const bool in_lo = valid && tests.lo_window.contains(pre_key);
      lo_cand += in_lo;
      const bool cand = in_lo || (valid && tests.hi_window.contains(pre_key));
      const bool in = valid && tests.inside.contains(pre_key);
      classes |= (in ? 1u : 0u) << (2 * i);
      classes |= (cand ? 2u : 0u) << (2 * i);
    }
    return classes;
  }

  /// Top-k's form of classify (core::split_test): nothing below, no low window;
  /// about half the instructions a key.
  template <bool full>
  __device__ __forceinline__ unsigned classify_split(std::int64_t base, bool vector, const T (&vals)[items]) const {
    unsigned classes = 0;
#pragma unroll
    for (int i = 0; i < items; ++i) {
      bool valid = true;
      if constexpr (!full) valid = base + offset(i, vector) < size;
      const K from_first = static_cast<K>(core::range_pre_key<T>(vals[i], tests.flip) - tests.split.first);
      const bool below_split = from_first < tests.split.split;
      const bool in = valid && below_split;
      const bool cand = valid && !below_split && from_first <= tests.split.last;
      classes |= (in ? 1u : 0u) << (2 * i);
      classes |= (cand ? 2u : 0u) << (2 * i);
    }
    return classes;
  }

  __device__ __forceinline__ unsigned classify_tile(std::int64_t base, bool full, bool vector,
                                                    const T (&vals)[items]) {
    if (tests.split.enabled) {  // uniform
      if (full) return classify_split<true>(base, vector, vals);
      return classify_split<false>(base, vector, vals);
    }
    if (full) return classify<true>(base, vector, vals);
    return classify<false>(base, vector, vals);
  }

  /// Copies the stage out now when the tile's warp_in + warp_cand keys would
  /// not fit.
  __device__ __forceinline__ void make_room(unsigned warp_in, unsigned warp_cand) {
    if (fill[0] + fill[1] + warp_in + warp_cand > stage) {  // uniform
      __syncwarp();
#pragma unroll 1
      for (int cls = 0; cls < 2 && fill[0] + fill[1] + warp_in + warp_cand > stage; ++cls) flush(cls);
      __syncwarp();
    }
  }

  /// Stages the tile's classified keys. Item by item, the lanes of a class take
  /// consecutive slots (a ballot's prefix), so the stores hit consecutive
  /// banks; offsets from a scan of the lanes' counts would put a lane's keys
  /// side by side instead, with bank conflicts as dense as the selection.
  __device__ __forceinline__ void stage_tile(const T (&vals)[items], unsigned classes, unsigned warp_classes,
                                             std::uint32_t round, bool vector) {
    unsigned run_in = fill[0], run_cand = stage - 1 - fill[1];
    const std::uint32_t tag = round << 12;
    // (Read before the stores: see range_pass_agent.)
    const std::uint32_t keys_at = keys_addr, pos_at = pos_addr;
    const unsigned lanes_below = lanes_before;
#pragma unroll
    for (int i = 0; i < items; ++i) {
      if (((warp_classes >> (2 * i)) & 3u) == 0) continue;  // uniform
      const unsigned cls = (classes >> (2 * i)) & 3u;
      const unsigned in_ballot = __ballot_sync(0xffffffffu, cls == 1);
      const unsigned cand_ballot = __ballot_sync(0xffffffffu, cls == 2);
      const unsigned at =
          cls == 1 ? run_in + __popc(in_ballot & lanes_below) : run_cand - __popc(cand_ballot & lanes_below);
      store_shared_if(cls != 0, keys_at + at * static_cast<unsigned>(sizeof(T)), std::bit_cast<uint_bits>(vals[i]));
      store_shared_if(cls != 0, pos_at + at * 4u, tag | offset(i, vector));
      run_in += __popc(in_ballot);
      run_cand -= __popc(cand_ballot);
    }
  }

  /// One tile: load, classify, stage. A class whose stage holds a quarter of it
  /// or more reserves its output slots before the tile's loads are issued and
  /// is copied out after them, so that the atomic's round trip overlaps the
  /// loads.
  __device__ __forceinline__ void consume_tile(std::int64_t tile_index, std::uint32_t round) {
    const std::int64_t base = tile_index * tile;
    const bool full = base + tile <= size;
    const bool vector = full && aligned;
    const bool early[2] = {fill[0] >= stage / 4, fill[1] >= stage / 4};  // uniform
    unsigned long long reserved[2] = {0, 0};
    if (early[0]) reserved[0] = reserve(0);
    if (early[1]) reserved[1] = reserve(1);
    T vals[items];
    load_tile(base, vector, vals);
    if (early[0] || early[1]) copy_out_early(early, reserved);  // uniform

    unsigned classes = classify_tile(base, full, vector, vals);
    if (cand_full) {  // uniform
      uncopied += __popc(classes & 0xaaaaaaaau);
      classes &= 0x55555555u;
    }
    // Items where no lane of the warp has a key are skipped below (a sparse
    // selection has a key or two in most warp tiles).
    const unsigned warp_classes = __reduce_or_sync(0xffffffffu, classes);
    if constexpr (!explicit_idx)
      if (out.order_bits != nullptr)
        write_order_words<T>(out.order_bits + tile_index * (tile / 32), classes, warp_classes, vector);
    // The warp's counts of the two classes, packed (at most 512 each).
    const unsigned total =
        __reduce_add_sync(0xffffffffu, __popc(classes & 0x55555555u) | (__popc(classes & 0xaaaaaaaau) << 16));
    if (total == 0) return;  // warp-uniform
    const unsigned warp_in = total & 0xffffu, warp_cand = total >> 16;
    if constexpr (!explicit_idx)
      if (out.order_counts != nullptr && lane == 0 && warp_in != 0) atomicAdd(&out.order_counts[tile_index], warp_in);
    make_room(warp_in, warp_cand);
    stage_tile(vals, classes, warp_classes, round, vector);
    fill[0] += warp_in;
    fill[1] += warp_cand;
  }

  /// Copies out what is left in the stage and adds the warp's counts.
  __device__ __forceinline__ void finish() {
    __syncwarp();
#pragma unroll 1
    for (int cls = 0; cls < 2; ++cls) flush(cls);
    const unsigned long long warp_below = warp_sum(below), warp_lo_cand = warp_sum(lo_cand),
                             warp_uncopied = warp_sum(uncopied);
    if (lane == 0) {
      if (warp_below) atomicAdd(&st->below, warp_below);
      if (warp_lo_cand) atomicAdd(&st->lo_cand, warp_lo_cand);
      if (warp_uncopied) atomicAdd(&st->cand, warp_uncopied);
    }
  }
};

/// explicit_idx: the source is a previous level's candidates, whose input
/// positions are in src_idx; otherwise the input itself.
template <class T, bool explicit_idx>
__global__ void __launch_bounds__(tuning::stream_threads, tuning::stream_min_blocks)
    range_pass_kernel(range_state<core::key_t<T>>* st, const T* src, const std::uint64_t* src_idx, std::int64_t size,
                      range_pass_out<T> out) {
  using agent_t = range_pass_agent<T, explicit_idx>;
  if (skipped(out.skip)) return;
  agent_t agent(st, src, src_idx, size, out);
  // The block's tiles, round-robin over the grid.
  const std::int64_t tiles = (size + agent_t::tile - 1) / agent_t::tile;
  std::uint32_t round = 0;
  for (std::int64_t tile_index = blockIdx.x; tile_index < tiles; tile_index += gridDim.x, ++round)
    agent.consume_tile(tile_index, round);
  agent.finish();
}

}  // namespace kselect::cuda
