// Grid size of the streaming kernels: one full wave of resident blocks on the
// current device, so that no block waits for a second wave (the kernels loop
// over their tiles, so any grid covers any input).
#pragma once

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "cuda/common.cuh"
#include "cuda/tuning.hpp"

namespace kselect::cuda {

/// Blocks of stream_threads threads (and dynamic_smem bytes of dynamic shared
/// memory each) that are resident at once on the whole device.
template <class Kernel>
cudaError_t full_wave_blocks(Kernel kernel, unsigned& blocks, std::size_t dynamic_smem = 0) {
  int device = 0, sms = 1, per_sm = 0;
  KSELECT_CUDA_TRY(cudaGetDevice(&device));
  KSELECT_CUDA_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  KSELECT_CUDA_TRY(
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, tuning::stream_threads, dynamic_smem));
  blocks = static_cast<unsigned>(sms * std::max(per_sm, 1));
  return cudaSuccess;
}

/// At least `blocks`, and enough that no block counts 2^31 of n keys or more (for
/// kernels whose per-block shared counters are 32-bit).
inline unsigned blocks_for_32bit_counters(unsigned blocks, std::int64_t n) {
  return static_cast<unsigned>(std::max<std::int64_t>(blocks, (n >> 31) + 1));
}

}  // namespace kselect::cuda
