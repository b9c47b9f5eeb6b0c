// The workspace of a segmented call, carved the same way for the size query and
// the call (kselect/detail/workspace_carver.hpp), and the tier sizes that decide which
// kernel answers a segment. Everything is sized from host values only (m, n, the
// request's widths), never from the data or the offsets' values.
#pragma once

#include <cstddef>
#include <cstdint>

#include "cuda/segmented/request.cuh"
#include "kselect/detail/workspace_carver.hpp"

namespace kselect::cuda::segmented {

/// Tiers by segment length (first guesses for 4-byte keys, not yet swept). A warp
/// holds up to 8 keys per lane in registers (or 32: more registers, fewer warps per
/// SM), a 256-thread block 16 per thread
/// (several blocks fit an SM), a 512-thread block block_items per thread; longer
/// segments are cut into tiles that all blocks share.
inline constexpr int radix_bits = 8;
inline constexpr int radix_bins = 1 << radix_bits;
inline constexpr int tiny_items = 1;
inline constexpr int tiny_max = 32 * tiny_items;         ///< 32: ranks by counting in a warp
inline constexpr int warp_items = 8;
inline constexpr int warp_max = 32 * warp_items;         ///< 256
inline constexpr int wide_warp_items = 32;
inline constexpr int wide_warp_max = 32 * wide_warp_items;  ///< 1024
inline constexpr int small_block_threads = 256;
inline constexpr int small_block_items = 16;
inline constexpr int small_block_max = small_block_threads * small_block_items;  ///< 4096
/// Blocks of the small block tier resident per SM (__launch_bounds__): 4 caps the
/// kernel at 64 registers a thread, with some spills; 3 (85 registers, no spills)
/// measured slower on the H100: occupancy matters more here (docs/performance.md).
inline constexpr int small_block_min_blocks = 4;
/// Calls of at most this many segments answer the warp tiers' segments (33 to 1024
/// keys) in the small block tier instead: one block of 256 threads per segment, 16
/// ranks per round, against one warp and two ranks per round. With so few segments
/// the warp tiers leave the GPU nearly idle and run their passes one after another:
/// one row of 1000 floats, median (3 ranks): 85 us in the wide warp tier, for the
/// whole call on the H100 from Python (docs/performance.md, "Issue 22"). Larger
/// calls keep the warp tiers, which pack 8 segments into a block.
inline constexpr std::int64_t few_segments_max = 64;
inline constexpr int block_threads = 512;
template <class U>
inline constexpr int block_items = sizeof(U) == 8 ? 16 : 32;
template <class U>
inline constexpr std::int64_t block_max = std::int64_t(block_threads) * block_items<U>;
inline constexpr int warp_ranks_per_round = 2;           ///< histograms per warp (1 KiB each)
/// Sorted top-k rows of at most this many keys are sorted by a warp (ranks by
/// counting); longer ones by CUB's segmented radix sort.
inline constexpr int warp_sort_max = 256;
inline constexpr int block_ranks_per_round = 16;
inline constexpr int large_ranks_per_round = 8;
inline constexpr int tile_items = 16;
inline constexpr std::int64_t tile_size = std::int64_t(block_threads) * tile_items;  ///< 8192

/// The first invalid segment's slot before any is found: every byte no_invalid_byte
/// (one memset), a value above every segment index.
inline constexpr int no_invalid_byte = 0x7f;
inline constexpr std::int64_t no_invalid = 0x7f7f7f7f7f7f7f7fLL;

enum tier : int {
  tier_tiny = 0,
  tier_warp = 1,
  tier_wide_warp = 2,
  tier_small_block = 3,
  tier_block = 4,
  tier_large = 5,
  tier_count = 6
};

/// One segment of the large tier: its index and its tiles [first_tile, first_tile + tiles).
struct large_entry {
  std::int64_t segment;
  std::int64_t first_tile;
  std::int64_t tiles;
};

template <class U>
struct tables {
  std::int64_t* ranks = nullptr;     ///< [m][R] sorted, valid ones first
  int* valid_ranks = nullptr;        ///< [m]
  U* answers = nullptr;              ///< [m][R] the key at each rank
  std::int64_t* nan_count = nullptr; ///< [m], nanquantile only
  int* counters = nullptr;           ///< [tier_count] list lengths, then the large tiles
  int* lists = nullptr;              ///< [tier_count][m] segment indices per tier (large: index into large)
  large_entry* large = nullptr;      ///< [large_max]
  int* tile_owner = nullptr;         ///< [tiles_max] index into large
  U* large_prefix = nullptr;         ///< [large_max][large_ranks_per_round]
  std::int64_t* large_rem = nullptr; ///< [large_max][large_ranks_per_round]
  unsigned* large_hist = nullptr;    ///< [2][large_max][large_ranks_per_round][radix_bins]
  // top-k
  U* topk_keys = nullptr;            ///< [m][k] ordered keys (flipped for largest)
  std::int64_t* topk_index = nullptr;
  U* topk_keys_alt = nullptr;        ///< sort double buffers
  std::int64_t* topk_index_alt = nullptr;
  std::int64_t* tile_less = nullptr; ///< [tiles_max] counts, then exclusive bases
  std::int64_t* tile_equal = nullptr;
  void* sort_temp = nullptr;
  std::size_t sort_temp_bytes = 0;

  std::int64_t m = 0, width = 0, large_max = 0, tiles_max = 0, k = 0;
};

/// The position of `rank` in a segment's sorted rank row.
__device__ __forceinline__ int entry_of_rank(const std::int64_t* row, int count, std::int64_t rank) {
  int lo = 0, hi = count;
  while (lo < hi) {
    const int mid = (lo + hi) / 2;
    if (row[mid] < rank) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/// Upper bounds of the large tier: segments longer than block_max, and their tiles.
template <class U>
inline std::int64_t large_max_of(std::int64_t m, std::int64_t n) {
  const std::int64_t by_length = n / (block_max<U> + 1);
  return by_length < m ? by_length : m;
}
inline std::int64_t tiles_max_of(std::int64_t n, std::int64_t large_max) {
  return n / tile_size + large_max + 1;
}

/// Carves the workspace at `base` (null: only the size). Top-k with sorted rows takes
/// a second copy of the chosen keys and, for rows longer than warp_sort_max,
/// sort_temp_bytes for CUB's segmented sort (its own query).
template <class U>
std::size_t carve(tables<U>& t, char* base, std::int64_t m, std::int64_t n, int width, bool nan_counts,
                  std::int64_t topk_k, bool sorted, std::size_t sort_temp_bytes) {
  kselect::detail::workspace_carver c;
  auto take = [&](auto*& p, std::int64_t count) {
    using P = std::remove_reference_t<decltype(*p)>;
    const std::size_t at = c.take(static_cast<std::size_t>(count > 0 ? count : 1) * sizeof(P));
    p = base ? reinterpret_cast<P*>(base + at) : nullptr;
  };
  t.m = m;
  t.width = width;
  t.large_max = large_max_of<U>(m, n);
  t.tiles_max = tiles_max_of(n, t.large_max);
  t.k = topk_k;
  take(t.ranks, m * width);
  take(t.valid_ranks, m);
  take(t.answers, m * width);
  take(t.nan_count, nan_counts ? m : 0);
  take(t.counters, tier_count + 1);
  take(t.lists, tier_count * m);
  take(t.large, t.large_max);
  take(t.tile_owner, t.tiles_max);
  take(t.large_prefix, t.large_max * large_ranks_per_round);
  take(t.large_rem, t.large_max * large_ranks_per_round);
  take(t.large_hist, 2 * t.large_max * large_ranks_per_round * radix_bins);
  if (topk_k > 0) {
    take(t.topk_keys, m * topk_k);
    take(t.topk_index, m * topk_k);
    take(t.tile_less, t.tiles_max);
    take(t.tile_equal, t.tiles_max);
    if (sorted) {
      take(t.topk_keys_alt, m * topk_k);
      take(t.topk_index_alt, m * topk_k);
      const std::size_t at = c.take(sort_temp_bytes);
      t.sort_temp = base ? base + at : nullptr;
      t.sort_temp_bytes = sort_temp_bytes;
    }
  }
  return c.end;
}

}  // namespace kselect::cuda::segmented
