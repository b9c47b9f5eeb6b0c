// The stream-ordered exact descent and gated selection (stream_ordered_dispatch.cuh)
// for callers in other translation units: approx_multiselect_async queues the
// descent for the ranks its counting pass left beyond the bound; topk_async's
// one-pass path, the selection of its boundary behind its own answer, and the
// selection among its candidates (range_dispatch.cuh).
// Defined with the descent and instantiated
// in instantiate/device_api_*.cu (KSELECT_INSTANTIATE_DEVICE_API), so its kernels
// are compiled once per key type.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace kselect::cuda {

/// Workspace bytes of queue_exact_descent for n keys and num_ranks ranks.
template <class T>
cudaError_t exact_descent_workspace_bytes(std::int64_t n, std::int64_t num_ranks, std::size_t& bytes);

/// Queues the exact descent of d_ranks[0..num_ranks) (device, sorted, unique, in
/// [0, n)) over d_in into d_out, on `stream`, skipped on the device when *skip is 1
/// (skip may be null); ranks_valid (may be null): the rank check's flag, 0 skips
/// too. *status (may be null): the call's device::async_status.
template <class T>
cudaError_t queue_exact_descent(void* d_workspace, const T* d_in, std::int64_t n, const std::int64_t* d_ranks,
                                std::int64_t num_ranks, T* d_out, const std::int32_t* skip,
                                const std::int32_t* ranks_valid, std::int32_t* status, cudaStream_t stream);

/// Queues the exact descent for the host rank `rank` of d_in[0, n) (n above
/// core::small_select_max) into *d_out, skipped on the device when *skip is 1.
/// *status (may be null): async_answered when skipped, else async_fell_back.
/// Workspace: exact_descent_workspace_bytes(n, 1).
template <class T>
cudaError_t queue_gated_select(void* d_workspace, const T* d_in, std::int64_t n, std::int64_t rank, T* d_out,
                               const std::int32_t* skip, std::int32_t* status, cudaStream_t stream);

/// Queues the exact descent of the one rank *d_rank over d_in[0, *d_size) into
/// *d_out (d_rank and d_size on the device, written by earlier work on `stream`;
/// *d_size at most `capacity`, *d_rank below it; every key's key_traits key
/// within d_key_range[0..1], also on the device), skipped on the device when
/// *skip is 1. Workspace: exact_descent_workspace_bytes(capacity, 1).
template <class T>
cudaError_t queue_sized_descent(void* d_workspace, const T* d_in, std::int64_t capacity, const std::int64_t* d_size,
                                const std::int64_t* d_rank, const unsigned long long* d_key_range, T* d_out,
                                const std::int32_t* skip, cudaStream_t stream);

}  // namespace kselect::cuda
