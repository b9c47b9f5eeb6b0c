// Definitions of the public device API's exact selections (include/kselect/device.hpp:
// select, multiselect, count_nan) for one key type; each instantiate/device_api_*.cu
// includes this for its type so the build parallelises.
#pragma once

#include <thrust/iterator/transform_iterator.h>

#include <cub/device/device_reduce.cuh>

#include "cuda/common.cuh"
#include "cuda/dispatch/entry.cuh"
#include "cuda/dispatch/stream_ordered_dispatch.cuh"
#include "kselect/detail/nvtx.hpp"
#include "kselect/device.hpp"

namespace kselect::cuda {

template <class T>
struct is_nan_op {
  __host__ __device__ std::int64_t operator()(T x) const {
    if constexpr (std::is_floating_point_v<T>) return x != x ? 1 : 0;
    else return 0;
  }
};

}  // namespace kselect::cuda

namespace kselect::device {

template <class T>
cudaError_t select(void* d_workspace, std::size_t& workspace_bytes, const T* d_in, T* d_out, std::int64_t n,
                   std::int64_t k, cudaStream_t stream, const select_config& cfg) {
  KSELECT_NVTX_RANGE("kselect::device::select");
  return cuda::multiselect(d_workspace, workspace_bytes, d_in, d_out, n, &k, 1, stream, cfg);
}

template <class T>
cudaError_t multiselect(void* d_workspace, std::size_t& workspace_bytes, const T* d_in, T* d_out, std::int64_t n,
                        const std::int64_t* h_ranks, std::int64_t num_ranks, cudaStream_t stream,
                        const select_config& cfg) {
  KSELECT_NVTX_RANGE("kselect::device::multiselect");
  return cuda::multiselect(d_workspace, workspace_bytes, d_in, d_out, n, h_ranks, num_ranks, stream, cfg);
}

template <class T>
cudaError_t select_async(void* d_workspace, std::size_t& workspace_bytes, const T* d_in, T* d_out,
                         std::int32_t* d_status, std::int64_t n, std::int64_t k, cudaStream_t stream,
                         const select_config& cfg) {
  KSELECT_NVTX_RANGE("kselect::device::select_async");
  return cuda::multiselect_stream_ordered(d_workspace, workspace_bytes, d_in, d_out, d_status, n, nullptr, k, 1,
                                          stream, cfg);
}

template <class T>
cudaError_t multiselect_async(void* d_workspace, std::size_t& workspace_bytes, const T* d_in, T* d_out,
                              std::int32_t* d_status, std::int64_t n, const std::int64_t* d_ranks,
                              std::int64_t num_ranks, cudaStream_t stream, const select_config& cfg) {
  KSELECT_NVTX_RANGE("kselect::device::multiselect_async");
  // d_ranks null means the one host rank to multiselect_stream_ordered (select_async).
  kselect::detail::clear_rejection();
  KSELECT_CUDA_TRY(cuda::check_device_ranks_given(d_ranks, num_ranks));
  return cuda::multiselect_stream_ordered(d_workspace, workspace_bytes, d_in, d_out, d_status, n, d_ranks, 0,
                                          num_ranks, stream, cfg);
}

template <class T>
cudaError_t count_nan(void* d_workspace, std::size_t& workspace_bytes, const T* d_in, std::int64_t* d_count,
                      std::int64_t n, cudaStream_t stream) {
  KSELECT_NVTX_RANGE("kselect::device::count_nan");
  kselect::detail::clear_rejection();
  if (n < 0) return kselect::detail::reject_argument("kselect: n is negative");
  auto flags = thrust::make_transform_iterator(d_in, cuda::is_nan_op<T>{});
  return cub::DeviceReduce::Sum(d_workspace, workspace_bytes, flags, d_count, n, stream);
}

}  // namespace kselect::device

#define KSELECT_INSTANTIATE_DEVICE_API(T)                                                                   \
  template cudaError_t kselect::device::select<T>(void*, std::size_t&, const T*, T*, std::int64_t,          \
                                                  std::int64_t, cudaStream_t, const select_config&);        \
  template cudaError_t kselect::device::multiselect<T>(void*, std::size_t&, const T*, T*, std::int64_t,     \
                                                       const std::int64_t*, std::int64_t, cudaStream_t,     \
                                                       const select_config&);                               \
  template cudaError_t kselect::device::select_async<T>(void*, std::size_t&, const T*, T*, std::int32_t*,   \
                                                        std::int64_t, std::int64_t, cudaStream_t,            \
                                                        const select_config&);                               \
  template cudaError_t kselect::device::multiselect_async<T>(void*, std::size_t&, const T*, T*, std::int32_t*, \
                                                             std::int64_t, const std::int64_t*, std::int64_t, \
                                                             cudaStream_t, const select_config&);            \
  template cudaError_t kselect::device::count_nan<T>(void*, std::size_t&, const T*, std::int64_t*,          \
                                                     std::int64_t, cudaStream_t);                          \
  template cudaError_t kselect::cuda::exact_descent_workspace_bytes<T>(std::int64_t, std::int64_t,          \
                                                                       std::size_t&);                       \
  template cudaError_t kselect::cuda::queue_exact_descent<T>(void*, const T*, std::int64_t,                 \
                                                             const std::int64_t*, std::int64_t, T*,         \
                                                             const std::int32_t*, const std::int32_t*,      \
                                                             std::int32_t*, cudaStream_t);                  \
  template cudaError_t kselect::cuda::queue_gated_select<T>(void*, const T*, std::int64_t, std::int64_t, T*,  \
                                                            const std::int32_t*, std::int32_t*, cudaStream_t); \
  template cudaError_t kselect::cuda::queue_sized_descent<T>(void*, const T*, std::int64_t,                 \
                                                             const std::int64_t*, const std::int64_t*,      \
                                                             const unsigned long long*, T*,                 \
                                                             const std::int32_t*, cudaStream_t);
