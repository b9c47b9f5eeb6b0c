// Which algorithm runs, as functions of the call's sizes and options and of the
// device's tuning policy (tuning.hpp), as RAFT's choose_select_k_algorithm: the
// drivers and the workspace planners ask these, so that what runs and what the
// workspace holds for it come from one decision. Plain C++ (no CUDA), tested on
// the CPU (tests/cpu/choose_test.cpp). The device filters' choice is
// choose_filter_algorithm (kselect/detail/filter_plan.hpp); the approximate
// multiselection's (histogram or narrow-window mode) is
// core::approx_choose_candidates, shared with the CPU backend.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>

#include "core/range_plan.hpp"
#include "cuda/task_kinds.hpp"
#include "cuda/tuning.hpp"
#include "kselect/types.hpp"

namespace kselect::cuda {

// ---- multiselection (dispatch/entry.cuh, multiselect_dispatch.cuh) --------------

/// Which driver answers a multiselection.
enum class multiselect_path {
  /// window_select_driver: window levels chained on the device (a missed
  /// prediction runs the levels instead).
  window,
  /// bin_reduce_driver: a pre-pass that reduces the ranks to small regions of a
  /// copy (its sample may send the call to the levels instead).
  bin_prepass,
  /// multiselect_driver: SampleSelect levels.
  levels,
};

/// One rank: the window levels, unless SampleSelect proper is asked for. From 2 to
/// prepass.max_ranks ranks of at least prepass.min_n keys, with the automatic
/// algorithm: the pre-pass. Otherwise the levels. Depends only on the sizes and the
/// algorithm, so the workspace (plan_workspace) is sized for the path that runs.
constexpr multiselect_path choose_multiselect_path(std::int64_t n, std::int64_t num_ranks, algorithm algo,
                                                   const tuning::policy& p) {
  if (num_ranks == 1 && algo != algorithm::sample_select) return multiselect_path::window;
  if (num_ranks > 1 && num_ranks <= p.prepass.max_ranks && algo == algorithm::automatic && n >= p.prepass.min_n)
    return multiselect_path::bin_prepass;
  return multiselect_path::levels;
}

/// Whether the levels keep a 1-byte oracle per key (each key's bucket, so the
/// extract pass need not classify again): SampleSelect as the paper only.
constexpr bool choose_oracles(algorithm algo) { return algo == algorithm::sample_select; }

/// Whether a task of the levels is sorted in one block (base_case_kernel) instead
/// of taking another level: its keys are compact and fit the block.
constexpr bool choose_base_case(bool compact, std::int64_t count, const tuning::policy& p) {
  return compact && count <= p.levels.base_case.tile_items();
}

/// A task's mode: range buckets when its keys are not compact (they cannot be
/// sampled); a predicted window for one rank (but for SampleSelect proper);
/// else buckets between sample splitters.
constexpr task_mode choose_task_mode(bool compact, std::int64_t ranks, algorithm algo) {
  if (!compact) return task_mode::range_buckets;
  if (ranks == 1 && algo != algorithm::sample_select) return task_mode::window;
  return task_mode::sample_buckets;
}

/// Splitters a task asks for: the window's two ends; for range buckets at most one
/// per key of its interval (`key_span` = hi - lo); the paper's count for
/// SampleSelect proper; for the automatic algorithm, wide_splitters for a
/// multi-rank task of more than wide_above keys, else the paper's count.
constexpr int choose_splitters(task_mode mode, std::uint64_t key_span, std::int64_t ranks, std::int64_t count,
                               algorithm algo, const tuning::sample_select_policy& p) {
  if (mode == task_mode::window) return 2;
  if (mode == task_mode::range_buckets)
    return static_cast<int>(std::min<std::uint64_t>(static_cast<std::uint64_t>(p.oracle_splitters), key_span));
  if (algo == algorithm::sample_select) return p.oracle_splitters;
  return ranks > 1 && count > p.wide_above ? p.wide_splitters : p.oracle_splitters;
}

/// How a task's keys are classified among more than two splitters: the paper's
/// search tree for SampleSelect proper, the slot table otherwise.
constexpr classifier_kind choose_classifier(algorithm algo) {
  return algo == algorithm::sample_select ? classifier_kind::tree : classifier_kind::slots;
}

// ---- rank ranges and top-k (dispatch/range_dispatch.cuh) ------------------------

/// How the output is ordered after the selection.
enum class range_order {
  none,     ///< as the passes leave it
  sort,     ///< by key (ties by index when deterministic)
  buckets,  ///< input order, by buckets of input positions
  bitmap,   ///< input order, by a bitmap of the input positions (buckets after the exact path)
};

/// Sorted output is sorted; deterministic unsorted output is in input order, by
/// `forced` (buckets or bitmap: tests and benchmarks) or else by a bitmap from
/// order_bitmap_min_per_tile output keys per tile of the `tiles` (of
/// tuning::tile_keys input positions) on average, by buckets below.
constexpr range_order choose_range_order(bool sorted, bool deterministic, std::int64_t m, std::int64_t tiles,
                                         std::optional<range_order> forced, const tuning::range_policy& p) {
  if (sorted) return range_order::sort;
  if (!deterministic) return range_order::none;
  if (forced) return *forced == range_order::bitmap ? range_order::bitmap : range_order::buckets;
  return m >= tiles * p.order_bitmap_min_per_tile ? range_order::bitmap : range_order::buckets;
}

/// After a level of `size` keys left `candidates` of them: sort them, or narrow
/// them with another level like the input. Sorted when few are left, when the
/// level no longer narrows (ties at a boundary: more than half are candidates),
/// or after max_levels levels (`level` counts from 0).
enum class range_next { narrow, sort };
constexpr range_next choose_range_next(std::int64_t candidates, std::int64_t size, int level,
                                       const tuning::range_policy& p) {
  return candidates <= p.sort_max || 2 * candidates > size || level + 1 >= p.max_levels ? range_next::sort
                                                                                       : range_next::narrow;
}

/// Whether the last `candidates` (whose sorted positions [first, last) complete
/// the output) are finished by a selection of their boundary key and a take
/// instead of a sort: positions from 0 (the smallest of them), ties in any order
/// (not deterministic), at least range.candidate_take_min of them, and not where
/// sorted output takes them in its one sort with the output so far (`one_sort`).
constexpr bool choose_candidate_take(std::int64_t candidates, std::int64_t first, bool deterministic, bool one_sort,
                                     const tuning::range_policy& p) {
  return first == 0 && !deterministic && !one_sort && candidates >= p.candidate_take_min;
}

/// Whether a top-k (positions [0, k) of n keys) may take the tie cut: synchronous
/// (it reads its sample's verdict back), the input sampled (more than
/// all_candidates_max keys), k < n and at least n / tie_cut_min_share.
constexpr bool choose_tie_cut(std::int64_t n, std::int64_t lo, std::int64_t hi, bool stream_ordered,
                              const tuning::range_policy& p) {
  return !stream_ordered && lo == 0 && hi < n && n > p.all_candidates_max && hi >= n / p.tie_cut_min_share;
}

/// Whether a top-k takes the cut from its boundary key selected exactly:
/// synchronous, deterministic output (in input order, which the cut writes), k < n
/// and at least n / selected_cut_min_share.
constexpr bool choose_selected_cut(std::int64_t n, std::int64_t lo, std::int64_t hi, bool deterministic,
                                   bool stream_ordered, const tuning::range_policy& p) {
  return !stream_ordered && deterministic && lo == 0 && hi < n && hi >= n / p.selected_cut_min_share;
}

/// How the last candidates are sorted: with the output so far, in one sort, when
/// the output is to be sorted and both fit a candidate buffer of `capacity`; else
/// in one block when they fit its sort; else by a radix sort.
enum class range_finish { block_sort, radix_sort, sort_with_output };
constexpr range_finish choose_range_finish(std::int64_t candidates, bool sorted, std::int64_t output_so_far,
                                           std::int64_t capacity, const tuning::range_policy& p) {
  if (sorted && output_so_far + candidates <= capacity) return range_finish::sort_with_output;
  return candidates <= p.small_sort.tile_items() ? range_finish::block_sort : range_finish::radix_sort;
}

/// How a stream-ordered top-k whose ties may come in any order finishes
/// (range_dispatch.cuh): after the synchronous call's plan and pass, its
/// candidates selected in one block (`block`) or by a descent over them and a
/// write (`grid`), the exact path following, skipped on the device where either
/// answered; or the exact path alone (`none`).
enum class async_take { none, block, grid };

/// core::expected_topk_candidates with the policy's sample and windows.
inline std::int64_t expected_take_candidates(std::int64_t n, std::int64_t k, const tuning::policy& p) {
  return core::expected_topk_candidates(n, k, p.common.sample.tile_items(), p.common.window_sigmas,
                                        p.common.window_margin, p.range.all_candidates_max,
                                        p.range.refine_target_kept, p.range.refine_max_size);
}

/// Not on small inputs (below async_take_pass_min keys), nor where the
/// candidates are expected to be many (expected_take_candidates above
/// n / async_grid_take_share, or every key a candidate: it counts them all then).
inline async_take choose_async_take(std::int64_t n, std::int64_t k, const tuning::policy& p) {
  if (n < p.range.async_take_pass_min || k <= 0 || k >= n) return async_take::none;
  const std::int64_t expected = expected_take_candidates(n, k, p);
  if (expected <= p.range.async_take_expected_max) return async_take::block;
  return expected <= n / p.range.async_grid_take_share ? async_take::grid : async_take::none;
}

/// Buckets a warp of the bucket order's expand takes at a time, for m output
/// entries over `tiles` buckets: many where the buckets are sparse.
constexpr int choose_bucket_expand_group(std::int64_t m, std::int64_t tiles, const tuning::range_policy& p) {
  return m < p.bucket_expand_sparse_keys * tiles ? p.bucket_expand_sparse_group : p.bucket_expand_dense_group;
}

}  // namespace kselect::cuda
