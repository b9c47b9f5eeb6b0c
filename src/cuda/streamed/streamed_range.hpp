// A rank range (top-k) of an array in host memory, streamed through the GPU in chunks
// (options::device = cuda with host input; src/cuda/streamed/streamed_range.cpp).
// Plain C++: the owning API (src/api/dispatch.cpp) calls it.
#pragma once

#include <cstdint>

#include "kselect/types.hpp"

namespace kselect::cuda_backend {

/// What a streamed range did, for the tests: whether one pass answered it; else
/// chunks the take pass ran on the device, chunks the host took (their boundary-key
/// elements are taken in part), copies of the device's output buffer to the host.
struct range_stream_stats {
  bool one_pass = false;
  std::int64_t device_chunks = 0;
  std::int64_t host_chunks = 0;
  int flushes = 0;
};

/// The elements at positions [lo, hi) (0 <= lo < hi <= n) of the stable sort of
/// h_values[0..n) (host memory, read only; descending: by descending key, ties by
/// ascending index), as cpu::range_select gives them: in index order, or sorted by
/// (key, index). h_out_values and h_out_indices (may be null) are host memory of
/// hi - lo elements. One streamed pass when the candidates a sample predicts fit the
/// device; otherwise three: the boundary keys (streamed_multiselect), counts per
/// chunk, and the take, whose output goes back to the host through a device buffer.
/// Takes at most opt.device_memory_limit bytes of device memory (0: most of the
/// free memory); throws std::invalid_argument when that is too small, kselect::error
/// on CUDA failures.
template <class T>
void streamed_range_select(const T* h_values, std::int64_t n, std::int64_t lo, std::int64_t hi, bool descending,
                           bool sorted, T* h_out_values, std::int64_t* h_out_indices, const options& opt,
                           range_stream_stats* stats = nullptr);

}  // namespace kselect::cuda_backend
