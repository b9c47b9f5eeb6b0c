#include "cpu/tied_elements.hpp"

#include <omp.h>

#include <algorithm>
#include <type_traits>
#include <vector>

#include "kselect/types.hpp"  // KSELECT_FOR_EACH_KEY_TYPE
#include "plan/key_traits.hpp"

namespace kselect::cpu {
namespace {

/// Below this many elements one thread does both passes (a parallel region costs more).
constexpr std::int64_t parallel_min = std::int64_t{1} << 20;

}  // namespace

template <class T>
void tied_elements(const T* values, std::int64_t n, T like, const std::int64_t* positions, std::int64_t count,
                   T* out, int num_threads) {
  if (count <= 0) return;
  using traits = plan::key_traits<T>;
  using K = plan::key_t<T>;
  const K key = traits::to_key(like);
  const int threads = num_threads > 0 ? num_threads : omp_get_max_threads();
  const std::int64_t chunks = n >= parallel_min ? std::max(1, threads) : 1;
  const auto chunk_begin = [&](std::int64_t c) { return n / chunks * c + std::min(c, n % chunks); };

  // 1. Per chunk: keys below `key` and keys equal to it.
  std::vector<std::int64_t> below(static_cast<std::size_t>(chunks)), equal(static_cast<std::size_t>(chunks));
#pragma omp parallel for num_threads(threads) schedule(static, 1) if (chunks > 1)
  for (std::int64_t c = 0; c < chunks; ++c) {
    std::int64_t b = 0, e = 0;
    for (std::int64_t i = chunk_begin(c), end = chunk_begin(c + 1); i < end; ++i) {
      const K k = traits::to_key(values[i]);
      b += k < key;
      e += k == key;
    }
    below[static_cast<std::size_t>(c)] = b;
    equal[static_cast<std::size_t>(c)] = e;
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
