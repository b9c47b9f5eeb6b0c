// The multiselection pre-pass's last step: one block per target rank selects its
// answer from its bin's region of the copy (~33 K keys for 2^28 uniform floats
// and 8192 bins), which sits in L2 after the filter pass.
//
// A radix descent on the keys' range: from the region's smallest and largest key
// (bin_scatter_kernel recorded them; they answer a region's first and last rank
// at once), histograms of 4096 buckets of the range until the rank's bucket
// holds at most 4096 keys (or one value), then those keys gathered into shared
// memory and the answer picked by counting (<= 1024 keys) or a block sort. Each
// round narrows the range 4096-fold, so 32-bit keys take at most 3 rounds, 64-bit 6.
// Rounds re-read the region instead of compacting it: several blocks may share
// a region (ranks in one bin), and reads from L2 are cheaper than scratch space.
// Every read of the region keeps four 16-byte loads per thread in flight (1024
// threads): the block with the largest region sets the kernel's time, and with
// one dependent load per thread at a time it would be bound by latency.
#pragma once

#include <cub/block/block_scan.cuh>

#include <cstdint>
#include <cstring>

#include "cuda/kernels/bin_plan_kernels.cuh"
#include "cuda/kernels/block_sort.cuh"
#include "cuda/tuning.hpp"
#include "core/int_math.hpp"
#include "core/key_traits.hpp"

namespace kselect::cuda {

constexpr int bin_finish_threads = tuning::compiled.prepass.finish.threads;
constexpr int bin_finish_items = tuning::compiled.prepass.finish.items_per_thread;
constexpr int bin_finish_bucket_bits = 12;
constexpr int bin_finish_buckets = 1 << bin_finish_bucket_bits;  // = threads * items, one scan
constexpr int bin_finish_gather_max = bin_finish_threads * bin_finish_items;
/// Up to this many candidates, each thread finds its candidate's sorted position
/// by comparing it with all of them; above, a block sort.
constexpr int bin_finish_count_max = bin_finish_threads;
/// 16-byte loads in flight per thread while reading a region.
constexpr int bin_finish_unroll = 4;

/// Calls f(x) for every element of src[0, size) (4 or 8 bytes each): the
/// unaligned head and tail one per thread, the rest with 16-byte loads, unroll of
/// them in flight per thread.
template <class K, class F>
__device__ __forceinline__ void for_each_region_key(const K* src, std::int64_t size, F&& f) {
  constexpr int threads = bin_finish_threads, unroll = bin_finish_unroll;
  constexpr int per_vec = 16 / static_cast<int>(sizeof(K));
  const auto misalign = static_cast<std::int64_t>(reinterpret_cast<std::uintptr_t>(src) % 16 / sizeof(K));
  const std::int64_t head = misalign == 0 ? 0 : (per_vec - misalign < size ? per_vec - misalign : size);
  if (threadIdx.x < head) f(src[threadIdx.x]);
  const auto* vec = reinterpret_cast<const int4*>(src + head);
  const std::int64_t vecs = (size - head) / per_vec;
  for (std::int64_t base = 0; base < vecs; base += std::int64_t(threads) * unroll) {
    int4 v[unroll];
#pragma unroll
    for (int u = 0; u < unroll; ++u) {
      const std::int64_t i = base + u * threads + threadIdx.x;
      if (i < vecs) v[u] = __ldg(vec + i);
    }
#pragma unroll
    for (int u = 0; u < unroll; ++u) {
      if (base + u * threads + threadIdx.x >= vecs) continue;
      K k[per_vec];
      std::memcpy(k, &v[u], sizeof k);
#pragma unroll
      for (int e = 0; e < per_vec; ++e) f(k[e]);
    }
  }
  const std::int64_t tail = head + vecs * per_vec;
  if (tail + threadIdx.x < size) f(src[tail + threadIdx.x]);
}

/// The key at sorted position `rank` of the `count` candidates gathered in
/// sort.sorted, to *answer: up to bin_finish_count_max candidates, each thread
/// finds its candidates' sorted positions by comparing them with all the others;
/// above, a block sort.
template <class T, class SortStorage>
__device__ __forceinline__ void bin_finish_pick(SortStorage& sort, int count, std::int64_t rank, T* answer) {
  using K = core::key_t<T>;
  constexpr int threads = bin_finish_threads, items = bin_finish_items;
  const K* cand = sort.sorted;
  if (count <= bin_finish_count_max) {
    // Candidate i's sorted position: keys below it, plus equal keys before it.
    for (int i = threadIdx.x; i < count; i += threads) {
      const K candidate = cand[i];
      int pos = 0;
      for (int j = 0; j < count; ++j) {
        const K x = cand[j];
        pos += (x < candidate) | ((x == candidate) & (j < i));
      }
      if (pos == rank) *answer = core::key_traits<T>::from_key(candidate);
    }
    return;
  }
  K keys[items];
#pragma unroll
  for (int i = 0; i < items; ++i) {
    const int idx = threadIdx.x * items + i;
    keys[i] = idx < count ? cand[idx] : static_cast<K>(~K(0));
  }
  __syncthreads();
  block_sorter<K, threads, items>::sort(keys, sort);
  if (threadIdx.x == 0) *answer = core::key_traits<T>::from_key(sort.sorted[rank]);
}

/// The key of rank `rank` among the `count` keys of src[0, size) (Src: the keys,
/// or T values) that lie in [lo, hi], into *answer. The whole block (of
/// bin_finish_threads) calls it. The radix descent of the file comment, gathering
/// once at most gather_limit (<= bin_finish_gather_max) keys are left. aggregate:
/// each thread adds a run of keys in one bucket at once (inputs with many equal
/// keys would otherwise queue on one shared counter; a warp-wide match per key
/// costs more than the conflicts it saves: docs/performance.md).
template <class T, class Src, bool aggregate = false>
__device__ void block_descent_pick(const Src* src, std::int64_t size, core::key_t<T> lo, core::key_t<T> hi,
                                   std::int64_t rank, std::int64_t count, T* answer,
                                   int gather_limit = bin_finish_gather_max) {
  using K = core::key_t<T>;
  constexpr int threads = bin_finish_threads, items = bin_finish_items, bucket_bits = bin_finish_bucket_bits;
  constexpr int buckets = bin_finish_buckets;
  using sorter = block_sorter<K, threads, items>;
  using scan = cub::BlockScan<unsigned, threads>;
  __shared__ union {
    unsigned hist[buckets];
    typename sorter::storage sort;  // its `sorted` array also holds the gathered candidates
  } smem;
  __shared__ typename scan::TempStorage scan_storage;
  __shared__ K range[2];
  __shared__ std::int64_t found[2];  // the rank's bucket: keys before it, keys in it
  __shared__ int num_candidates;
  const auto each_key = [&](auto&& f) {
    for_each_region_key(src, size, [&](Src v) { f(core::key_traits<Src>::to_key(v)); });
  };

  while (lo != hi && count > gather_limit) {
    const int width = core::bit_width_of(static_cast<K>(hi - lo));
    const int shift = width > bucket_bits ? width - bucket_bits : 0;
    for (int b = threadIdx.x; b < buckets; b += threads) smem.hist[b] = 0;
    __syncthreads();
    unsigned run_bucket = 0, run = 0;
    each_key([&](K x) {
      if (x < lo || x > hi) return;
      const auto b = static_cast<unsigned>((x - lo) >> shift);
      if constexpr (aggregate) {
        if (run != 0 && b == run_bucket) {
          ++run;
          return;
        }
        if (run != 0) atomicAdd(&smem.hist[run_bucket], run);
        run_bucket = b;
        run = 1;
      } else {
        atomicAdd(&smem.hist[b], 1u);
      }
    });
    if (aggregate && run != 0) atomicAdd(&smem.hist[run_bucket], run);
    __syncthreads();
    unsigned c[items], before[items];
#pragma unroll
    for (int i = 0; i < items; ++i) c[i] = smem.hist[threadIdx.x * items + i];
    scan(scan_storage).ExclusiveSum(c, before);
#pragma unroll
    for (int i = 0; i < items; ++i)
      if (before[i] <= rank && rank < std::int64_t(before[i]) + c[i]) {
        const K bucket_lo = static_cast<K>(lo + (static_cast<K>(threadIdx.x * items + i) << shift));
        range[0] = bucket_lo;
        // The bucket's last key, without passing hi (or the key type's end).
        range[1] =
            static_cast<K>((hi - bucket_lo) >> shift) == 0 ? hi : static_cast<K>(bucket_lo + ((K(1) << shift) - 1));
        found[0] = before[i];
        found[1] = c[i];
      }
    __syncthreads();
    lo = range[0];
    hi = range[1];
    rank -= found[0];
    count = found[1];
    __syncthreads();
  }

  if (lo == hi) {
    if (threadIdx.x == 0) *answer = core::key_traits<T>::from_key(lo);
    return;
  }
  // At most gather_limit keys in [lo, hi]: gather them.
  if (threadIdx.x == 0) num_candidates = 0;
  __syncthreads();
  K* cand = smem.sort.sorted;
  each_key([&](K x) {
    if (x >= lo && x <= hi) cand[atomicAdd(&num_candidates, 1)] = x;
  });
  __syncthreads();
  bin_finish_pick(smem.sort, num_candidates, rank, answer);
}

template <class T>
__global__ void __launch_bounds__(bin_finish_threads)
    bin_finish_kernel(const core::key_t<T>* copy, const bin_region<core::key_t<T>>* regions, const bin_rank_task* tasks,
                      const bin_prepass_state* state, T* out) {
  using K = core::key_t<T>;
  if (state->proceed == 0) return;
  const bin_rank_task task = tasks[blockIdx.x];
  if (task.region == bin_task_answered) {
    using kt = core::key_traits<T>;
    if (threadIdx.x == 0) out[blockIdx.x] = kt::from_key(kt::key_of_pre_key(static_cast<K>(task.start)));
    return;
  }
  const K lo = regions[task.region].min, hi = regions[task.region].max;
  if (task.rank == 0 || task.rank == task.size - 1) {
    if (threadIdx.x == 0) out[blockIdx.x] = core::key_traits<T>::from_key(task.rank == 0 ? lo : hi);
    return;
  }
  block_descent_pick<T>(copy + task.start, task.size, lo, hi, task.rank, task.size, out + blockIdx.x);
}

}  // namespace kselect::cuda
