// Definition of the device API's rank-range entry (include/kselect/device.hpp:
// topk, topk_pairs, rank_range forward to it) for one key type; each
// instantiate/range_*.cu includes this for its type so the build parallelises.
#pragma once

#include "cuda/dispatch/range_dispatch.cuh"
#include "kselect/device.hpp"

namespace kselect::device::detail {

template <class T>
cudaError_t range_select(void* d_workspace, std::size_t& workspace_bytes, const T* d_in, std::int64_t n,
                         const range_request& req, T* d_keys_out, cudaStream_t stream, const topk_config& cfg) {
  return cuda::range_select(d_workspace, workspace_bytes, d_in, n, req, d_keys_out, stream, cfg);
}

}  // namespace kselect::device::detail

#define KSELECT_INSTANTIATE_RANGE_API(T)                                                              \
  template cudaError_t kselect::device::detail::range_select<T>(                                      \
      void*, std::size_t&, const T*, std::int64_t, const kselect::device::detail::range_request&, T*, \
      cudaStream_t, const kselect::device::topk_config&);
