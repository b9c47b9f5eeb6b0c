// Tuning of the CUDA backend, as data: one policy struct per algorithm, gathered
// in `policy`, with an instance per architecture and policy_for(compute
// capability) to pick one. Plain C++ (the CPU tests check it).
//
// Two kinds of member:
//  - compiled: launch shapes and the constants the kernels are compiled with
//    (array sizes, launch bounds, values device code reads). The library is
//    compiled once for its set of architectures and no kernel is instantiated
//    per policy, so these are the same in every policy (static_assert below)
//    and the kernels read them from `compiled` through the names at the end.
//  - runtime: thresholds and sizes the host reads when it plans a call, from
//    the policy of the device the call runs on (current_policy in
//    dispatch/device_policy.hpp: its compute capability, queried once per
//    device). They may differ per architecture.
// Which algorithm runs for a call is decided by the choose_* functions of
// dispatch/choose.hpp from these values, not by the workspace layout.
//
// A value chosen by a measurement carries a tag `sweep: <binary> -> <output>`.
// Outputs named h100-<date>-<commit>-* are kept in the history
// (`git show 6915357:bench/results/<name>`; bench/results/README.md).
#pragma once

#include <cstdint>
#include <tuple>

#include "kselect/detail/launch_shape.hpp"

namespace kselect::cuda::tuning {

using kselect::detail::launch_shape;

/// Shared by the exact algorithms: the one-read passes over keys (window pass,
/// count, extract, the pre-pass's count and extract, range pass, range exact
/// count and write, approximate count) walk tiles with stream_tiles.cuh, and one
/// block sorts a task's sample (splitters, window plan, range plan, bin map).
struct common_policy {
  /// 16 keys per thread keep 16 independent loads in flight; 3 resident blocks
  /// per SM (768 threads x 16 loads) cap registers at 85 a thread. The range
  /// exact kernels and the pre-pass scatter take the threads without the bound.
  launch_shape stream{256, 16, 3};
  /// A 4096-key sample in one BlockRadixSort.
  launch_shape sample{256, 16};
  /// Window prediction: half-width in standard deviations of the sample rank
  /// (a miss has probability about 6e-5 per level at 4 sigma), plus a constant
  /// margin in sample positions.
  double window_sigmas = 4.0;
  double window_margin = 2.0;
  /// The owning API's gather of filter payloads (owning_filter.cu): one word a thread.
  launch_shape payload_gather{256};

  constexpr auto compiled() const {
    return std::tuple(stream, sample, window_sigmas, window_margin, payload_gather);
  }
};

/// Single-rank selection (dispatch/window_select_dispatch.cuh): window levels
/// with the common sample and stream shapes.
struct window_select_policy {
  /// Keys each window buffer holds: n / buffer_divisor (the median's window,
  /// predicted from 4096 samples, holds about 6% of n).
  std::int64_t buffer_divisor = 8;
  /// Levels queued each time the host finds the window still running (ties
  /// kept it wider than predicted) before it looks again.
  int extra_levels = 2;

  constexpr auto compiled() const { return std::tuple(); }
};

/// SampleSelect levels, the general multiselection (dispatch/multiselect_dispatch.cuh).
struct sample_select_policy {
  /// A compact task this small is sorted in one block (base_case_kernel); the
  /// window plan kernel sorts it with the sample's sort, so the two match.
  launch_shape base_case{256, 16};
  /// finalize_kernel: one answer per thread.
  launch_shape finalize{256};
  /// Splitters of multi-rank tasks at level 0, without oracles: many buckets,
  /// so that few keys sit in buckets holding a rank. The largest splitter count,
  /// so it sizes the kernels' splitter arrays.
  int wide_splitters = 1023;
  /// Tiles a block counts before flushing its shared histogram (32-bit shared
  /// counters: 16384 * 4096 < 2^32).
  std::int64_t flush_tiles = 16384;

  /// SampleSelect as the paper: 127 splitters -> 255 buckets, a 1-byte oracle each.
  int oracle_splitters = 127;
  /// Multi-rank tasks of more keys than this use wide_splitters (smaller ones
  /// oracle_splitters: the wider histogram costs more than it saves there).
  std::int64_t wide_above = std::int64_t(1) << 20;
  /// Tasks handled by one launch; more are processed in chunks.
  int max_tasks_per_launch = 256;

  constexpr auto compiled() const { return std::tuple(base_case, finalize, wide_splitters, flush_tiles); }
};

/// The multiselection pre-pass (dispatch/bin_reduce_dispatch.cuh, core/bin_map.hpp):
/// counts every key into sample-shaped bins, copies the bins holding ranks and
/// selects each rank in its bin's region. Its count and extract passes take the
/// common stream shape, its map kernel the sample shape.
struct bin_prepass_policy {
  /// bin_reduce_kernel: one block, 8 of the map's 8192 bins per thread.
  launch_shape reduce{1024, 8};
  /// bin_scatter_kernel: a tile staged in shared memory (8-byte keys: half as many).
  launch_shape scatter_k32{256, 16};
  launch_shape scatter_k64{256, 8};
  /// bin_finish_kernel: a block per rank, one scan of 4096 buckets.
  launch_shape finish{1024, 4};
  /// Bins aimed at (the map adds one: 8192 in all, a 32 KiB shared histogram).
  std::uint32_t bin_target = 8191;
  /// The most ranks it takes: the scatter keeps per-rank state in shared memory
  /// (more ranks hold more than 1/16 of 8192 bins anyway unless they crowd together).
  int max_ranks = 512;

  /// The smallest input it runs on: below, the general driver's fixed costs dominate anyway.
  std::int64_t min_n = std::int64_t(1) << 20;
  /// The largest fraction of the sample the ranks' bins may hold (above: few
  /// distinct values, where the general driver's equality buckets do better).
  double max_predicted = 1.0 / 16;
  /// Keys its copy buffer holds: n / capacity_divisor (a larger copy gives way
  /// to the general driver).
  std::int64_t capacity_divisor = 8;
  /// Bin tags: the count pass also writes each key's bin (2 bytes), and the filter
  /// reads those instead of finding every key's bin again, loading only the keys
  /// of selected bins. For 8-byte keys the tags are a quarter of the input's bytes
  /// and replace a second search per key on clustered keys (docs/performance.md,
  /// 2026-12-01); for 4-byte keys they would be half of them, and the workspace
  /// has room for them only where the buffers are large (not measured: off).
  bool tag_bins_k32 = false;
  bool tag_bins_k64 = true;
  /// The tagging count kernel's blocks per SM at least: without this bound its
  /// registers for 8-byte keys (66) left 3 blocks where the untagged count runs 4;
  /// with it, 64 and no spill.
  int tagged_count_min_blocks = 4;

  constexpr auto compiled() const {
    return std::tuple(reduce, scatter_k32, scatter_k64, finish, bin_target, max_ranks, tag_bins_k32, tag_bins_k64,
                      tagged_count_min_blocks);
  }
};

/// Rank ranges and top-k (dispatch/range_dispatch.cuh). The plan and refine-plan
/// kernels take the sample shape, the passes the stream shape.
struct range_policy {
  /// range_refine_gather_kernel: the sample's threads, 8 keys drawn by each.
  launch_shape refine{256, 8};
  /// range_small_finish_kernel: the last candidates sorted in one block.
  launch_shape small_sort{256, 16};
  /// range_tie_pick_kernel: one block.
  launch_shape tie_pick{512};
  /// range_candidate_take_kernel: a stream-ordered top-k's candidates selected in
  /// one block (block_radix_select wants 512 threads or more). 64-bit keys take
  /// 512 threads: 32 such keys a thread need more than 1024 threads' 64
  /// registers. Both hold 16384 keys.
  launch_shape candidate_take_k32{1024, 16};
  launch_shape candidate_take_k64{512, 32};
  /// One element per thread (pick, union keys, output keys, payload gather,
  /// order marks), a grid of at most gather_max_blocks blocks that stride.
  launch_shape gather{256};
  /// range_order_expand_kernel: a warp per tile of the order bitmap.
  launch_shape order_expand{128};
  /// range_bucket_count_kernel and range_bucket_scatter_kernel.
  launch_shape bucket{256, 4};
  /// range_bucket_expand_kernel.
  launch_shape bucket_expand{256};
  /// Inputs up to this many keys skip the sample and keep all their keys as
  /// candidates: a 4096-key sample narrows little there, and their sort is short.
  std::int64_t all_candidates_max = std::int64_t(1) << 16;
  /// The second sampling round keeps at most this many keys (one block sort).
  int refine_capacity = 4096;

  /// The largest grid of the gather and bucket kernels (they stride over the rest).
  int gather_max_blocks = 8192;
  /// Candidates are sorted once at most this many remain (such a radix sort
  /// costs about what another narrowing level costs: a plan, a pass and a host
  /// round trip); and at most this many levels narrow.
  std::int64_t sort_max = std::int64_t(1) << 18;
  int max_levels = 6;
  /// Where the last candidates are the smallest of them (a top-k's) and ties may
  /// come in any order, from this many they are not sorted: their boundary key is
  /// selected and one pass takes the keys below it and the ties still needed
  /// (range_driver::take_candidates). Measured at 2^25 candidates only (16 values,
  /// k = n/2 of 2^28: docs/performance.md, "Issue 25, sorted and tied top-k"). The
  /// bound is reasoned, not swept: from 2^20 a radix sort of (key, index) pairs
  /// costs more than the take's four reads of them plus a selection's fixed cost.
  std::int64_t candidate_take_min = std::int64_t(1) << 20;
  /// A synchronous top-k of k >= n / this many keys reads its sample's verdict
  /// back before its pass (a host round trip) and, where output position k - 1
  /// lies in a window of exactly two keys (few distinct values, the boundary
  /// where one value's run ends and the next begins), takes the tie cut instead
  /// (range_driver::try_tie_cut: a count, then the filters' single pass). From
  /// n/32 the round trip is a small part of the call, and the cut's extra read
  /// costs less than the pass's scattered writes of k keys. Reasoned from the
  /// k = n/2 profiles of docs/performance.md ("Issue 25, sorted and tied top-k"),
  /// not swept.
  std::int64_t tie_cut_min_share = 32;
  /// A synchronous deterministic top-k of k >= n / this many keys selects the key
  /// of position k - 1 exactly and takes the cut from it (range_driver::
  /// try_selected_cut): output in input order without the levels' ordering step.
  /// Where the two cross on the H200 (2^28 uniform floats, int32 indices): the
  /// levels with their bitmap ordering were faster at k = 2^25, the cut from 2^26
  /// on (bench/results/h200-topk.txt, the "deterministic" rows beside the
  /// "det. (buckets)" and "det. (bitmap)" ones; docs/performance.md, "Issue 25,
  /// the cut").
  std::int64_t selected_cut_min_share = 4;
  /// The second sampling round: the keys it aims to keep in the windows, and the
  /// largest second sample (a few microseconds of gathers).
  std::int64_t refine_target_kept = 2048;
  std::int64_t refine_max_size = std::int64_t(1) << 18;
  /// A stream-ordered top-k (ties in any order) takes the one-pass path (the
  /// plan and pass of the synchronous call, then its candidates in one block)
  /// when the pass is expected to leave at most this many candidates
  /// (core::expected_topk_candidates): half the block's 16384, so that the
  /// count's spread rarely sends the call on to the exact path (at k = 1024 of
  /// 2^28 keys the count is about 8192, one standard deviation about 2900: the
  /// keys up to the 8th of the 2^18-key second sample).
  std::int64_t async_take_expected_max = 8192;
  /// ... and only from this many keys: below, the exact path's kernels, which
  /// follow the one-pass path and return at once where it answered, cost more
  /// launches than the pass saves (measured: kselect-stream-ordered-bench's graph
  /// replay of topk_async at k = 1024, 2^18 to 2^22, H200; docs/performance.md,
  /// "Issue 24, top-k").
  std::int64_t async_take_pass_min = std::int64_t(1) << 21;
  /// More candidates expected than the block's share, but at most n / this
  /// many: they are selected by the exact descent over them and written
  /// (choose_async_take's `grid`), which reads them a few times instead of the
  /// input twice (the exact path's selection and take). Reasoned, not swept: at
  /// 1/16 of n the descent's reads (about 3 rounds over twice the expected
  /// candidates, core::take_candidate_capacity) stay well under one read of the
  /// input. Measured at k = 2^20 of 2^22 to 2^28 keys (expected n/55 to n/960):
  /// kselect-stream-ordered-bench, docs/performance.md "Issue 24, top-k".
  std::int64_t async_grid_take_share = 16;
  /// Deterministic unsorted output orders by a bitmap of the input positions
  /// from this many output keys per 4096-key tile on average, else by buckets
  /// of positions (the bitmap's cost is per tile, the buckets' per key).
  /// sweep: kselect-gpu-bench --topk (rows "det. (buckets)", "det. (bitmap)") -> bench/results/h100-topk.txt
  std::int64_t order_bitmap_min_per_tile = 256;
  /// Bucket order's expand: a warp takes bucket_expand_sparse_group buckets at a
  /// time where they hold fewer than bucket_expand_sparse_keys entries on
  /// average, else bucket_expand_dense_group.
  std::int64_t bucket_expand_sparse_keys = 4;
  int bucket_expand_sparse_group = 32;
  int bucket_expand_dense_group = 8;

  constexpr auto compiled() const {
    return std::tuple(refine, small_sort, tie_pick, candidate_take_k32, candidate_take_k64, gather, order_expand,
                      bucket, bucket_expand, all_candidates_max, refine_capacity);
  }
};

/// Approximate multiselection (dispatch/approx_dispatch.cuh); its counting pass
/// takes the common stream shape. The sample, the candidates and the lookup
/// table are the rules both backends share (core/approx.hpp), not tuning.
struct approx_policy {
  /// approx_sample_kernel: a thread per sample slot.
  launch_shape sample{256};
  /// approx_plan_kernel: the whole sample in one block sort; 64-bit keys take
  /// 512 threads (32 such keys a thread need more than 1024 threads' 64 registers).
  launch_shape plan_k32{1024, 16};
  launch_shape plan_k64{512, 32};
  /// approx_answer_kernel: one block (with 1024 threads' 64 registers it spilled).
  launch_shape answer{512};
  /// approx_scatter_kernel: the exact fallback's answers into place.
  launch_shape scatter{256};

  /// The scatter's largest grid (it strides over the rest).
  int scatter_max_blocks = 1024;

  constexpr auto compiled() const { return std::tuple(sample, plan_k32, plan_k64, answer, scatter); }
};

/// Every algorithm's policy.
struct policy {
  common_policy common;
  window_select_policy window;
  sample_select_policy levels;
  bin_prepass_policy prepass;
  range_policy range;
  approx_policy approx;

  /// The members compiled into the kernels.
  constexpr auto compiled() const {
    return std::tuple(common.compiled(), window.compiled(), levels.compiled(), prepass.compiled(),
                      range.compiled(), approx.compiled());
  }
};

/// Hopper (compute capability 9.x: H100, H200): the initializers above, measured there.
inline constexpr policy hopper{};
/// Other architectures: Hopper's values, untested elsewhere.
inline constexpr policy generic{};

/// The policy of a device of compute capability `compute_capability` (10 * major + minor).
constexpr const policy& policy_for(int compute_capability) {
  return compute_capability / 10 == 9 ? hopper : generic;
}

// The kernels are compiled once for all the library's architectures
// (CMAKE_CUDA_ARCHITECTURES), so every policy has their shapes and constants.
static_assert(hopper.compiled() == generic.compiled(), "a policy's compiled members differ from the kernels'");

/// The policy whose compiled members the kernels are built with (any policy's).
inline constexpr const policy& compiled = hopper;

// Couplings the kernels assume.
static_assert(compiled.levels.base_case == compiled.common.sample, "the window plan's base case is the sample sort");
static_assert(compiled.range.refine.threads == compiled.common.sample.threads, "refine kernels: the sample's block");
static_assert(compiled.range.refine_capacity == compiled.common.sample.tile_items(), "kept keys: one sample sort");
static_assert(compiled.prepass.scatter_k32.threads == compiled.common.stream.threads &&
                  compiled.prepass.scatter_k64.threads == compiled.common.stream.threads,
              "the scatter takes the stream's threads");
static_assert(hopper.levels.oracle_splitters <= hopper.levels.wide_splitters &&
                  generic.levels.oracle_splitters <= generic.levels.wide_splitters,
              "wide_splitters sizes the splitter arrays");

// The compiled members under the names the kernels use.
inline constexpr int stream_threads = compiled.common.stream.threads;
inline constexpr int stream_items = compiled.common.stream.items_per_thread;
inline constexpr int tile_keys = static_cast<int>(compiled.common.stream.tile_items());  // 4096
inline constexpr int stream_min_blocks = compiled.common.stream.min_blocks_per_sm;
inline constexpr int sample_threads = compiled.common.sample.threads;
inline constexpr int sample_items = compiled.common.sample.items_per_thread;
inline constexpr int sample_size = static_cast<int>(compiled.common.sample.tile_items());  // 4096
inline constexpr double window_sigmas = compiled.common.window_sigmas;
inline constexpr double window_margin = compiled.common.window_margin;
inline constexpr int base_threads = compiled.levels.base_case.threads;
inline constexpr int base_items = compiled.levels.base_case.items_per_thread;
inline constexpr std::int64_t base_case_max = compiled.levels.base_case.tile_items();  // 4096
inline constexpr int max_splitters = compiled.levels.wide_splitters;
inline constexpr int max_buckets = 2 * max_splitters + 1;
inline constexpr std::int64_t flush_tiles = compiled.levels.flush_tiles;
inline constexpr std::uint32_t bin_target = compiled.prepass.bin_target;
inline constexpr int bin_prepass_max_ranks = compiled.prepass.max_ranks;
inline constexpr int bin_tagged_count_min_blocks = compiled.prepass.tagged_count_min_blocks;
/// Whether the pre-pass's count pass tags keys of type K with their bins.
template <class K>
inline constexpr bool bin_tags = sizeof(K) == 8 ? compiled.prepass.tag_bins_k64 : compiled.prepass.tag_bins_k32;
inline constexpr std::int64_t range_all_candidates_max = compiled.range.all_candidates_max;
inline constexpr int refine_items = compiled.range.refine.items_per_thread;
inline constexpr int refine_capacity = compiled.range.refine_capacity;

}  // namespace kselect::cuda::tuning
