// Grid size of the streaming kernels: one full wave of resident blocks on the
// current device, so that no block waits for a second wave (the kernels loop
// over their tiles, so any grid covers any input).
#pragma once

#include <cuda_runtime_api.h>

#include <algorithm>

#include "cuda/common.cuh"
#include "cuda/tuning.hpp"

namespace kselect::cuda {

template <class Kernel>
cudaError_t full_wave_blocks(Kernel kernel, unsigned& blocks) {
  int device = 0, sms = 1, per_sm = 0;
  KSELECT_CUDA_TRY(cudaGetDevice(&device));
  KSELECT_CUDA_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  KSELECT_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, tuning::stream_threads, 0));
  blocks = static_cast<unsigned>(sms * std::max(per_sm, 1));
  return cudaSuccess;
}

}  // namespace kselect::cuda
