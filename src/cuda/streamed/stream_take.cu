// The take pass's kernels (declared in stream_take.hpp): cub::DeviceSelect::If over
// the chunk's positions keeps the index order, then the taken values are gathered
// from the chunk by those positions. The pass is bound by the host-to-device copy, so
// writing positions first and values second costs nothing measurable against it.
// Also the one-pass form's index sort of its kept elements (cub::DeviceRadixSort).
#include "cuda/streamed/stream_take.hpp"

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_select.cuh>
#include <thrust/iterator/counting_iterator.h>

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "core/key_traits.hpp"
#include "core/range_chunks.hpp"
#include "kselect/types.hpp"

namespace kselect::cuda_backend {
namespace {

template <class T>
struct take_test {
  const T* chunk;
  std::int64_t first_index;
  stream_take_rule<core::key_t<T>> rule;
  __device__ bool operator()(std::int64_t i) const {
    switch (core::class_of_key(core::range_order_key<T>{rule.descending}(chunk[i - first_index]), rule.first,
                               rule.last)) {
      case core::class_between: return true;
      case core::class_first: return rule.take_first;
      case core::class_last: return rule.take_last;
      default: return false;
    }
  }
};

constexpr int gather_threads = 256;

template <class T>
__global__ void __launch_bounds__(gather_threads)
    gather_kernel(const T* source, std::int64_t offset, const std::int64_t* positions, std::int64_t m, T* out) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t j = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; j < m; j += stride)
    out[j] = source[positions[j] - offset];
}

template <class T>
cudaError_t select_positions(void* d_workspace, std::size_t& bytes, const T* d_chunk, std::int64_t first_index,
                             std::int64_t count, const stream_take_rule<core::key_t<T>>& rule,
                             std::int64_t* d_indices, std::int64_t* d_taken, cudaStream_t stream) {
  return cub::DeviceSelect::If(d_workspace, bytes, thrust::counting_iterator<std::int64_t>(first_index), d_indices,
                               d_taken, count, take_test<T>{d_chunk, first_index, rule}, stream);
}

template <class Bits>
cudaError_t sort_bits_by_index(void* d_workspace, std::size_t& workspace_bytes, Bits* d_values,
                               std::int64_t* d_indices, Bits* d_values_alt, std::int64_t* d_indices_alt,
                               std::int64_t m, int index_bits, bool* in_alt, cudaStream_t stream) {
  cub::DoubleBuffer<std::int64_t> indices(d_indices, d_indices_alt);
  cub::DoubleBuffer<Bits> values(d_values, d_values_alt);
  const cudaError_t status =
      cub::DeviceRadixSort::SortPairs(d_workspace, workspace_bytes, indices, values, m, 0, index_bits, stream);
  if (in_alt) *in_alt = indices.Current() != d_indices;
  return status;
}

}  // namespace

template <class T>
cudaError_t stream_take_workspace(std::size_t& bytes, std::int64_t chunk_keys) {
  bytes = 0;
  return select_positions<T>(nullptr, bytes, nullptr, 0, chunk_keys, {}, nullptr, nullptr, nullptr);
}

template <class T>
cudaError_t launch_stream_take(const T* d_chunk, std::int64_t first_index, std::int64_t count,
                               const stream_take_rule<core::key_t<T>>& rule, std::int64_t taken, T* d_values,
                               std::int64_t* d_indices, std::int64_t* d_taken, void* d_workspace,
                               std::size_t workspace_bytes, cudaStream_t stream) {
  if (count <= 0) return cudaSuccess;
  cudaError_t status = select_positions<T>(d_workspace, workspace_bytes, d_chunk, first_index, count, rule,
                                           d_indices, d_taken, stream);
  if (status != cudaSuccess) return status;
  return launch_gather<T>(d_chunk, first_index, d_indices, taken, d_values, stream);
}

template <class T>
cudaError_t launch_gather(const T* d_source, std::int64_t offset, const std::int64_t* d_positions, std::int64_t m,
                          T* d_out, cudaStream_t stream) {
  if (m <= 0) return cudaSuccess;
  const auto blocks = static_cast<int>(std::min<std::int64_t>((m + gather_threads - 1) / gather_threads, 4096));
  gather_kernel<T><<<blocks, gather_threads, 0, stream>>>(d_source, offset, d_positions, m, d_out);
  return cudaGetLastError();
}

template <class T>
cudaError_t sort_by_index(void* d_workspace, std::size_t& workspace_bytes, T* d_values, std::int64_t* d_indices,
                          T* d_values_alt, std::int64_t* d_indices_alt, std::int64_t m, int index_bits, bool* in_alt,
                          cudaStream_t stream) {
  // The values move as bits: two sorts to compile (4 and 8 bytes), not one per type.
  using bits = std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>;
  return sort_bits_by_index(d_workspace, workspace_bytes, reinterpret_cast<bits*>(d_values), d_indices,
                            reinterpret_cast<bits*>(d_values_alt), d_indices_alt, m, index_bits, in_alt, stream);
}

#define KSELECT_INSTANTIATE_STREAM_TAKE(T)                                                                  \
  template cudaError_t stream_take_workspace<T>(std::size_t&, std::int64_t);                               \
  template cudaError_t launch_stream_take<T>(const T*, std::int64_t, std::int64_t,                         \
                                             const stream_take_rule<core::key_t<T>>&, std::int64_t, T*,    \
                                             std::int64_t*, std::int64_t*, void*, std::size_t, cudaStream_t); \
  template cudaError_t launch_gather<T>(const T*, std::int64_t, const std::int64_t*, std::int64_t, T*, cudaStream_t); \
  template cudaError_t sort_by_index<T>(void*, std::size_t&, T*, std::int64_t*, T*, std::int64_t*, std::int64_t, int, \
                                        bool*, cudaStream_t);
KSELECT_FOR_EACH_KEY_TYPE(KSELECT_INSTANTIATE_STREAM_TAKE)
#undef KSELECT_INSTANTIATE_STREAM_TAKE

}  // namespace kselect::cuda_backend
