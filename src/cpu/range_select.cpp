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
#include "core/range_chunks.hpp"
#include "core/range_plan.hpp"

namespace kselect::cpu {
namespace {

/// Below this many keys one chunk (one thread) does the sweeps: a parallel region
/// costs more than it saves (the same threshold as count_nan).
constexpr std::int64_t parallel_min = std::int64_t{1} << 20;

}  // namespace

template <class T>
void range_select(const T* values, std::int64_t n, std::int64_t lo, std::int64_t hi, bool descending,
                  bool sorted, T* out_values, std::int64_t* out_indices, int num_threads) {
  if (hi <= lo) return;
  using K = core::key_t<T>;
  const core::range_order_key<T> key{descending};
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
  std::vector<core::range_chunk_counts> counts(static_cast<std::size_t>(chunks));
#pragma omp parallel for num_threads(threads) schedule(static, 1) if (chunks > 1)
  for (std::int64_t c = 0; c < chunks; ++c)
    counts[static_cast<std::size_t>(c)] =
        core::count_range_chunk(values, chunk_begin(c), chunk_begin(c + 1), first, last, key);

  // 3. Which boundary-key elements are chosen, and where each chunk's go
  //    (core/range_chunks.hpp).
  const core::range_chunk_take plan = core::plan_range_chunks(counts, lo, hi, one_key);

  // 4. The writing sweep, in index order within each chunk.
#pragma omp parallel for num_threads(threads) schedule(static, 1) if (chunks > 1)
  for (std::int64_t c = 0; c < chunks; ++c)
    core::take_range_chunk(values, chunk_begin(c), chunk_begin(c + 1), first, last, key, plan,
                           plan.starts[static_cast<std::size_t>(c)], out_values, out_indices);

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
