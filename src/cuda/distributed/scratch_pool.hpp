// The memory pool of the distributed calls' CUDA shard: one of kselect's own per
// device, which keeps up to `scratch_pool_kept_bytes` of freed memory mapped between
// calls. A distributed call takes a few buffers (its round tables, the sample, the kept
// keys: tens of MB for 2^28 keys) and gives them back at its end; from the device's
// default pool, whose release threshold is 0, every call mapped them again after each
// synchronisation (docs/performance.md, issue 26). The caller's default pool is left as
// it is. The pool lives as long as the process.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <vector>

#include "cuda/owning_support.hpp"

namespace kselect::cuda::distributed {

/// Freed scratch the pool keeps mapped (more goes back to the device at the next
/// synchronisation): the kept keys of a 2^28-key shard's second round take about 16 MB.
inline constexpr std::uint64_t scratch_pool_kept_bytes = std::uint64_t{256} << 20;

/// The pool of `device`, made on first use (thread-safe).
inline cudaMemPool_t scratch_pool(int device) {
  static std::mutex mutex;
  static std::vector<cudaMemPool_t> pools;
  const std::lock_guard<std::mutex> lock(mutex);
  if (pools.size() <= static_cast<std::size_t>(device)) pools.resize(static_cast<std::size_t>(device) + 1, nullptr);
  cudaMemPool_t& pool = pools[static_cast<std::size_t>(device)];
  if (pool == nullptr) {
    cudaMemPoolProps props{};
    props.allocType = cudaMemAllocationTypePinned;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = device;
    cuda_backend::check(cudaMemPoolCreate(&pool, &props), "cudaMemPoolCreate (distributed scratch)");
    std::uint64_t kept = scratch_pool_kept_bytes;
    cuda_backend::check(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &kept),
                        "cudaMemPoolSetAttribute (distributed scratch)");
  }
  return pool;
}

}  // namespace kselect::cuda::distributed
