// What the multiselection pre-pass's kernels (bin_plan_kernels.cuh and after)
// hand each other and the host, in the workspace.
#pragma once

#include <cstdint>

#include "cuda/tuning.hpp"

namespace kselect::cuda {

/// What the pre-pass's kernels tell each other and the host.
struct bin_prepass_state {
  int proceed;               ///< 0: the sample predicted a large copy, or the copy overflowed: the later
                             ///< kernels return at once and the host runs the general driver
  std::uint32_t regions;     ///< bins holding ranks (set by bin_reduce_kernel)
  unsigned long long kept;   ///< keys copied (set by bin_reduce_kernel)
  // The count pass's speculative copy (core/prepass_speculation.hpp):
  std::uint32_t spec_first;  ///< its run of bins [first, first + span] (bin_map_kernel)
  std::uint32_t spec_span;   ///< core::no_speculation: none
  long long spec_expected;   ///< keys the sample expects in the run (bin_map_kernel)
  long long spec_slice;      ///< slots of a thread's slice, 0 where the count pass copied nothing (bin_count_kernel)
  long long spec_slices;     ///< the count pass's threads, a slice each (bin_count_kernel)
  std::uint32_t spec_overflow;  ///< 1: a slice overflowed (bin_count_kernel)
  std::uint32_t spec_ok;     ///< 1: the copy holds every selected bin's keys: the filter reads it (bin_reduce_kernel)
  std::uint32_t tagged;      ///< 1: the count pass writes each key's bin to the tags, the filter reads them
                             ///< (bin_map_kernel; tuning::bin_tags)
};

/// Bin tags (state.tagged): a 16-bit bin per key, by tile of the count pass's walk
/// (stream_tiles.cuh), tile tl at tl * tile_keys. Thread t's key i (stream_key_index)
/// has tag (i / 8 * stream_threads + t) * 8 + i % 8 of its tile: each of the
/// thread's 16-byte vectors of 8 tags is one coalesced store or load of the block.
inline constexpr int bin_tags_per_vector = 8;
static_assert(tuning::stream_items % bin_tags_per_vector == 0, "a thread's tags fill whole vectors");

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
