// cpu::range_select (src/cpu/cpu_select.hpp): the elements at positions [lo, hi) of
// the stable sort by key, found without sorting the input:
//   1. cpu::multiselect finds the boundary keys, those at positions lo and hi - 1;
//   2. one counting sweep over index-ordered chunks counts, per chunk, the elements
//      ordered before the first boundary key, equal to either boundary key, and
//      strictly between them;
//   3. prefix sums over the chunks tell each chunk where its chosen elements go and
//      which ordinal (by index) its first boundary-key elements have, so the
//      writing sweep runs in parallel and still emits the elements in index order;
//   4. sorted output: one stable radix sort of the hi - lo chosen elements by key.
// Every element strictly between the boundary keys is chosen. Of the elements equal
// to a boundary key, the stable sort's tie rule (ascending index, in both
// directions) picks those with the right ordinals among their equals.
#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "cpu/cpu_select.hpp"
#include "cpu/radix_sort.hpp"
#include "kselect/types.hpp"  // KSELECT_FOR_EACH_KEY_TYPE
#include "core/key_traits.hpp"
#include "core/range_plan.hpp"

namespace kselect::cpu {
namespace {

/// Below this many keys one chunk (one thread) does the sweeps: a parallel region
/// costs more than it saves (the same threshold as count_nan).
constexpr std::int64_t parallel_min = std::int64_t{1} << 20;

/// The order the range is taken in, as an unsigned key compared ascending:
/// key_traits' key, or its complement for descending order (so every step below is
/// written once, for ascending keys).
template <class T>
struct order_key {
  using K = core::key_t<T>;
  bool descending;
  K operator()(T x) const {
    const K k = core::key_traits<T>::to_key(x);
    return descending ? static_cast<K>(~k) : k;
  }
};

/// Per-chunk element counts by where their key lies relative to the boundary keys
/// `first` (position lo) and `last` (position hi - 1), first <= last.
struct chunk_counts {
  std::int64_t before = 0;   ///< key < first
  std::int64_t first = 0;    ///< key == first
  std::int64_t between = 0;  ///< first < key < last
  std::int64_t last = 0;     ///< key == last, when last != first
};

/// Number of integers in [a, a + len) ∩ [lo, hi).
std::int64_t overlap(std::int64_t a, std::int64_t len, std::int64_t lo, std::int64_t hi) {
  return std::max<std::int64_t>(0, std::min(a + len, hi) - std::max(a, lo));
}

}  // namespace

template <class T>
void range_select(const T* values, std::int64_t n, std::int64_t lo, std::int64_t hi, bool descending,
                  bool sorted, T* out_values, std::int64_t* out_indices, int num_threads) {
  if (hi <= lo) return;
  using K = core::key_t<T>;
  const order_key<T> key{descending};
  const int threads = num_threads > 0 ? num_threads : omp_get_max_threads();

  // 1. Boundary keys, by multiselection (core::range_boundary_ranks).
  const core::boundary_ranks b = core::range_boundary_ranks(n, lo, hi, descending);
  T bounds[2];
  multiselect(values, n, b.ranks, b.count, bounds, num_threads);
  const K first = key(bounds[b.lo_slot]);
  const K last = key(bounds[b.hi_slot]);
  const bool one_key = first == last;

  // 2. Counts per chunk; the chunks are contiguous index ranges in index order.
  const std::int64_t chunks = n >= parallel_min ? std::min<std::int64_t>(threads, n / (parallel_min / 4)) : 1;
  const auto chunk_begin = [&](std::int64_t c) { return n / chunks * c + std::min(c, n % chunks); };
  std::vector<chunk_counts> counts(static_cast<std::size_t>(chunks));
#pragma omp parallel for num_threads(threads) schedule(static, 1) if (chunks > 1)
  for (std::int64_t c = 0; c < chunks; ++c) {
    chunk_counts cc;
    for (std::int64_t i = chunk_begin(c), end = chunk_begin(c + 1); i < end; ++i) {
      const K k = key(values[i]);
      cc.before += k < first;
      cc.first += k == first;
      cc.between += k > first && k < last;
      cc.last += !one_key && k == last;
    }
    counts[static_cast<std::size_t>(c)] = cc;
  }

  // 3. Which boundary-key elements are chosen, by ordinal among their equals (in
  //    index order): of the `first` key, [skip_first, end_first); of the `last` key,
  //    [0, take_last). Then, per chunk, the ordinal of its first such elements and
  //    its first output position.
  std::int64_t before = 0, equal_first = 0, between = 0;
  for (const chunk_counts& cc : counts) before += cc.before, equal_first += cc.first, between += cc.between;
  const std::int64_t skip_first = lo - before;
  const std::int64_t take_last = one_key ? 0 : hi - (before + equal_first + between);
  const std::int64_t end_first = one_key ? hi - before : equal_first;
  struct chunk_start {
    std::int64_t first = 0, last = 0, out = 0;
  };
  std::vector<chunk_start> starts(static_cast<std::size_t>(chunks));
  chunk_start s;
  for (std::int64_t c = 0; c < chunks; ++c) {
    const chunk_counts& cc = counts[static_cast<std::size_t>(c)];
    starts[static_cast<std::size_t>(c)] = s;
    s.out += overlap(s.first, cc.first, skip_first, end_first) + cc.between +
             overlap(s.last, cc.last, 0, take_last);
    s.first += cc.first;
    s.last += cc.last;
  }

  // 4. The writing sweep, in index order within each chunk.
#pragma omp parallel for num_threads(threads) schedule(static, 1) if (chunks > 1)
  for (std::int64_t c = 0; c < chunks; ++c) {
    chunk_start at = starts[static_cast<std::size_t>(c)];
    for (std::int64_t i = chunk_begin(c), end = chunk_begin(c + 1); i < end; ++i) {
      const K k = key(values[i]);
      if (k < first || k > last) continue;
      bool take = true;
      if (k == first) {
        take = at.first >= skip_first && at.first < end_first;
        ++at.first;
      } else if (k == last) {
        take = at.last < take_last;
        ++at.last;
      }
      if (!take) continue;
      out_values[at.out] = values[i];
      if (out_indices) out_indices[at.out] = i;
      ++at.out;
    }
  }

  // 5. Sorted: (key, index) order. The output is in index order, so a stable sort by
  //    key is that order.
  if (sorted) stable_radix_sort<T, K>(out_values, out_indices, hi - lo, key, threads);
}

#define KSELECT_INSTANTIATE(T)                                                                \
  template void range_select<T>(const T*, std::int64_t, std::int64_t, std::int64_t, bool, bool, \
                                T*, std::int64_t*, int);
KSELECT_FOR_EACH_KEY_TYPE(KSELECT_INSTANTIATE)
#undef KSELECT_INSTANTIATE

}  // namespace kselect::cpu
