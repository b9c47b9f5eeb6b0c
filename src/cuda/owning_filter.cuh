// The CUDA side of the owning API's filters (cuda_backend::filter, count_if,
// filter_inplace): counts on the device first (filters; a partition's size is n)
// so that the host vectors and the device buffers get exactly the selected size, runs the device filter of
// kselect/device_filter.cuh, gathers an arbitrary-size payload by the selected
// positions, and brings the results to the host. Instantiated per key type in
// src/cuda/instantiate/filter_*.cu.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "cuda/backend.hpp"
#include "cuda/owning_support.hpp"
#include "kselect/device_filter.cuh"

namespace kselect::cuda_backend {

/// out[j] = the payload_bytes-byte element idx[j] of `in`, for j < m, copied with the widest word that the size and the
/// pointers' alignment allow (owning_filter.cu).
void gather_payload(const void* in, const std::int64_t* idx, void* out, std::int64_t m, std::size_t payload_bytes,
                    cudaStream_t stream);

/// f(selector): the device selector of a filter condition (flags or predicate).
template <class T, class F>
cudaError_t with_selector(const kselect::detail::filter_condition<T>& cond, F&& f) {
  if (cond.flagged) return f(kselect::detail::flag_selector<std::uint8_t>{cond.flags});
  return f(kselect::detail::predicate_selector<predicate<T>>{cond.pred});
}

/// The device count of selected keys (flags or predicate), waited for.
template <class T>
std::int64_t count_selected(const T* d_values, std::int64_t n, const kselect::detail::filter_condition<T>& cond,
                            cudaStream_t stream) {
  stream_buffer count(sizeof(std::int64_t), stream);
  auto* d_count = static_cast<std::int64_t*>(count.get());
  std::size_t bytes = 0;
  auto run = [&](void* ws) {
    return with_selector(cond, [&](auto select) {
      return kselect::detail::run_count(ws, bytes, d_values, n, select, d_count, stream);
    });
  };
  check(run(nullptr), "count workspace query");
  stream_buffer workspace(bytes, stream);
  check(run(workspace.get()), "count");
  std::int64_t h_count = 0;
  check(cudaMemcpyAsync(&h_count, d_count, sizeof h_count, cudaMemcpyDeviceToHost, stream), "copying count");
  check(cudaStreamSynchronize(stream), "count");
  return h_count;
}

template <class T>
std::int64_t filter(const T* d_values, std::int64_t n, const kselect::detail::filter_condition<T>& cond,
                    const void* d_payload, std::size_t payload_bytes, bool partition, bool with_indices,
                    kselect::detail::filter_target& target, const options& opt) {
  auto stream = static_cast<cudaStream_t>(opt.stream);
  // A partition writes all n; a filter first counts, so that the buffers are exact.
  const std::int64_t m = partition ? n : count_selected(d_values, n, cond, stream);
  const kselect::detail::filter_buffers host = target.allocate(m);
  if (m == 0) return 0;
  const auto um = static_cast<std::size_t>(m);
  const bool need_indices = with_indices || payload_bytes > 0;
  stream_buffer keys(um * sizeof(T), stream);
  stream_buffer indices(need_indices ? um * sizeof(std::int64_t) : 0, stream);
  stream_buffer num(sizeof(std::int64_t), stream);

  kselect::detail::filter_outputs<T, T, std::int64_t> out;
  out.keys = static_cast<T*>(keys.get());
  out.indices = static_cast<std::int64_t*>(indices.get());
  out.num_selected = static_cast<std::int64_t*>(num.get());
  out.partition = partition;
  std::size_t bytes = 0;
  const kselect::detail::filter_request req{.flags = cond.flags, .flagged = cond.flagged};
  auto run = [&](void* ws) {
    return with_selector(cond, [&](auto select) {
      return kselect::detail::run_filter(ws, bytes, d_values, n, select, out, req, stream);
    });
  };
  check(run(nullptr), "filter workspace query");
  {
    stream_buffer workspace(bytes, stream);
    check(run(workspace.get()), "filter");
  }
  stream_buffer payload(payload_bytes > 0 ? um * payload_bytes : 0, stream);
  if (payload_bytes > 0)
    gather_payload(d_payload, out.indices, payload.get(), m, payload_bytes, stream);
  check(cudaMemcpyAsync(host.values, keys.get(), um * sizeof(T), cudaMemcpyDeviceToHost, stream),
                "copying the filtered keys");
  if (with_indices)
    check(cudaMemcpyAsync(host.indices, indices.get(), um * sizeof(std::int64_t), cudaMemcpyDeviceToHost,
                                  stream),
                  "copying the positions");
  if (payload_bytes > 0)
    check(cudaMemcpyAsync(host.payload, payload.get(), um * payload_bytes, cudaMemcpyDeviceToHost, stream),
                  "copying the payload");
  std::int64_t selected = m;
  if (partition)
    check(cudaMemcpyAsync(&selected, out.num_selected, sizeof selected, cudaMemcpyDeviceToHost, stream),
                  "copying the count");
  check(cudaStreamSynchronize(stream), "filter");
  return selected;
}

template <class T>
std::int64_t count_if(const T* d_values, std::int64_t n, const predicate<T>& pred, const options& opt) {
  return count_selected(d_values, n, kselect::detail::filter_condition<T>{pred},
                                       static_cast<cudaStream_t>(opt.stream));
}

template <class T>
std::int64_t filter_inplace(T* d_values, std::int64_t n, const predicate<T>& pred, const options& opt) {
  auto stream = static_cast<cudaStream_t>(opt.stream);
  stream_buffer num(sizeof(std::int64_t), stream);
  auto* d_num = static_cast<std::int64_t*>(num.get());
  std::size_t bytes = 0;
  check(device::filter_if_inplace(nullptr, bytes, d_values, d_num, n, pred, stream),
                "filter workspace query");
  stream_buffer workspace(bytes, stream);
  check(device::filter_if_inplace(workspace.get(), bytes, d_values, d_num, n, pred, stream), "filter");
  std::int64_t h_num = 0;
  check(cudaMemcpyAsync(&h_num, d_num, sizeof h_num, cudaMemcpyDeviceToHost, stream), "copying count");
  check(cudaStreamSynchronize(stream), "filter");
  return h_num;
}

}  // namespace kselect::cuda_backend

#define KSELECT_INSTANTIATE_CUDA_FILTER(T)                                                                      \
  template std::int64_t kselect::cuda_backend::filter<T>(const T*, std::int64_t,                                \
                                                         const kselect::detail::filter_condition<T>&,           \
                                                         const void*, std::size_t, bool, bool,                  \
                                                         kselect::detail::filter_target&, const options&);      \
  template std::int64_t kselect::cuda_backend::count_if<T>(const T*, std::int64_t, const predicate<T>&,         \
                                                           const options&);                                     \
  template std::int64_t kselect::cuda_backend::filter_inplace<T>(T*, std::int64_t, const predicate<T>&,         \
                                                                 const options&);
