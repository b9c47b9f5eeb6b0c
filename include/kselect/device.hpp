// kselect: the CUB-style device API (needs a build with the CUDA backend).
//
// Two-phase workspace, as CUB: call once with d_workspace == nullptr to get the
// bytes needed in workspace_bytes, allocate, then call again. The workspace size
// depends only on the type, n and num_ranks, never on the data. The functions do
// not allocate. They return cudaSuccess, cudaErrorInvalidValue for bad arguments
// (the reason is in last_error_message()), or the first CUDA error met.
//
// Synchronisation: the recursion is driven from the host. Each level copies its
// bucket counts to the host and waits for them on `stream` (one host round trip
// per level; 2^28 uniform floats take 3 to 5 levels). Nothing waits on other
// streams or on the whole device. On return the results are being written on
// `stream`; they are ready once the stream is synchronised.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "kselect/types.hpp"

namespace kselect::device {

struct select_config {
  algorithm algo = algorithm::automatic;
  /// Seed of the sampling; any value gives exact results.
  std::uint64_t seed = 0x9e3779b97f4a7c15ull;
};

/// Values at `num_ranks` ranks of d_in[0..n) (ascending order, NaN last).
///  - h_ranks: HOST array, sorted ascending, no duplicates, each in [0, n).
///  - d_out: device array of num_ranks values; d_out[i] is the value of rank h_ranks[i].
/// Auxiliary memory for one rank is at most 0.3x the input's bytes (plus a few KiB).
template <class T>
cudaError_t multiselect(void* d_workspace, std::size_t& workspace_bytes, const T* d_in,
                        std::int64_t n, const std::int64_t* h_ranks, std::int64_t num_ranks,
                        T* d_out, cudaStream_t stream = nullptr, const select_config& cfg = {});

/// The k-th smallest (0-based) of d_in[0..n) into *d_out (device pointer).
template <class T>
cudaError_t select(void* d_workspace, std::size_t& workspace_bytes, const T* d_in, std::int64_t n,
                   std::int64_t k, T* d_out, cudaStream_t stream = nullptr,
                   const select_config& cfg = {});

/// Counts the NaNs of d_in[0..n) into *d_count (device pointer); 0 for integer types.
template <class T>
cudaError_t count_nan(void* d_workspace, std::size_t& workspace_bytes, const T* d_in,
                      std::int64_t n, std::int64_t* d_count, cudaStream_t stream = nullptr);

/// Why the last call on this thread returned cudaErrorInvalidValue (empty if it did not).
const char* last_error_message() noexcept;

}  // namespace kselect::device
