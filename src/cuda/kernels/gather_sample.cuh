// Draws a block's sample: key i of thread t is sample j = i * threads + t at
// core::sample_position. All positions are computed before any load and all loads
// issued before any key is used, so the 16 loads of a thread are in flight
// together (computing the position, load and key of each sample in one loop
// would wait on each load in turn).
#pragma once

#include <cstdint>

#include "cuda/kernels/load_tile.cuh"
#include "core/key_traits.hpp"
#include "core/sampling.hpp"

namespace kselect::cuda {

template <int items, int threads, int sample_size, class Src, class K>
__device__ __forceinline__ void gather_sample(const Src* src, std::int64_t size, std::uint64_t seed, K (&keys)[items]) {
  std::int64_t pos[items];
#pragma unroll
  for (int i = 0; i < items; ++i) pos[i] = core::sample_position(i * threads + threadIdx.x, sample_size, size, seed);
  Src raw[items];
#pragma unroll
  for (int i = 0; i < items; ++i) raw[i] = load_readonly(src + pos[i]);
#pragma unroll
  for (int i = 0; i < items; ++i) keys[i] = core::key_traits<Src>::to_key(raw[i]);
}

}  // namespace kselect::cuda
