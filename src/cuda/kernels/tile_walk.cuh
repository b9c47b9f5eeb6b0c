// How the streaming kernels (count, filter) share out the tiles of a level: the
// tasks' tiles are numbered one after another (task_desc::tile_begin), and each
// block takes one contiguous run of that list, so it changes task rarely.
#pragma once

#include <cstdint>

#include "cuda/task.cuh"
#include "core/int_math.hpp"

namespace kselect::cuda {

struct tile_run {
  std::int64_t begin, end;
};

__device__ __forceinline__ tile_run block_tile_run(std::int64_t total_tiles) {
  const std::int64_t b = blockIdx.x, g = gridDim.x;
  return {b * total_tiles / g, (b + 1) * total_tiles / g};
}

/// Index of the task that owns `tile` (tasks sorted by tile_begin).
template <class K>
__device__ __forceinline__ int task_of_tile(const task_desc<K>* tasks, int num_tasks, std::int64_t tile) {
  // The last task starting at or before the tile (the first starts at tile 0).
  const auto after = core::partition_point(num_tasks, [&](std::int64_t t) { return tasks[t].tile_begin <= tile; });
  return after > 0 ? static_cast<int>(after - 1) : 0;
}

}  // namespace kselect::cuda
