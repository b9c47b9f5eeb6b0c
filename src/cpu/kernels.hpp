// The CPU selection's streaming kernels: the loops that read every key of a level.
// Each exists three times, for the instruction sets chosen at run time
// (cpu/isa.hpp): portable scalar C++ (kernels_scalar.cpp), AVX2
// (kernels_avx2.cpp) and AVX-512 (kernels_avx512.cpp). The ISA files compile their
// code under `#pragma GCC target`, so the binary runs on any x86-64 machine and
// uses what it finds; nothing here depends on -march.
//
// Keys are compared as pre-keys (core::key_traits<T>::pre_key): an order-preserving
// bijection onto unsigned integers that refines the key order (-0.0 just below
// +0.0, each NaN its own pre-key above +inf). The element of rank k in pre-key
// order has the key of the element of rank k in key order, and a pre-key gives
// back its value bit for bit. Level 0 reads the caller's values and maps their bits
// on the fly (`xform`); deeper levels read pre-keys copied by the level above.
//
// Buckets: m boundaries b[0] <= ... <= b[m-1] (pre-keys) give m + 1 buckets; a
// key's bucket is the number of boundaries <= the key. Copied ("window") buckets
// are the odd ones: bucket 2w + 1 holds b[2w] <= key < b[2w + 1], window w.
// Equal neighbouring boundaries are allowed (the bucket between them is empty).
//
// This header holds declarations and plain structs only, no inline code: the ISA
// files include it before switching their target, and nothing they define may be
// shared with code compiled for the baseline.
#pragma once

#include <cstdint>
#include <type_traits>

namespace kselect::cpu::kernels {

/// How a level's raw bits become pre-keys.
enum class xform : int {
  none,       ///< already pre-keys (unsigned integers, deeper levels)
  flip_sign,  ///< signed integers: flip the sign bit
  float_bits  ///< IEEE floats: core::key_traits<T>::pre_key
};

/// Calls f(std::integral_constant<xform, X>{}) for the run-time x: how each kernel
/// file turns a job's xform into the template argument of its loops.
template <class F>
decltype(auto) with_xform(xform x, F&& f) {
  switch (x) {
    case xform::flip_sign:
      return f(std::integral_constant<xform, xform::flip_sign>{});
    case xform::float_bits:
      return f(std::integral_constant<xform, xform::float_bits>{});
    case xform::none:
      break;
  }
  return f(std::integral_constant<xform, xform::none>{});
}

/// Entries readable past a tree's nodes: the SIMD kernels load the small levels
/// as whole registers.
inline constexpr int kTreePadding = 32;

/// Boundaries as an implicit complete binary search tree in heap order (node i has
/// children 2i + 1 and 2i + 2; level l is nodes [2^l - 1, 2^(l+1) - 1)), the sorted
/// boundaries padded to 2^levels - 1 with the largest pre-key. Descending with
/// node = 2 node + 1 + (key >= node's boundary) ends at leaf 2^levels - 1 + c, c the
/// number of padded boundaries <= key; the bucket is min(c, m).
template <class K>
struct tree_view {
  const K* nodes;  ///< 2^levels - 1 entries, then kTreePadding readable ones
  int levels;      ///< 1 <= levels <= 16
  int m;           ///< real boundaries
};

/// A window pass over in[begin, end): every key is counted against up to
/// kMaxWindowBounds sorted boundaries and the keys of each window (odd bucket)
/// are copied, as pre-keys, to that window's buffer.
inline constexpr int kMaxWindowBounds = 16;

template <class K>
struct window_job {
  const K* in;  ///< raw bits (see xform)
  std::int64_t begin, end;
  xform x;
  const K* bounds;  ///< m sorted boundaries, 1 <= m <= kMaxWindowBounds
  int m;
  std::uint64_t* below;  ///< [m]: keys < bounds[j], accumulated
  K** dst;               ///< [(m + 1) / 2]: write cursor per window, advanced; null: count only
  K* const* dst_end;     ///< [(m + 1) / 2]: end of each window's buffer
};
/// Space a window buffer needs beyond its keys (whole-vector stores).
inline constexpr int kWindowSlack = 64;

/// The bucket path's count pass: each key's cell, then a histogram of the cells.
/// A key's coarse bucket j (0..m) comes from `tree`; inside it, the cell's fine
/// index is the key's offset from base[j] in steps of 2^shift[j]:
///   f = min((max(key, base[j]) - base[j]) >> shift[j], 2^fine_bits - 1),
///   cell = j * 2^fine_bits + f.
/// Cells are exact pre-key intervals, so they are buckets like any other (the
/// driver picks base and shift from the sample: 33 to 64 cells per bucket).
template <class K>
inline constexpr int kCoarseLevels = sizeof(K) == 4 ? 6 : 5;  ///< at most 63 / 31 coarse boundaries
template <class K>
inline constexpr int kFineBits = sizeof(K) == 4 ? 6 : 7;  ///< 4096 cells either way

template <class K>
struct count_job {
  const K* in;  ///< raw bits (see xform)
  std::int64_t begin, end;
  xform x;
  tree_view<K> tree;       ///< levels <= kCoarseLevels<K>
  const K* base;           ///< [2^kCoarseLevels<K>] per coarse bucket (entries past m unused)
  const K* shift;          ///< [2^kCoarseLevels<K>] per coarse bucket, < bits of K
  std::uint64_t* counts;   ///< [(m + 1) << kFineBits<K>] keys per cell, accumulated
  std::uint32_t* scratch;  ///< 4 * ((m + 1) << kFineBits<K>) words of scratch
};

/// The bucket path's copy pass: every key of an odd bucket of `tree` (any number
/// of boundaries) is copied to that bucket's cursor dst[bucket >> 1].
template <class K>
struct copy_job {
  const K* in;  ///< raw bits (see xform)
  std::int64_t begin, end;
  xform x;
  tree_view<K> tree;
  K** dst;  ///< write cursor of each odd bucket, exact (the counts are known), advanced
};

// One namespace per instruction set, the same three functions in each.
// window_pass returns where it stopped: `end`, or earlier when a window buffer has
// less than kWindowSlack spare entries (the caller grows it and calls again).
#define KSELECT_CPU_KERNEL_DECLS                                  \
  std::int64_t window_pass(const window_job<std::uint32_t>& job); \
  std::int64_t window_pass(const window_job<std::uint64_t>& job); \
  void count_cells(const count_job<std::uint32_t>& job);          \
  void count_cells(const count_job<std::uint64_t>& job);          \
  void copy_buckets(const copy_job<std::uint32_t>& job);          \
  void copy_buckets(const copy_job<std::uint64_t>& job);

namespace scalar {
KSELECT_CPU_KERNEL_DECLS
}
#if defined(__x86_64__)
namespace avx2 {
KSELECT_CPU_KERNEL_DECLS
}
namespace avx512 {
KSELECT_CPU_KERNEL_DECLS
}
#endif
#undef KSELECT_CPU_KERNEL_DECLS

// The entry points of one instruction set's file, defined from its window_any,
// count_any and copy_any templates (used inside that file's namespace).
#define KSELECT_CPU_KERNEL_DEFS                                                                    \
  std::int64_t window_pass(const window_job<std::uint32_t>& job) { return window_any(job); }     \
  std::int64_t window_pass(const window_job<std::uint64_t>& job) { return window_any(job); }     \
  void count_cells(const count_job<std::uint32_t>& job) { count_any(job); }                      \
  void count_cells(const count_job<std::uint64_t>& job) { count_any(job); }                      \
  void copy_buckets(const copy_job<std::uint32_t>& job) { copy_any(job); }                       \
  void copy_buckets(const copy_job<std::uint64_t>& job) { copy_any(job); }

}  // namespace kselect::cpu::kernels
