// atomicMin / atomicMax on unsigned keys of 4 or 8 bytes (std::uint64_t is
// unsigned long, which CUDA's 64-bit overloads do not take): the bucket bounds of
// the exact descent (descent_kernels.cuh) and the distributed shard's count pass
// (distributed/shard_kernels.cuh).
#pragma once

namespace kselect::cuda {

template <class U>
__device__ __forceinline__ void atomic_min_key(U* p, U v) {
  if constexpr (sizeof(U) == 4) atomicMin(reinterpret_cast<unsigned*>(p), static_cast<unsigned>(v));
  else atomicMin(reinterpret_cast<unsigned long long*>(p), static_cast<unsigned long long>(v));
}

template <class U>
__device__ __forceinline__ void atomic_max_key(U* p, U v) {
  if constexpr (sizeof(U) == 4) atomicMax(reinterpret_cast<unsigned*>(p), static_cast<unsigned>(v));
  else atomicMax(reinterpret_cast<unsigned long long*>(p), static_cast<unsigned long long>(v));
}

}  // namespace kselect::cuda
