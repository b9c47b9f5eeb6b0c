#include "cpu/tied_elements.hpp"

#include <omp.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <type_traits>
#include <vector>

#include "kselect/types.hpp"  // KSELECT_FOR_EACH_KEY_TYPE
#include "plan/key_traits.hpp"

namespace kselect::cpu {
namespace {

/// Below this many elements one thread does both passes (a parallel region costs more).
constexpr std::int64_t parallel_min = std::int64_t{1} << 20;

template <class T>
using bits_t = std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>;

/// One chunk's first-pass result: elements whose key is below the answer's, elements
/// with its key, and the OR and AND of those elements' bit patterns.
template <class U>
struct counts_of {
  std::int64_t below = 0, equal = 0;
  U bits_or = 0, bits_and = ~U(0);
};

// The loops below are written for the compiler to vectorise: comparisons of values
// (no key transform) summed as integers, bit patterns folded without branches.

/// Zeros: below = values < 0 (NaN is not), equal = values == 0 (-0.0 and +0.0).
template <class T>
counts_of<bits_t<T>> count_zeros(const T* v, std::int64_t n) {
  using U = bits_t<T>;
  std::int64_t below = 0, equal = 0;
  U negative_zeros = 0, positive_zeros = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    below += v[i] < T(0);
    equal += v[i] == T(0);
    const U bits = std::bit_cast<U>(v[i]);
    negative_zeros |= v[i] == T(0) && (bits >> (sizeof(U) * 8 - 1)) != 0;
    positive_zeros |= v[i] == T(0) && (bits >> (sizeof(U) * 8 - 1)) == 0;
  }
  counts_of<U> r;
  r.below = below, r.equal = equal;
  const U sign = U(1) << (sizeof(U) * 8 - 1);
  // OR and AND of the zeros' patterns: only the sign bit can differ.
  if (negative_zeros) r.bits_or |= sign, r.bits_and &= sign;
  if (positive_zeros) r.bits_or |= 0, r.bits_and &= 0;
  return r;
}

/// NaNs: below = every other value, equal = the NaNs, with their patterns folded.
template <class T>
counts_of<bits_t<T>> count_nans(const T* v, std::int64_t n) {
  using U = bits_t<T>;
  std::int64_t equal = 0;
  U bits_or = 0, bits_and = ~U(0);
  for (std::int64_t i = 0; i < n; ++i) {
    const bool nan = v[i] != v[i];
    const U bits = std::bit_cast<U>(v[i]);
    equal += nan;
    bits_or |= nan ? bits : U(0);
    bits_and &= nan ? bits : ~U(0);
  }
  counts_of<U> r;
  r.below = n - equal, r.equal = equal, r.bits_or = bits_or, r.bits_and = bits_and;
  return r;
}

/// Integer keys (one pattern per key; the owning API does not call this for them).
template <class T, class K>
counts_of<bits_t<T>> count_key(const T* v, std::int64_t n, K key) {
  using traits = plan::key_traits<T>;
  counts_of<bits_t<T>> r;
  for (std::int64_t i = 0; i < n; ++i) {
    const K k = traits::to_key(v[i]);
    r.below += k < key;
    r.equal += k == key;
  }
  return r;
}

}  // namespace

template <class T>
void tied_elements(const T* values, std::int64_t n, T like, const std::int64_t* positions, std::int64_t count,
                   T* out, int num_threads) {
  if (count <= 0) return;
  using traits = plan::key_traits<T>;
  using K = plan::key_t<T>;
  using U = bits_t<T>;
  using chunk_counts = counts_of<U>;
  const K key = traits::to_key(like);
  const int threads = num_threads > 0 ? num_threads : omp_get_max_threads();
  const std::int64_t chunks = n >= parallel_min ? std::max(1, threads) : 1;
  const auto chunk_begin = [&](std::int64_t c) { return n / chunks * c + std::min(c, n % chunks); };

  // 1. Per chunk: keys below `key`, keys equal to it, and whether the equal ones
  // differ in bits (OR and AND of their bit patterns).
  std::vector<std::int64_t> below(static_cast<std::size_t>(chunks)), equal(static_cast<std::size_t>(chunks));
  std::vector<U> bits_or(static_cast<std::size_t>(chunks), U(0)), bits_and(static_cast<std::size_t>(chunks), ~U(0));
#pragma omp parallel for num_threads(threads) schedule(static, 1) if (chunks > 1)
  for (std::int64_t c = 0; c < chunks; ++c) {
    const std::int64_t begin = chunk_begin(c), end = chunk_begin(c + 1);
    chunk_counts counts;
    if constexpr (std::is_floating_point_v<T>) {
      counts = std::isnan(like) ? count_nans(values + begin, end - begin) : count_zeros(values + begin, end - begin);
    } else {
      counts = count_key(values + begin, end - begin, key);
    }
    below[static_cast<std::size_t>(c)] = counts.below;
    equal[static_cast<std::size_t>(c)] = counts.equal;
    bits_or[static_cast<std::size_t>(c)] = counts.bits_or;
    bits_and[static_cast<std::size_t>(c)] = counts.bits_and;
  }
  // Usually the equal elements are one bit pattern (only +0.0, or one NaN): then it
  // is every answer, and the second pass is not needed.
  U all_or = 0, all_and = ~U(0);
  for (std::int64_t c = 0; c < chunks; ++c)
    all_or |= bits_or[static_cast<std::size_t>(c)], all_and &= bits_and[static_cast<std::size_t>(c)];
  if (all_or == all_and) {
    const T element = std::bit_cast<T>(all_or);
    for (std::int64_t i = 0; i < count; ++i) out[i] = element;
    return;
  }
  std::int64_t less = 0;
  for (const std::int64_t b : below) less += b;
  // The first ordinal (among the equal elements, in index order) of each chunk.
  std::vector<std::int64_t> first(static_cast<std::size_t>(chunks + 1), 0);
  for (std::int64_t c = 0; c < chunks; ++c)
    first[static_cast<std::size_t>(c + 1)] = first[static_cast<std::size_t>(c)] + equal[static_cast<std::size_t>(c)];

  // 2. Each chunk finds the ordinals positions[i] - less that fall in it; positions
  // of other keys are left alone.
#pragma omp parallel for num_threads(threads) schedule(static, 1) if (chunks > 1)
  for (std::int64_t c = 0; c < chunks; ++c) {
    const std::int64_t lo = first[static_cast<std::size_t>(c)], hi = first[static_cast<std::size_t>(c + 1)];
    std::int64_t t = std::lower_bound(positions, positions + count, less + lo) - positions;
    std::int64_t ordinal = lo;
    for (std::int64_t i = chunk_begin(c), end = chunk_begin(c + 1); i < end && t < count; ++i) {
      if (traits::to_key(values[i]) != key) continue;
      while (t < count && positions[t] - less == ordinal) out[t++] = values[i];
      if (t < count && positions[t] - less >= hi) break;
      ++ordinal;
    }
  }
}

#define KSELECT_INSTANTIATE(T) \
  template void tied_elements<T>(const T*, std::int64_t, T, const std::int64_t*, std::int64_t, T*, int);
KSELECT_FOR_EACH_KEY_TYPE(KSELECT_INSTANTIATE)
#undef KSELECT_INSTANTIATE

}  // namespace kselect::cpu
