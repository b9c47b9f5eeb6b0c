// The stream-ordered selections (device::select_async, device::multiselect_async):
// the same work every call for a given (n, number of ranks, type), queued on the
// stream without a host round trip, so a call can be captured in a CUDA graph.
//
//   rank_check_kernel      (multiselect_async) the device ranks checked, a trusted copy
//   small inputs (core::small_select_max): cluster_select_kernel, a thread-block
//                          cluster per rank (cluster_select_dispatch.cuh); else
//   fast path, as chosen for the synchronous call (choose_multiselect_path):
//     one rank             the window levels (window_select_driver), with a fixed
//                          number of extra levels instead of looking at the status
//     2 to 512 ranks, n >= 2^20   the pre-pass (bin_reduce_driver)
//     otherwise            none
//   descent_init_kernel    reads the fast path's status word: anything left open?
//   descent_round_kernel x core::descent_max_rounds, per 512 ranks: the exact
//                          descent; a round with nothing to do returns at once
//
// Where the synchronous call falls back to the host-planned general driver, this
// mode runs the descent instead, so its answers are exact on every input.
#pragma once

#include <algorithm>
#include <cstdint>

#include "cuda/common.cuh"
#include "cuda/dispatch/arguments.hpp"
#include "cuda/dispatch/bin_reduce_dispatch.cuh"
#include "cuda/dispatch/cluster_select_dispatch.cuh"
#include "cuda/dispatch/descent_entry.hpp"
#include "cuda/dispatch/device_policy.hpp"
#include "cuda/dispatch/full_wave.hpp"
#include "cuda/dispatch/window_select_dispatch.cuh"
#include "cuda/dispatch/workspace.hpp"
#include "cuda/kernels/descent_kernels.cuh"
#include "cuda/kernels/rank_check_kernel.cuh"
#include "core/descent.hpp"
#include "core/key_traits.hpp"
#include "kselect/device.hpp"

namespace kselect::cuda {

template <class K>
descent_arrays<K> descent_view(char* ws, const workspace_layout& w) {
  descent_arrays<K> a{};
  a.state = reinterpret_cast<descent_state<K>*>(ws + w.descent_state);
  a.count = reinterpret_cast<unsigned long long*>(ws + w.descent_count);
  a.min = reinterpret_cast<K*>(ws + w.descent_min);
  a.max = reinterpret_cast<K*>(ws + w.descent_max);
  a.group_lo = reinterpret_cast<K*>(ws + w.descent_group_lo);
  a.group_hi = reinterpret_cast<K*>(ws + w.descent_group_hi);
  a.rank_group = reinterpret_cast<std::int32_t*>(ws + w.descent_rank_group);
  a.rank_in_group = reinterpret_cast<std::int64_t*>(ws + w.descent_rank_in_group);
  a.buffers[0] = reinterpret_cast<K*>(ws + w.buffer_a);
  a.buffers[1] = reinterpret_cast<K*>(ws + w.buffer_b);
  a.capacity = w.capacity;
  return a;
}

/// Queues the descent for the ranks at d_ranks (device; null: the one rank
/// `single_rank`), 512 ranks per descent. fast_path_done: the fast path's status
/// word (1: all answered), or null; ranks_valid: the rank check's flag, or null.
/// The keys: in[0, n), or in[0, *d_size) where d_size (device) is not null,
/// all within the key range d_first_group[0..1] (device) where that is not null.
template <class T>
cudaError_t queue_descent(const T* in, std::int64_t n, const std::int64_t* d_ranks, std::int64_t single_rank,
                          std::int64_t num_ranks, T* out, char* ws, const workspace_layout& w,
                          const std::int32_t* fast_path_done, const std::int32_t* ranks_valid, std::int32_t* status,
                          cudaStream_t stream, const std::int64_t* d_size = nullptr,
                          const unsigned long long* d_first_group = nullptr) {
  using K = core::key_t<T>;
  const descent_arrays<K> a = descent_view<K>(ws, w);
  constexpr std::size_t smem = descent_shared_bytes<K>();
  KSELECT_CUDA_TRY(cudaFuncSetAttribute(descent_round_kernel<T>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                        static_cast<int>(smem)));
  static_assert(descent_threads == tuning::stream_threads, "full_wave_blocks sizes stream_threads blocks");
  unsigned wave = 1;
  KSELECT_CUDA_TRY(full_wave_blocks(descent_round_kernel<T>, wave, smem));
  const std::int64_t tiles = (n + tuning::tile_keys - 1) / tuning::tile_keys;
  const unsigned grid = blocks_for_32bit_counters(static_cast<unsigned>(std::min<std::int64_t>(wave, tiles)), n);
  for (std::int64_t first = 0; first < num_ranks; first += core::descent_max_ranks) {
    const std::int64_t count = std::min(core::descent_max_ranks, num_ranks - first);
    descent_init_kernel<K><<<1, descent_threads, 0, stream>>>(a, in, n, d_ranks ? d_ranks + first : nullptr,
                                                              single_rank, count, fast_path_done, ranks_valid,
                                                              first == 0 ? status : nullptr, d_size,
                                                              d_first_group);
    KSELECT_LAUNCH_CHECK();
    const int rounds = core::descent_max_rounds(static_cast<int>(8 * sizeof(K)), count);
    for (int r = 0; r < rounds; ++r) {
      descent_round_kernel<T><<<grid, descent_threads, smem, stream>>>(a, count, out + first);
      KSELECT_LAUNCH_CHECK();
    }
  }
  return cudaSuccess;
}

/// The stream-ordered calls' workspace: the synchronous call's, with the descent's
/// arrays (plan_workspace's `stream_ordered`), for the device's policy.
template <class T>
cudaError_t plan_stream_ordered_workspace(std::int64_t n, std::int64_t num_ranks, workspace_layout& w) {
  const tuning::policy* policy = nullptr;
  KSELECT_CUDA_TRY(current_policy(policy));
  w = plan_workspace<core::key_t<T>>(n, num_ranks, algorithm::automatic, *policy, true);
  return cudaSuccess;
}

template <class T>
cudaError_t exact_descent_workspace_bytes(std::int64_t n, std::int64_t num_ranks, std::size_t& bytes) {
  workspace_layout w;
  KSELECT_CUDA_TRY(plan_stream_ordered_workspace<T>(n, num_ranks, w));
  bytes = w.total;
  return cudaSuccess;
}

template <class T>
cudaError_t queue_exact_descent(void* d_workspace, const T* d_in, std::int64_t n, const std::int64_t* d_ranks,
                                std::int64_t num_ranks, T* d_out, const std::int32_t* skip,
                                const std::int32_t* ranks_valid, std::int32_t* status, cudaStream_t stream) {
  if (num_ranks == 0) return cudaSuccess;
  workspace_layout w;
  KSELECT_CUDA_TRY(plan_stream_ordered_workspace<T>(n, num_ranks, w));
  return queue_descent(d_in, n, d_ranks, 0, num_ranks, d_out, static_cast<char*>(d_workspace), w, skip, ranks_valid,
                       status, stream);
}

/// The exact descent for the host rank `rank` of n keys (n above
/// core::small_select_max), skipped on the device when *skip is 1; then *status
/// (may be null) is async_answered if *skip is 1, else async_fell_back (the
/// caller's own path did not answer). No window levels before it: their launches
/// cost the callers (the one-pass top-k) more where they are skipped, nearly
/// always, than they save where the descent runs. The workspace:
/// exact_descent_workspace_bytes(n, 1).
template <class T>
cudaError_t queue_gated_select(void* d_workspace, const T* d_in, std::int64_t n, std::int64_t rank, T* d_out,
                               const std::int32_t* skip, std::int32_t* status, cudaStream_t stream) {
  if (n <= core::small_select_max || rank < 0 || rank >= n)
    return reject_argument("kselect: queue_gated_select needs n above core::small_select_max and a rank in [0, n)");
  workspace_layout w;
  KSELECT_CUDA_TRY(plan_stream_ordered_workspace<T>(n, 1, w));
  // One writer of the status: gated_status_kernel, after the descent.
  KSELECT_CUDA_TRY(queue_descent(d_in, n, nullptr, rank, 1, d_out, static_cast<char*>(d_workspace), w, skip, nullptr,
                                 nullptr, stream));
  if (status != nullptr) {
    gated_status_kernel<><<<1, 1, 0, stream>>>(skip, status);
    KSELECT_LAUNCH_CHECK();
  }
  return cudaSuccess;
}

template <class T>
cudaError_t queue_sized_descent(void* d_workspace, const T* d_in, std::int64_t capacity, const std::int64_t* d_size,
                                const std::int64_t* d_rank, const unsigned long long* d_key_range, T* d_out,
                                const std::int32_t* skip, cudaStream_t stream) {
  workspace_layout w;
  KSELECT_CUDA_TRY(plan_stream_ordered_workspace<T>(capacity, 1, w));
  return queue_descent(d_in, capacity, d_rank, 0, 1, d_out, static_cast<char*>(d_workspace), w, skip, nullptr,
                       nullptr, stream, d_size, d_key_range);
}

/// Validation, the workspace protocol and the queue of a stream-ordered
/// multiselection. Ranks: d_ranks (device, checked on the device) or, when null,
/// the one host rank `single_rank` (checked here).
template <class T>
cudaError_t multiselect_stream_ordered(void* d_workspace, std::size_t& workspace_bytes, const T* d_in, T* d_out,
                                       std::int32_t* d_status, std::int64_t n, const std::int64_t* d_ranks,
                                       std::int64_t single_rank, std::int64_t num_ranks, cudaStream_t stream,
                                       const device::select_config& cfg) {
  clear_rejection();
  KSELECT_CUDA_TRY(check_input_size(n));
  if (num_ranks < 0) return reject_argument("kselect: num_ranks is negative");
  KSELECT_CUDA_TRY(check_device_rank_count(num_ranks, n));
  if (cfg.algo == algorithm::sample_select)
    return reject_argument("kselect: algorithm::sample_select plans on the host; it has no stream-ordered mode");
  workspace_layout w;
  KSELECT_CUDA_TRY(plan_stream_ordered_workspace<T>(n, num_ranks, w));
  bool size_query = false;
  KSELECT_CUDA_TRY(workspace_protocol(d_workspace, workspace_bytes, w.total, size_query));
  if (size_query || num_ranks == 0) return cudaSuccess;
  if (d_ranks == nullptr && (single_rank < 0 || single_rank >= n))
    return reject_argument("kselect: k is out of range [0, n)");
  if (d_ranks != nullptr) KSELECT_CUDA_TRY(check_device_ranks(d_ranks));
  KSELECT_CUDA_TRY(check_device_input(d_in));
  KSELECT_CUDA_TRY(check_device_array(d_out, "d_out"));
  KSELECT_CUDA_TRY(check_device_array(d_status, "d_status", true));
  KSELECT_CUDA_TRY(check_device_array(d_workspace, "d_workspace"));
  char* ws = static_cast<char*>(d_workspace);

  const std::int64_t* ranks = nullptr;  // the checked device ranks
  const std::int32_t* ranks_valid = nullptr;
  if (d_ranks != nullptr) {
    auto* checked = reinterpret_cast<std::int64_t*>(ws + w.ranks);
    auto* valid = reinterpret_cast<std::int32_t*>(ws + w.ranks_valid);
    rank_check_kernel<><<<1, rank_check_threads, 0, stream>>>(d_ranks, num_ranks, n, checked, valid);
    KSELECT_LAUNCH_CHECK();
    ranks = checked;
    ranks_valid = valid;
  }
  if (n <= core::small_select_max)  // small inputs: one launch, a cluster of blocks per rank
    return queue_cluster_select(d_in, n, ranks, single_rank, num_ranks, ranks_valid, d_status, d_out, stream);
  const std::int32_t* fast_path_done = nullptr;
  switch (w.path) {
    case multiselect_path::window: {
      window_select_driver<T> window(d_in, n, single_rank, d_out, stream, cfg, ws, w);
      KSELECT_CUDA_TRY(window.queue_stream_ordered(ranks));
      fast_path_done = window.status_word();
      break;
    }
    case multiselect_path::bin_prepass: {
      if (w.prepass_capacity <= 0 || num_ranks > tuning::bin_prepass_max_ranks) break;
      bin_reduce_driver<T> prepass(d_in, n, nullptr, num_ranks, d_out, stream, cfg, ws, w);
      KSELECT_CUDA_TRY(prepass.queue(ranks));
      fast_path_done = prepass.proceed_word();
      break;
    }
    case multiselect_path::levels:
      break;
  }
  return queue_descent(d_in, n, ranks, single_rank, num_ranks, d_out, ws, w, fast_path_done, ranks_valid, d_status,
                       stream);
}

}  // namespace kselect::cuda
