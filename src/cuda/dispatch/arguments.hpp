// The argument checks every device-API entry makes (entry.cuh, approx_dispatch.cuh,
// range_dispatch.cuh), written once so that their messages stay the same.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "cuda/common.cuh"
#include "core/ranks.hpp"

namespace kselect::cuda {

/// An input size the device API takes: 1 <= n < 2^40.
inline cudaError_t check_input_size(std::int64_t n) {
  if (n <= 0) return invalid("kselect: empty input (n = " + std::to_string(n) + ")");
  if (n >= (std::int64_t(1) << 40)) return invalid("kselect: n = " + std::to_string(n) + " exceeds 2^40");
  return cudaSuccess;
}

using kselect::device::detail::workspace_protocol;

/// Ranks the host reads: present, in host memory, sorted, unique, in [0, n).
inline cudaError_t check_host_ranks(const std::int64_t* h_ranks, std::int64_t num_ranks, std::int64_t n) {
  if (h_ranks == nullptr) return invalid("kselect: ranks is null");
  // The host reads the ranks: device memory there would crash the checks below.
  if (memory_kind_of(h_ranks) == memory_kind::device)
    return invalid("kselect: ranks must be a host array (got device memory)");
  const std::string problem = core::sorted_ranks_error(h_ranks, num_ranks, n);
  return problem.empty() ? cudaSuccess : invalid(problem);
}

/// The input array: device (or managed) memory.
inline cudaError_t check_device_input(const void* d_in) {
  if (d_in == nullptr || !is_device_accessible(d_in))
    return invalid("kselect: d_in is not device memory (host pointer given to the device API?)");
  return cudaSuccess;
}

}  // namespace kselect::cuda
