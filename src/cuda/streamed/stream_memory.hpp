// How a streamed call (src/cuda/streamed/) sizes its device memory: the limit it
// keeps under, and the chunks the pump copies.
#pragma once

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "cuda/owning_support.hpp"
#include "kselect/types.hpp"

namespace kselect::cuda_backend {

/// Bytes of one chunk: large enough that a chunk's fixed costs (a wait, a parallel
/// region, a launch) are small against its transfer, small enough that the two
/// pinned staging buffers are cheap to keep (docs/performance.md, issue 25).
inline constexpr std::size_t default_chunk_bytes = std::size_t{32} << 20;
/// A chunk is at least this large (a limit that leaves less is refused).
inline constexpr std::size_t min_chunk_bytes = std::size_t{64} << 10;
/// The device memory left free when no limit is given (others may need some).
inline constexpr std::size_t free_memory_margin = std::size_t{512} << 20;

/// The device memory a streamed call may take: options::device_memory_limit, or, when
/// that is 0, the free memory less a margin.
inline std::size_t stream_memory_limit(const options& opt) {
  if (opt.device_memory_limit != 0) return opt.device_memory_limit;
  std::size_t free_bytes = 0, total_bytes = 0;
  check(cudaMemGetInfo(&free_bytes, &total_bytes), "cudaMemGetInfo");
  return free_bytes - std::min(free_bytes, std::max(free_memory_margin, free_bytes / 16));
}

/// Elements of one chunk of an array of n elements of `element_bytes` under `limit`:
/// a sixteenth of the limit, within [min_chunk_bytes, default_chunk_bytes].
inline std::int64_t stream_chunk_keys(std::size_t limit, std::int64_t n, std::size_t element_bytes) {
  const std::size_t bytes = std::min({default_chunk_bytes, std::max(min_chunk_bytes, limit / 16),
                                      static_cast<std::size_t>(n) * element_bytes});
  return static_cast<std::int64_t>(std::max<std::size_t>(1, bytes / element_bytes));
}

/// The largest m in [0, most] with bytes(m) <= budget, for a bytes() that grows
/// with m (a binary search: bytes() may be a workspace query).
template <class Bytes>
std::int64_t largest_fitting(std::int64_t most, std::size_t budget, Bytes&& bytes) {
  std::int64_t lo = 0, hi = most;
  while (lo < hi) {
    const std::int64_t mid = lo + (hi - lo + 1) / 2;
    if (bytes(mid) <= budget) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/// The error for a limit below what a streamed call needs (`least` bytes).
[[noreturn]] inline void throw_limit_too_small(const options& opt, std::size_t limit, std::size_t least) {
  throw std::invalid_argument("kselect: options.device_memory_limit = " + std::to_string(limit) +
                              " bytes is too small" +
                              (opt.device_memory_limit != 0 ? "" : " (the device's free memory)") +
                              ": streaming this array through the GPU takes at least " + std::to_string(least) +
                              " bytes");
}

}  // namespace kselect::cuda_backend
