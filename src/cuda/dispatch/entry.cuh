// The device API's entry: argument validation, the two-phase workspace protocol
// (CUB's: a null workspace returns the bytes needed), and the choice of driver:
// window_select_driver for one rank; for 2 to 512 ranks, bin_reduce_driver
// (automatic, n >= 2^20: a pre-pass that answers from small per-rank regions of
// a copy, or gives way to multiselect_driver); otherwise multiselect_driver (and
// always for algorithm::sample_select).
#pragma once

#include <cstdint>
#include <string>

#include "cuda/common.cuh"
#include "cuda/dispatch/bin_reduce_dispatch.cuh"
#include "cuda/dispatch/multiselect_dispatch.cuh"
#include "cuda/dispatch/window_select_dispatch.cuh"
#include "cuda/dispatch/workspace.hpp"
#include "kselect/device.hpp"

namespace kselect::cuda_detail {

/// Validation and the two-phase workspace protocol around the driver.
template <class T>
cudaError_t multiselect(void* d_workspace, std::size_t& workspace_bytes, const T* d_in, std::int64_t n,
                        const std::int64_t* h_ranks, std::int64_t num_ranks, T* d_out, cudaStream_t stream,
                        const device::select_config& cfg) {
  clear_error_message();
  if (n <= 0) return invalid("kselect: empty input (n = " + std::to_string(n) + ")");
  if (n >= (std::int64_t(1) << 40)) return invalid("kselect: n = " + std::to_string(n) + " exceeds 2^40");
  if (num_ranks < 0) return invalid("kselect: num_ranks is negative");
  const workspace_layout layout = plan_workspace<plan::key_t<T>>(n, num_ranks, cfg.algo);
  if (d_workspace == nullptr) {
    workspace_bytes = layout.total;
    return cudaSuccess;
  }
  if (workspace_bytes < layout.total)
    return invalid("kselect: workspace too small: " + std::to_string(workspace_bytes) + " bytes given, " +
                   std::to_string(layout.total) + " needed");
  if (num_ranks == 0) return cudaSuccess;
  if (h_ranks == nullptr) return invalid("kselect: ranks is null");
  // The host reads the ranks: device memory there would crash the checks below.
  if (memory_kind_of(h_ranks) == memory_kind::device)
    return invalid("kselect: ranks must be a host array (got device memory)");
  for (std::int64_t i = 0; i < num_ranks; ++i) {
    if (h_ranks[i] < 0 || h_ranks[i] >= n)
      return invalid("kselect: rank " + std::to_string(h_ranks[i]) + " (ranks[" + std::to_string(i) +
                     "]) is outside [0, " + std::to_string(n) + ")");
    if (i > 0 && h_ranks[i] <= h_ranks[i - 1])
      return invalid("kselect: ranks must be sorted ascending without duplicates (ranks[" +
                     std::to_string(i - 1) + "] = " + std::to_string(h_ranks[i - 1]) + ", ranks[" +
                     std::to_string(i) + "] = " + std::to_string(h_ranks[i]) + ")");
  }
  if (d_in == nullptr || !is_device_accessible(d_in))
    return invalid("kselect: d_in is not device memory (host pointer given to the device API?)");
  if (d_out == nullptr || !is_device_accessible(d_out))
    return invalid("kselect: d_out is not device memory");
  if (!is_device_accessible(d_workspace)) return invalid("kselect: d_workspace is not device memory");
  char* ws = static_cast<char*>(d_workspace);
  if (num_ranks == 1 && cfg.algo != algorithm::sample_select)
    return window_select_driver<T>(d_in, n, h_ranks[0], d_out, stream, cfg, ws, layout).run();
  if (layout.prepass_capacity > 0)
    return bin_reduce_driver<T>(d_in, n, h_ranks, num_ranks, d_out, stream, cfg, ws, layout).run();
  return multiselect_driver<T>(d_in, n, h_ranks, num_ranks, d_out, stream, cfg, ws, layout).run();
}

}  // namespace kselect::cuda_detail
