// What the stream-ordered selection's exact descent (descent_kernels.cuh) keeps
// in the workspace between its launches.
#pragma once

#include <cstdint>

namespace kselect::cuda {

/// The descent's state between launches, in the workspace.
template <class K>
struct descent_state {
  std::int32_t active;      ///< 0: every later launch returns at once
  std::int32_t num_groups;
  std::int32_t group_bits;  ///< buckets per group: 1 << group_bits
  std::int32_t src_is_input;
  const void* src;          ///< the keys the next round reads: T input, or K copy
  std::int64_t size;
  K* copy_to;               ///< not null: the next round also copies its groups' keys here
  unsigned long long copied;
  unsigned int blocks_done;
};

/// The descent's arrays, in the workspace.
template <class K>
struct descent_arrays {
  descent_state<K>* state;
  unsigned long long* count;   ///< per bucket
  K* min;                      ///< per bucket
  K* max;                      ///< per bucket
  K* group_lo;                 ///< per group (<= descent_max_ranks)
  K* group_hi;
  std::int32_t* rank_group;    ///< per rank: its group, or -1 once answered
  std::int64_t* rank_in_group; ///< per rank: its rank among its group's keys
  K* buffers[2];
  std::int64_t capacity;       ///< keys per buffer (0: the rounds never copy)
};

}  // namespace kselect::cuda
