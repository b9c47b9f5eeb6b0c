// The device API's entry: argument validation, the two-phase workspace protocol
// (CUB's: a null workspace returns the bytes needed), and the driver of the path
// that choose_multiselect_path (dispatch/choose.hpp) chose with the device's
// policy: window_select_driver for one rank; bin_reduce_driver for 2 to
// prepass.max_ranks ranks of a large input (a pre-pass that answers from small
// per-rank regions of a copy, or gives way to multiselect_driver); otherwise
// multiselect_driver (and always for algorithm::sample_select).
#pragma once

#include <cstdint>
#include <string>

#include "cuda/common.cuh"
#include "cuda/dispatch/arguments.hpp"
#include "cuda/dispatch/bin_reduce_dispatch.cuh"
#include "cuda/dispatch/device_policy.hpp"
#include "cuda/dispatch/multiselect_dispatch.cuh"
#include "cuda/dispatch/window_select_dispatch.cuh"
#include "cuda/dispatch/workspace.hpp"
#include "kselect/device.hpp"

namespace kselect::cuda {

/// Validation and the two-phase workspace protocol around the driver.
template <class T>
cudaError_t multiselect(void* d_workspace, std::size_t& workspace_bytes, const T* d_in, T* d_out, std::int64_t n,
                        const std::int64_t* h_ranks, std::int64_t num_ranks, cudaStream_t stream,
                        const device::select_config& cfg) {
  clear_rejection();
  KSELECT_CUDA_TRY(check_input_size(n));
  if (num_ranks < 0) return reject_argument("kselect: num_ranks is negative");
  const tuning::policy* policy = nullptr;
  KSELECT_CUDA_TRY(current_policy(policy));
  const workspace_layout layout = plan_workspace<core::key_t<T>>(n, num_ranks, cfg.algo, *policy);
  bool size_query = false;
  KSELECT_CUDA_TRY(workspace_protocol(d_workspace, workspace_bytes, layout.total, size_query));
  if (size_query || num_ranks == 0) return cudaSuccess;
  KSELECT_CUDA_TRY(check_host_ranks(h_ranks, num_ranks, n));
  KSELECT_CUDA_TRY(check_device_input(d_in));
  KSELECT_CUDA_TRY(check_device_array(d_out, "d_out"));
  KSELECT_CUDA_TRY(check_device_array(d_workspace, "d_workspace"));
  char* ws = static_cast<char*>(d_workspace);
  switch (layout.path) {
    case multiselect_path::window:
      return window_select_driver<T>(d_in, n, h_ranks[0], d_out, stream, cfg, ws, layout).run();
    case multiselect_path::bin_prepass:
      return bin_reduce_driver<T>(d_in, n, h_ranks, num_ranks, d_out, stream, cfg, ws, layout).run();
    case multiselect_path::levels:
      break;
  }
  return multiselect_driver<T>(d_in, n, h_ranks, num_ranks, d_out, stream, cfg, ws, layout).run();
}

}  // namespace kselect::cuda
