// How the single-pass kernels (window_pass_kernel, bin_pass_kernel) walk their
// input: 4096-key tiles dealt to blocks round-robin (a contiguous run of
// interesting keys, as in sorted input, is spread over every block), 16 keys per
// thread per tile loaded with 16-byte loads when the input is 16-byte aligned,
// all loads issued before any key is used. The partial last tile goes to one
// block, with bounds-checked scalar loads, also all issued before any key is
// used (they used to alternate with the keys). stream_tile_arrays hands each
// tile's keys to the caller as an array (for a per-tile classification, as in
// approx_count_kernel's window mode); stream_tiles, one key at a time.
#pragma once

#include <cstdint>
#include <cstring>

#include "cuda/kernels/load_tile.cuh"
#include "cuda/tuning.hpp"

namespace kselect::cuda_detail {

/// Which of a thread's keys in a full tile are input: all (a constant, so a
/// caller's validity tests fold away).
struct full_tile {
  static constexpr bool full = true;
  __device__ __forceinline__ constexpr bool operator()(int) const { return true; }
};

/// Which of a thread's keys in the partial last tile are input: key i when
/// i * stream_threads + threadIdx.x < count.
struct partial_tile {
  static constexpr bool full = false;
  int count;  ///< input keys in the tile (fewer than tile_keys)
  __device__ __forceinline__ bool operator()(int i) const {
    return i * tuning::stream_threads + static_cast<int>(threadIdx.x) < count;
  }
};

/// Calls tile(vals, valid) for each tile of this block: vals (Src[stream_items])
/// this thread's keys, valid(i) whether key i is input (full_tile for full
/// tiles, partial_tile for the partial last one, whose padding is Src{}).
/// Every lane of the block makes the same calls, so tile may use warp votes.
template <class Src, class TileFn>
__device__ __forceinline__ void stream_tile_arrays(const Src* src, std::int64_t size, TileFn&& tile) {
  constexpr int threads = tuning::stream_threads;
  constexpr int items = tuning::stream_items;
  constexpr std::int64_t tile_keys = tuning::tile_keys;
  constexpr int per_vec = 16 / static_cast<int>(sizeof(Src));
  static_assert(items % per_vec == 0, "a thread's keys fill whole 16-byte vectors");
  const std::int64_t full_tiles = size / tile_keys;
  const bool aligned = reinterpret_cast<std::uintptr_t>(src) % 16 == 0;
  for (std::int64_t tl = blockIdx.x; tl < full_tiles; tl += gridDim.x) {
    Src vals[items];
    if (aligned) {
      const int4* vsrc = reinterpret_cast<const int4*>(src + tl * tile_keys);
      int4 raw[items / per_vec];
#pragma unroll
      for (int v = 0; v < items / per_vec; ++v) raw[v] = __ldg(vsrc + v * threads + threadIdx.x);
      std::memcpy(vals, raw, sizeof vals);
    } else {
#pragma unroll
      for (int i = 0; i < items; ++i) vals[i] = load_readonly(src + tl * tile_keys + i * threads + threadIdx.x);
    }
    tile(vals, full_tile{});
  }
  if (size % tile_keys != 0 && blockIdx.x == full_tiles % gridDim.x) {
    const std::int64_t base = full_tiles * tile_keys;
    const partial_tile valid{static_cast<int>(size - base)};
    Src vals[items];
#pragma unroll
    for (int i = 0; i < items; ++i) vals[i] = valid(i) ? load_readonly(src + base + i * threads + threadIdx.x) : Src{};
    tile(vals, valid);
  }
}

/// Calls key(x, valid) for each of this thread's keys (valid is false only for
/// the padding of the partial tile; every lane of the block makes the same
/// calls, so key may use warp votes) and tile_done() after each full tile.
template <class Src, class KeyFn, class TileFn>
__device__ __forceinline__ void stream_tiles(const Src* src, std::int64_t size, KeyFn&& key, TileFn&& tile_done) {
  stream_tile_arrays(src, size, [&](const Src(&vals)[tuning::stream_items], auto valid) {
#pragma unroll
    for (int i = 0; i < tuning::stream_items; ++i) key(vals[i], valid(i));
    if constexpr (decltype(valid)::full) tile_done();
  });
}

}  // namespace kselect::cuda_detail
