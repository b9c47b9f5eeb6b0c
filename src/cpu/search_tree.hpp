// Sorted boundaries laid out for the tree kernels (cpu/kernels.hpp, tree_view):
// an implicit complete binary search tree in heap order, padded with the largest
// pre-key, with kTreePadding readable entries past its end.
#pragma once

#include <bit>
#include <cstdint>
#include <limits>
#include <span>
#include <vector>

#include "cpu/kernels.hpp"

namespace kselect::cpu {

template <class K>
class search_tree {
 public:
  /// `bounds` sorted ascending (equal neighbours allowed), at most 65535 of them.
  explicit search_tree(std::span<const K> bounds) : m_(static_cast<int>(bounds.size())) {
    levels_ = std::max(1, static_cast<int>(std::bit_width(static_cast<unsigned>(m_))));  // 2^levels - 1 >= m
    const std::size_t size = (std::size_t{1} << levels_) - 1;
    nodes_.assign(size + kernels::kTreePadding, std::numeric_limits<K>::max());
    // Level l holds the sorted entries (2j + 1) 2^(levels - l - 1) - 1, j < 2^l: the
    // in-order walk of the tree visits the sorted sequence.
    for (int l = 0; l < levels_; ++l) {
      const std::size_t first = (std::size_t{1} << l) - 1;
      const std::size_t step = std::size_t{1} << (levels_ - l);
      for (std::size_t j = 0; j <= first; ++j) {
        const std::size_t at = (2 * j + 1) * (step / 2) - 1;
        if (at < bounds.size()) nodes_[first + j] = bounds[at];
      }
    }
  }

  kernels::tree_view<K> view() const { return {nodes_.data(), levels_, m_}; }
  int num_buckets() const { return m_ + 1; }

 private:
  std::vector<K> nodes_;
  int m_;
  int levels_;
};

}  // namespace kselect::cpu
