// The CUDA side of the segmented owning API (kselect/segmented.hpp): uploads host
// offsets and ks, runs the device API (kselect/device_segmented.hpp) in pieces of
// at most max_segmented_ranks columns, and brings the (m, r) answers to the host.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <vector>

#include "cuda/backend.hpp"
#include "cuda/owning_support.hpp"
#include "kselect/device_segmented.hpp"

namespace kselect::cuda_backend {
namespace {

/// The layout on the device, uploading host offsets into `storage`.
device::segment_layout layout_of(const segmented_shape& shape, stream_buffer& storage, cudaStream_t stream) {
  if (!shape.offsets) return device::segment_layout::rows(shape.m, shape.row_length);
  if (shape.offsets_on_device) return device::segment_layout::ragged(shape.offsets, shape.m, shape.n);
  const std::size_t bytes = static_cast<std::size_t>(shape.m + 1) * sizeof(std::int64_t);
  storage = stream_buffer(bytes, stream);
  check(cudaMemcpyAsync(storage.get(), shape.offsets, bytes, cudaMemcpyHostToDevice, stream), "copying offsets");
  return device::segment_layout::ragged(static_cast<const std::int64_t*>(storage.get()), shape.m, shape.n);
}

/// Runs `call(workspace, bytes, d_out, first, count)` for column pieces of at most
/// max_segmented_ranks and copies each (m, count) piece into the (m, columns) host matrix.
template <class R, class Call>
void by_pieces(std::int64_t m, std::int64_t columns, R* h_out, cudaStream_t stream, Call&& call) {
  const std::int64_t piece = std::min<std::int64_t>(columns, device::max_segmented_ranks);
  std::size_t bytes = 0;
  check(call(nullptr, bytes, nullptr, 0, piece), "workspace query");
  stream_buffer workspace(bytes, stream);
  stream_buffer out(static_cast<std::size_t>(m * piece) * sizeof(R), stream);
  for (std::int64_t first = 0; first < columns; first += piece) {
    const std::int64_t count = std::min(piece, columns - first);
    std::size_t have = bytes;
    check(call(workspace.get(), have, static_cast<R*>(out.get()), first, count), "segmented call");
    check(cudaMemcpy2DAsync(h_out + first, columns * sizeof(R), out.get(), count * sizeof(R), count * sizeof(R),
                            static_cast<std::size_t>(m), cudaMemcpyDeviceToHost, stream),
          "copying results");
  }
  check(cudaStreamSynchronize(stream), "segmented call");
}

}  // namespace

template <class T>
void segmented_select(const T* d_values, const segmented_shape& shape, std::int64_t k, const std::int64_t* h_ks,
                      T* h_out, const options& opt) {
  auto stream = static_cast<cudaStream_t>(opt.stream);
  stream_buffer offsets(0, stream), ks(0, stream);
  const device::segment_layout segs = layout_of(shape, offsets, stream);
  if (h_ks) {
    const std::size_t bytes = static_cast<std::size_t>(shape.m) * sizeof(std::int64_t);
    ks = stream_buffer(bytes, stream);
    check(cudaMemcpyAsync(ks.get(), h_ks, bytes, cudaMemcpyHostToDevice, stream), "copying ks");
  }
  const auto* d_ks = static_cast<const std::int64_t*>(ks.get());
  by_pieces<T>(shape.m, 1, h_out, stream, [&](void* w, std::size_t& b, T* out, std::int64_t, std::int64_t) {
    return d_ks ? device::segmented_select_each<T>(w, b, d_values, out, segs, d_ks, stream)
                : device::segmented_select<T>(w, b, d_values, out, segs, k, stream);
  });
}

template <class T>
void segmented_multiselect(const T* d_values, const segmented_shape& shape, const std::int64_t* ranks,
                           std::int64_t num_ranks, T* h_out, const options& opt) {
  auto stream = static_cast<cudaStream_t>(opt.stream);
  stream_buffer offsets(0, stream);
  const device::segment_layout segs = layout_of(shape, offsets, stream);
  by_pieces<T>(shape.m, num_ranks, h_out, stream,
               [&](void* w, std::size_t& b, T* out, std::int64_t first, std::int64_t count) {
                 return device::segmented_multiselect<T>(w, b, d_values, out, segs, ranks + first,
                                                         static_cast<int>(count), stream);
               });
}

template <class T>
void segmented_quantile(const T* d_values, const segmented_shape& shape, const double* qs, std::int64_t num_qs,
                        quantile_method method, bool ignore_nan, quantile_value_t<T>* h_out, const options& opt) {
  using R = quantile_value_t<T>;
  auto stream = static_cast<cudaStream_t>(opt.stream);
  stream_buffer offsets(0, stream);
  const device::segment_layout segs = layout_of(shape, offsets, stream);
  by_pieces<R>(shape.m, num_qs, h_out, stream,
               [&](void* w, std::size_t& b, R* out, std::int64_t first, std::int64_t count) {
                 return device::segmented_quantile<T>(w, b, d_values, out, segs, qs + first, static_cast<int>(count),
                                                      method, ignore_nan, stream);
               });
}

template <class T>
void segmented_median(const T* d_values, const segmented_shape& shape, quantile_value_t<T>* h_out,
                      const options& opt) {
  auto stream = static_cast<cudaStream_t>(opt.stream);
  stream_buffer offsets(0, stream);
  const device::segment_layout segs = layout_of(shape, offsets, stream);
  by_pieces<quantile_value_t<T>>(
      shape.m, 1, h_out, stream, [&](void* w, std::size_t& b, quantile_value_t<T>* out, std::int64_t, std::int64_t) {
        return device::segmented_median<T>(w, b, d_values, out, segs, false, stream);
      });
}

template <class T>
void segmented_topk(const T* d_values, const segmented_shape& shape, std::int64_t k, bool largest, bool sorted,
                    T* h_values, std::int64_t* h_indices, const options& opt) {
  auto stream = static_cast<cudaStream_t>(opt.stream);
  if (k == 0) return;
  stream_buffer offsets(0, stream);
  const device::segment_layout segs = layout_of(shape, offsets, stream);
  device::topk_config cfg;
  cfg.largest = largest;
  cfg.sorted = sorted;
  cfg.deterministic = true;
  const std::size_t cells = static_cast<std::size_t>(shape.m * k);
  std::int64_t* no_indices = nullptr;
  std::size_t bytes = 0;
  check(device::segmented_topk<T>(nullptr, bytes, d_values, nullptr, no_indices, segs, k, stream, cfg),
        "workspace query");
  stream_buffer workspace(bytes, stream);
  stream_buffer keys(cells * sizeof(T), stream);
  stream_buffer indices(h_indices ? cells * sizeof(std::int64_t) : 0, stream);
  check(device::segmented_topk<T>(workspace.get(), bytes, d_values, static_cast<T*>(keys.get()),
                                  static_cast<std::int64_t*>(indices.get()), segs, k, stream, cfg),
        "segmented top-k");
  check(cudaMemcpyAsync(h_values, keys.get(), cells * sizeof(T), cudaMemcpyDeviceToHost, stream), "copying keys");
  if (h_indices)
    check(cudaMemcpyAsync(h_indices, indices.get(), cells * sizeof(std::int64_t), cudaMemcpyDeviceToHost, stream),
          "copying indices");
  check(cudaStreamSynchronize(stream), "segmented top-k");
}

#define KSELECT_INSTANTIATE_SEGMENTED_BACKEND(T)                                                                  \
  template void segmented_select<T>(const T*, const segmented_shape&, std::int64_t, const std::int64_t*, T*,     \
                                    const options&);                                                            \
  template void segmented_multiselect<T>(const T*, const segmented_shape&, const std::int64_t*, std::int64_t, T*, \
                                         const options&);                                                       \
  template void segmented_quantile<T>(const T*, const segmented_shape&, const double*, std::int64_t,              \
                                      quantile_method, bool, quantile_value_t<T>*, const options&);             \
  template void segmented_median<T>(const T*, const segmented_shape&, quantile_value_t<T>*, const options&);    \
  template void segmented_topk<T>(const T*, const segmented_shape&, std::int64_t, bool, bool, T*, std::int64_t*, \
                                  const options&);
KSELECT_FOR_EACH_SEGMENTED_KEY_TYPE(KSELECT_INSTANTIATE_SEGMENTED_BACKEND)

}  // namespace kselect::cuda_backend
