// Deterministic unsorted output: the output of a deterministic, unsorted range
// call is its elements in input order. Two ways to get there, chosen by
// range_dispatch.cuh by the output keys per input tile
// (choose_range_order, tuning::range_policy); both cost less than a radix sort
// of the k indices and a gather, which takes more than the 15% over the
// unordered call that the deterministic order may cost.
//
// By bitmap (dense output): the level-0 pass writes a bit per input position
// (set for the keys it puts in the range) and counts them per tile
// (range_pass_kernel's order_bits and order_counts); range_order_mark_kernel
// adds the keys the later levels and the candidate pick put in the output; an
// exclusive scan of the tile counts gives each tile its first output slot; and
// range_order_expand_kernel writes every tile's set positions in ascending
// order, gathering their keys. That reads and writes n / 8 bytes of bitmap. The
// bitmap is cleared first and the pass writes only the words where a warp has
// output keys (writing every word, or marking every output key with
// range_order_mark_kernel's atomics instead, costs more).
//
// By buckets (sparse output, and after the exact path): below.
#pragma once

#include <cub/warp/warp_scan.cuh>

#include <cstdint>

#include "cuda/kernels/load_tile.cuh"
#include "cuda/kernels/range_finish_kernels.cuh"
#include "cuda/tuning.hpp"

namespace kselect::cuda {

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

inline constexpr int range_order_expand_threads = tuning::compiled.range.order_expand.threads;

/// One warp per input tile: the positions of the tile's set bits, ascending,
/// from the tile's first output slot (`first`: the exclusive scan of the tile
/// counts), with their keys gathered from the input. Each lane loads four
/// consecutive words at once (one round trip for the tile, not one per round
/// of 32 words), a warp scan of the lanes' bit counts
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

// Deterministic unsorted output by buckets: where the output is sparse (fewer
// keys per tile than the bitmap pays for), the output, written in any order,
// is put in input order through buckets of tile_keys consecutive input
// positions:
//   range_bucket_count_kernel    the output entries per bucket, and each
//                                entry's rank among its bucket's (in the
//                                order of the atomics);
//   (an exclusive scan of the counts: each bucket's first output slot)
//   range_bucket_scatter_kernel  each entry's key and offset in its bucket, to
//                                its bucket's first slot plus its rank;
//   range_bucket_expand_kernel   per bucket, one warp: an entry's place is the
//                                entries of smaller offset (up to 32 entries,
//                                compared lane with lane; more, the set bits
//                                below its own in a bitmap of the bucket in
//                                shared memory).
// That reads and writes the m entries three times and touches a counter per
// tile, less than a radix sort of the m indices (28 bits at 2^28 keys: four
// passes, then a gather of the keys from the input).
// The pass writes the output in runs of one tile (a warp's stage holds its
// keys tile by tile), so consecutive entries of a warp that share a bucket
// take their ranks with one atomic (the run's first lane's), which also counts
// them: no second, returning, atomic in the scatter.

inline constexpr int range_bucket_threads = tuning::compiled.range.bucket.threads;
/// Entries a thread of the count and scatter kernels takes at once: their loads
/// are all in flight together (with one entry a thread, the scatter would wait
/// on four dependent round trips per entry).
inline constexpr int range_bucket_items = tuning::compiled.range.bucket.items_per_thread;

/// Output entries [0, count) by whole warps, range_bucket_items rows of 32
/// consecutive entries at a time, in a grid-stride loop: f(w0) for each warp's
/// first entry w0; the entry of row i and lane l is w0 + 32 i + l.
template <class F>
__device__ __forceinline__ void for_each_warp_rows(std::int64_t count, F&& f) {
  constexpr std::int64_t per_warp = 32 * range_bucket_items;
  const std::int64_t warp = (static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
  const std::int64_t warps = static_cast<std::int64_t>(gridDim.x) * blockDim.x / 32;
  for (std::int64_t w0 = warp * per_warp; w0 < count; w0 += warps * per_warp) f(w0);  // warp-uniform
}

/// A lane's entry among its row's runs of consecutive entries in one bucket.
struct bucket_run {
  std::uint64_t bucket;  ///< input position / tile_keys
  unsigned head;         ///< the run's first lane
  unsigned length;       ///< the run's lanes (meaningful at the head)
};

/// The run of an entry at input position `pos` (the row's valid lanes are its
/// first ones).
__device__ __forceinline__ bucket_run entry_run(std::int64_t pos, bool valid) {
  const unsigned lane = threadIdx.x % 32;
  bucket_run r;
  r.bucket = valid ? static_cast<std::uint64_t>(pos) / tuning::tile_keys : ~std::uint64_t(0);
  const std::uint64_t before = __shfl_up_sync(0xffffffffu, r.bucket, 1);
  const unsigned heads = __ballot_sync(0xffffffffu, valid && (lane == 0 || before != r.bucket));
  const unsigned valid_lanes = __popc(__ballot_sync(0xffffffffu, valid));
  const unsigned up_to_me = lane == 31 ? 0xffffffffu : (2u << lane) - 1;
  r.head = (heads & up_to_me) != 0 ? 31 - __clz(heads & up_to_me) : 0;  // 0: a lane past the end
  const unsigned after = heads & ~up_to_me;
  r.length = (after != 0 ? static_cast<unsigned>(__ffs(after) - 1) : valid_lanes) - lane;
  return r;
}

/// bucket_counts[b] = the output entries [0, count) whose input position lies
/// in bucket b (cleared before), and each entry's rank among them (in no
/// particular order: the order of the atomics).
static __global__ void __launch_bounds__(range_bucket_threads)
    range_bucket_count_kernel(const void* indices, int index_bytes, std::int64_t count,
                              unsigned long long* bucket_counts, std::uint16_t* ranks) {
  constexpr int items = range_bucket_items;
  static_assert(tuning::tile_keys <= 65536, "ranks in a bucket are 16-bit");
  const unsigned lane = threadIdx.x % 32;
  for_each_warp_rows(count, [&](std::int64_t w0) {
    std::int64_t pos[items];
#pragma unroll
    for (int i = 0; i < items; ++i) {
      const std::int64_t j = w0 + 32 * i + lane;
      pos[i] = j < count ? load_index(indices, index_bytes, j) : 0;
    }
    bucket_run r[items];
    unsigned long long before[items];  // the head's: the bucket's entries counted before its run
#pragma unroll
    for (int i = 0; i < items; ++i) {
      const bool valid = w0 + 32 * i + lane < count;
      r[i] = entry_run(pos[i], valid);
      before[i] = valid && r[i].head == lane
                      ? atomicAdd(&bucket_counts[r[i].bucket], static_cast<unsigned long long>(r[i].length))
                      : 0;
    }
#pragma unroll
    for (int i = 0; i < items; ++i) {
      const unsigned long long b = __shfl_sync(0xffffffffu, before[i], r[i].head);
      const std::int64_t j = w0 + 32 * i + lane;
      if (j < count) ranks[j] = static_cast<std::uint16_t>(b + (lane - r[i].head));
    }
  });
}

/// Each output entry's key and offset in its bucket to slot first[b] + its
/// rank of its bucket b (range_bucket_count_kernel's; `first`: the exclusive
/// scan of the counts).
template <class T>
__global__ void __launch_bounds__(range_bucket_threads)
    range_bucket_scatter_kernel(const T* out_keys, const void* indices, int index_bytes, std::int64_t count,
                                const unsigned long long* first, const std::uint16_t* ranks, T* bucket_keys,
                                std::uint16_t* bucket_offsets) {
  constexpr int items = range_bucket_items;
  const unsigned lane = threadIdx.x % 32;
  for_each_warp_rows(count, [&](std::int64_t w0) {
    std::int64_t pos[items];
    T key[items];
    unsigned rank[items];
#pragma unroll
    for (int i = 0; i < items; ++i) {
      const std::int64_t j = w0 + 32 * i + lane;
      const bool valid = j < count;
      pos[i] = valid ? load_index(indices, index_bytes, j) : 0;
      key[i] = valid ? out_keys[j] : T{};
      rank[i] = valid ? ranks[j] : 0;
    }
    unsigned long long at[items];
#pragma unroll
    for (int i = 0; i < items; ++i)
      at[i] = w0 + 32 * i + lane < count ? first[static_cast<std::uint64_t>(pos[i]) / tuning::tile_keys] : 0;
#pragma unroll
    for (int i = 0; i < items; ++i) {
      if (w0 + 32 * i + lane >= count) continue;
      bucket_keys[at[i] + rank[i]] = key[i];
      bucket_offsets[at[i] + rank[i]] = static_cast<std::uint16_t>(pos[i] % tuning::tile_keys);
    }
  });
}

inline constexpr int range_bucket_expand_threads = tuning::compiled.range.bucket_expand.threads;

/// Per bucket, one warp writes its entries to the bucket's first slot plus the
/// number of its entries of smaller offset, with their input positions. Up to
/// 32 entries: a lane each, compared with every other lane's offset. More: their
/// offsets set bits of a bitmap of the bucket in shared memory, the warp scans
/// the words' bit counts, and an entry's place is the set bits below its own.
/// A warp reads the first slots of `group` consecutive buckets (8 or 32) at
/// once and takes those with entries: 32 where most buckets are empty, 8 where
/// most are not (more warps in flight, each waiting on fewer buckets in turn;
/// one warp per bucket would wait on a round trip for its first slot and one
/// for its entries).
template <class T>
__global__ void __launch_bounds__(range_bucket_expand_threads)
    range_bucket_expand_kernel(const T* bucket_keys, const std::uint16_t* bucket_offsets,
                               const unsigned long long* first, std::int64_t buckets, int group, T* out_keys,
                               void* out_indices, int index_bytes) {
  constexpr int warps = range_bucket_expand_threads / 32;
  constexpr int words = tuning::tile_keys / 32;
  static_assert(words == 4 * 32, "a lane scans four words of its bucket");
  static_assert(tuning::tile_keys <= 65536, "offsets in a bucket are 16-bit");
  __shared__ uint4 bitmap[warps][words / 4];
  __shared__ std::uint32_t word_first[warps][words];
  __shared__ typename cub::WarpScan<unsigned>::TempStorage scan_storage[warps];
  const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  auto* const bits = reinterpret_cast<std::uint32_t*>(bitmap[warp]);
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * warps * group;
  for (std::int64_t b0 = (static_cast<std::int64_t>(blockIdx.x) * warps + warp) * group; b0 < buckets; b0 += stride) {
    const std::int64_t mine = b0 + lane;
    const bool in_group = static_cast<int>(lane) < group && mine < buckets;
    const unsigned long long my_first = in_group ? first[mine] : 0;
    const unsigned long long my_count = in_group ? first[mine + 1] - my_first : 0;
    unsigned todo = __ballot_sync(0xffffffffu, my_count != 0);
    while (todo != 0) {  // warp-uniform
      const int l = __ffs(todo) - 1;
      todo &= todo - 1;
      const std::int64_t b = b0 + l;
      const auto at = static_cast<std::int64_t>(__shfl_sync(0xffffffffu, my_first, l));
      const auto total = static_cast<unsigned>(__shfl_sync(0xffffffffu, my_count, l));
      if (total <= 32) {  // warp-uniform
        const bool has = lane < total;
        const unsigned off = has ? bucket_offsets[at + lane] : 0x10000u;  // past every offset
        const T key = has ? bucket_keys[at + lane] : T{};
        unsigned r = 0;
        for (int o = 0; o < 32; ++o) r += __shfl_sync(0xffffffffu, off, o) < off;
        if (has) {
          out_keys[at + r] = key;
          if (out_indices) store_index(out_indices, index_bytes, at + r, b * tuning::tile_keys + off);
        }
        continue;
      }
      bitmap[warp][lane] = make_uint4(0, 0, 0, 0);
      __syncwarp();
      for (unsigned e = lane; e < total; e += 32) {
        const unsigned off = bucket_offsets[at + e];
        atomicOr(&bits[off / 32], 1u << (off % 32));
      }
      __syncwarp();
      const uint4 w4 = bitmap[warp][lane];
      unsigned slot = 0;
      cub::WarpScan<unsigned>(scan_storage[warp])
          .ExclusiveSum(__popc(w4.x) + __popc(w4.y) + __popc(w4.z) + __popc(w4.w), slot);
      word_first[warp][4 * lane] = slot;
      word_first[warp][4 * lane + 1] = slot += __popc(w4.x);
      word_first[warp][4 * lane + 2] = slot += __popc(w4.y);
      word_first[warp][4 * lane + 3] = slot + __popc(w4.z);
      __syncwarp();
      for (unsigned e = lane; e < total; e += 32) {
        const unsigned off = bucket_offsets[at + e];
        const unsigned r = word_first[warp][off / 32] + __popc(bits[off / 32] & ((1u << (off % 32)) - 1));
        out_keys[at + r] = bucket_keys[at + e];
        if (out_indices) store_index(out_indices, index_bytes, at + r, b * tuning::tile_keys + off);
      }
      __syncwarp();
    }
  }
}

}  // namespace kselect::cuda
