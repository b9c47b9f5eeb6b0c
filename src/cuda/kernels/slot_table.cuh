// Fast classification for many splitters: a lookup table over the splitters' key
// range. The range [s[0], s[m-1]] is cut into `slots` equal key intervals; slot j
// records how many splitters lie below its start, so a key needs one table read
// and then a search among the (usually 0 to 2) splitters inside its slot, instead
// of a log2(m)-level tree descent (the 10-level descent over 1023 splitters
// makes the count pass compute-bound, many times the read floor).
// Skewed keys put many splitters in one slot; the search inside a slot is binary,
// so the worst case is the tree's cost, never worse.
#pragma once

#include <cstdint>

#include "cuda/tuning.hpp"
#include "core/int_math.hpp"

namespace kselect::cuda {

template <class K>
struct slot_table {
  static constexpr int slot_bits = 12;
  static constexpr int slots = 1 << slot_bits;
  K splitters[tuning::max_splitters];
  std::uint16_t below[slots + 1];  ///< splitters below the start of each slot (m <= 1023 fits)
  K base;                          ///< s[0]
  K top;                           ///< s[m-1]
  int shift;                       ///< key offset >> shift = slot
  int num_splitters;

  /// All threads of the block call it; a __syncthreads must follow.
  __device__ __forceinline__ void build(const K* sorted, int m, int threads) {
    for (int j = threadIdx.x; j < m; j += threads) splitters[j] = sorted[j];
    const K lo = sorted[0], hi = sorted[m - 1];
    const K range = hi - lo;
    const int width = core::bit_width_of(range);
    const int sh = width > slot_bits ? width - slot_bits : 0;
    const K used = range >> sh;  // slots 0..used hold keys of [lo, hi]
    for (int j = threadIdx.x; j <= slots; j += threads) {
      int count = m;
      if (static_cast<K>(j) <= used) {
        const K start = lo + (static_cast<K>(j) << sh);
        int a = 0, len = m;  // splitters below start (binary search)
        while (len > 0) {
          const int half = len >> 1;
          const bool below_start = sorted[a + half] < start;
          a = below_start ? a + half + 1 : a;
          len = below_start ? len - half - 1 : half;
        }
        count = a;
      }
      below[j] = static_cast<std::uint16_t>(count);
    }
    if (threadIdx.x == 0) {
      base = lo;
      top = hi;
      shift = sh;
      num_splitters = m;
    }
  }

  /// Bucket of `key` in the layout of core::classify.
  __device__ __forceinline__ int classify(K key) const {
    const int m = num_splitters;
    if (key < base) return 0;
    if (key > top) return 2 * m;
    const auto slot = static_cast<int>((key - base) >> shift);
    int a = below[slot];
    int len = below[slot + 1] - a;  // splitters inside the slot: a .. a+len-1
    while (len > 0) {
      const int half = len >> 1;
      const bool below_key = splitters[a + half] < key;
      a = below_key ? a + half + 1 : a;
      len = below_key ? len - half - 1 : half;
    }
    return 2 * a + (a < m && splitters[a] == key ? 1 : 0);
  }
};

}  // namespace kselect::cuda
