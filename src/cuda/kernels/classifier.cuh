// What the streaming kernels keep in shared memory to classify a task's keys.
// Three ways, chosen per task by the host (classifier_kind) and uniform per block:
//   small: at most two splitters (windows), held in registers: two compares;
//   tree:  the paper's implicit search tree (algorithm::sample_select);
//   slots: the lookup table of slot_table.cuh (the fast path for many splitters).
#pragma once

#include "cuda/kernels/search_tree.cuh"
#include "cuda/kernels/slot_table.cuh"
#include "cuda/task.cuh"

namespace kselect::cuda {

template <class K>
struct bucket_classifier {
  union {
    search_tree<K> tree;
    slot_table<K> slots;
  };
  K small[2];
  int kind;  ///< classifier_kind
  int num_splitters;

  /// All threads of the block call it; a __syncthreads must follow.
  __device__ __forceinline__ void build(const K* sorted, int m, classifier_kind k, int threads) {
    if (m <= 2) k = classifier_kind::small;
    if (k == classifier_kind::tree) tree.build(sorted, m, threads);
    if (k == classifier_kind::slots) slots.build(sorted, m, threads);
    if (threadIdx.x < 2) small[threadIdx.x] = static_cast<int>(threadIdx.x) < m ? sorted[threadIdx.x] : K{};
    if (threadIdx.x == 0) {
      kind = static_cast<int>(k);
      num_splitters = m;
    }
  }

  __device__ __forceinline__ int classify(K key) const {
    if (kind == static_cast<int>(classifier_kind::small)) return classify_small(key, small[0], small[1], num_splitters);
    if (kind == static_cast<int>(classifier_kind::tree)) return tree.classify(key);
    return slots.classify(key);
  }
};

/// Counts one key per lane into shared counters: when the whole warp has the same
/// bucket (sorted input, runs of equal keys) one lane adds 32, otherwise each lane
/// adds 1 (distinct buckets rarely collide). Returns the lane's position among the
/// increments of its counter, as atomicAdd would. All 32 lanes must call it.
__device__ __forceinline__ unsigned count_into(unsigned* counters, int bucket) {
  const int lane = threadIdx.x & 31;
  const int first = __shfl_sync(0xffffffffu, bucket, 0);
  if (__all_sync(0xffffffffu, bucket == first)) {
    unsigned base = 0;
    if (lane == 0 && first >= 0) base = atomicAdd(counters + first, 32u);
    return __shfl_sync(0xffffffffu, base, 0) + lane;
  }
  return bucket >= 0 ? atomicAdd(counters + bucket, 1u) : 0u;
}

}  // namespace kselect::cuda
