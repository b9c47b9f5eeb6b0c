// Deterministic unsorted output by bitmap: the output of a deterministic,
// unsorted range call is its elements in input order. Sorting the k indices
// (cub::DeviceRadixSort, then a gather) cost 0.122 ms at k = 2^20 of 2^28 on the
// H100, more than the 15% the issue allows over the unordered call. Instead the
// level-0 pass writes a bit per input position (set for the keys it puts in the
// range) and counts them per tile (range_pass_kernel's order_bits and
// order_counts); range_order_mark_kernel adds the keys the later levels and the
// candidate pick put in the output; an exclusive scan of the tile counts gives
// each tile its first output slot; and range_order_expand_kernel writes every
// tile's set positions in ascending order, gathering their keys. That reads and
// writes n / 8 bytes of bitmap instead of sorting k indices, so
// range_dispatch.cuh takes it from 64 output keys per tile on average
// (tuning::range_order_bitmap_min_per_tile). The bitmap is cleared first and the
// pass writes only the words where a warp has output keys. (Tried at k = 2^20:
// the pass writing every word, +0.07 ms in the pass; no bits from the pass and
// every output key marked by range_order_mark_kernel, 0.04 ms of atomics.)
#pragma once

#include <cub/warp/warp_scan.cuh>

#include <cstdint>

#include "cuda/kernels/load_tile.cuh"
#include "cuda/kernels/range_finish_kernels.cuh"
#include "cuda/tuning.hpp"

namespace kselect::cuda_detail {

/// Sets the order bit and adds the tile count of output entries [from, from +
/// count) (their input positions, index_bytes each): the keys of later levels
/// and of the candidate pick, after level 0 marked its own.
static __global__ void range_order_mark_kernel(const void* indices, int index_bytes, std::int64_t from,
                                               std::int64_t count, std::uint32_t* bits,
                                               unsigned long long* tile_counts) {
  for (std::int64_t j = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; j < count;
       j += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    const std::int64_t pos = load_index(indices, index_bytes, from + j);
    atomicOr(&bits[pos / 32], 1u << (pos % 32));
    atomicAdd(&tile_counts[pos / tuning::tile_keys], 1ull);
  }
}

inline constexpr int range_order_expand_threads = 128;

/// One warp per input tile: the positions of the tile's set bits, ascending,
/// from the tile's first output slot (`first`: the exclusive scan of the tile
/// counts), with their keys gathered from the input. Each lane loads four
/// consecutive words at once (one round trip for the tile: a round of 32 words
/// at a time took 0.08 ms at 2^28 keys), a warp scan of the lanes' bit counts
/// places them, the positions are staged in shared memory and copied out
/// coalesced.
template <class T>
__global__ void __launch_bounds__(range_order_expand_threads)
    range_order_expand_kernel(const T* input, const std::uint32_t* bits, const unsigned long long* first,
                              std::int64_t tiles, T* out_keys, void* out_indices, int index_bytes) {
  constexpr int warps = range_order_expand_threads / 32;
  constexpr int words_per_tile = tuning::tile_keys / 32;
  static_assert(words_per_tile == 4 * 32, "a lane takes four words of its tile");
  static_assert(tuning::tile_keys <= 65536, "tile offsets are staged as 16-bit");
  __shared__ std::uint16_t staged[warps][tuning::tile_keys];
  __shared__ typename cub::WarpScan<unsigned>::TempStorage scan_storage[warps];
  const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  std::uint16_t* const stage = staged[warp];
  for (std::int64_t tl = blockIdx.x * static_cast<std::int64_t>(warps) + warp; tl < tiles;
       tl += static_cast<std::int64_t>(gridDim.x) * warps) {
    const uint4 w4 = reinterpret_cast<const uint4*>(bits + tl * words_per_tile)[lane];
    const auto at = static_cast<std::int64_t>(first[tl]);
    const auto total = static_cast<unsigned>(static_cast<std::int64_t>(first[tl + 1]) - at);
    if (total == 0) continue;  // warp-uniform
    const std::uint32_t words[4] = {w4.x, w4.y, w4.z, w4.w};
    const unsigned own = __popc(w4.x) + __popc(w4.y) + __popc(w4.z) + __popc(w4.w);
    unsigned slot = 0;
    cub::WarpScan<unsigned>(scan_storage[warp]).ExclusiveSum(own, slot);
#pragma unroll
    for (int w = 0; w < 4; ++w) {
      std::uint32_t word = words[w];
      const unsigned word_base = (lane * 4 + w) * 32;
      while (word != 0) {
        stage[slot++] = static_cast<std::uint16_t>(word_base + __ffs(word) - 1);
        word &= word - 1;
      }
    }
    __syncwarp();
    for (unsigned j = lane; j < total; j += 32) {
      const std::int64_t pos = tl * tuning::tile_keys + stage[j];
      out_keys[at + j] = load_readonly(input + pos);
      if (out_indices) store_index(out_indices, index_bytes, at + j, pos);
    }
    __syncwarp();
  }
}

}  // namespace kselect::cuda_detail
