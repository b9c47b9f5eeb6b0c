// Definition of the device API's rank-range entry (include/kselect/device.hpp:
// topk, topk_pairs, rank_range forward to it) and of its test hook
// (cuda/range_hooks.hpp) for one key type; each instantiate/range_*.cu includes this
// for its type so the build parallelises.
#pragma once

#include "cuda/dispatch/range_dispatch.cuh"
#include "cuda/range_hooks.hpp"
#include "kselect/device.hpp"

template <class T>
cudaError_t kselect::detail::range_select(void* d_workspace, std::size_t& workspace_bytes, const T* d_in,
                                          T* d_keys_out, std::int64_t n, const range_request& req,
                                          cudaStream_t stream, const device::topk_config& cfg) {
  return cuda::range_select(d_workspace, workspace_bytes, d_in, d_keys_out, n, req,
                            cuda::range_order_method::automatic, stream, cfg);
}

template <class T>
cudaError_t kselect::cuda::range_select_ordered(void* d_workspace, std::size_t& workspace_bytes, const T* d_in,
                                                T* d_keys_out, std::int64_t n,
                                                const kselect::detail::range_request& req, range_order_method order,
                                                cudaStream_t stream, const device::topk_config& cfg) {
  return range_select(d_workspace, workspace_bytes, d_in, d_keys_out, n, req, order, stream, cfg);
}

#define KSELECT_INSTANTIATE_RANGE_API(T)                                                                       \
  template cudaError_t kselect::detail::range_select<T>(void*, std::size_t&, const T*, T*, std::int64_t,       \
                                                        const kselect::detail::range_request&, cudaStream_t,   \
                                                        const kselect::device::topk_config&);                  \
  template cudaError_t kselect::cuda::range_select_ordered<T>(                                                 \
      void*, std::size_t&, const T*, T*, std::int64_t, const kselect::detail::range_request&,                  \
      kselect::cuda::range_order_method, cudaStream_t, const kselect::device::topk_config&);
