// The take pass of a streamed rank range (src/cuda/streamed/streamed_range.cpp): one
// chunk of the host array, on the device, compacted in index order to the elements
// the range takes. Plain C++ declarations; the kernels are in stream_take.cu.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "core/key_traits.hpp"

namespace kselect::cuda_backend {

/// Which elements of a chunk the take keeps, by order key (core::range_order_key):
/// every one strictly between `first` and `last`, and those equal to `first` or
/// `last` where the chunk takes all of them (take_first, take_last; take_last is
/// false when first == last).
template <class U>
struct stream_take_rule {
  U first = 0, last = 0;
  bool descending = false;
  bool take_first = false, take_last = false;
};

/// Workspace bytes of launch_stream_take for chunks of up to chunk_keys elements.
template <class T>
cudaError_t stream_take_workspace(std::size_t& bytes, std::int64_t chunk_keys);

/// The elements of d_chunk[0..count) that `rule` keeps, in index order: their input
/// positions (first_index + position in the chunk) to d_indices, their values to
/// d_values; *d_taken gets their number, which the caller knows to be `taken` (the
/// values are gathered for that many). Enqueued on `stream`; returns the first
/// failing call's status.
template <class T>
cudaError_t launch_stream_take(const T* d_chunk, std::int64_t first_index, std::int64_t count,
                               const stream_take_rule<core::key_t<T>>& rule, std::int64_t taken, T* d_values,
                               std::int64_t* d_indices, std::int64_t* d_taken, void* d_workspace,
                               std::size_t workspace_bytes, cudaStream_t stream);

/// out[j] = source[positions[j] - offset] for j < m, enqueued on `stream`.
template <class T>
cudaError_t launch_gather(const T* d_source, std::int64_t offset, const std::int64_t* d_positions, std::int64_t m,
                          T* d_out, cudaStream_t stream);

/// Sorts the m elements (d_values[i], d_indices[i]) by index (below 2^index_bits),
/// with cub::DeviceRadixSort in its double-buffer form: d_values_alt and
/// d_indices_alt are as large, and *in_alt says on return which pair holds the
/// result. A null d_workspace asks for workspace_bytes only.
template <class T>
cudaError_t sort_by_index(void* d_workspace, std::size_t& workspace_bytes, T* d_values, std::int64_t* d_indices,
                          T* d_values_alt, std::int64_t* d_indices_alt, std::int64_t m, int index_bits, bool* in_alt,
                          cudaStream_t stream);

}  // namespace kselect::cuda_backend
