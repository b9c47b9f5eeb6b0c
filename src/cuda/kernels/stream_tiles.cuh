// How the single-pass kernels (window_pass_kernel, bin_pass_kernel, descent_round_kernel) walk their
// input: 4096-key tiles dealt to blocks round-robin (a contiguous run of
// interesting keys, as in sorted input, is spread over every block), 16 keys per
// thread per tile loaded with 16-byte loads when the input is 16-byte aligned,
// all loads issued before any key is used. The partial last tile goes to one
// block, one bounds-checked key at a time.
#pragma once

#include <cstdint>

#include "cuda/kernels/load_tile.cuh"
#include "cuda/tuning.hpp"

namespace kselect::cuda {

/// This thread's stream_items keys of full tile `tl`, all loads issued before any
/// is used: 16-byte loads when the input is aligned (load_vector_tile's order),
/// else vals[i] at the tile's start + i * stream_threads + threadIdx.x.
template <class Src>
__device__ __forceinline__ void load_full_tile(const Src* src, std::int64_t tl, bool aligned,
                                               Src (&vals)[tuning::stream_items]) {
  constexpr int threads = tuning::stream_threads;
  constexpr int items = tuning::stream_items;
  constexpr std::int64_t tile = tuning::tile_keys;
  if (aligned) {
    load_vector_tile<items, threads>(src + tl * tile, vals);
  } else {
#pragma unroll
    for (int i = 0; i < items; ++i) vals[i] = load_readonly(src + tl * tile + i * threads + threadIdx.x);
  }
}

/// Where key i of this thread in tile `tl` lies in the input, as stream_tiles and
/// stream_tile_batches read it: load_vector_tile's order in a full tile of
/// aligned input (`vector_order`), else i * stream_threads + threadIdx.x (the
/// partial last tile always). For kernels that pass on what they learnt of each
/// key (the pre-pass's bin tags) to a later walk over the same input.
template <class Src>
__device__ __forceinline__ std::int64_t stream_key_index(std::int64_t tl, int i, bool vector_order) {
  constexpr int threads = tuning::stream_threads;
  constexpr int per_vec = 16 / static_cast<int>(sizeof(Src));
  const std::int64_t start = tl * tuning::tile_keys;
  if (vector_order)
    return start + (static_cast<std::int64_t>(i / per_vec) * threads + threadIdx.x) * per_vec + i % per_vec;
  return start + static_cast<std::int64_t>(i) * threads + threadIdx.x;
}

/// Calls key(x, valid) for each of this thread's keys (valid is false only for
/// the padding of the partial tile; every lane of the block makes the same
/// calls, so key may use warp votes) and tile_done() after each full tile.
template <class Src, class KeyFn, class TileFn>
__device__ __forceinline__ void stream_tiles(const Src* src, std::int64_t size, KeyFn&& key, TileFn&& tile_done) {
  constexpr int threads = tuning::stream_threads;
  constexpr int items = tuning::stream_items;
  constexpr std::int64_t tile = tuning::tile_keys;
  const std::int64_t full_tiles = size / tile;
  const bool aligned = reinterpret_cast<std::uintptr_t>(src) % 16 == 0;
  for (std::int64_t tl = blockIdx.x; tl < full_tiles; tl += gridDim.x) {
    Src vals[items];
    load_full_tile(src, tl, aligned, vals);
#pragma unroll
    for (int i = 0; i < items; ++i) key(vals[i], true);
    tile_done();
  }
  if (size % tile != 0 && blockIdx.x == full_tiles % gridDim.x) {
    const std::int64_t base = full_tiles * tile;
#pragma unroll
    for (int i = 0; i < items; ++i) {
      const std::int64_t idx = base + i * threads + threadIdx.x;
      const bool valid = idx < size;
      key(valid ? load_readonly(src + idx) : Src{}, valid);
    }
  }
}

/// The walk of stream_tiles a tile at a time, for kernels that work on all of a
/// thread's keys at once: tile(vals, tail_base) with tail_base -1 for a full tile;
/// for the partial last tile (one block) tail_base is the tile's start, and vals[i]
/// is valid only where tail_base + i * stream_threads + threadIdx.x < size (else Src{}).
template <class Src, class TileFn>
__device__ __forceinline__ void stream_tile_batches(const Src* src, std::int64_t size, TileFn&& tile) {
  constexpr int threads = tuning::stream_threads;
  constexpr int items = tuning::stream_items;
  const std::int64_t full_tiles = size / tuning::tile_keys;
  const bool aligned = reinterpret_cast<std::uintptr_t>(src) % 16 == 0;
  for (std::int64_t tl = blockIdx.x; tl < full_tiles; tl += gridDim.x) {
    Src vals[items];
    load_full_tile(src, tl, aligned, vals);
    tile(vals, std::int64_t(-1));
  }
  if (size % tuning::tile_keys != 0 && blockIdx.x == full_tiles % gridDim.x) {
    const std::int64_t base = full_tiles * tuning::tile_keys;
    Src vals[items];
#pragma unroll
    for (int i = 0; i < items; ++i) {
      const std::int64_t idx = base + i * threads + threadIdx.x;
      vals[i] = idx < size ? load_readonly(src + idx) : Src{};
    }
    tile(vals, base);
  }
}

}  // namespace kselect::cuda
