// How the single-pass kernels (window_pass_kernel, bin_pass_kernel) walk their
// input: 4096-key tiles dealt to blocks round-robin (a contiguous run of
// interesting keys, as in sorted input, is spread over every block), 16 keys per
// thread per tile loaded with 16-byte loads when the input is 16-byte aligned,
// all loads issued before any key is used. The partial last tile goes to one
// block, one bounds-checked key at a time.
#pragma once

#include <cstdint>
#include <cstring>

#include "cuda/kernels/load_tile.cuh"
#include "cuda/tuning.hpp"

namespace kselect::cuda {

/// Calls key(x, valid) for each of this thread's keys (valid is false only for
/// the padding of the partial tile; every lane of the block makes the same
/// calls, so key may use warp votes) and tile_done() after each full tile.
template <class Src, class KeyFn, class TileFn>
__device__ __forceinline__ void stream_tiles(const Src* src, std::int64_t size, KeyFn&& key, TileFn&& tile_done) {
  constexpr int threads = tuning::stream_threads;
  constexpr int items = tuning::stream_items;
  constexpr std::int64_t tile = tuning::tile_keys;
  constexpr int per_vec = 16 / static_cast<int>(sizeof(Src));
  static_assert(items % per_vec == 0, "a thread's keys fill whole 16-byte vectors");
  const std::int64_t full_tiles = size / tile;
  const bool aligned = reinterpret_cast<std::uintptr_t>(src) % 16 == 0;
  for (std::int64_t tl = blockIdx.x; tl < full_tiles; tl += gridDim.x) {
    Src vals[items];
    if (aligned) {
      const int4* vsrc = reinterpret_cast<const int4*>(src + tl * tile);
      int4 raw[items / per_vec];
#pragma unroll
      for (int v = 0; v < items / per_vec; ++v) raw[v] = __ldg(vsrc + v * threads + threadIdx.x);
      std::memcpy(vals, raw, sizeof vals);
    } else {
#pragma unroll
      for (int i = 0; i < items; ++i) vals[i] = load_readonly(src + tl * tile + i * threads + threadIdx.x);
    }
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

}  // namespace kselect::cuda
