// The CUDA side of the owning API for approximate multiselection
// (cuda_backend::approx_multiselect): allocates the workspace and the outputs
// (stream-ordered), runs device::approx_multiselect with its default
// configuration (1024 buckets, the default seed: the CPU backend's), brings
// values and ranks to the host and waits for them.
#include <cuda_runtime_api.h>

#include <string>

#include "cuda/backend.hpp"
#include "cuda/owning_support.hpp"
#include "kselect/device.hpp"

namespace kselect::cuda_backend {

template <class T>
void approx_multiselect(const T* d_values, std::int64_t n, const std::int64_t* ranks, std::int64_t num_ranks,
                        std::int64_t max_rank_error, T* h_out, std::int64_t* h_out_ranks, const options& opt) {
  auto stream = static_cast<cudaStream_t>(opt.stream);
  const device::approx_config cfg;
  std::size_t bytes = 0;
  check(device::approx_multiselect<T>(nullptr, bytes, d_values, nullptr, nullptr, n, ranks, num_ranks,
                                      max_rank_error, stream, cfg),
        "workspace query");
  if (num_ranks == 0) return;
  stream_buffer workspace(bytes, stream);
  stream_buffer out(static_cast<std::size_t>(num_ranks) * sizeof(T), stream);
  stream_buffer out_ranks(static_cast<std::size_t>(num_ranks) * sizeof(std::int64_t), stream);
  check(device::approx_multiselect<T>(workspace.get(), bytes, d_values, static_cast<T*>(out.get()),
                                      static_cast<std::int64_t*>(out_ranks.get()), n, ranks, num_ranks,
                                      max_rank_error, stream, cfg),
        "approx_multiselect");
  check(cudaMemcpyAsync(h_out, out.get(), static_cast<std::size_t>(num_ranks) * sizeof(T), cudaMemcpyDeviceToHost,
                        stream),
        "copying results");
  check(cudaMemcpyAsync(h_out_ranks, out_ranks.get(), static_cast<std::size_t>(num_ranks) * sizeof(std::int64_t),
                        cudaMemcpyDeviceToHost, stream),
        "copying ranks");
  check(cudaStreamSynchronize(stream), "approx_multiselect");
}

#define KSELECT_INSTANTIATE_APPROX_BACKEND(T)                                                                  \
  template void approx_multiselect<T>(const T*, std::int64_t, const std::int64_t*, std::int64_t, std::int64_t, \
                                      T*, std::int64_t*, const options&);
KSELECT_FOR_EACH_KEY_TYPE(KSELECT_INSTANTIATE_APPROX_BACKEND)
#undef KSELECT_INSTANTIATE_APPROX_BACKEND

}  // namespace kselect::cuda_backend
