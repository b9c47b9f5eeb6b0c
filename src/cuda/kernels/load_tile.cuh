// Loads one tile of a task's keys, all loads issued before any is used (16
// independent loads in flight per thread), coalesced: load i of thread t reads
// element base + i * threads + t.
#pragma once

#include <cstdint>

namespace kselect::cuda {

/// Read-only cached load for the key types (__ldg has no overload for every
/// 64-bit integer spelling, so those go through their unsigned long long twin).
template <class T>
__device__ __forceinline__ T load_readonly(const T* p) {
  if constexpr (sizeof(T) == 8 && std::is_integral_v<T>)
    return static_cast<T>(__ldg(reinterpret_cast<const unsigned long long*>(p)));
  else if constexpr (sizeof(T) == 4 && std::is_integral_v<T>)
    return static_cast<T>(__ldg(reinterpret_cast<const unsigned*>(p)));
  else
    return __ldg(p);
}

template <int items, int threads, class Src>
__device__ __forceinline__ void load_tile(const Src* src, std::int64_t base, std::int64_t size, Src (&raw)[items]) {
  if (base + items * threads <= size) {
#pragma unroll
    for (int i = 0; i < items; ++i) raw[i] = load_readonly(src + base + i * threads + threadIdx.x);
  } else {
#pragma unroll
    for (int i = 0; i < items; ++i) {
      const std::int64_t idx = base + i * threads + threadIdx.x;
      raw[i] = idx < size ? load_readonly(src + idx) : Src{};
    }
  }
}

}  // namespace kselect::cuda
