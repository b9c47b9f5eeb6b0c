// Tuning parameters of the CUDA backend, as data. Where a value was chosen by a
// measurement, the comment says which; the others are the starting points of the
// design (docs/algorithms.md) and are to be revisited with bench/cuda.
#pragma once

#include <cstdint>

namespace kselect::cuda::tuning {

/// Threads of the streaming kernels (count, filter) and keys per thread per tile.
/// 16 keys per thread keeps 16 independent loads in flight per thread.
inline constexpr int stream_threads = 256;
inline constexpr int stream_items = 16;
inline constexpr int tile_keys = stream_threads * stream_items;  // 4096
/// Resident blocks per SM the streaming kernels are compiled for (caps registers
/// at 85 per thread): 768 threads x 16 loads in flight per SM.
inline constexpr int stream_min_blocks = 3;

/// Sample kept per task: one block sorts it (BlockRadixSort, 256 x 16 keys).
inline constexpr int sample_threads = 256;
inline constexpr int sample_items = 16;
inline constexpr int sample_size = sample_threads * sample_items;  // 4096

/// A compact task this small is sorted in one block (base case).
inline constexpr int base_threads = 256;
inline constexpr int base_items = 16;
inline constexpr std::int64_t base_case_max = base_threads * base_items;  // 4096

/// SampleSelect as the paper: 127 splitters -> 255 buckets, a 1-byte oracle each.
inline constexpr int oracle_splitters = 127;
/// Multiselection at level 0 without oracles: many buckets so that few of the input's
/// keys sit in buckets holding a rank (101 ranks in 1024 ranges: ~10% extracted).
inline constexpr int wide_splitters = 1023;
inline constexpr int max_splitters = wide_splitters;
inline constexpr int max_buckets = 2 * max_splitters + 1;

/// Window prediction: half-width in standard deviations of the sample rank
/// (miss probability ~6e-5 per level at 4 sigma), plus a constant margin.
inline constexpr double window_sigmas = 4.0;
inline constexpr double window_margin = 2.0;

/// Tasks handled by one launch; more tasks are processed in chunks.
inline constexpr int max_tasks_per_launch = 256;

/// Tiles a block counts before flushing its shared histogram (keeps the 32-bit
/// shared counters far from overflow: 16384 * 4096 < 2^32).
inline constexpr std::int64_t flush_tiles = 16384;

/// Multiselection pre-pass (core/bin_map.hpp, dispatch/bin_reduce_dispatch.cuh):
/// bins aimed at (the map adds one: 8192 in all, a 32 KiB shared histogram);
/// the smallest input it runs on (below, the general driver's fixed costs
/// dominate anyway); the largest fraction of the input the sample may predict it
/// keeps (above: few distinct values, where the general driver's equality buckets
/// do better); the most ranks it takes (its scatter keeps per-rank state in
/// shared memory; more ranks than this hold more than 1/16 of 8192 bins anyway
/// unless they crowd together); and the keys its copy buffer holds (n / divisor).
inline constexpr std::uint32_t bin_target = 8191;
inline constexpr int bin_prepass_max_ranks = 512;
inline constexpr std::int64_t bin_prepass_min_n = std::int64_t(1) << 20;
inline constexpr double bin_prepass_max_predicted = 1.0 / 16;
inline constexpr std::int64_t bin_prepass_capacity_divisor = 8;

/// Rank ranges and top-k (dispatch/range_dispatch.cuh): inputs up to this many
/// keys skip the sample and sort all their keys as candidates (a sample of 4096
/// narrows little there, and the sort of 2^16 pairs is a few microseconds).
inline constexpr std::int64_t range_all_candidates_max = std::int64_t(1) << 16;
/// Candidates are sorted once at most this many remain (a radix sort of 2^18
/// pairs costs about what another narrowing level costs: a plan, a pass over
/// them and a host round trip, ~40 us); and at most this many levels narrow.
inline constexpr std::int64_t range_sort_max = std::int64_t(1) << 18;
inline constexpr int range_max_levels = 6;
/// The second sampling round of a range plan (range_refine_kernels.cuh): keys
/// each thread draws, the keys kept (one block sort), the keys aimed at, and the
/// largest second sample (2^18 keys: 1 MiB of 4-byte gathers, a few us on the
/// H100; k = 1024 of 2^28 then gets ~7000 candidates instead of ~2.6e5).
inline constexpr int refine_items = 8;
inline constexpr int refine_capacity = 4096;
inline constexpr std::int64_t refine_target_kept = 2048;
inline constexpr std::int64_t refine_max_size = std::int64_t(1) << 18;
/// Deterministic unsorted output orders by a bitmap of the input positions
/// (range_order_kernels.cuh) from this many output keys per 4096-key tile on
/// average, else by buckets of input positions. From H100 timings at 2^28 keys,
/// both forced at the same k in the same runs (kselect-gpu-bench --topk, rows
/// "det. (buckets)" and "det. (bitmap)", bench/results/h100-2026-11-23-*-topk.txt):
/// buckets faster up to k = 2^23 (128 a tile: 1.01-1.05 ms against 1.09-1.11),
/// the bitmap at 2^24 (256 a tile: 1.28 against 1.37-1.38).
inline constexpr std::int64_t range_order_bitmap_min_per_tile = 256;

}  // namespace kselect::cuda::tuning
