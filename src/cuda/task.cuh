// Descriptors the host driver hands to the kernels of one level.
#pragma once

#include <cstdint>

#include "cuda/task_kinds.hpp"

namespace kselect::cuda {

/// One task of a level, as the kernels see it. Field by field:
template <class K>
struct task_desc {
  const void* src;           ///< first element of the task's range (T at level 0, else K)
  std::int64_t size;         ///< elements in the range
  std::int64_t count;        ///< elements of the range inside [lo, hi] (== size when compact)
  std::int64_t tile_begin;   ///< first tile of this task in the launch's flattened tile list
  std::int64_t rank;         ///< window mode: the target rank within the task's keys
  std::int64_t oracle;       ///< byte offset of its oracles, or -1 for none
  std::int64_t extract_at;   ///< window mode: element offset of its region in the dst buffer
  std::int64_t extract_cap;  ///< window mode: capacity of that region
  K lo, hi;                  ///< key interval; keys outside are not part of the task
  std::int32_t mode;         ///< task_mode
  std::int32_t target_splitters;  ///< splitters wanted (before removing repeats)
  std::int32_t stats_slot;        ///< which task_stats block (of the count launch) is its
  std::int32_t classifier;        ///< classifier_kind for more than two splitters
  std::int32_t compact;           ///< 1: every key of the range is inside [lo, hi] (no test needed)
};

/// Per-task results of a count pass, copied to the host in one piece (the level's
/// only device-to-host copy). Each task owns `stride` bytes, sized for the largest
/// splitter count of the launch (`max_splitters`), so window levels copy little:
///   [0]   int64 num_splitters m
///   [8]   int64 window bucket (-1 if none)
///   [16]  uint64 extract cursor (keys the window pass wanted to write)
///   [24]  uint64 histogram[2 * max_splitters + 1]
///   then  K splitters[max_splitters]
template <class K>
struct stats_view {
  char* base;
  std::int64_t stride;
  int max_splitters;

  static std::int64_t stride_for(int max_splitters) {
    const std::int64_t raw = 24 + 8ll * (2 * max_splitters + 1) + std::int64_t(sizeof(K)) * max_splitters;
    return (raw + 15) / 16 * 16;
  }
  __host__ __device__ int max_buckets() const { return 2 * max_splitters + 1; }
  __host__ __device__ char* slot(std::int64_t i) const { return base + i * stride; }
  __host__ __device__ std::int64_t* header(std::int64_t i) const {
    return reinterpret_cast<std::int64_t*>(slot(i));
  }
  __host__ __device__ unsigned long long* hist(std::int64_t i) const {
    return reinterpret_cast<unsigned long long*>(slot(i) + 24);
  }
  __host__ __device__ K* splitters(std::int64_t i) const {
    return reinterpret_cast<K*>(slot(i) + 24 + 8ll * max_buckets());
  }
};

/// A compact task small enough to be sorted in one block.
struct base_task {
  const void* keys;           ///< K keys
  std::int64_t size;
  std::int64_t first_rank;    ///< index into the sorted rank list (and into the answers)
  std::int64_t end_rank;
  std::int64_t rank_base;     ///< global rank of the task's smallest key
};

}  // namespace kselect::cuda
