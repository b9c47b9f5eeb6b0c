// The argument checks every device-API entry makes (entry.cuh, approx_dispatch.cuh,
// range_dispatch.cuh, stream_ordered_dispatch.cuh), written once so that their messages stay the same; the
// limits themselves are in kselect/detail/arguments.hpp, shared with the device
// filters and the approximate selection's checks.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "core/ranks.hpp"
#include "cuda/common.cuh"
#include "kselect/detail/arguments.hpp"

namespace kselect::cuda {

/// An input size the device API takes: 1 <= n < 2^40.
inline cudaError_t check_input_size(std::int64_t n) { return reject_if(kselect::detail::input_size_error(n)); }

/// Ranks the host reads: present, in host memory, sorted, unique, in [0, n).
inline cudaError_t check_host_ranks(const std::int64_t* h_ranks, std::int64_t num_ranks, std::int64_t n) {
  if (h_ranks == nullptr) return reject_argument("kselect: ranks is null");
  // The host reads the ranks: device memory there would crash the checks below.
  if (memory_kind_of(h_ranks) == memory_kind::device)
    return reject_argument("kselect: ranks must be a host array (got device memory)");
  return reject_if(core::sorted_ranks_error(h_ranks, num_ranks, n));
}

// Ranks in device memory (the stream-ordered calls): the host cannot read them
// without waiting, so it checks what it can (the three checks below); the device
// checks the values (rank_check_kernel).

/// Given, when there are any.
inline cudaError_t check_device_ranks_given(const std::int64_t* d_ranks, std::int64_t num_ranks) {
  if (d_ranks == nullptr && num_ranks > 0) return reject_argument("kselect: d_ranks is null");
  return cudaSuccess;
}

/// No more than keys (unique ranks in [0, n)).
inline cudaError_t check_device_rank_count(std::int64_t num_ranks, std::int64_t n) {
  if (num_ranks > n) return reject_argument("kselect: more ranks than elements (ranks must be unique, in [0, n))");
  return cudaSuccess;
}

/// Device memory, for a call that reads them.
inline cudaError_t check_device_ranks(const std::int64_t* d_ranks) {
  if (!is_device_accessible(d_ranks))
    return reject_argument("kselect: d_ranks is not device memory (the stream-ordered call reads ranks on the device)");
  return cudaSuccess;
}

/// The input array: device (or managed) memory.
inline cudaError_t check_device_input(const void* d_in) {
  if (d_in == nullptr || !is_device_accessible(d_in))
    return reject_argument("kselect: d_in is not device memory (host pointer given to the device API?)");
  return cudaSuccess;
}

/// An output array or the workspace, named `what` in the message: device (or
/// managed) memory; null only where `may_be_null` (an optional output).
inline cudaError_t check_device_array(const void* p, const char* what, bool may_be_null = false) {
  if (p == nullptr ? !may_be_null : !is_device_accessible(p))
    return reject_argument(std::string("kselect: ") + what + " is not device memory");
  return cudaSuccess;
}

}  // namespace kselect::cuda
