// Per-warp staging of selected elements: each warp collects the elements its
// lanes select in its own slice of shared memory (positions from a ballot, so no
// shared atomics and no block barrier) and writes them out in batches, reserving
// space with one global atomic per batch. Used by the passes that copy a small,
// scattered part of their input (window_pass_kernel, bin_pass_kernel).
#pragma once

#include <cstdint>

#include "cuda/kernels/load_tile.cuh"
#include "cuda/tuning.hpp"

namespace kselect::cuda {

/// Values a warp's stage must hold when it is flushed past `flush_at` values and
/// checked once per tile (a tile adds at most 32 lanes x stream_items).
template <int flush_at>
inline constexpr int warp_stage_capacity = flush_at + 32 * tuning::stream_items;

/// Appends v to the warp's stage if `take`; every lane calls it (staged is
/// warp-uniform). Values are staged as read; any conversion happens at the
/// flush, for the few values copied (converting in the taken branch cost ~10%
/// of the filter pass on the H100: most warps have a lane that takes).
template <class V>
__device__ __forceinline__ void stage_by_ballot(bool take, V v, V* stage, int& staged) {
  const unsigned mask = __ballot_sync(0xffffffffu, take);
  if (mask != 0) {  // warp-uniform
    if (take) stage[staged + __popc(mask & ((1u << (threadIdx.x & 31)) - 1))] = v;
    staged += __popc(mask);
  }
}

/// Where a warp's `staged` values go: one atomic on the cursor, its result in every lane.
__device__ __forceinline__ unsigned long long reserve_warp_output(unsigned long long* cursor, int staged) {
  __syncwarp();
  unsigned long long base = 0;
  if ((threadIdx.x & 31) == 0) base = atomicAdd(cursor, static_cast<unsigned long long>(staged));
  return __shfl_sync(0xffffffffu, base, 0);
}

/// Writes convert(v) for a warp's staged values to dst at a position reserved
/// with one atomic; those past `capacity` are dropped (the cursor still counts
/// them, so the caller sees the overflow). All lanes call it; staged is warp-uniform.
template <class V, class Out, class Convert>
__device__ __forceinline__ void flush_warp_stage(const V* stage, int& staged, unsigned long long* cursor, Out* dst,
                                                 std::int64_t capacity, Convert convert) {
  const int lane = threadIdx.x & 31;
  const unsigned long long base = reserve_warp_output(cursor, staged);
  for (int j = lane; j < staged; j += 32) {
    const auto pos = static_cast<std::int64_t>(base) + j;
    if (pos < capacity) dst[pos] = convert(stage[j]);
  }
  __syncwarp();
  staged = 0;
}

/// flush_warp_stage for a stage of positions in `src`: writes src[p] for each
/// staged position p, each lane's loads (up to 4) issued before its stores, so
/// that the warp waits for one gather, not one per 32 positions.
template <class T>
__device__ __forceinline__ void flush_gathered(const std::int64_t* stage, int& staged, unsigned long long* cursor,
                                               T* dst, std::int64_t capacity, const T* src) {
  constexpr int batch = 4;
  const int lane = threadIdx.x & 31;
  const unsigned long long base = reserve_warp_output(cursor, staged);
  for (int first = 0; first < staged; first += 32 * batch) {
    T v[batch];
#pragma unroll
    for (int b = 0; b < batch; ++b) {
      const int j = first + b * 32 + lane;
      if (j < staged) v[b] = load_readonly(src + stage[j]);
    }
#pragma unroll
    for (int b = 0; b < batch; ++b) {
      const int j = first + b * 32 + lane;
      const auto pos = static_cast<std::int64_t>(base) + j;
      if (j < staged && pos < capacity) dst[pos] = v[b];
    }
  }
  __syncwarp();
  staged = 0;
}

__device__ __forceinline__ unsigned long long warp_sum(unsigned long long v) {
#pragma unroll
  for (int d = 16; d > 0; d /= 2) v += __shfl_xor_sync(0xffffffffu, v, d);
  return v;
}

}  // namespace kselect::cuda
