// Definition of the public device API's approximate multiselection
// (include/kselect/device.hpp: approx_multiselect) for one key type; each
// instantiate/approx_*.cu includes this for its type so the build parallelises.
#pragma once

#include "cuda/dispatch/approx_dispatch.cuh"
#include "kselect/detail/nvtx.hpp"
#include "kselect/device.hpp"

namespace kselect::device {

template <class T>
cudaError_t approx_multiselect(void* d_workspace, std::size_t& workspace_bytes, const T* d_in, T* d_out,
                               std::int64_t* d_out_ranks, std::int64_t n, const std::int64_t* h_ranks,
                               std::int64_t num_ranks, std::int64_t max_rank_error, cudaStream_t stream,
                               const approx_config& cfg) {
  KSELECT_NVTX_RANGE("kselect::device::approx_multiselect");
  return cuda::approx_multiselect(d_workspace, workspace_bytes, d_in, d_out, d_out_ranks, n, h_ranks, num_ranks,
                                  max_rank_error, stream, cfg);
}

template <class T>
cudaError_t approx_multiselect_async(void* d_workspace, std::size_t& workspace_bytes, const T* d_in, T* d_out,
                                     std::int64_t* d_out_ranks, std::int32_t* d_status, std::int64_t n,
                                     const std::int64_t* d_ranks, std::int64_t num_ranks, std::int64_t max_rank_error,
                                     cudaStream_t stream, const approx_config& cfg) {
  KSELECT_NVTX_RANGE("kselect::device::approx_multiselect_async");
  return cuda::approx_multiselect_stream_ordered(d_workspace, workspace_bytes, d_in, d_out, d_out_ranks, d_status, n,
                                                 d_ranks, num_ranks, max_rank_error, stream, cfg);
}

}  // namespace kselect::device

#define KSELECT_INSTANTIATE_APPROX_API(T)                                                                   \
  template cudaError_t kselect::device::approx_multiselect<T>(void*, std::size_t&, const T*, T*,            \
                                                              std::int64_t*, std::int64_t,                  \
                                                              const std::int64_t*, std::int64_t,            \
                                                              std::int64_t, cudaStream_t, const approx_config&); \
  template cudaError_t kselect::device::approx_multiselect_async<T>(                                        \
      void*, std::size_t&, const T*, T*, std::int64_t*, std::int32_t*, std::int64_t, const std::int64_t*,   \
      std::int64_t, std::int64_t, cudaStream_t, const approx_config&);
