// Host driver of rank-range selection and top-k (top-k is the range [0, k) of the
// ascending or, for the largest, descending order; ties by index):
//
//   range_plan_kernel   1 block: sample, windows around positions lo and hi - 1
//   cut:   (synchronous top-k) the boundary key's ties counted per tile,
//          the last tie the output takes found, and the filters' single pass
//          writing the keys below that key and its ties up to there, in input
//          order (range_cut_kernels.cuh). The candidate keys: the two keys of
//          a sample window over exactly two keys (few distinct values; k >= n /
//          range.tie_cut_min_share), where the counts confirm one (else the
//          pass below follows on the same sample); else, for deterministic
//          output of k >= n / range.selected_cut_min_share, the key of position
//          k - 1 selected exactly (the output is then already in input order)
//   range_refine_*      (large inputs) a second, larger sample narrows them
//   range_pass_kernel   one read of the input: inside keys to the output,
//                       boundary-window keys to the candidates
//   -- a host round trip: the counters (core::locate_range) --
//   fast:  while many candidates remain, the same plan and pass over them (the
//          run of candidates that completes the range is a rank range of the
//          candidates); then sort the few left by key and range_pick_kernel
//          copies the run that completes the range (deterministic: of a run
//          of equal keys straddling its ends, range_tie_pick_kernel takes the
//          elements of the smaller indices); many left that a level no longer
//          narrows (heavy ties) and complete a top-k in any order: their
//          boundary key selected, then one pass takes (take_candidates)
//   exact: (a prediction missed, or too many candidates: heavy ties) exact
//          boundary keys by selection (for lo = 0 only position hi - 1's), then
//          count, scan and write in input order (range_exact_kernels.cuh); a
//          top-k whose ties may come in any order instead takes in one more
//          pass: keys below the boundary to the output, the ties it still
//          needs from those the pass kept (range_take_kernels.cuh)
//   stream-ordered (topk_async, rank_range_async): no round trip. A top-k whose
//          ties may come in any order and whose pass is expected to leave few
//          candidates (choose_async_take) runs the plan and pass above, then
//          finishes its candidates in one block, or where more are expected by
//          the exact descent over them and a write; either writes whether it could;
//          where the pass overflowed with one key (heavy ties) that key is taken
//          as the boundary and the take's counts confirm it; the exact path's
//          kernels follow, skipped on the device when either answered
//          (the boundary key by queue_gated_select: the exact descent). Every other
//          request takes the exact path, the boundary keys selected by
//          select_async or multiselect_async; an unsorted top-k of every key
//          copies the input (range_take_kernels.cuh)
//   then, when asked: deterministic output in input order (from
//   range.order_bitmap_min_per_tile output keys per tile on average, a bitmap of
//   the input positions that level 0 writes; below, and after the exact path,
//   buckets of input positions: range_order_kernels.cuh); sorted output by a
//   stable sort by key after it (ties by index when deterministic), the values
//   from the sorted keys (when the fast path ends with a candidate sort and the
//   output so far fits a candidate buffer beside them, one sort of both instead
//   of two, sort_with_candidates, ties by an index sort first); the payload
//   gathered by index. The choices are dispatch/choose.hpp's, with the device's
//   policy.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <type_traits>

#include "cuda/common.cuh"
#include "cuda/dispatch/arguments.hpp"
#include "cuda/dispatch/choose.hpp"
#include "cuda/dispatch/descent_entry.hpp"
#include "cuda/dispatch/device_policy.hpp"
#include "cuda/dispatch/full_wave.hpp"
#include "kselect/detail/workspace_carver.hpp"
#include "cuda/dispatch/profiler.hpp"
#include "cuda/kernels/range_cut_kernels.cuh"
#include "cuda/kernels/range_exact_kernels.cuh"
#include "cuda/kernels/range_finish_kernels.cuh"
#include "cuda/kernels/range_order_kernels.cuh"
#include "cuda/kernels/range_pass_kernel.cuh"
#include "cuda/kernels/range_plan_kernel.cuh"
#include "cuda/kernels/range_refine_kernels.cuh"
#include "cuda/kernels/range_take_kernels.cuh"
#include "cuda/kernels/range_tie_kernels.cuh"
#include "cuda/radix_sort_pairs.hpp"
#include "cuda/range_hooks.hpp"
#include "cuda/tuning.hpp"
#include "kselect/detail/filter_dispatch.cuh"
#include "kselect/device.hpp"
#include "core/int_math.hpp"
#include "core/range_plan.hpp"

namespace kselect::cuda {

/// Unsigned integer of B bytes (4 or 8).
template <int B>
using uint_of = std::conditional_t<B == 4, std::uint32_t, std::uint64_t>;

/// What a range call needs, and where it lies in the workspace (one function for
/// the size query and the call, so the two never drift).
struct range_layout {
  std::int64_t m = 0;              ///< hi - lo
  std::int64_t cand_capacity = 0;  ///< candidates the buffers hold
  std::int64_t tiles = 0;          ///< tiles of the exact path
  int index_bytes = 0;             ///< width of the indices the pipeline carries (0: none)
  bool own_indices = false;        ///< indices live in the workspace (the caller did not ask for them)
  bool post_sort = false;          ///< the output is ordered afterwards (sorted or deterministic)
  bool bitmap_order = false;       ///< deterministic unsorted output by bitmap (range_order_kernels.cuh)
  bool bucket_order = false;       ///< deterministic unsorted output by buckets (else, or after the exact path)
  bool take = false;               ///< top-k, ties in any order: the exact path by range_take_kernels.cuh
                                   ///< (synchronous: where k fits candidate buffer 0, which its ties then use)
  bool take_pass = false;          ///< ... trying the one-pass path first (choose_async_take)
  bool take_grid = false;          ///< ... which finishes by a descent over its candidates (else in one block)
  std::int64_t take_capacity = 0;  ///< the take's candidates (ties, or the one-pass path's window)
  std::int64_t grid_capacity = 0;  ///< the grid finish's candidates (core::take_candidate_capacity)
  bool tie_cut = false;            ///< the tie cut may run (choose_tie_cut)
  bool selected_cut = false;       ///< the cut from the selected boundary key runs (choose_selected_cut)
  bool values_sort = false;        ///< sorted output by a sort of the values themselves (sorts_by_values)
  const tuning::policy* policy = nullptr;  ///< the device's, which the layout was planned with
  std::size_t state = 0, cand_vals[2] = {}, cand_idx[2] = {}, sort_keys[2] = {}, temp = 0, temp_bytes = 0, indices = 0,
              post_keys[2] = {}, post_idx = 0, tile_counts[3] = {}, below = 0, thresholds = 0, select_ws = 0,
              select_bytes = 0, refine_kept = 0, order_bits = 0, bucket_keys = 0, bucket_offsets = 0,
              bucket_ranks = 0, ranks = 0, take_vals = 0, take_idx = 0, answered = 0, grid_state = 0,
              grid_tie_vals = 0, grid_tie_idx = 0, grid_select_ws = 0, grid_select_bytes = 0, cut_filter = 0,
              cut_words = 0, nan_count = 0, total = 0;
};

/// Whether sorted output sorts the output values themselves with their indices
/// (sort_values) instead of their keys: no keys made from the output and no
/// values written back from them, a read and a write of the output each
/// (docs/performance.md, "Issue 25, sorted top-k by its values").
/// CUB's order is kselect's for integers. For floating point it puts -0.0 before
/// +0.0, which only ties may do where the order of ties is free (not
/// deterministic), and negative NaNs below -inf, which range_rotate_nans_kernel
/// mends.
template <class T>
bool sorts_by_values(const device::topk_config& cfg) {
  return cfg.sorted && (std::is_integral_v<T> || !cfg.deterministic);
}

/// The cut's write: the filters' single pass over all n keys.
template <class T>
kselect::detail::single_pass_layout cut_filter_layout(std::int64_t n) {
  return kselect::detail::plan_single_pass(n, sizeof(T), kselect::detail::single_pass_state_bytes(n, sizeof(T)));
}

/// Bytes of the deterministic order's bitmap: a bit per input position, whole tiles.
inline std::size_t order_bitmap_bytes(std::int64_t tiles) {
  return static_cast<std::size_t>(tiles) * (tuning::tile_keys / 8);
}

/// The exact path's multiselection of the two boundary keys: the window
/// algorithm (no pre-pass, so its workspace stays within ~0.3x the input).
inline device::select_config exact_path_select_config(const device::topk_config& cfg) {
  device::select_config sel;
  sel.algo = algorithm::window;
  sel.seed = cfg.seed;
  return sel;
}

/// A stream-ordered call's status word (may be null), answered without a
/// selection: device::async_answered, written on the stream.
inline cudaError_t write_answered_status(std::int32_t* status, cudaStream_t stream) {
  static_assert(device::async_answered == 0, "the memset writes async_answered");
  return status ? cudaMemsetAsync(status, 0, sizeof(std::int32_t), stream) : cudaSuccess;
}

/// The exact path's exact selection of the boundary keys
/// (core::range_selected_boundaries) from d_in into d_thresholds: select for one
/// rank, multiselect for two, or their stream-ordered forms (the two ranks
/// written to d_ranks on the stream), the status word to req.status. With
/// d_workspace null, the workspace query.
template <class T>
cudaError_t select_boundaries(void* d_workspace, std::size_t& bytes, const T* d_in, std::int64_t n,
                              const kselect::detail::range_request& req, const device::topk_config& cfg,
                              T* d_thresholds, std::int64_t* d_ranks, cudaStream_t stream = nullptr) {
  const core::boundary_ranks b = core::range_selected_boundaries(n, req.lo, req.hi, req.descending);
  const device::select_config sel = exact_path_select_config(cfg);
  if (!req.stream_ordered) {
    return b.count == 1 ? device::select<T>(d_workspace, bytes, d_in, d_thresholds, n, b.ranks[0], stream, sel)
                        : device::multiselect<T>(d_workspace, bytes, d_in, d_thresholds, n, b.ranks, 2, stream, sel);
  }
  device::select_config async_sel;  // the stream-ordered calls' own fast paths
  async_sel.seed = cfg.seed;
  if (b.count == 1)
    return device::select_async<T>(d_workspace, bytes, d_in, d_thresholds, req.status, n, b.ranks[0], stream,
                                   async_sel);
  if (d_workspace) {
    range_store_ranks_kernel<><<<1, 1, 0, stream>>>(d_ranks, b.ranks[0], b.ranks[1]);
    KSELECT_LAUNCH_CHECK();
  }
  // The query only needs a non-null rank pointer; the call reads d_ranks.
  return device::multiselect_async<T>(d_workspace, bytes, d_in, d_thresholds, req.status, n,
                                      d_workspace ? d_ranks : b.ranks, 2, stream, async_sel);
}

template <class T>
cudaError_t plan_range_layout(std::int64_t n, const kselect::detail::range_request& req,
                              const device::topk_config& cfg, range_layout& w,
                              range_order_method order_method = range_order_method::automatic) {
  using K = core::key_t<T>;
  w = range_layout{};
  KSELECT_CUDA_TRY(current_policy(w.policy));
  const tuning::policy& p = *w.policy;
  kselect::detail::workspace_carver carve;
  w.m = req.hi - req.lo;
  const auto m = static_cast<std::size_t>(w.m);
  w.tiles = (n + tuning::tile_keys - 1) / tuning::tile_keys;
  // The stream-ordered form has no level-0 pass to mark the bitmap: buckets.
  const std::optional<range_order> forced =
      req.stream_ordered                            ? std::optional(range_order::buckets)
      : order_method == range_order_method::automatic ? std::nullopt
      : order_method == range_order_method::bitmap  ? std::optional(range_order::bitmap)
                                                    : std::optional(range_order::buckets);
  const range_order order = choose_range_order(cfg.sorted, cfg.deterministic, w.m, w.tiles, forced, p.range);
  // Deterministic sorted output is put in input order first, as unsorted output is
  // (order_output): a stable sort by key then leaves ties by index.
  const range_order input_order = cfg.sorted && cfg.deterministic
                                      ? choose_range_order(false, true, w.m, w.tiles, forced, p.range)
                                      : order;
  w.post_sort = order != range_order::none;
  const bool need_indices = req.indices_out != nullptr || w.post_sort || req.values_in != nullptr;
  w.own_indices = need_indices && req.indices_out == nullptr;
  w.index_bytes = req.indices_out ? req.index_bytes : (need_indices ? (detail::fits_int32_indices(n) ? 4 : 8) : 0);
  // The cut from the selected key answers without the levels and writes
  // deterministic output in input order itself; the stream-ordered form takes the
  // exact path only: neither has candidates.
  w.selected_cut = !forced && choose_selected_cut(n, req.lo, req.hi, cfg.deterministic, req.stream_ordered, p.range);
  w.cand_capacity = req.stream_ordered || w.selected_cut
                        ? 0
                        : core::range_candidate_capacity(n, req.lo, req.hi, p.common.sample.tile_items(),
                                                         p.common.window_sigmas, p.common.window_margin,
                                                         p.range.all_candidates_max);
  const auto cap = static_cast<std::size_t>(w.cand_capacity);
  // The bitmap order runs the buckets after the exact path: both are carved.
  w.bucket_order = !w.selected_cut && (input_order == range_order::buckets || input_order == range_order::bitmap);
  w.bitmap_order = !w.selected_cut && input_order == range_order::bitmap;

  // CUB's temporary storage: the largest of the sorts and the scan this call may run.
  std::size_t temp = 0, bytes = 0;
  auto need = [&](cudaError_t st) {
    temp = std::max(temp, bytes);
    return st;
  };
  {
    cub::DoubleBuffer<K> keys;
    cub::DoubleBuffer<std::uint64_t> idx;
    KSELECT_CUDA_TRY(need(sort_pairs(nullptr, bytes, keys, idx, w.cand_capacity, 0, 8 * sizeof(K), nullptr)));
    KSELECT_CUDA_TRY(need(sort_pairs(nullptr, bytes, idx, keys, w.cand_capacity, 0, 64, nullptr)));
  }
  w.values_sort = sorts_by_values<T>(cfg);
  if (cfg.sorted) {
    auto post = [&](auto index_tag) -> cudaError_t {
      using I = decltype(index_tag);
      cub::DoubleBuffer<K> keys;
      cub::DoubleBuffer<I> idx;
      KSELECT_CUDA_TRY(need(sort_pairs(nullptr, bytes, keys, idx, w.m, 0, 8 * sizeof(K), nullptr)));
      KSELECT_CUDA_TRY(need(sort_pairs(nullptr, bytes, idx, keys, w.m, 0, 8 * sizeof(I), nullptr)));
      if (w.values_sort) {
        cub::DoubleBuffer<T> values;
        KSELECT_CUDA_TRY(need(sort_values(nullptr, bytes, values, idx, w.m, req.descending, nullptr)));
      }
      return cudaSuccess;
    };
    KSELECT_CUDA_TRY(w.index_bytes == 4 ? post(std::uint32_t{}) : post(std::uint64_t{}));
  }
  KSELECT_CUDA_TRY(need(exclusive_sum_u64(nullptr, bytes, nullptr, nullptr, w.tiles + 1, nullptr)));
  w.temp_bytes = temp;

  // The take's ties need k entries. The synchronous form reaches the exact path
  // only after a level missed, when that level's candidate buffer 0 is free: it
  // takes only where k fits there (else the count, scan and write of
  // range_exact_kernels.cuh), so the take adds nothing to its workspace.
  w.take = req.lo == 0 && !cfg.deterministic && (req.stream_ordered || w.m <= w.cand_capacity);
  const async_take finish = w.take && req.stream_ordered ? choose_async_take(n, w.m, p) : async_take::none;
  w.take_pass = finish != async_take::none;
  w.take_grid = finish == async_take::grid;
  if (w.take_grid) {
    w.grid_capacity =
        core::take_candidate_capacity(n, expected_take_candidates(n, w.m, p), candidate_take_capacity<K>);
    KSELECT_CUDA_TRY(exact_descent_workspace_bytes<T>(w.grid_capacity, 1, w.grid_select_bytes));
  }
  const std::int64_t pass_capacity = w.take_grid ? w.grid_capacity : w.take_pass ? candidate_take_capacity<K> : 0;
  w.take_capacity = w.take ? std::max<std::int64_t>(w.m, pass_capacity) : 0;
  const auto own_take = static_cast<std::size_t>(w.take_capacity);
  const auto grid_cap = static_cast<std::size_t>(w.grid_capacity);

  // The exact path's selection of the boundary keys: select_boundaries, or after
  // the one-pass path the exact descent gated on the device (queue_gated_select).
  w.select_bytes = 0;
  if (w.take_pass)
    KSELECT_CUDA_TRY(exact_descent_workspace_bytes<T>(n, 1, w.select_bytes));
  else if (w.m > 0)
    KSELECT_CUDA_TRY(select_boundaries<T>(nullptr, w.select_bytes, nullptr, n, req, cfg, nullptr, nullptr));

  w.state = carve.take(sizeof(range_state<K>));
  for (int b = 0; b < 2; ++b) {
    w.cand_vals[b] = carve.take(cap * sizeof(T));
    w.cand_idx[b] = carve.take(cap * sizeof(std::uint64_t));
    w.sort_keys[b] = carve.take(cap * sizeof(K));
  }
  w.temp = carve.take(w.temp_bytes);
  w.indices = carve.take(w.own_indices ? m * static_cast<std::size_t>(w.index_bytes) : 0);
  if (cfg.sorted) {
    w.post_keys[0] = carve.take(m * sizeof(K));
    w.post_keys[1] = carve.take(m * sizeof(K));
    w.post_idx = carve.take(m * static_cast<std::size_t>(w.index_bytes));
  }
  if (w.bucket_order) {
    w.bucket_keys = carve.take(m * sizeof(T));
    w.bucket_offsets = carve.take(m * sizeof(std::uint16_t));
    w.bucket_ranks = carve.take(m * sizeof(std::uint16_t));
  }
  for (auto& c : w.tile_counts) c = carve.take(static_cast<std::size_t>(w.tiles + 1) * sizeof(unsigned long long));
  w.below = carve.take(sizeof(unsigned long long));
  w.thresholds = carve.take(2 * sizeof(T));
  w.select_ws = carve.take(w.select_bytes);
  w.ranks = carve.take(req.stream_ordered ? 2 * sizeof(std::int64_t) : 0);
  w.take_vals = req.stream_ordered ? carve.take(own_take * sizeof(T)) : w.cand_vals[0];
  w.take_idx = req.stream_ordered ? carve.take(own_take * sizeof(std::uint64_t)) : w.cand_idx[0];
  w.answered = carve.take(w.take_pass ? 2 * sizeof(std::int32_t) : 0);  // answered(), spec_skip()
  w.grid_state = carve.take(w.take_grid ? sizeof(grid_take_state) : 0);
  w.grid_tie_vals = carve.take(grid_cap * sizeof(T));
  w.grid_tie_idx = carve.take(grid_cap * sizeof(std::uint64_t));
  w.grid_select_ws = carve.take(w.grid_select_bytes);
  w.refine_kept = carve.take(static_cast<std::size_t>(p.range.refine_capacity) * sizeof(K));
  w.tie_cut = choose_tie_cut(n, req.lo, req.hi, req.stream_ordered, p.range);
  const bool cut = w.tie_cut || w.selected_cut;
  w.cut_filter = carve.take(cut ? cut_filter_layout<T>(n).bytes : 0);
  w.cut_words = carve.take(cut ? sizeof(cut_words) : 0);
  // Cleared, then set by the level-0 pass and for the later levels' and the pick's keys.
  w.order_bits = carve.take(w.bitmap_order ? order_bitmap_bytes(w.tiles) : 0);
  w.nan_count = carve.take(w.values_sort && std::is_floating_point_v<T> ? sizeof(unsigned long long) : 0);
  w.total = carve.end;
  return cudaSuccess;
}

template <class T>
class range_driver {
  using K = core::key_t<T>;

 public:
  range_driver(const T* in, std::int64_t n, const kselect::detail::range_request& req, T* out_keys,
               cudaStream_t stream, const device::topk_config& cfg, char* ws, const range_layout& w)
      : in_(in), n_(n), req_(req), out_keys_(out_keys), stream_(stream), cfg_(cfg), ws_(ws), w_(w),
        policy_(*w.policy) {
    flip_ = req.descending ? static_cast<K>(~K(0)) : K(0);
    indices_ = req.indices_out ? req.indices_out : (w.own_indices ? ws + w.indices : nullptr);
  }

  cudaError_t run() {
    if (w_.m == 0) return cudaSuccess;
    KSELECT_CUDA_TRY(size_pass_grid());
    if (req_.stream_ordered) {
      if (w_.m == n_ && !cfg_.sorted) return take_all();
      // No host round trip: the one-pass path where chosen, the exact path
      // (skipped on the device where the one-pass path answered), then the same
      // ordering and payload.
      if (w_.take_pass) KSELECT_CUDA_TRY(run_take_pass());
      exact_ = true;
      KSELECT_CUDA_TRY(run_exact());
      return finish_output();
    }
    // The cut, where the sample allows it (two keys), else from the selected
    // boundary key where planned; else level 0 (on the same sample).
    bool cut = false;
    if (w_.tie_cut) KSELECT_CUDA_TRY(try_tie_cut(cut));
    if (!cut && w_.selected_cut) KSELECT_CUDA_TRY(try_selected_cut(cut));
    if (cut) return finish_output();
    const bool sampled = w_.tie_cut;
    // Level 0 reads the input; each later level the previous level's candidates.
    const T* src = in_;
    const std::uint64_t* src_idx = nullptr;
    std::int64_t size = n_, lo = req_.lo, hi = req_.hi, out_at = 0;
    int buf = 0;
    if (w_.bitmap_order) {
      KSELECT_CUDA_TRY(cudaMemsetAsync(ws_ + w_.tile_counts[0], 0,
                                       static_cast<std::size_t>(w_.tiles + 1) * sizeof(unsigned long long), stream_));
      // Level 0 writes only the words where it has output keys.
      KSELECT_CUDA_TRY(cudaMemsetAsync(ws_ + w_.order_bits, 0, order_bitmap_bytes(w_.tiles), stream_));
    }
    for (int level = 0;; ++level) {
      KSELECT_CUDA_TRY(run_level(level, src, src_idx, size, lo, hi, out_at, buf, sampled && level == 0));
      const core::range_pick pick = core::locate_range(lo, hi, counts(), w_.cand_capacity);
      if (!pick.ok) {
        exact_ = true;
        bool taken = false;
        if (level == 0) KSELECT_CUDA_TRY(take_kept_ties(taken));
        if (level == 0 && !taken) KSELECT_CUDA_TRY(take_tied_boundary(taken));
        if (!taken) KSELECT_CUDA_TRY(run_exact());
        break;
      }
      out_at += static_cast<std::int64_t>(state_.inside);
      if (level == 0) level0_inside_ = out_at;
      const auto cand = static_cast<std::int64_t>(state_.cand);
      if (pick.last <= pick.first) break;
      // Few candidates left, or a level that no longer narrows (ties at a
      // boundary): sort them. Else narrow them like the input.
      if (choose_range_next(cand, size, level, policy_.range) == range_next::sort) {
        // Not with the output so far where level 0 only marked it in the bitmap.
        const range_finish finish =
            choose_range_finish(cand, cfg_.sorted && !w_.bitmap_order, out_at, w_.cand_capacity, policy_.range);
        bool taken = false;
        if (choose_candidate_take(cand, pick.first, cfg_.deterministic, finish == range_finish::sort_with_output,
                                  policy_.range))
          KSELECT_CUDA_TRY(take_candidates(buf, cand, pick, out_at, taken));
        if (taken) break;
        if (finish == range_finish::sort_with_output) {
          KSELECT_CUDA_TRY(sort_with_candidates(buf, cand, pick, out_at));
          ordered_ = true;
        } else {
          KSELECT_CUDA_TRY(finish_candidates(buf, cand, pick, out_at, finish));
        }
        break;
      }
      src = reinterpret_cast<const T*>(ws_ + w_.cand_vals[buf]);
      src_idx = reinterpret_cast<const std::uint64_t*>(ws_ + w_.cand_idx[buf]);
      size = cand;
      lo = pick.first;
      hi = pick.last;
      buf ^= 1;
      ++levels_;
    }
    return finish_output();
  }

  /// For tests: whether the exact path ran, whether heavy ties at the boundary
  /// were taken (and from level 0's own candidates), whether sorted output took
  /// one sort (sort_with_candidates), whether the candidates were taken without a
  /// sort, whether the cut answered, levels after the first, the last counters.
  bool took_exact_path() const { return exact_; }
  bool took_tied_boundary() const { return tied_boundary_; }
  bool took_kept_ties() const { return kept_ties_; }
  bool sorted_with_candidates() const { return ordered_; }
  bool took_candidates() const { return candidates_taken_; }
  bool took_cut() const { return cut_; }
  int extra_levels() const { return levels_; }
  core::range_counts counts() const { return {state_.below, state_.lo_cand, state_.cand, state_.inside}; }

 private:
  /// The output ordered as asked, the payload gathered.
  cudaError_t finish_output() {
    KSELECT_CUDA_TRY(order_output());
    if (req_.values_in) {
      prof_.start(stream_, "range payload");
      range_gather_kernel<T><<<grid_for(gather, w_.m), gather.threads, 0, stream_>>>(
          in_, indices_, w_.index_bytes, w_.m, nullptr, nullptr, req_.values_in, req_.values_out, req_.value_bytes);
      KSELECT_LAUNCH_CHECK();
      prof_.stop(stream_);
    }
    prof_.report();
    return cudaSuccess;
  }

  /// The one-element-per-thread kernels' shape.
  static constexpr tuning::launch_shape gather = tuning::compiled.range.gather;

  /// Blocks of `shape` that cover `count` elements, at most the policy's
  /// gather_max_blocks (the kernels stride over the rest).
  unsigned grid_for(const tuning::launch_shape& shape, std::int64_t count) const {
    return static_cast<unsigned>(
        std::clamp<std::int64_t>(shape.blocks_for(count), 1, policy_.range.gather_max_blocks));
  }

  int index_bits() const { return core::position_bits(n_); }

  /// The passes' grid: a full wave, and no block taking more tile rounds than a
  /// staged position records.
  cudaError_t size_pass_grid() {
    KSELECT_CUDA_TRY(full_wave_blocks(range_pass_kernel<T, false>, grid_));
    grid_ = static_cast<unsigned>(
        std::max<std::int64_t>(grid_, (w_.tiles + range_pass_max_rounds - 1) / range_pass_max_rounds));
    return cudaSuccess;
  }

  /// The sample of a level over [0, size) of src for positions [lo, hi): its
  /// windows and tests in the state (range_plan_kernel).
  cudaError_t queue_sample(int level, const T* src, std::int64_t size, std::int64_t lo, std::int64_t hi) {
    auto* state = reinterpret_cast<range_state<K>*>(ws_ + w_.state);
    prof_.start(stream_, "range plan");
    range_plan_kernel<T><<<1, tuning::sample_threads, 0, stream_>>>(state, src, size, lo, hi, flip_,
                                                                     cfg_.seed + 7919ull * level);
    KSELECT_LAUNCH_CHECK();
    prof_.stop(stream_);
    return cudaSuccess;
  }

  /// The plan of a level over [0, size) of src for positions [lo, hi): the
  /// sample's windows (already queued where `sampled`), narrowed by a second
  /// sample where planned.
  cudaError_t queue_plan(int level, const T* src, std::int64_t size, std::int64_t lo, std::int64_t hi,
                         bool sampled = false) {
    if (!sampled) KSELECT_CUDA_TRY(queue_sample(level, src, size, lo, hi));
    auto* state = reinterpret_cast<range_state<K>*>(ws_ + w_.state);
    const tuning::policy& p = policy_;
    const std::int64_t refine_size = core::refine_sample_size(
        size, lo, hi, p.common.sample.tile_items(), p.common.window_sigmas, p.common.window_margin,
        p.range.all_candidates_max, p.range.refine_target_kept, p.range.refine_max_size);
    if (refine_size > 0) {
      auto* kept = reinterpret_cast<K*>(ws_ + w_.refine_kept);
      constexpr tuning::launch_shape refine = tuning::compiled.range.refine;
      const auto blocks = static_cast<unsigned>(refine.blocks_for(refine_size));
      prof_.start(stream_, "range refine");
      range_refine_gather_kernel<T><<<blocks, refine.threads, 0, stream_>>>(
          state, src, size, refine_size, cfg_.seed + 7919ull * level + 104729ull, flip_, kept);
      KSELECT_LAUNCH_CHECK();
      range_refine_plan_kernel<T><<<1, tuning::sample_threads, 0, stream_>>>(state, kept, size, lo, hi, refine_size,
                                                                            flip_);
      KSELECT_LAUNCH_CHECK();
      prof_.stop(stream_);
    }
    return cudaSuccess;
  }

  /// Plan and pass over [0, size) of src for positions [lo, hi), candidates into
  /// buffer `buf` (`sampled`: the plan's sample already queued); the state comes
  /// back to state_ (one host round trip).
  cudaError_t run_level(int level, const T* src, const std::uint64_t* src_idx, std::int64_t size, std::int64_t lo,
                        std::int64_t hi, std::int64_t out_at, int buf, bool sampled) {
    KSELECT_CUDA_TRY(queue_plan(level, src, size, lo, hi, sampled));
    auto* state = reinterpret_cast<range_state<K>*>(ws_ + w_.state);
    // Deterministic order by bitmap: level 0 marks its inside keys there and
    // does not write them (range_order_expand_kernel writes the whole output).
    const bool mark = w_.bitmap_order && level == 0;
    range_pass_out<T> out =
        pass_out(out_at, mark ? 0 : w_.m - out_at, w_.cand_vals[buf], w_.cand_idx[buf], w_.cand_capacity);
    if (mark) {
      out.order_bits = reinterpret_cast<std::uint32_t*>(ws_ + w_.order_bits);
      out.order_counts = reinterpret_cast<unsigned long long*>(ws_ + w_.tile_counts[0]);
    }
    prof_.start(stream_, level == 0 ? "range pass" : "range pass (candidates)");
    if (src_idx)
      range_pass_kernel<T, true><<<grid_, tuning::stream_threads, 0, stream_>>>(state, src, src_idx, size, out);
    else
      range_pass_kernel<T, false><<<grid_, tuning::stream_threads, 0, stream_>>>(state, src, nullptr, size, out);
    KSELECT_LAUNCH_CHECK();
    prof_.stop(stream_);
    KSELECT_CUDA_TRY(cudaMemcpyAsync(&state_, state, sizeof state_, cudaMemcpyDeviceToHost, stream_));
    KSELECT_CUDA_TRY(cudaStreamSynchronize(stream_));
    return cudaSuccess;
  }

  /// The `count` candidates of buffer `buf` whose sorted positions [0,
  /// pick.last) complete the output from out_at, without sorting them (heavy
  /// ties: a level no longer narrows them): the candidate at position pick.last
  /// - 1 selected exactly, then one pass over them takes the keys below it to
  /// the output and its ties to the other buffer, and the ties the output still
  /// needs are copied after (range_take_kernels.cuh). `taken` false (nothing
  /// run) where the selection's workspace exceeds the call's.
  cudaError_t take_candidates(int buf, std::int64_t count, const core::range_pick& pick, std::int64_t out_at,
                              bool& taken) {
    taken = false;
    const auto* vals = reinterpret_cast<const T*>(ws_ + w_.cand_vals[buf]);
    // In ascending order: position pick.last - 1 of the flipped order.
    const std::int64_t rank = req_.descending ? count - pick.last : pick.last - 1;
    const device::select_config sel = exact_path_select_config(cfg_);
    std::size_t bytes = 0;
    KSELECT_CUDA_TRY(device::select<T>(nullptr, bytes, vals, nullptr, count, rank, stream_, sel));
    if (bytes > w_.select_bytes) return cudaSuccess;
    T* boundary = reinterpret_cast<T*>(ws_ + w_.thresholds);
    prof_.start(stream_, "range candidate take: select");
    KSELECT_CUDA_TRY(device::select<T>(ws_ + w_.select_ws, bytes, vals, boundary, count, rank, stream_, sel));
    prof_.stop(stream_);
    const range_pass_out<T> out =
        pass_out(out_at, w_.m - out_at, w_.cand_vals[buf ^ 1], w_.cand_idx[buf ^ 1], w_.cand_capacity);
    KSELECT_CUDA_TRY(take_below(boundary, vals, reinterpret_cast<const std::uint64_t*>(ws_ + w_.cand_idx[buf]), count,
                                out, pick.last, "range candidate take"));
    taken = candidates_taken_ = true;
    return cudaSuccess;
  }

  /// Sorts the `count` candidates of buffer `buf` by key and copies sorted
  /// positions [first, last) to out_at; deterministic ties: of a run of equal
  /// keys straddling first or last, the elements of the smaller indices
  /// (range_tie_kernels.cuh).
  cudaError_t finish_candidates(int buf, std::int64_t count, const core::range_pick& pick, std::int64_t out_at,
                                range_finish finish) {
    if (finish == range_finish::block_sort) {
      constexpr tuning::launch_shape small = tuning::compiled.range.small_sort;
      prof_.start(stream_, "range candidate block sort");
      range_small_finish_kernel<T, small.threads, small.items_per_thread><<<1, small.threads, 0, stream_>>>(
          in_, reinterpret_cast<const T*>(ws_ + w_.cand_vals[buf]),
          reinterpret_cast<const std::uint64_t*>(ws_ + w_.cand_idx[buf]), count, flip_, cfg_.deterministic,
          index_bits(), pick.first, pick.last, out_keys_, indices_, w_.index_bytes, out_at);
      KSELECT_LAUNCH_CHECK();
      prof_.stop(stream_);
      return cudaSuccess;
    }
    cub::DoubleBuffer<K> keys(reinterpret_cast<K*>(ws_ + w_.sort_keys[0]), reinterpret_cast<K*>(ws_ + w_.sort_keys[1]));
    cub::DoubleBuffer<std::uint64_t> idx(reinterpret_cast<std::uint64_t*>(ws_ + w_.cand_idx[buf]),
                                         reinterpret_cast<std::uint64_t*>(ws_ + w_.cand_idx[buf ^ 1]));
    std::size_t temp_bytes = w_.temp_bytes;
    prof_.start(stream_, "range candidate sort");
    range_output_keys_kernel<T><<<grid_for(gather, count), gather.threads, 0, stream_>>>(
        reinterpret_cast<const T*>(ws_ + w_.cand_vals[buf]), count, flip_, keys.Current());
    KSELECT_LAUNCH_CHECK();
    KSELECT_CUDA_TRY(sort_pairs(ws_ + w_.temp, temp_bytes, keys, idx, count, 0,
                                core::candidate_key_bits(state_.windows), stream_));
    prof_.stop(stream_);
    if (!cfg_.deterministic) return pick_sorted(idx.Current(), pick, out_at);
    KSELECT_CUDA_TRY(pick_sorted(idx.Current(), pick, out_at, keys.Current(), count));
    prof_.start(stream_, "range ties");
    range_tie_pick_kernel<T><<<1, range_tie_threads, 0, stream_>>>(in_, keys.Current(), idx.Current(), count,
                                                                   pick.first, pick.last, index_bits(), out_keys_,
                                                                   indices_, w_.index_bytes, out_at);
    KSELECT_LAUNCH_CHECK();
    prof_.stop(stream_);
    return cudaSuccess;
  }

  /// Sorted output, instead of a sort of the candidates and then one of the
  /// output: the output's `out_at` keys so far and the last level's `count`
  /// candidates sorted together by key (ties by index when deterministic:
  /// by index first, then stably by key). The output keys lie strictly between
  /// the windows (no ties with a candidate) and the candidates below the range
  /// are the pick.first smallest of them, so sorted positions [pick.first,
  /// pick.first + m) are the whole range, in order.
  cudaError_t sort_with_candidates(int buf, std::int64_t count, const core::range_pick& pick, std::int64_t out_at) {
    const std::int64_t total = out_at + count;
    cub::DoubleBuffer<K> keys(reinterpret_cast<K*>(ws_ + w_.sort_keys[0]), reinterpret_cast<K*>(ws_ + w_.sort_keys[1]));
    // The other level's candidate buffer is free; the candidates' own index
    // buffer is, once copied.
    cub::DoubleBuffer<std::uint64_t> idx(reinterpret_cast<std::uint64_t*>(ws_ + w_.cand_idx[buf ^ 1]),
                                         reinterpret_cast<std::uint64_t*>(ws_ + w_.cand_idx[buf]));
    std::size_t temp_bytes = w_.temp_bytes;
    prof_.start(stream_, "range output and candidate sort");
    range_union_keys_kernel<T><<<grid_for(gather, total), gather.threads, 0, stream_>>>(
        out_keys_, indices_, w_.index_bytes, out_at, reinterpret_cast<const T*>(ws_ + w_.cand_vals[buf]),
        reinterpret_cast<const std::uint64_t*>(ws_ + w_.cand_idx[buf]), total, flip_, keys.Current(),
        idx.Current());
    KSELECT_LAUNCH_CHECK();
    if (cfg_.deterministic)
      KSELECT_CUDA_TRY(sort_pairs(ws_ + w_.temp, temp_bytes, idx, keys, total, 0, index_bits(), stream_));
    KSELECT_CUDA_TRY(sort_pairs(ws_ + w_.temp, temp_bytes, keys, idx, total, 0, 8 * int(sizeof(K)), stream_));
    prof_.stop(stream_);
    return pick_sorted(idx.Current(), core::range_pick{true, pick.first, pick.first + w_.m}, 0);
  }

  /// Copies sorted candidates [pick.first, pick.last) (their indices) to the
  /// output at out_at; with tie_keys (the `count` candidates' sorted keys), not
  /// those of a run of equal keys straddling an end (range_tie_pick_kernel's).
  cudaError_t pick_sorted(const std::uint64_t* sorted, const core::range_pick& pick, std::int64_t out_at,
                          const K* tie_keys = nullptr, std::int64_t count = 0) {
    prof_.start(stream_, "range pick");
    range_pick_kernel<T><<<grid_for(gather, pick.last - pick.first), gather.threads, 0, stream_>>>(
        in_, sorted, pick.first, pick.last - pick.first, out_keys_, indices_, w_.index_bytes, out_at, tie_keys,
        count);
    KSELECT_LAUNCH_CHECK();
    prof_.stop(stream_);
    return cudaSuccess;
  }

  cudaError_t run_exact() {
    // Boundary keys by exact selection (core::range_selected_boundaries; no
    // low key for lo = 0).
    const core::boundary_ranks bounds = core::range_selected_boundaries(n_, req_.lo, req_.hi, req_.descending);
    T* thresholds = reinterpret_cast<T*>(ws_ + w_.thresholds);
    auto* ranks = reinterpret_cast<std::int64_t*>(ws_ + w_.ranks);
    if (w_.take_pass) {
      // After the one-pass path: the exact descent, skipped where that path answered.
      prof_.start(stream_, "range exact path: gated select");
      KSELECT_CUDA_TRY(queue_gated_select<T>(ws_ + w_.select_ws, in_, n_, bounds.ranks[0], thresholds, answered(),
                                             req_.status, stream_));
      prof_.stop(stream_);
    } else {
      std::size_t select_bytes = w_.select_bytes;
      KSELECT_CUDA_TRY(
          select_boundaries<T>(ws_ + w_.select_ws, select_bytes, in_, n_, req_, cfg_, thresholds, ranks, stream_));
    }
    const T* thr_lo = bounds.lo_slot < 0 ? nullptr : thresholds + bounds.lo_slot;
    const T* thr_hi = thresholds + bounds.hi_slot;
    if (w_.take) return run_take(thr_hi);

    const range_tile_counts counts = tile_counts();
    auto* below = reinterpret_cast<unsigned long long*>(ws_ + w_.below);
    KSELECT_CUDA_TRY(cudaMemsetAsync(below, 0, sizeof *below, stream_));
    unsigned grid = 1;
    KSELECT_CUDA_TRY(full_wave_blocks(range_exact_count_kernel<T>, grid));
    prof_.start(stream_, "range exact count");
    range_exact_count_kernel<T><<<grid, tuning::stream_threads, 0, stream_>>>(in_, n_, thr_lo, thr_hi, flip_, counts,
                                                                              below);
    KSELECT_LAUNCH_CHECK();
    prof_.stop(stream_);
    for (unsigned long long* c : {counts.eq_lo, counts.inside, counts.eq_hi}) {
      std::size_t temp_bytes = w_.temp_bytes;
      KSELECT_CUDA_TRY(exclusive_sum_u64(ws_ + w_.temp, temp_bytes, c, c, w_.tiles + 1, stream_));
    }
    prof_.start(stream_, "range exact write");
    range_exact_write_kernel<T><<<grid, tuning::stream_threads, 0, stream_>>>(
        in_, n_, thr_lo, thr_hi, flip_, counts, below, req_.lo, req_.hi, out_keys_, indices_, w_.index_bytes);
    KSELECT_LAUNCH_CHECK();
    prof_.stop(stream_);
    return cudaSuccess;
  }

  /// The per-tile counts of the exact path (range_exact_count_kernel) and of the
  /// tie cut (range_cut_count_kernel: eq_lo and eq_hi).
  range_tile_counts tile_counts() const {
    return {reinterpret_cast<unsigned long long*>(ws_ + w_.tile_counts[0]),
            reinterpret_cast<unsigned long long*>(ws_ + w_.tile_counts[1]),
            reinterpret_cast<unsigned long long*>(ws_ + w_.tile_counts[2])};
  }

  /// The tie cut (core::two_key_window): the level-0 sample, read back; where its
  /// high window is exactly two keys a < b, the cut from them (take_cut).
  /// Otherwise the level-0 pass follows on the same sample.
  cudaError_t try_tie_cut(bool& cut) {
    cut = false;
    KSELECT_CUDA_TRY(queue_sample(0, in_, n_, 0, w_.m));
    KSELECT_CUDA_TRY(cudaMemcpyAsync(&state_, ws_ + w_.state, sizeof state_, cudaMemcpyDeviceToHost, stream_));
    KSELECT_CUDA_TRY(cudaStreamSynchronize(stream_));
    if (!state_.windows.hi_two_keys) return cudaSuccess;
    const K keys[2] = {state_.windows.hi0, state_.windows.hi1};
    for (int i = 0; i < 2; ++i) cut_keys_[i] = core::key_traits<T>::from_key(static_cast<K>(keys[i] ^ flip_));
    T* thresholds = reinterpret_cast<T*>(ws_ + w_.thresholds);
    KSELECT_CUDA_TRY(cudaMemcpyAsync(thresholds, cut_keys_, sizeof cut_keys_, cudaMemcpyHostToDevice, stream_));
    return take_cut(thresholds, thresholds + 1, cut);
  }

  /// The cut from the key of position k - 1, selected exactly (select_boundaries):
  /// deterministic output in input order without an ordering step (the layout
  /// holds none: the counts cannot refute an exactly selected key).
  cudaError_t try_selected_cut(bool& cut) {
    const core::boundary_ranks bounds = core::range_selected_boundaries(n_, req_.lo, req_.hi, req_.descending);
    T* thresholds = reinterpret_cast<T*>(ws_ + w_.thresholds);
    std::size_t select_bytes = w_.select_bytes;
    prof_.start(stream_, "range cut: select");
    KSELECT_CUDA_TRY(select_boundaries<T>(ws_ + w_.select_ws, select_bytes, in_, n_, req_, cfg_, thresholds,
                                          reinterpret_cast<std::int64_t*>(ws_ + w_.ranks), stream_));
    prof_.stop(stream_);
    const T* boundary = thresholds + bounds.hi_slot;
    // take_cut's wait brings it. One key: take_cut gives b no ties, so it reads cut_keys_[0] alone.
    KSELECT_CUDA_TRY(cudaMemcpyAsync(&cut_keys_[0], boundary, sizeof(T), cudaMemcpyDeviceToHost, stream_));
    KSELECT_CUDA_TRY(take_cut(boundary, boundary, cut));
    return cut ? cudaSuccess : reject_argument("kselect: internal error: the selected key's counts refute it");
  }

  /// The cut (core::plan_tie_cut; range_cut_kernels.cuh) from candidate boundary
  /// keys *key_a <= *key_b (device memory; the caller has queued their copies to
  /// cut_keys_, which this call's wait completes): one read counts the keys below a,
  /// equal to a, between and equal to b (each key's ties per tile too). Where
  /// output position k - 1 lies among a's or b's ties, that key is the boundary:
  /// the input position of the last tie the output takes is found, and the
  /// filters' single pass writes every key below the boundary and its ties up to
  /// that position, k keys in input order (ties by index: the deterministic
  /// output too), in whole lines. `cut` false: the counts refute both keys.
  cudaError_t take_cut(const T* key_a, const T* key_b, bool& cut) {
    cut = false;
    auto* words = reinterpret_cast<cut_words*>(ws_ + w_.cut_words);
    const range_tile_counts tiles = tile_counts();  // a's ties in eq_lo, b's in eq_hi
    KSELECT_CUDA_TRY(cudaMemsetAsync(&words->totals, 0, sizeof words->totals, stream_));
    unsigned grid = 1;
    KSELECT_CUDA_TRY(full_wave_blocks(range_cut_count_kernel<T>, grid));
    prof_.start(stream_, "range cut: count");
    range_cut_count_kernel<T><<<grid, tuning::stream_threads, 0, stream_>>>(
        in_, n_, key_a, key_b, flip_, reinterpret_cast<std::uintptr_t>(in_) % 16 == 0, tiles.eq_lo, tiles.eq_hi,
        &words->totals);
    KSELECT_LAUNCH_CHECK();
    prof_.stop(stream_);
    cut_totals totals{};
    KSELECT_CUDA_TRY(cudaMemcpyAsync(&totals, &words->totals, sizeof totals, cudaMemcpyDeviceToHost, stream_));
    KSELECT_CUDA_TRY(cudaStreamSynchronize(stream_));
    // One key (the selected cut): its ties are b's too, which plan_tie_cut must not count twice.
    const core::tie_cut plan = core::plan_tie_cut(static_cast<std::uint64_t>(w_.m), totals.below, totals.eq_a,
                                                  totals.between, key_a == key_b ? 0 : totals.eq_b);
    if (!plan.ok) return cudaSuccess;
    const K boundary = core::range_key(cut_keys_[plan.high_key ? 1 : 0], flip_);
    unsigned long long* ties = plan.high_key ? tiles.eq_hi : tiles.eq_lo;
    prof_.start(stream_, "range cut: position");
    std::size_t temp_bytes = w_.temp_bytes;
    KSELECT_CUDA_TRY(exclusive_sum_u64(ws_ + w_.temp, temp_bytes, ties, ties, w_.tiles + 1, stream_));
    range_cut_position_kernel<T><<<1, tuning::stream_threads, 0, stream_>>>(in_, n_, ties, w_.tiles, boundary, flip_,
                                                                            plan.needed, &words->last_tie);
    KSELECT_LAUNCH_CHECK();
    prof_.stop(stream_);
    const range_cut_selector<T> select{boundary, flip_, &words->last_tie};
    const kselect::detail::single_pass_layout sp = cut_filter_layout<T>(n_);
    auto write = [&](auto* indices) {
      kselect::detail::filter_outputs<T, T, std::remove_pointer_t<decltype(indices)>> out;
      out.keys = out_keys_;
      out.indices = indices;
      out.num_selected = &words->written;
      return kselect::detail::launch_single_pass(ws_ + w_.cut_filter, sp, in_, n_, select, out, stream_);
    };
    prof_.start(stream_, "range cut: write");
    KSELECT_CUDA_TRY(w_.index_bytes == 4 ? write(static_cast<std::int32_t*>(indices_))
                                         : write(static_cast<std::int64_t*>(indices_)));
    prof_.stop(stream_);
    cut = cut_ = input_ordered_ = true;
    return cudaSuccess;
  }

  /// Stream-ordered, every key asked for, unsorted: the input as it is (also the
  /// deterministic order), with no selection; the status word says answered.
  cudaError_t take_all() {
    KSELECT_CUDA_TRY(write_answered_status(req_.status, stream_));
    range_take_all_kernel<T><<<grid_for(gather, n_), gather.threads, 0, stream_>>>(in_, n_, out_keys_, indices_,
                                                                                    w_.index_bytes);
    KSELECT_LAUNCH_CHECK();
    ordered_ = true;  // already in input order
    return finish_output();
  }

  /// The one-pass path's word: 1 once its block answered (null without that path).
  std::int32_t* answered() const {
    return w_.take_pass ? reinterpret_cast<std::int32_t*>(ws_ + w_.answered) : nullptr;
  }

  /// The one-pass path's second word (take_spec_run, take_spec_skip or
  /// take_spec_kept: what follows a finish that could not answer; start_tied_take).
  std::int32_t* spec_skip() const { return w_.take_pass ? answered() + 1 : nullptr; }

  /// Heavy ties at a top-k's boundary (ties in any order), planned for: level
  /// 0's window was one key (core::tie_window), so every candidate is that key;
  /// where fewer than k keys lay below it and the ties it copied cover the rest
  /// (kept_ties_complete), they complete the output, from the one read.
  cudaError_t take_kept_ties(bool& taken) {
    taken = w_.take && kept_ties_complete(state_, w_.m, w_.cand_capacity);
    if (!taken) return cudaSuccess;
    auto* state = reinterpret_cast<range_state<K>*>(ws_ + w_.state);
    prof_.start(stream_, "range kept ties");
    range_take_finish_kernel<T><<<grid_for(gather, w_.m), gather.threads, 0, stream_>>>(
        state, reinterpret_cast<const T*>(ws_ + w_.cand_vals[0]),
        reinterpret_cast<const std::uint64_t*>(ws_ + w_.cand_idx[0]), w_.m, out_keys_, indices_, w_.index_bytes,
        nullptr);
    KSELECT_LAUNCH_CHECK();
    prof_.stop(stream_);
    tied_boundary_ = kept_ties_ = true;
    return cudaSuccess;
  }

  /// Heavy ties at a top-k's boundary (ties in any order): level 0's window
  /// overflowed its buffer and the keys it copied, probed at the first, middle
  /// and last, are one key. That key is then taken as the boundary without the
  /// exact selection's read: the take's own counts confirm it (fewer than k keys
  /// below it, at least k with its ties), else the exact path runs. `taken`: the
  /// output is complete.
  cudaError_t take_tied_boundary(bool& taken) {
    taken = false;
    // Overflowed: every one of the buffer's cand_capacity slots was written.
    const std::int64_t copied = w_.cand_capacity;
    if (!w_.take || state_.cand <= static_cast<unsigned long long>(copied)) return cudaSuccess;
    const T* cand = reinterpret_cast<const T*>(ws_ + w_.cand_vals[0]);
    T probe[3];
    const std::int64_t at[3] = {0, copied / 2, copied - 1};
    for (int i = 0; i < 3; ++i)
      KSELECT_CUDA_TRY(cudaMemcpyAsync(&probe[i], cand + at[i], sizeof(T), cudaMemcpyDeviceToHost, stream_));
    KSELECT_CUDA_TRY(cudaStreamSynchronize(stream_));
    const K key = core::range_key(probe[0], flip_);
    if (core::range_key(probe[1], flip_) != key || core::range_key(probe[2], flip_) != key) return cudaSuccess;
    T* boundary = reinterpret_cast<T*>(ws_ + w_.thresholds);
    KSELECT_CUDA_TRY(cudaMemcpyAsync(boundary, cand, sizeof(T), cudaMemcpyDeviceToDevice, stream_));
    KSELECT_CUDA_TRY(run_take(boundary));
    KSELECT_CUDA_TRY(cudaMemcpyAsync(&state_, ws_ + w_.state, sizeof state_, cudaMemcpyDeviceToHost, stream_));
    KSELECT_CUDA_TRY(cudaStreamSynchronize(stream_));
    taken = state_.inside < static_cast<unsigned long long>(w_.m) &&
            state_.inside + state_.cand >= static_cast<unsigned long long>(w_.m);
    tied_boundary_ = taken;
    return cudaSuccess;
  }

  /// The stream-ordered top-k's pass, when ties may come in any order:
  /// positions [0, k) of the input, or of its candidates after a pass.
  range_pass_out<T> take_out(std::int64_t cand_capacity) const {
    range_pass_out<T> out = pass_out(0, w_.m, w_.take_vals, w_.take_idx, cand_capacity);
    out.skip = answered();
    return out;
  }

  /// Where a pass writes: its inside keys to the output from out_at (room for
  /// `capacity`), its candidates to the workspace at offsets `vals` and `idx`;
  /// no order bitmap and no skip word (the callers that use them set them).
  range_pass_out<T> pass_out(std::int64_t out_at, std::int64_t capacity, std::size_t vals, std::size_t idx,
                             std::int64_t cand_capacity) const {
    return range_pass_out<T>{out_keys_,
                             indices_,
                             w_.index_bytes,
                             out_at,
                             capacity,
                             reinterpret_cast<T*>(ws_ + vals),
                             reinterpret_cast<std::uint64_t*>(ws_ + idx),
                             cand_capacity,
                             nullptr,
                             nullptr,
                             nullptr};
  }

  /// The one-pass path (range_take_kernels.cuh): the synchronous call's plan and
  /// pass, then the candidates in one block or, with more of them expected, by
  /// the grid finish; either writes *answered(). Then the take of a speculated
  /// tied boundary, which runs only where the finish started it.
  cudaError_t run_take_pass() {
    KSELECT_CUDA_TRY(run_take_finish());
    range_pass_out<T> spec = take_out(w_.m);
    spec.skip = spec_skip();
    auto* state = reinterpret_cast<range_state<K>*>(ws_ + w_.state);
    prof_.start(stream_, "range tied take");
    range_pass_kernel<T, false><<<grid_, tuning::stream_threads, 0, stream_>>>(state, in_, nullptr, n_, spec);
    KSELECT_LAUNCH_CHECK();
    range_tied_take_finish_kernel<T><<<grid_for(gather, w_.m), gather.threads, 0, stream_>>>(
        state, spec.cand_vals, spec.cand_idx, w_.m, out_keys_, indices_, w_.index_bytes, spec_skip(), answered());
    KSELECT_LAUNCH_CHECK();
    prof_.stop(stream_);
    return cudaSuccess;
  }

  /// The plan, the pass and the finish (in one block, or on the grid) of the one-pass path.
  cudaError_t run_take_finish() {
    auto* state = reinterpret_cast<range_state<K>*>(ws_ + w_.state);
    KSELECT_CUDA_TRY(queue_plan(0, in_, n_, 0, w_.m));
    // The pass copies up to k candidates even where the finish takes fewer: with
    // heavy ties at the boundary (the window one key) they are the output's rest
    // (take_spec_kept). The take buffer holds them (take_capacity >= k).
    const std::int64_t finish_capacity = w_.take_grid ? w_.grid_capacity : candidate_take_capacity<K>;
    range_pass_out<T> out = take_out(std::max(finish_capacity, w_.m));
    out.skip = nullptr;  // the pass that decides
    prof_.start(stream_, "range pass");
    range_pass_kernel<T, false><<<grid_, tuning::stream_threads, 0, stream_>>>(state, in_, nullptr, n_, out);
    KSELECT_LAUNCH_CHECK();
    prof_.stop(stream_);
    if (w_.take_grid) return run_grid_take(out);
    constexpr std::size_t smem = sizeof(candidate_take_shared<K>);
    KSELECT_CUDA_TRY(cudaFuncSetAttribute(range_candidate_take_kernel<T>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                          static_cast<int>(smem)));
    prof_.start(stream_, "range candidate take");
    range_candidate_take_kernel<T><<<1, candidate_take_shape<K>.threads, smem, stream_>>>(
        state, w_.m, out.cand_vals, out.cand_idx, out.cand_capacity, flip_, out_keys_, indices_, w_.index_bytes,
        answered(), spec_skip());
    KSELECT_LAUNCH_CHECK();
    prof_.stop(stream_);
    return cudaSuccess;
  }

  /// The grid finish of the one-pass path (range_take_kernels.cuh): the key at
  /// output position k - 1 selected among the pass's candidates by the exact
  /// descent (its count and rank on the device), then the candidates below it
  /// written and the ties the output still needs.
  cudaError_t run_grid_take(const range_pass_out<T>& pass) {
    auto* state = reinterpret_cast<range_state<K>*>(ws_ + w_.state);
    auto* gs = reinterpret_cast<grid_take_state*>(ws_ + w_.grid_state);
    T* boundary = reinterpret_cast<T*>(ws_ + w_.thresholds) + 1;  // slot 0 is the exact path's
    auto* tie_vals = reinterpret_cast<T*>(ws_ + w_.grid_tie_vals);
    auto* tie_idx = reinterpret_cast<std::uint64_t*>(ws_ + w_.grid_tie_idx);
    prof_.start(stream_, "range grid take: plan");
    range_grid_take_plan_kernel<T><<<1, 1, 0, stream_>>>(state, w_.m, w_.grid_capacity, pass.cand_vals,
                                                        pass.cand_capacity, flip_, gs, answered(), spec_skip());
    KSELECT_LAUNCH_CHECK();
    prof_.stop(stream_);
    prof_.start(stream_, "range grid take: descent");
    KSELECT_CUDA_TRY(queue_sized_descent<T>(ws_ + w_.grid_select_ws, pass.cand_vals, w_.grid_capacity, &gs->size,
                                            &gs->rank, gs->key_range, boundary, &gs->skip, stream_));
    prof_.stop(stream_);
    prof_.start(stream_, "range grid take: write, ties");
    range_grid_take_write_kernel<T><<<grid_for(gather, w_.grid_capacity), gather.threads, 0, stream_>>>(
        state, gs, pass.cand_vals, pass.cand_idx, boundary, flip_, out_keys_, indices_, w_.index_bytes, tie_vals,
        tie_idx);
    KSELECT_LAUNCH_CHECK();
    range_take_finish_kernel<T><<<grid_for(gather, w_.m), gather.threads, 0, stream_>>>(
        state, tie_vals, tie_idx, w_.m, out_keys_, indices_, w_.index_bytes, &gs->skip);
    KSELECT_LAUNCH_CHECK();
    prof_.stop(stream_);
    return cudaSuccess;
  }

  /// The exact path's write of a stream-ordered top-k whose ties may come in any
  /// order (range_take_kernels.cuh): one pass once the boundary key (position
  /// k - 1's) is known, keys below it to the output, keys equal to it to the
  /// candidates, then the ties the output still needs. Skipped on the device
  /// where the one-pass path answered.
  cudaError_t run_take(const T* boundary) {
    return take_below(boundary, in_, nullptr, n_, take_out(w_.m), w_.m, "range take");
  }

  /// The take itself, over `count` keys of `src` (src_idx: their input positions, or
  /// null where src is the input): the tests of the boundary key, one pass writing
  /// the keys below it to the output from out.at and its ties to out's
  /// candidates, then the ties that complete output positions [out.at, out.at +
  /// needed). Everything is skipped on the device where out.skip says.
  cudaError_t take_below(const T* boundary, const T* src, const std::uint64_t* src_idx, std::int64_t count,
                         const range_pass_out<T>& out, std::int64_t needed, const char* what) {
    auto* state = reinterpret_cast<range_state<K>*>(ws_ + w_.state);
    void* indices_at = indices_ ? static_cast<char*>(indices_) + out.at * w_.index_bytes : nullptr;
    prof_.start(stream_, what);
    range_take_tests_kernel<T><<<1, 1, 0, stream_>>>(state, boundary, flip_, out.skip);
    KSELECT_LAUNCH_CHECK();
    if (src_idx)
      range_pass_kernel<T, true><<<grid_, tuning::stream_threads, 0, stream_>>>(state, src, src_idx, count, out);
    else
      range_pass_kernel<T, false><<<grid_, tuning::stream_threads, 0, stream_>>>(state, src, nullptr, count, out);
    KSELECT_LAUNCH_CHECK();
    range_take_finish_kernel<T><<<grid_for(gather, needed), gather.threads, 0, stream_>>>(
        state, out.cand_vals, out.cand_idx, needed, out_keys_ + out.at, indices_at, w_.index_bytes, out.skip);
    KSELECT_LAUNCH_CHECK();
    prof_.stop(stream_);
    return cudaSuccess;
  }

  /// Deterministic: in input order, by bitmap or by buckets. Sorted: then by key,
  /// stably (ties stay in input order when deterministic: no sort by index), the
  /// values taken from the sorted keys.
  cudaError_t order_output() {
    if (!w_.post_sort || ordered_) return cudaSuccess;
    if (cfg_.deterministic && !input_ordered_)
      KSELECT_CUDA_TRY(w_.bitmap_order && !exact_ ? order_by_bitmap() : order_by_buckets());
    if (!cfg_.sorted) return cudaSuccess;
    return w_.index_bytes == 4 ? order_output_as<std::uint32_t>() : order_output_as<std::uint64_t>();
  }

  /// Deterministic unsorted output by buckets of input positions
  /// (range_order_kernels.cuh): the output entries counted and ranked per
  /// bucket, the counts scanned, the entries scattered to their buckets, each
  /// bucket written in input order.
  cudaError_t order_by_buckets() {
    auto* first = reinterpret_cast<unsigned long long*>(ws_ + w_.tile_counts[0]);
    auto* counts = reinterpret_cast<unsigned long long*>(ws_ + w_.tile_counts[1]);
    auto* ranks = reinterpret_cast<std::uint16_t*>(ws_ + w_.bucket_ranks);
    auto* bucket_keys = reinterpret_cast<T*>(ws_ + w_.bucket_keys);
    auto* bucket_offsets = reinterpret_cast<std::uint16_t*>(ws_ + w_.bucket_offsets);
    const auto counters = static_cast<std::size_t>(w_.tiles + 1);
    prof_.start(stream_, "range order output (buckets): count");
    KSELECT_CUDA_TRY(cudaMemsetAsync(counts, 0, counters * sizeof(unsigned long long), stream_));
    const unsigned row_blocks = grid_for(tuning::compiled.range.bucket, w_.m);
    range_bucket_count_kernel<<<row_blocks, range_bucket_threads, 0, stream_>>>(indices_, w_.index_bytes, w_.m,
                                                                                counts, ranks);
    KSELECT_LAUNCH_CHECK();
    prof_.stop(stream_);
    prof_.start(stream_, "range order output (buckets): scan");
    std::size_t temp_bytes = w_.temp_bytes;
    KSELECT_CUDA_TRY(exclusive_sum_u64(ws_ + w_.temp, temp_bytes, counts, first, w_.tiles + 1, stream_));
    prof_.stop(stream_);
    prof_.start(stream_, "range order output (buckets): scatter");
    range_bucket_scatter_kernel<T><<<row_blocks, range_bucket_threads, 0, stream_>>>(
        out_keys_, indices_, w_.index_bytes, w_.m, first, ranks, bucket_keys, bucket_offsets);
    KSELECT_LAUNCH_CHECK();
    prof_.stop(stream_);
    prof_.start(stream_, "range order output (buckets): expand");
    const int group = choose_bucket_expand_group(w_.m, w_.tiles, policy_.range);
    const std::int64_t per_expand_block = std::int64_t(range_bucket_expand_threads / 32) * group;
    const auto blocks = static_cast<unsigned>(
        std::clamp<std::int64_t>((w_.tiles + per_expand_block - 1) / per_expand_block, 1, 65535));
    range_bucket_expand_kernel<T><<<blocks, range_bucket_expand_threads, 0, stream_>>>(
        bucket_keys, bucket_offsets, first, w_.tiles, group, out_keys_, indices_, w_.index_bytes);
    KSELECT_LAUNCH_CHECK();
    prof_.stop(stream_);
    return cudaSuccess;
  }

  /// Deterministic unsorted output by bitmap (range_order_kernels.cuh): the
  /// keys after level 0's marked, the tile counts scanned, the output written
  /// in input order.
  cudaError_t order_by_bitmap() {
    auto* bits = reinterpret_cast<std::uint32_t*>(ws_ + w_.order_bits);
    auto* tile_counts = reinterpret_cast<unsigned long long*>(ws_ + w_.tile_counts[0]);
    prof_.start(stream_, "range order output (bitmap)");
    if (w_.m > level0_inside_) {
      range_order_mark_kernel<<<grid_for(gather, w_.m - level0_inside_), gather.threads, 0, stream_>>>(
          indices_, w_.index_bytes, level0_inside_, w_.m - level0_inside_, bits, tile_counts);
      KSELECT_LAUNCH_CHECK();
    }
    std::size_t temp_bytes = w_.temp_bytes;
    KSELECT_CUDA_TRY(exclusive_sum_u64(ws_ + w_.temp, temp_bytes, tile_counts, tile_counts, w_.tiles + 1, stream_));
    constexpr std::int64_t warps = range_order_expand_threads / 32;  // a tile each
    const auto blocks = static_cast<unsigned>(std::clamp<std::int64_t>((w_.tiles + warps - 1) / warps, 1, 65535));
    range_order_expand_kernel<T><<<blocks, range_order_expand_threads, 0, stream_>>>(
        in_, bits, tile_counts, w_.tiles, out_keys_, indices_, w_.index_bytes);
    KSELECT_LAUNCH_CHECK();
    prof_.stop(stream_);
    return cudaSuccess;
  }

  /// Sorted output by a sort of the output values and indices themselves
  /// (sorts_by_values), in place through the workspace's second buffers. CUB
  /// leaves the result in either buffer; for floating point the negative NaNs
  /// are moved to the NaN end of the order on the way home (where there are any).
  template <class I>
  cudaError_t order_output_by_values() {
    std::size_t temp_bytes = w_.temp_bytes;
    cub::DoubleBuffer<T> values(out_keys_, reinterpret_cast<T*>(ws_ + w_.post_keys[0]));
    cub::DoubleBuffer<I> idx(static_cast<I*>(indices_), reinterpret_cast<I*>(ws_ + w_.post_idx));
    prof_.start(stream_, "range order output (values)");
    KSELECT_CUDA_TRY(sort_values(ws_ + w_.temp, temp_bytes, values, idx, w_.m, req_.descending, stream_));
    const bool home = values.Current() == out_keys_;
    if constexpr (std::is_floating_point_v<T>) {
      auto* nans = reinterpret_cast<unsigned long long*>(ws_ + w_.nan_count);
      range_negative_nans_kernel<T><<<1, 1, 0, stream_>>>(values.Current(), w_.m, req_.descending, nans);
      KSELECT_LAUNCH_CHECK();
      // At home: rotated through the other buffers, only where there are such NaNs.
      T* via = home ? values.Alternate() : out_keys_;
      I* via_idx = home ? idx.Alternate() : static_cast<I*>(indices_);
      range_rotate_nans_kernel<T, I><<<grid_for(gather, w_.m), gather.threads, 0, stream_>>>(
          values.Current(), idx.Current(), via, via_idx, w_.m, nans, req_.descending, true, !home);
      KSELECT_LAUNCH_CHECK();
      if (home) {
        range_rotate_nans_kernel<T, I><<<grid_for(gather, w_.m), gather.threads, 0, stream_>>>(
            via, via_idx, out_keys_, static_cast<I*>(indices_), w_.m, nans, req_.descending, false, false);
        KSELECT_LAUNCH_CHECK();
      }
    } else if (!home) {
      KSELECT_CUDA_TRY(cudaMemcpyAsync(out_keys_, values.Current(), static_cast<std::size_t>(w_.m) * sizeof(T),
                                       cudaMemcpyDeviceToDevice, stream_));
      KSELECT_CUDA_TRY(cudaMemcpyAsync(indices_, idx.Current(), static_cast<std::size_t>(w_.m) * sizeof(I),
                                       cudaMemcpyDeviceToDevice, stream_));
    }
    prof_.stop(stream_);
    return cudaSuccess;
  }

  template <class I>
  cudaError_t order_output_as() {
    if (w_.values_sort) return order_output_by_values<I>();
    std::size_t temp_bytes = w_.temp_bytes;
    cub::DoubleBuffer<I> idx(static_cast<I*>(indices_), reinterpret_cast<I*>(ws_ + w_.post_idx));
    prof_.start(stream_, "range order output");
    cub::DoubleBuffer<K> keys(reinterpret_cast<K*>(ws_ + w_.post_keys[0]), reinterpret_cast<K*>(ws_ + w_.post_keys[1]));
    range_output_keys_kernel<T><<<grid_for(gather, w_.m), gather.threads, 0, stream_>>>(out_keys_, w_.m, flip_,
                                                                                         keys.Current());
    KSELECT_LAUNCH_CHECK();
    KSELECT_CUDA_TRY(sort_pairs(ws_ + w_.temp, temp_bytes, keys, idx, w_.m, 0, 8 * int(sizeof(K)), stream_));
    // The values from the sorted keys, the indices copied back where the sort
    // left them in the workspace.
    range_sorted_output_kernel<T><<<grid_for(gather, w_.m), gather.threads, 0, stream_>>>(
        in_, keys.Current(), idx.Current(), w_.index_bytes, w_.m, flip_, out_keys_,
        idx.Current() != indices_ ? indices_ : nullptr);
    KSELECT_LAUNCH_CHECK();
    prof_.stop(stream_);
    return cudaSuccess;
  }

  const T* in_;
  std::int64_t n_;
  kselect::detail::range_request req_;
  T* out_keys_;
  cudaStream_t stream_;
  device::topk_config cfg_;
  char* ws_;
  range_layout w_;
  const tuning::policy& policy_;
  K flip_;
  void* indices_;
  range_state<K> state_{};  ///< the last level's state, as read back
  unsigned grid_ = 1;
  std::int64_t level0_inside_ = 0;  ///< output keys level 0 marked in the order bitmap
  int levels_ = 0;
  bool exact_ = false;
  bool tied_boundary_ = false;  ///< take_kept_ties or take_tied_boundary answered
  bool kept_ties_ = false;      ///< take_kept_ties answered (one read)
  bool candidates_taken_ = false;  ///< take_candidates finished the last candidates
  bool ordered_ = false;  ///< the output is already in the order asked (sort_with_candidates, take_all)
  bool cut_ = false;            ///< take_cut answered
  bool input_ordered_ = false;  ///< the output is in input order (the cut)
  T cut_keys_[2] = {};          ///< the cut's two keys, copied to or from the device
  launch_profiler prof_;
};

/// Validation and the two-phase workspace protocol around range_driver.
template <class T>
cudaError_t range_select(void* d_workspace, std::size_t& workspace_bytes, const T* d_in, T* d_keys_out,
                         std::int64_t n, const kselect::detail::range_request& req, range_order_method order,
                         cudaStream_t stream, const device::topk_config& cfg) {
  clear_rejection();
  KSELECT_CUDA_TRY(check_input_size(n));
  if (req.lo < 0 || req.lo > req.hi || req.hi > n)
    return reject_argument("kselect: the range [" + std::to_string(req.lo) + ", " + std::to_string(req.hi) +
                           ") is not within [0, n = " + std::to_string(n) + "] (top-k: k must be in [0, n])");
  if (req.indices_out)
    KSELECT_CUDA_TRY(reject_if(kselect::detail::index_type_error(static_cast<std::size_t>(req.index_bytes), n)));
  if (req.values_in && req.value_bytes != 4 && req.value_bytes != 8)
    return reject_argument("kselect: paired values must be 4 or 8 bytes wide");
  range_layout layout;
  KSELECT_CUDA_TRY(plan_range_layout<T>(n, req, cfg, layout, order));
  bool size_query = false;
  KSELECT_CUDA_TRY(workspace_protocol(d_workspace, workspace_bytes, layout.total, size_query));
  if (size_query) return cudaSuccess;
  if (layout.m == 0) {
    // Nothing to select; the stream-ordered form still answers its status word.
    if (!req.stream_ordered) return cudaSuccess;
    KSELECT_CUDA_TRY(check_device_array(req.status, "d_status", true));
    return write_answered_status(req.status, stream);
  }
  KSELECT_CUDA_TRY(check_device_input(d_in));
  KSELECT_CUDA_TRY(check_device_array(d_keys_out, "d_keys_out"));
  KSELECT_CUDA_TRY(check_device_array(req.indices_out, "d_indices_out", true));
  KSELECT_CUDA_TRY(check_device_array(req.status, "d_status", true));
  if (req.values_in && (!is_device_accessible(req.values_in) || req.values_out == nullptr ||
                        !is_device_accessible(req.values_out)))
    return reject_argument("kselect: d_values_in and d_values_out must be device memory");
  KSELECT_CUDA_TRY(check_device_array(d_workspace, "d_workspace"));
  return range_driver<T>(d_in, n, req, d_keys_out, stream, cfg, static_cast<char*>(d_workspace), layout).run();
}

}  // namespace kselect::cuda
