#include "cpu/tied_elements.hpp"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <type_traits>
#include <vector>

#include "core/key_traits.hpp"

namespace kselect::cpu {
namespace {

/// Below this many elements one thread does both passes (a parallel region costs more).
constexpr std::int64_t parallel_min = std::int64_t{1} << 20;

/// One chunk's first-pass result: elements below the tied ones, the tied elements,
/// and the OR and AND of their bit patterns (equal when they are one pattern).
template <class U>
struct chunk_counts {
  std::int64_t below = 0, tied = 0;
  U bits_or = 0, bits_and = ~U(0);
};

/// Folds values[0..n) with comparisons of values (no key transform) and branch-free
/// bit folds, a loop the compiler vectorises. `is_tied(v)`: v has the answers' key;
/// `is_below(v)`: v's key is smaller.
template <class T, class Tied, class Below>
chunk_counts<core::key_t<T>> fold(const T* values, std::int64_t n, Tied is_tied, Below is_below) {
  using traits = core::key_traits<T>;
  using U = core::key_t<T>;
  chunk_counts<U> r;
  for (std::int64_t i = 0; i < n; ++i) {
    const T v = values[i];
    const bool tied = is_tied(v);
    const U bits = traits::bits_of(v);
    r.below += is_below(v);
    r.tied += tied;
    r.bits_or |= tied ? bits : U(0);
    r.bits_and &= tied ? bits : ~U(0);
  }
  return r;
}

}  // namespace

template <class T>
void tied_elements(const T* values, std::int64_t n, T like, const std::int64_t* positions, std::int64_t count,
                   T* out, int num_threads) {
  static_assert(std::is_floating_point_v<T>, "only zeros and NaNs stand for several bit patterns");
  if (count <= 0) return;
  using traits = core::key_traits<T>;
  using U = core::key_t<T>;
  const bool nans = std::isnan(like);
  const int threads = num_threads > 0 ? num_threads : omp_get_max_threads();
  const std::int64_t chunks = n >= parallel_min ? std::max(1, threads) : 1;
  const auto chunk_begin = [&](std::int64_t c) { return n / chunks * c + std::min(c, n % chunks); };

  // 1. Per chunk: elements below, tied elements, their bit patterns folded.
  std::vector<chunk_counts<U>> counts(static_cast<std::size_t>(chunks));
#pragma omp parallel for num_threads(threads) schedule(static, 1) if (chunks > 1)
  for (std::int64_t c = 0; c < chunks; ++c) {
    const T* v = values + chunk_begin(c);
    const std::int64_t size = chunk_begin(c + 1) - chunk_begin(c);
    counts[static_cast<std::size_t>(c)] =
        nans ? fold(v, size, [](T x) { return x != x; }, [](T x) { return x == x; })
             : fold(v, size, [](T x) { return x == T(0); }, [](T x) { return x < T(0); });
  }
  // Usually the tied elements are one bit pattern (only +0.0, or one NaN): then it
  // is every answer, and the second pass is not needed.
  U all_or = 0, all_and = ~U(0);
  std::int64_t less = 0;
  for (const chunk_counts<U>& c : counts) all_or |= c.bits_or, all_and &= c.bits_and, less += c.below;
  if (all_or == all_and) {
    std::fill(out, out + count, traits::from_bits(all_or));
    return;
  }
  // The first ordinal (among the tied elements, in index order) of each chunk.
  std::vector<std::int64_t> first(static_cast<std::size_t>(chunks + 1), 0);
  for (std::int64_t c = 0; c < chunks; ++c)
    first[static_cast<std::size_t>(c + 1)] =
        first[static_cast<std::size_t>(c)] + counts[static_cast<std::size_t>(c)].tied;

  // 2. Each chunk finds the ordinals positions[i] - less that fall in it.
  const auto is_tied = [nans](T x) { return nans ? x != x : x == T(0); };
#pragma omp parallel for num_threads(threads) schedule(static, 1) if (chunks > 1)
  for (std::int64_t c = 0; c < chunks; ++c) {
    const std::int64_t lo = first[static_cast<std::size_t>(c)], hi = first[static_cast<std::size_t>(c + 1)];
    std::int64_t t = std::lower_bound(positions, positions + count, less + lo) - positions;
    std::int64_t ordinal = lo;
    for (std::int64_t i = chunk_begin(c), end = chunk_begin(c + 1); i < end && t < count; ++i) {
      if (!is_tied(values[i])) continue;
      while (t < count && positions[t] - less == ordinal) out[t++] = values[i];
      if (t < count && positions[t] - less >= hi) break;
      ++ordinal;
    }
  }
}

template void tied_elements<float>(const float*, std::int64_t, float, const std::int64_t*, std::int64_t, float*, int);
template void tied_elements<double>(const double*, std::int64_t, double, const std::int64_t*, std::int64_t, double*,
                                    int);

}  // namespace kselect::cpu
