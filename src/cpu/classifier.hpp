// Fast bucket classification for the CPU backend. Same result as plan::classify
// (the shared layout: range bucket 2i, equality bucket 2i + 1), computed the way
// super-scalar sample sort does (Sanders & Winkel, ref. [5] of the SampleSelect paper):
// the splitters, padded to 2^levels - 1 with the largest key, form an implicit
// complete search tree (children of node i are 2i + 1 and 2i + 2) that is descended
// with one comparison per level and no branches, and the caller classifies several
// keys at once so their independent descents overlap in the pipeline.
//
// Why not plan::classify in the hot loop: GCC compiles its two conditional updates
// into branches, which mispredict about half the time on random keys (measured 8x
// slower with 255 splitters on Zen 3: 41 against 5 ns per key).
#pragma once

#include <bit>
#include <cstdint>
#include <limits>
#include <vector>

#include "plan/buckets.hpp"

namespace kselect::cpu {

template <class K>
class tree_classifier {
 public:
  /// `splitters` sorted and distinct (plan::classify's precondition).
  explicit tree_classifier(const std::vector<K>& splitters)
      : splitters_(splitters), m_(static_cast<int>(splitters.size())) {
    // One spare slot so leaf_bucket may read splitters_[m] without a branch.
    splitters_.push_back(K{});
    levels_ = std::bit_width(static_cast<unsigned>(m_));  // 2^levels - 1 >= m
    const std::size_t size = (std::size_t{1} << levels_) - 1;
    // Padding with the largest key never counts as "below" a key, so the descent
    // still returns the number of real splitters below the key.
    std::vector<K> sorted(splitters);
    sorted.resize(size, std::numeric_limits<K>::max());
    tree_.resize(size);
    std::size_t next = 0;
    fill(sorted, 0, next);
  }

  int num_buckets() const { return plan::num_buckets(m_); }


  /// Keys classified together by classify_range (their descents interleave).
  static constexpr int kBatch = 8;

  /// buckets[u] = plan::classify(keys[u], splitters, m) for u < N.
  template <int N>
  void classify(const K* keys, int* buckets) const {
    std::size_t node[N];
    for (int u = 0; u < N; ++u) node[u] = 0;
    for (int l = 0; l < levels_; ++l)
      for (int u = 0; u < N; ++u) node[u] = 2 * node[u] + 1 + (tree_[node[u]] < keys[u] ? 1 : 0);
    for (int u = 0; u < N; ++u) buckets[u] = leaf_bucket(node[u], keys[u]);
  }

  /// One key.
  int classify(K key) const {
    int b;
    classify<1>(&key, &b);
    return b;
  }

 private:
  // Leaf `node` (in [2^levels - 1, 2^(levels+1) - 1)) to the bucket of `key`.
  int leaf_bucket(std::size_t node, K key) const {
    const int below = static_cast<int>(node - tree_.size());  // splitters below the key
    // `&`, not `&&`: below < m_ is a coin toss when there are few splitters, so no branch.
    const int equal = static_cast<int>(below < m_) & static_cast<int>(splitters_[static_cast<std::size_t>(below)] == key);
    return 2 * below + equal;
  }

  // In-order walk of the implicit tree assigns the sorted values.
  void fill(const std::vector<K>& sorted, std::size_t node, std::size_t& next) {
    if (node >= tree_.size()) return;
    fill(sorted, 2 * node + 1, next);
    tree_[node] = sorted[next++];
    fill(sorted, 2 * node + 2, next);
  }

  std::vector<K> splitters_;  ///< the sorted splitters and one spare slot
  std::vector<K> tree_;
  int m_;
  int levels_;
};

}  // namespace kselect::cpu

namespace kselect::cpu {

/// f(key, bucket) for the keys src[begin..end), in order, classified kBatch at a time.
template <class K, class Src, class F>
void classify_range(const Src& src, std::int64_t begin, std::int64_t end,
                    const tree_classifier<K>& tree, F&& f) {
  constexpr int B = tree_classifier<K>::kBatch;
  K keys[B];
  int buckets[B];
  std::int64_t i = begin;
  for (; i + B <= end; i += B) {
    for (int u = 0; u < B; ++u) keys[u] = src[i + u];
    tree.template classify<B>(keys, buckets);
    for (int u = 0; u < B; ++u) f(keys[u], buckets[u]);
  }
  for (; i < end; ++i) {
    const K key = src[i];
    f(key, tree.classify(key));
  }
}

}  // namespace kselect::cpu
