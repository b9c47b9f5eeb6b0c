// Loads one tile of a task's keys, all loads issued before any is used (16
// independent loads in flight per thread), coalesced: load i of thread t reads
// element base + i * threads + t.
#pragma once

#include <cstdint>
#include <cstring>

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

/// This thread's `items` keys of the full tile at `start` (16-byte aligned) with
/// 16-byte loads, all issued before any is used: vector v of thread t is the
/// tile's vector v * threads + t, so key i lies at the tile's
/// ((i / per_vec) * threads + t) * per_vec + i % per_vec (per_vec keys a vector).
template <int items, int threads, class Src>
__device__ __forceinline__ void load_vector_tile(const Src* start, Src (&vals)[items]) {
  constexpr int per_vec = 16 / static_cast<int>(sizeof(Src));
  static_assert(items % per_vec == 0, "a thread's keys fill whole 16-byte vectors");
  const int4* vsrc = reinterpret_cast<const int4*>(start);
  int4 raw[items / per_vec];
#pragma unroll
  for (int v = 0; v < items / per_vec; ++v) raw[v] = __ldg(vsrc + v * threads + threadIdx.x);
  std::memcpy(vals, raw, sizeof vals);
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

/// Words [0, count) of src to dst by a block, each thread's loads (up to 4) issued
/// before its stores.
template <int threads, class W>
__device__ __forceinline__ void copy_words_batched(W* dst, const W* src, std::size_t count) {
  constexpr int batch = 4;
  for (std::size_t base = 0; base < count; base += static_cast<std::size_t>(batch) * threads) {
    W v[batch];
#pragma unroll
    for (int b = 0; b < batch; ++b) {
      const std::size_t i = base + static_cast<std::size_t>(b) * threads + threadIdx.x;
      if (i < count) v[b] = __ldg(src + i);
    }
#pragma unroll
    for (int b = 0; b < batch; ++b) {
      const std::size_t i = base + static_cast<std::size_t>(b) * threads + threadIdx.x;
      if (i < count) dst[i] = v[b];
    }
  }
}

/// A block's copy of `bytes` from global to shared memory (the caller synchronises), in
/// the widest words both ends' alignment allows, batched: a kernel's prologue (a table
/// of several KiB that every block reads) then waits for about one load, where a plain
/// loop of dependent iterations waited for one per iteration.
template <int threads>
__device__ __forceinline__ void copy_to_shared(void* shared, const void* global, std::size_t bytes) {
  const auto alignment = (reinterpret_cast<std::uintptr_t>(shared) | reinterpret_cast<std::uintptr_t>(global));
  std::size_t done = 0;
  if (alignment % 16 == 0) {
    done = bytes / 16 * 16;
    copy_words_batched<threads>(static_cast<int4*>(shared), static_cast<const int4*>(global), bytes / 16);
  } else if (alignment % 4 == 0) {
    done = bytes / 4 * 4;
    copy_words_batched<threads>(static_cast<unsigned*>(shared), static_cast<const unsigned*>(global), bytes / 4);
  }
  const auto* src = static_cast<const unsigned char*>(global);
  auto* dst = static_cast<unsigned char*>(shared);
  for (std::size_t i = done + threadIdx.x; i < bytes; i += threads) dst[i] = src[i];
}

}  // namespace kselect::cuda
