// Selection over an array in host memory, streamed through the GPU in chunks
// (options::device = cuda with host input; src/cuda/streamed/streamed_select.cpp).
// Plain C++: the owning API (src/api/dispatch.cpp) calls it.
#pragma once

#include <cstdint>

#include "kselect/types.hpp"

namespace kselect::cuda_backend {

/// What a streamed call did, for the tests: passes over the array, the most keys a
/// pass sent to the kept buffer, the buffer's capacity, whether a pass overflowed it.
struct stream_stats {
  int passes = 0;
  std::int64_t kept_keys = 0;
  std::int64_t capacity = 0;
  bool overflowed = false;
};

/// out[i] = the key value of rank ranks[i] of h_values[0..n) (host memory, read only),
/// ranks ascending, unique, in [0, n), n >= 1; for zeros and NaNs the canonical value
/// or some element of that key. Returns true when the array holds no element whose
/// bits differ from its key's value (no -0.0, no NaN but the canonical one): the
/// answers are then the input's elements as they are; otherwise the caller looks up
/// the elements of zero and NaN answers (api/input_elements.hpp).
/// Takes at most opt.device_memory_limit bytes of device memory (0: most of the free
/// memory); throws std::invalid_argument when that is too small, kselect::error on
/// CUDA failures.
template <class T>
bool streamed_multiselect(const T* h_values, std::int64_t n, const std::int64_t* ranks, std::int64_t num_ranks,
                          T* h_out, const options& opt, stream_stats* stats = nullptr);

}  // namespace kselect::cuda_backend
