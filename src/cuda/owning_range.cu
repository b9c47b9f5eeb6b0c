// The CUDA side of the owning API for top-k and rank ranges
// (cuda_backend::range_select): allocates the workspace and the output buffers
// (stream-ordered), runs kselect::detail::range_select (what device::topk and
// rank_range call), brings keys and indices to the host and waits for them.
#include <cuda_runtime_api.h>

#include <string>

#include "cuda/backend.hpp"
#include "cuda/owning_support.hpp"
#include "kselect/device.hpp"

namespace kselect::cuda_backend {

template <class T>
void range_select(const T* d_values, std::int64_t n, std::int64_t lo, std::int64_t hi, bool descending,
                  bool sorted, bool deterministic, T* h_values_out, std::int64_t* h_indices_out,
                  const options& opt) {
  auto stream = static_cast<cudaStream_t>(opt.stream);
  const auto m = static_cast<std::size_t>(hi - lo);
  kselect::detail::range_request req;
  req.lo = lo;
  req.hi = hi;
  req.descending = descending;
  req.index_bytes = h_indices_out ? static_cast<int>(sizeof(std::int64_t)) : 0;
  device::topk_config cfg;
  cfg.largest = descending;
  cfg.sorted = sorted;
  cfg.deterministic = deterministic;

  // Phase 1: the workspace size. The request must already say whether indices are
  // wanted (the size may depend on it); any non-null pointer does for the query.
  std::size_t bytes = 0;
  stream_buffer indices(h_indices_out ? m * sizeof(std::int64_t) : 0, stream);
  req.indices_out = indices.get();
  check(kselect::detail::range_select<T>(nullptr, bytes, d_values, nullptr, n, req, stream, cfg), "workspace query");
  stream_buffer workspace(bytes, stream);
  stream_buffer keys(m * sizeof(T), stream);
  // Phase 2: the selection, then the copies back on the same stream.
  check(kselect::detail::range_select<T>(workspace.get(), bytes, d_values, static_cast<T*>(keys.get()), n, req,
                                         stream, cfg),
        "range_select");
  check(cudaMemcpyAsync(h_values_out, keys.get(), m * sizeof(T), cudaMemcpyDeviceToHost, stream),
        "copying results");
  if (h_indices_out)
    check(cudaMemcpyAsync(h_indices_out, indices.get(), m * sizeof(std::int64_t), cudaMemcpyDeviceToHost,
                          stream),
          "copying indices");
  check(cudaStreamSynchronize(stream), "range_select");
}

#define KSELECT_INSTANTIATE_RANGE(T)                                                                    \
  template void range_select<T>(const T*, std::int64_t, std::int64_t, std::int64_t, bool, bool, bool, T*, \
                                std::int64_t*, const options&);
KSELECT_FOR_EACH_KEY_TYPE(KSELECT_INSTANTIATE_RANGE)
#undef KSELECT_INSTANTIATE_RANGE

}  // namespace kselect::cuda_backend
