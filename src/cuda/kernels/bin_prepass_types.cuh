// What the multiselection pre-pass's kernels (bin_plan_kernels.cuh and after)
// hand each other and the host, in the workspace.
#pragma once

#include <cstdint>

namespace kselect::cuda {

/// What the pre-pass's kernels tell each other and the host.
struct bin_prepass_state {
  int proceed;               ///< 0: the sample predicted a large copy, or the copy overflowed: the later
                             ///< kernels return at once and the host runs the general driver
  std::uint32_t regions;     ///< bins holding ranks (set by bin_reduce_kernel)
  unsigned long long kept;   ///< keys copied (set by bin_reduce_kernel)
};

/// One target rank of the pre-pass: its answer is the key of rank `rank` among
/// the `size` keys of the copy starting at `start` (one selected bin's keys,
/// region `region`); or, where region is bin_task_answered, the key of pre-key
/// `start` (a bin of one key, not copied).
struct bin_rank_task {
  std::int64_t start, size, rank, region;
};

inline constexpr std::int64_t bin_task_answered = -1;

/// One selected bin's region of the partitioned copy: where its next keys go,
/// and its keys' bounds. One per 128-byte line: the scatter's atomics on them,
/// from every block, then spread over L2 slices instead of queueing on a few.
template <class K>
struct alignas(128) bin_region {
  unsigned long long cursor;
  K min, max;
};

}  // namespace kselect::cuda
