// CUDA helpers shared by the compiled CUDA backend (src/cuda) and the header-only
// device filters (kselect/device_filter.cuh): status propagation and where a
// pointer lives.
#pragma once

#include <cuda_runtime_api.h>

namespace kselect::detail {

/// Where a pointer lives: pageable host memory (or memory unknown to CUDA),
/// page-locked host memory (cudaHostAlloc, cudaHostRegister: the copy engine reads it
/// directly), device memory, managed memory.
enum class memory_kind { host, pinned_host, device, managed };

/// cudaPointerGetAttributes, with unknown pointers (plain host memory) as host.
inline memory_kind memory_kind_of(const void* p) {
  cudaPointerAttributes attr{};
  if (p == nullptr || cudaPointerGetAttributes(&attr, p) != cudaSuccess) {
    (void)cudaGetLastError();  // an unknown pointer leaves an error behind; clear it
    return memory_kind::host;
  }
  if (attr.type == cudaMemoryTypeDevice) return memory_kind::device;
  if (attr.type == cudaMemoryTypeManaged) return memory_kind::managed;
  if (attr.type == cudaMemoryTypeHost) return memory_kind::pinned_host;
  return memory_kind::host;
}

/// Kernels can read p (device or managed memory; pinned host memory is taken as
/// host memory, as the device API's checks always have).
inline bool is_device_accessible(const void* p) {
  const memory_kind k = memory_kind_of(p);
  return k == memory_kind::device || k == memory_kind::managed;
}

}  // namespace kselect::detail

/// Evaluates a cudaError_t expression and returns it from the enclosing function on failure.
#define KSELECT_CUDA_TRY(expr)                                  \
  do {                                                          \
    const cudaError_t kselect_status_ = (expr);                 \
    if (kselect_status_ != cudaSuccess) return kselect_status_; \
  } while (0)

/// Checks the launch just made (configuration errors surface here) as KSELECT_CUDA_TRY.
#define KSELECT_LAUNCH_CHECK() KSELECT_CUDA_TRY(cudaPeekAtLastError())
