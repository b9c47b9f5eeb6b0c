// The implicit search tree of SampleSelect (Ribizel & Anzt, section 4): the sorted
// splitters stored level by level (node j has children 2j+1 and 2j+2), so that the
// first five levels of every warp's descent read at most 32 consecutive words
// (no shared-memory bank conflicts), where a binary search over the sorted array
// would read words 2^k apart, all in one bank.
#pragma once

#include "cuda/tuning.hpp"

namespace kselect::cuda {

template <class K>
struct search_tree {
  /// Nodes of a complete tree with 2^levels - 1 nodes; missing splitters are
  /// padded with the largest key, which is never below any key, so the descent
  /// still counts exactly the real splitters below the key.
  K nodes[tuning::max_splitters + 1];
  int levels;
  int num_splitters;

  static __device__ __forceinline__ int levels_for(int m) {
    int h = 0;
    while ((1 << h) - 1 < m) ++h;
    return h;
  }

  /// Builds from m sorted splitters; all threads of the block call it, then sync.
  __device__ __forceinline__ void build(const K* sorted, int m, int threads) {
    const int h = levels_for(m);
    const int size = (1 << h) - 1;
    for (int j = threadIdx.x; j < size; j += threads) {
      int depth = 31 - __clz(j + 1);             // level of node j
      const int pos = j + 1 - (1 << depth);      // position within its level
      const int inorder = (2 * pos + 1) * (1 << (h - depth - 1)) - 1;
      nodes[j] = inorder < m ? sorted[inorder] : static_cast<K>(~K(0));
    }
    if (threadIdx.x == 0) {
      levels = h;
      num_splitters = m;
    }
  }

  /// Bucket of `key` in the layout of core::classify (2i, or 2i+1 for key == s[i]).
  /// In a search tree both in-order neighbours of the final gap are on the path,
  /// so equality with a splitter is seen during the descent.
  __device__ __forceinline__ int classify(K key) const {
    int j = 0;
    bool equal = false;
    for (int d = 0; d < levels; ++d) {
      const K s = nodes[j];
      equal |= s == key;
      j = 2 * j + 1 + (s < key ? 1 : 0);
    }
    const int below = j - ((1 << levels) - 1);
    // A padded node equal to the key (the largest key) is not a splitter.
    return 2 * below + ((equal && below < num_splitters) ? 1 : 0);
  }
};

}  // namespace kselect::cuda

namespace kselect::cuda {

/// Registers-only classification for m <= 2 sorted splitters (same layout as core::classify).
template <class K>
__device__ __forceinline__ int classify_small(K key, K s0, K s1, int m) {
  const bool has0 = m > 0, has1 = m > 1;
  const int below = (has0 && s0 < key ? 1 : 0) + (has1 && s1 < key ? 1 : 0);
  const bool equal = (has0 && s0 == key) || (has1 && s1 == key);
  return 2 * below + (equal ? 1 : 0);
}

}  // namespace kselect::cuda
