// The grid of a CUDA shard's pass: how many of its blocks fit an SM with a given dynamic
// shared memory. Asked of the runtime once per kernel, device and size, then kept for
// the process: the three runtime calls a launch otherwise makes (the kernel's attributes,
// its shared-memory limit, the occupancy) cost host time in every round, and the small
// rounds' passes take less than that (docs/performance.md, issue 26).
#pragma once

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <vector>

#include "cuda/owning_support.hpp"

namespace kselect::cuda::distributed {

/// Static shared memory of `kernel` on the current device, and the blocks of `threads`
/// threads that fit one SM with `dynamic_bytes` of dynamic shared memory on top. The
/// kernel's dynamic shared-memory limit is raised to dynamic_bytes first (never
/// lowered: a size asked before stays launchable).
struct launch_shape {
  std::size_t static_bytes = 0;
  int blocks_per_sm = 0;
};

inline launch_shape shape_of(const void* kernel, int threads, std::size_t dynamic_bytes) {
  struct entry {
    int device;
    const void* kernel;
    int threads;
    std::size_t bytes;
    launch_shape shape;
  };
  struct limit {
    int device;
    const void* kernel;
    std::size_t raised_to;
  };
  static std::mutex mutex;
  static std::vector<entry> shapes;
  static std::vector<limit> limits;
  int device = 0;
  cuda_backend::check(cudaGetDevice(&device), "cudaGetDevice");
  const std::lock_guard<std::mutex> lock(mutex);
  for (const entry& e : shapes)
    if (e.device == device && e.kernel == kernel && e.threads == threads && e.bytes == dynamic_bytes) return e.shape;
  launch_shape shape;
  cudaFuncAttributes attributes{};
  cuda_backend::check(cudaFuncGetAttributes(&attributes, kernel), "cudaFuncGetAttributes");
  shape.static_bytes = attributes.sharedSizeBytes;
  auto raised = std::find_if(limits.begin(), limits.end(),
                             [&](const limit& l) { return l.device == device && l.kernel == kernel; });
  if (raised == limits.end()) raised = limits.insert(limits.end(), limit{device, kernel, 0});
  if (dynamic_bytes > raised->raised_to) {
    const cudaError_t status = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                                    static_cast<int>(dynamic_bytes));
    if (status != cudaSuccess) {  // more than the device allows: nothing fits
      cudaGetLastError();
      return shape;
    }
    raised->raised_to = dynamic_bytes;
  }
  cuda_backend::check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&shape.blocks_per_sm, kernel, threads, dynamic_bytes),
                      "cudaOccupancyMaxActiveBlocksPerMultiprocessor");
  shapes.push_back({device, kernel, threads, dynamic_bytes, shape});
  return shape;
}

template <class Kernel>
launch_shape shape_of(Kernel* kernel, int threads, std::size_t dynamic_bytes) {
  return shape_of(reinterpret_cast<const void*>(kernel), threads, dynamic_bytes);
}

}  // namespace kselect::cuda::distributed
