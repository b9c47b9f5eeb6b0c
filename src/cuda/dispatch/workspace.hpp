// The one function that sizes and carves the device workspace, used both by the
// size query and by the call itself so the two never drift (CUB's habit). The
// path that runs is choose_multiselect_path's (dispatch/choose.hpp), planned
// here once: the workspace holds what that path needs.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "kselect/detail/workspace_carver.hpp"
#include "cuda/dispatch/choose.hpp"
#include "cuda/dispatch/device_policy.hpp"
#include "cuda/kernels/bin_prepass_types.cuh"
#include "cuda/kernels/descent_state.cuh"
#include "cuda/kernels/window_state.cuh"
#include "cuda/task.cuh"
#include "cuda/tuning.hpp"
#include "core/bin_intervals.hpp"
#include "core/bin_map.hpp"
#include "core/descent.hpp"
#include "kselect/types.hpp"

namespace kselect::cuda {

/// Keys each of the two ping-pong buffers holds. Levels extract the buckets that
/// hold ranks into one buffer while reading the other; a bucket that does not fit
/// is not extracted but narrowed in place (range_buckets over the input), so the
/// capacity trades memory against rare extra passes, never correctness.
inline std::int64_t buffer_capacity(std::int64_t n, std::int64_t num_ranks, algorithm algo, const tuning::policy& p) {
  std::int64_t c;
  if (algo == algorithm::sample_select) {
    // Oracles take n bytes; one bucket is ~n/128 keys: room for two per rank. (One per
    // rank was too few for many ranks: a level-0 bucket holds n/128 keys only on
    // average, and with 101 ranks one of them found no room and was narrowed in place,
    // another read of the input; docs/performance.md, issue 25.)
    c = 2 * num_ranks * (n / 128);
  } else if (num_ranks == 1) {
    c = n / p.window.buffer_divisor;
  } else {
    // ~n/1024 keys per bucket holding a rank at level 0 (1023 splitters), x4 margin.
    c = n / 8 + num_ranks * (n / 256);
  }
  c = std::max<std::int64_t>(c, 2 * tuning::tile_keys);
  return std::min(c, n);
}

struct workspace_layout {
  std::size_t window_state, ranks, answers, host_keys, has_host, tasks, base_tasks, stats, extract_at, cursors,
      oracles, buffer_a, buffer_b, total;
  std::int64_t capacity;      ///< keys per buffer
  /// Multiselection pre-pass (bin_reduce_dispatch.cuh), when path is bin_prepass:
  /// its planning state, the copy of the values it keeps and the same as keys in
  /// one region per bin (prepass_capacity each).
  std::size_t pre_map, pre_hist, pre_selected, pre_before_word, pre_intervals, pre_region, pre_tasks, pre_state,
      pre_copy_cursor, pre_copy, pre_regions, pre_ranks;
  std::int64_t prepass_capacity;
  /// Its bin tags (tuning::bin_tags: 2 bytes per key, whole tiles), over the general
  /// driver's two buffers, which run only after the pre-pass has stopped; 0 bytes
  /// where the key type takes none or the buffers are too small.
  std::size_t pre_tags, pre_tags_bytes;
  /// The stream-ordered mode's exact descent (kernels/descent_kernels.cuh) and the
  /// flag of its device-side rank check; zero-sized for the other calls.
  std::size_t descent_state, descent_count, descent_min, descent_max, descent_group_lo, descent_group_hi,
      descent_rank_group, descent_rank_in_group, ranks_valid;
  int tasks_per_launch;
  bool oracles_used;
  multiselect_path path;          ///< the driver that runs (choose_multiselect_path)
  const tuning::policy* policy;   ///< the policy it was planned with, for the drivers
};

/// The layout for a call with the device's policy `p` (dispatch/device_policy.hpp);
/// `stream_ordered` adds the descent's arrays (stream_ordered_dispatch.cuh).
template <class K>
workspace_layout plan_workspace(std::int64_t n, std::int64_t num_ranks, algorithm algo, const tuning::policy& p,
                                bool stream_ordered = false) {
  workspace_layout w{};
  kselect::detail::workspace_carver carve;
  const auto r = static_cast<std::size_t>(num_ranks);
  w.policy = &p;
  w.path = choose_multiselect_path(n, num_ranks, algo, p);
  w.tasks_per_launch = static_cast<int>(std::min<std::int64_t>(num_ranks, p.levels.max_tasks_per_launch));
  const auto tpl = static_cast<std::size_t>(w.tasks_per_launch);
  // Only multi-rank tasks use the wide splitter count.
  const int max_m = num_ranks > 1 ? p.levels.wide_splitters : p.levels.oracle_splitters;
  w.window_state = carve.take(sizeof(window_state<K>));
  w.ranks = carve.take(r * sizeof(std::int64_t));
  w.answers = carve.take(r * sizeof(K));
  w.host_keys = carve.take(r * sizeof(K));
  w.has_host = carve.take(r);
  w.tasks = carve.take(tpl * sizeof(task_desc<K>));
  w.base_tasks = carve.take(tpl * sizeof(base_task));
  w.stats = carve.take(tpl * static_cast<std::size_t>(stats_view<K>::stride_for(max_m)));
  w.extract_at = carve.take(tpl * (2 * max_m + 1) * sizeof(std::int64_t));
  w.cursors = carve.take(tpl * (2 * max_m + 1) * sizeof(unsigned long long));
  w.oracles_used = choose_oracles(algo);
  w.oracles = carve.take(w.oracles_used ? static_cast<std::size_t>(n) : 0);
  w.capacity = n > p.levels.base_case.tile_items() ? buffer_capacity(n, num_ranks, algo, p) : 0;
  w.buffer_a = carve.take(static_cast<std::size_t>(w.capacity) * sizeof(K));
  w.buffer_b = carve.take(static_cast<std::size_t>(w.capacity) * sizeof(K));
  w.prepass_capacity = 0;
  if (w.path == multiselect_path::bin_prepass) {
    constexpr std::size_t max_bins = core::bin_map_max_bins;
    // Below 2^32 keys: the scatter places them with 32-bit offsets.
    w.prepass_capacity = std::min<std::int64_t>(n / p.prepass.capacity_divisor, 0xffffffffll);
    w.pre_map = carve.take(sizeof(core::bin_map<K>));
    w.pre_hist = carve.take(max_bins * sizeof(unsigned long long));
    w.pre_selected = carve.take(max_bins / 32 * sizeof(std::uint32_t));
    w.pre_before_word = carve.take(max_bins / 32 * sizeof(std::uint32_t));
    w.pre_intervals = carve.take(sizeof(core::bin_intervals<K>));
    w.pre_region = carve.take(r * sizeof(bin_region<K>));
    w.pre_tasks = carve.take(r * sizeof(bin_rank_task));
    w.pre_state = carve.take(sizeof(bin_prepass_state));
    w.pre_copy_cursor = carve.take(sizeof(unsigned long long));
    w.pre_copy = carve.take(static_cast<std::size_t>(w.prepass_capacity) * sizeof(K));
    w.pre_regions = carve.take(static_cast<std::size_t>(w.prepass_capacity) * sizeof(K));
    w.pre_ranks = carve.take(r * sizeof(std::int64_t));
    const auto tiles = static_cast<std::size_t>((n + tuning::tile_keys - 1) / tuning::tile_keys);
    const std::size_t tag_bytes = tiles * tuning::tile_keys * sizeof(std::uint16_t);
    const std::size_t buffers_end = w.buffer_b + static_cast<std::size_t>(w.capacity) * sizeof(K);
    if (tuning::bin_tags<K> && buffers_end - w.buffer_a >= tag_bytes) {
      w.pre_tags = w.buffer_a;
      w.pre_tags_bytes = tag_bytes;
    }
  }
  if (stream_ordered) {
    constexpr std::size_t buckets = core::descent_buckets, groups = core::descent_max_ranks;
    const auto chunk = static_cast<std::size_t>(std::min(num_ranks, core::descent_max_ranks));
    w.descent_state = carve.take(sizeof(descent_state<K>));
    w.descent_count = carve.take(buckets * sizeof(unsigned long long));
    w.descent_min = carve.take(buckets * sizeof(K));
    w.descent_max = carve.take(buckets * sizeof(K));
    w.descent_group_lo = carve.take(groups * sizeof(K));
    w.descent_group_hi = carve.take(groups * sizeof(K));
    w.descent_rank_group = carve.take(chunk * sizeof(std::int32_t));
    w.descent_rank_in_group = carve.take(chunk * sizeof(std::int64_t));
    w.ranks_valid = carve.take(sizeof(std::int32_t));
  }
  w.total = carve.end;
  return w;
}

}  // namespace kselect::cuda
