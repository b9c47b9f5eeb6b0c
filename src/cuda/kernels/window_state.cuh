// State of a single-rank window selection, kept in device memory so that every
// level is planned on the device (window_plan_kernel) and counted by one pass
// (window_pass_kernel) without a host round trip between levels.
#pragma once

#include <cstdint>

#include "core/window.hpp"

namespace kselect::cuda {

enum class window_status : std::int32_t {
  running = 0,   ///< the next pass has a task
  done = 1,      ///< the answer is in d_out
  fallback = 2,  ///< a prediction missed or a window overflowed: the host runs the general path
};

template <class K>
struct window_state {
  window_status status;
  std::int32_t level;
  const void* src;     ///< the task's keys: T at level 0, K in a buffer after
  std::int64_t size;   ///< keys in the task
  std::int64_t rank;   ///< target rank among them
  K* dst;              ///< where this level's pass copies the window's keys
  core::window_bounds<K> bounds;
  // Written by the pass (atomics), read by the next plan.
  unsigned long long below, at_lo, inside, at_hi;
};

}  // namespace kselect::cuda
