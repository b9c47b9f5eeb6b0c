// The tuning policy of the device a call runs on (tuning.hpp's policy_for its
// compute capability), as CUB's dispatch layers pick their policy by PTX version.
#pragma once

#include <cuda_runtime_api.h>

#include <atomic>

#include "cuda/tuning.hpp"

namespace kselect::cuda {

/// The current device's policy. Its compute capability is queried once per
/// device (two attribute reads, no synchronization) and cached for later calls.
inline cudaError_t current_policy(const tuning::policy*& policy) {
  int device = 0;
  cudaError_t status = cudaGetDevice(&device);
  if (status != cudaSuccess) return status;
  constexpr int cached_devices = 64;  // more devices than this are asked every time
  static std::atomic<int> cached[cached_devices];  // 0: not asked yet
  const bool cacheable = device >= 0 && device < cached_devices;
  int capability = cacheable ? cached[device].load(std::memory_order_relaxed) : 0;
  if (capability == 0) {
    int major = 0, minor = 0;
    status = cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device);
    if (status == cudaSuccess) status = cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device);
    if (status != cudaSuccess) return status;
    capability = 10 * major + minor;
    if (cacheable) cached[device].store(capability, std::memory_order_relaxed);
  }
  policy = &tuning::policy_for(capability);
  return cudaSuccess;
}

}  // namespace kselect::cuda
