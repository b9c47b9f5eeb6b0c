// Bucket layout shared by every backend.
//
// A level of SampleSelect classifies keys against m sorted, pairwise distinct
// splitters s[0] < ... < s[m-1] into 2m+1 buckets:
//   bucket 2i   : s[i-1] < key < s[i]   (range bucket; s[-1] = -inf, s[m] = +inf)
//   bucket 2i+1 : key == s[i]           (equality bucket: all its keys are equal,
//                                        so a rank that lands there is answered
//                                        at once and never recursed into)
// Equality buckets are what make runs of equal keys (all-equal input, few
// distinct values) finish in one level instead of recursing forever.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "hd.hpp"

namespace kselect::core {

/// Number of buckets for m distinct splitters.
KSELECT_HD constexpr int num_buckets(int num_splitters) { return 2 * num_splitters + 1; }
KSELECT_HD constexpr bool is_equality_bucket(int bucket) { return (bucket & 1) != 0; }

/// Bucket of `key` for sorted distinct splitters (branch-free binary search:
/// the number of splitters below key, then one equality test).
template <class K>
KSELECT_HD int classify(K key, const K* splitters, int num_splitters) {
  int lo = 0;  // first splitter not below key is in [lo, lo + len]
  int len = num_splitters;
  while (len > 0) {
    const int half = len >> 1;
    const bool below = splitters[lo + half] < key;
    lo = below ? lo + half + 1 : lo;
    len = below ? len - half - 1 : half;
  }
  const bool equal = lo < num_splitters && splitters[lo] == key;
  return 2 * lo + (equal ? 1 : 0);
}

/// Where a group of target ranks falls after a level has counted its buckets.
struct bucket_ranks {
  int bucket;              ///< bucket index
  std::int64_t first_rank; ///< index into the sorted rank list of the first rank here
  std::int64_t end_rank;   ///< one past the last
  std::int64_t offset;     ///< rank (within the level's input) of the bucket's first key
  std::int64_t size;       ///< keys in the bucket
};

/// Groups sorted target ranks (each in [0, sum(counts))) by the bucket that holds
/// them. Buckets without a rank are left out; the result is ordered by bucket.
/// `ranks` are ranks within this level's input (already shifted by the caller).
std::vector<bucket_ranks> locate_ranks(std::span<const std::uint64_t> counts,
                                       std::span<const std::int64_t> ranks);

}  // namespace kselect::core
