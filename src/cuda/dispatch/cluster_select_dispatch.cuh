// The launch of cluster_select_kernel.cuh (the stream-ordered selection of small
// inputs): how many blocks answer each rank, and the cluster launch itself.
//
// More blocks per rank split each read of the input between more SMs, so a rank
// takes as many (up to cluster_select_max_blocks) as leave every block of every
// rank's cluster an SM of its own, all at once: more would queue clusters behind
// one another, or put two blocks on one SM's bandwidth.
#pragma once

#include <cuda_runtime_api.h>

#include <atomic>
#include <cstdint>
#include <mutex>

#include "cuda/common.cuh"
#include "cuda/kernels/cluster_select_kernel.cuh"
#include "core/descent.hpp"

namespace kselect::cuda {

/// What cluster_select_kernel<T> may use on a device.
struct cluster_select_limits {
  int sms = 1;  ///< streaming multiprocessors
  /// Launched with a cluster dimension: the device has clusters and the kernel
  /// was compiled for them (PTX version 9.0 or later).
  bool clusters = false;
  /// resident[i]: clusters of 2^i blocks (i = 1, 2, 3) that the device runs at
  /// once (cudaOccupancyMaxActiveClusters; 0: none fits). Index 0 is unused:
  /// one block per rank always fits.
  int resident[4] = {0, 0, 0, 0};

  static constexpr int log2_blocks(int blocks) { return blocks >= 8 ? 3 : blocks >= 4 ? 2 : blocks >= 2 ? 1 : 0; }
  /// A launch with `blocks` (1, 2, 4 or 8) blocks per rank can run.
  bool fits(int blocks) const { return blocks == 1 || (clusters && resident[log2_blocks(blocks)] > 0); }
};

/// The current device's limits for cluster_select_kernel<T>: queried once per
/// device (attributes and occupancy queries; no synchronization) and cached.
template <class T>
cudaError_t cluster_select_device_limits(cluster_select_limits& limits) {
  int device = 0;
  KSELECT_CUDA_TRY(cudaGetDevice(&device));
  constexpr int cached_devices = 64;  // more devices than this are asked every time
  static std::atomic<bool> ready[cached_devices];
  static cluster_select_limits cached[cached_devices];  // written once, before its ready flag
  static std::mutex writing;
  const bool cacheable = device >= 0 && device < cached_devices;
  if (cacheable && ready[device].load(std::memory_order_acquire)) {
    limits = cached[device];
    return cudaSuccess;
  }
  cluster_select_limits l;
  KSELECT_CUDA_TRY(cudaDeviceGetAttribute(&l.sms, cudaDevAttrMultiProcessorCount, device));
  int cluster_launch = 0;
  KSELECT_CUDA_TRY(cudaDeviceGetAttribute(&cluster_launch, cudaDevAttrClusterLaunch, device));
  cudaFuncAttributes kernel{};
  KSELECT_CUDA_TRY(cudaFuncGetAttributes(&kernel, cluster_select_kernel<T>));
  // The kernel's storage is dynamic shared memory (past the 48 KiB default),
  // which the occupancy queries below must be allowed too.
  KSELECT_CUDA_TRY(cudaFuncSetAttribute(cluster_select_kernel<T>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                        static_cast<int>(cluster_select_smem_bytes<T>)));
  l.clusters = cluster_launch != 0 && kernel.ptxVersion >= 90;
  for (int blocks = 2; l.clusters && blocks <= cluster_select_max_blocks; blocks *= 2) {
    cudaLaunchAttribute attr{};
    attr.id = cudaLaunchAttributeClusterDimension;
    attr.val.clusterDim.x = static_cast<unsigned>(blocks);
    attr.val.clusterDim.y = 1;
    attr.val.clusterDim.z = 1;
    cudaLaunchConfig_t config{};
    config.gridDim = dim3(static_cast<unsigned>(blocks));
    config.blockDim = dim3(bin_finish_threads);
    config.dynamicSmemBytes = cluster_select_smem_bytes<T>;
    config.attrs = &attr;
    config.numAttrs = 1;
    int resident = 0;
    if (cudaOccupancyMaxActiveClusters(&resident, cluster_select_kernel<T>, &config) != cudaSuccess) {
      (void)cudaGetLastError();  // a cluster size the device refuses: none fits
      resident = 0;
    }
    l.resident[cluster_select_limits::log2_blocks(blocks)] = resident;
  }
  if (cacheable) {
    const std::lock_guard<std::mutex> lock(writing);
    if (!ready[device].load(std::memory_order_relaxed)) {
      cached[device] = l;
      ready[device].store(true, std::memory_order_release);
    }
  }
  limits = l;
  return cudaSuccess;
}

/// Keys a block of a cluster reads at least: below, the cluster's barriers and
/// remote reads cost more than the split read saves (measured on the H200 at
/// 2^10 keys: docs/performance.md, "Issue 24, the last targets").
inline constexpr std::int64_t cluster_select_min_block_keys = 4096;

/// Blocks per rank: the most (1, 2, 4 or 8) with which the clusters of all
/// num_ranks ranks run at once, each of their blocks on an SM of its own, and
/// each block reads at least cluster_select_min_block_keys of the n keys.
inline int cluster_select_blocks_per_rank(std::int64_t n, std::int64_t num_ranks,
                                          const cluster_select_limits& limits) {
  for (int blocks = cluster_select_max_blocks; blocks > 1; blocks /= 2)
    if (n >= blocks * cluster_select_min_block_keys && limits.fits(blocks) && num_ranks * blocks <= limits.sms &&
        num_ranks <= limits.resident[cluster_select_limits::log2_blocks(blocks)])
      return blocks;
  return 1;
}

/// Queues the selection of ranks[0, num_ranks) (device; null: the one rank
/// single_rank) of in[0, n) (n <= core::small_select_max) into out[0, num_ranks),
/// a cluster of blocks_per_rank blocks per rank (0: cluster_select_blocks_per_rank's
/// choice; else 1, 2, 4 or 8 where the device's limits fit it). *status
/// (may be null) becomes device::async_invalid_ranks where *ranks_valid (may be
/// null) is 0, else async_answered. No synchronization, no allocation: capturable
/// in a CUDA graph.
template <class T>
cudaError_t queue_cluster_select(const T* in, std::int64_t n, const std::int64_t* ranks, std::int64_t single_rank,
                                 std::int64_t num_ranks, const std::int32_t* ranks_valid, std::int32_t* status, T* out,
                                 cudaStream_t stream, int blocks_per_rank = 0) {
  if (n > core::small_select_max) return reject_argument("kselect: queue_cluster_select needs n <= small_select_max");
  if (num_ranks <= 0) return cudaSuccess;
  cluster_select_limits limits;
  KSELECT_CUDA_TRY(cluster_select_device_limits<T>(limits));
  if (blocks_per_rank == 0) blocks_per_rank = cluster_select_blocks_per_rank(n, num_ranks, limits);
  if (blocks_per_rank < 1 || blocks_per_rank > cluster_select_max_blocks ||
      (blocks_per_rank & (blocks_per_rank - 1)) != 0 || !limits.fits(blocks_per_rank))
    return reject_argument("kselect: blocks_per_rank must be 1, 2, 4 or 8, and fit the device");
  cudaLaunchAttribute attrs[2]{};
  attrs[0].id = cudaLaunchAttributeClusterDimension;
  attrs[0].val.clusterDim.x = static_cast<unsigned>(blocks_per_rank);
  attrs[0].val.clusterDim.y = 1;
  attrs[0].val.clusterDim.z = 1;
  // A cluster's blocks on distinct SMs where they could share one: each block
  // is there to bring its own SM's bandwidth.
  attrs[1].id = cudaLaunchAttributeClusterSchedulingPolicyPreference;
  attrs[1].val.clusterSchedulingPolicyPreference = cudaClusterSchedulingPolicySpread;
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(static_cast<unsigned>(num_ranks * blocks_per_rank));
  config.blockDim = dim3(bin_finish_threads);
  config.dynamicSmemBytes = cluster_select_smem_bytes<T>;
  config.stream = stream;
  config.attrs = attrs;
  config.numAttrs = limits.clusters ? 2 : 0;
  // Set at every launch, next to it: a translation unit that instantiates the
  // kernel may have a host stub of its own (set once elsewhere, the launches from
  // the device API failed in a test binary that instantiates the kernel too), and
  // the attribute belongs to the stub that is launched.
  KSELECT_CUDA_TRY(cudaFuncSetAttribute(cluster_select_kernel<T>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                        static_cast<int>(cluster_select_smem_bytes<T>)));
  KSELECT_CUDA_TRY(cudaLaunchKernelEx(&config, cluster_select_kernel<T>, in, n, ranks, single_rank, ranks_valid,
                                      status, out));
  return cudaSuccess;
}

}  // namespace kselect::cuda
