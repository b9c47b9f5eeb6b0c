// The CUDA side of the owning API: allocates the workspace (stream-ordered),
// runs the device API and brings the answers to the host.
#include <cuda_runtime_api.h>

#include <string>
#include <vector>

#include "cuda/backend.hpp"
#include "cuda/common.cuh"
#include "cuda/owning_support.hpp"
#include "kselect/detail/workspace_carver.hpp"
#include "kselect/device.hpp"

namespace kselect::cuda_backend {

bool available() noexcept {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    cudaGetLastError();
    return false;
  }
  return count > 0;
}

bool is_device_pointer(const void* p) noexcept {
  return p != nullptr && available() && cuda::is_device_accessible(p);
}

template <class T>
void multiselect(const T* d_values, std::int64_t n, const std::int64_t* ranks, std::int64_t num_ranks,
                 T* h_out, const options& opt) {
  auto stream = static_cast<cudaStream_t>(opt.stream);
  device::select_config cfg;
  cfg.algo = opt.algo;
  std::size_t bytes = 0;
  check(device::multiselect<T>(nullptr, bytes, d_values, nullptr, n, ranks, num_ranks, stream, cfg),
        "workspace query");
  stream_buffer workspace(bytes, stream);
  stream_buffer out(num_ranks * sizeof(T), stream);
  check(device::multiselect<T>(workspace.get(), bytes, d_values, static_cast<T*>(out.get()), n, ranks, num_ranks,
                               stream, cfg),
        "multiselect");
  check(cudaMemcpyAsync(h_out, out.get(), num_ranks * sizeof(T), cudaMemcpyDeviceToHost, stream),
        "copying results");
  check(cudaStreamSynchronize(stream), "multiselect");
}

template <class T>
std::int64_t count_nan(const T* d_values, std::int64_t n, const options& opt) {
  auto stream = static_cast<cudaStream_t>(opt.stream);
  std::size_t bytes = 0;
  check(device::count_nan<T>(nullptr, bytes, d_values, nullptr, n, stream), "workspace query");
  // One allocation: the count first, CUB's temporaries after it.
  kselect::detail::workspace_carver carve;
  const std::size_t count_at = carve.take(sizeof(std::int64_t)), temp_at = carve.take(bytes);
  stream_buffer workspace(carve.end, stream);
  auto* base = static_cast<char*>(workspace.get());
  auto* d_count = reinterpret_cast<std::int64_t*>(base + count_at);
  check(device::count_nan<T>(base + temp_at, bytes, d_values, d_count, n, stream), "count_nan");
  std::int64_t count = 0;
  check(cudaMemcpyAsync(&count, d_count, sizeof count, cudaMemcpyDeviceToHost, stream), "copying count");
  check(cudaStreamSynchronize(stream), "count_nan");
  return count;
}

#define KSELECT_INSTANTIATE_BACKEND(T)                                                              \
  template void multiselect<T>(const T*, std::int64_t, const std::int64_t*, std::int64_t, T*,     \
                               const options&);                                                   \
  template std::int64_t count_nan<T>(const T*, std::int64_t, const options&);
KSELECT_FOR_EACH_KEY_TYPE(KSELECT_INSTANTIATE_BACKEND)

}  // namespace kselect::cuda_backend
