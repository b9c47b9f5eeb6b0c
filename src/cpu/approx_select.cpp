// CPU approximate multiselection (cpu::approx_multiselect): the CUDA backend's
// algorithm with OpenMP, from the same shared rules (core/approx.hpp: sample,
// splitters, nearest splitter; core/approx_lookup.hpp: the classifier), so that
// for one seed both backends choose the same splitters and give the same answers.
//   1. draw core::approx_sample_size keys at core::sample_position, sort them as
//      pre-keys (values recoverable bit for bit), take the candidates of
//      core::approx_choose_candidates (histogram mode: buckets - 1 evenly spread
//      over the sample; window mode: packed around the ranks' predicted sample
//      positions), one splitter per distinct key;
//   2. one counting pass: every key's bucket from the lookup table (window
//      mode: keys outside the window, below the first boundary or at or above
//      the last, are only counted), counted per input chunk, then summed;
//   3. each rank's nearest splitter; ranks it leaves too far are selected exactly
//      (cpu::multiselect) in one call.
#include <algorithm>
#include <stdexcept>
#include <vector>

#include <omp.h>

#include "cpu/cpu_select.hpp"
#include "cpu/parallel.hpp"
#include "cpu/sample_select.hpp"
#include "kselect/types.hpp"  // KSELECT_FOR_EACH_KEY_TYPE
#include "core/approx.hpp"
#include "core/approx_lookup.hpp"
#include "core/key_traits.hpp"
#include "core/sampling.hpp"

namespace kselect::cpu {
namespace {

/// The splitters of one call: their values as the sample read them, and their
/// pre-key boundaries (core::approx_splitter_bounds), ascending.
template <class T>
struct splitter_set {
  std::vector<T> values;
  std::vector<core::key_t<T>> boundaries;
};

template <class T>
splitter_set<T> choose_splitters(const T* values, std::int64_t n, const core::approx_candidates& cand,
                                 std::uint64_t seed) {
  using K = core::key_t<T>;
  using traits = core::key_traits<T>;
  constexpr int s = core::approx_sample_size;
  std::vector<K> sample(s);
  for (int j = 0; j < s; ++j) sample[static_cast<std::size_t>(j)] = traits::pre_key(values[core::sample_position(j, s, n, seed)]);
  std::sort(sample.begin(), sample.end());
  splitter_set<T> out;
  K previous{};
  for (int j = 0; j < cand.count; ++j) {
    const T v = core::value_of_pre_key<T>(sample[static_cast<std::size_t>(core::approx_candidate_at(cand, j))]);
    const K key = traits::to_key(v);
    if (core::approx_keeps_candidate<K>(j, key, previous)) {
      out.values.push_back(v);
      const core::splitter_bounds<T> b = core::approx_splitter_bounds<T>(key);
      out.boundaries.push_back(b.first);
      if (b.has_end) out.boundaries.push_back(b.end);
    }
    previous = key;
  }
  return out;
}

/// Keys per bucket (2m + 1 buckets), counted per chunk of the input, then summed.
/// Window mode (`window`): keys before the first boundary or at or after the
/// last are counted into the first and the last bucket without the table
/// (their buckets, 0 and the number of boundaries, are what it would give).
template <class T>
std::vector<std::uint64_t> count_buckets(const T* values, std::int64_t n, const splitter_set<T>& sp, int budget,
                                         bool window, int threads) {
  using K = core::key_t<T>;
  const core::approx_lookup_table<K> table = core::build_approx_lookup<K>(sp.boundaries, budget);
  const K window_lo = sp.boundaries.front(), window_end = sp.boundaries.back();
  const auto num_boundaries = static_cast<std::uint32_t>(sp.boundaries.size());
  const std::size_t nb = 2 * sp.values.size() + 1;
  const tuning cfg{};  // the exact backend's parallel grain
  const std::int64_t chunks =
      threads > 1 && n >= cfg.parallel_min
          ? std::clamp<std::int64_t>(n / (cfg.parallel_min / 4), threads, std::int64_t{threads} * cfg.chunks_per_thread)
          : 1;
  std::vector<std::uint64_t> counts(static_cast<std::size_t>(chunks) * nb, 0);
  const core::approx_classifier<K> classify =
      core::approx_classifier_of<K>(table.params, table.fine.data(), sp.boundaries.data());
  auto count_chunk = [&]<bool Wrap>(std::int64_t c) {
    std::uint64_t* const cnt = counts.data() + static_cast<std::size_t>(c) * nb;
    const std::int64_t begin = n / chunks * c + std::min(c, n % chunks);
    const std::int64_t end = n / chunks * (c + 1) + std::min(c + 1, n % chunks);
    if (!window) {
      for (std::int64_t i = begin; i < end; ++i)
        ++cnt[classify.template bucket<Wrap>(core::key_traits<T>::pre_key(values[i]))];
      return;
    }
    std::uint64_t below = 0, above = 0;
    for (std::int64_t i = begin; i < end; ++i) {
      const K p = core::key_traits<T>::pre_key(values[i]);
      if (p < window_lo) ++below;
      else if (p >= window_end) ++above;
      else ++cnt[classify.template bucket<Wrap>(p)];
    }
    cnt[0] += below;
    cnt[num_boundaries] += above;
  };
  parallel_for(chunks, chunks > 1 ? threads : 1, [&](std::int64_t c) {
    if (classify.wrap) count_chunk.template operator()<true>(c);
    else count_chunk.template operator()<false>(c);
  });
  for (std::int64_t c = 1; c < chunks; ++c)
    for (std::size_t b = 0; b < nb; ++b) counts[b] += counts[static_cast<std::size_t>(c) * nb + b];
  counts.resize(nb);
  return counts;
}

}  // namespace

template <class T>
void approx_multiselect(const T* values, std::int64_t n, const std::int64_t* ranks, std::int64_t num_ranks,
                        std::int64_t max_rank_error, T* out, std::int64_t* out_ranks, int buckets, int num_threads,
                        bool allow_window) {
  const std::string problem = core::approx_argument_error(n, num_ranks, max_rank_error, buckets);
  if (!problem.empty()) throw std::invalid_argument(problem);
  if (num_ranks == 0) return;
  if (max_rank_error == 0) {  // exact: the counting pass could not help most ranks
    multiselect(values, n, ranks, num_ranks, out, num_threads);
    std::copy(ranks, ranks + num_ranks, out_ranks);
    return;
  }
  const int threads = std::max(1, num_threads > 0 ? num_threads : omp_get_max_threads());
  const core::approx_candidates cand = core::approx_choose_candidates(
      n, std::span<const std::int64_t>(ranks, static_cast<std::size_t>(num_ranks)), max_rank_error, buckets,
      allow_window);
  const splitter_set<T> sp = choose_splitters(values, n, cand, kselect::detail::default_seed);
  const std::vector<std::uint64_t> counts =
      count_buckets(values, n, sp, core::approx_table_budget(cand), cand.window, threads);
  const std::vector<std::int64_t> below = core::approx_keys_below(counts);
  const auto m = static_cast<std::int64_t>(sp.values.size());
  std::vector<std::uint8_t> needs_exact(static_cast<std::size_t>(num_ranks), 0);
  for (std::int64_t i = 0; i < num_ranks; ++i) {
    const core::approx_choice c = core::nearest_splitter(
        ranks[i], m, [&](std::int64_t j) { return below[static_cast<std::size_t>(j)]; },
        [&](std::int64_t j) { return static_cast<std::int64_t>(counts[static_cast<std::size_t>(2 * j + 1)]); });
    if (core::approx_needs_exact(c, max_rank_error)) {
      needs_exact[static_cast<std::size_t>(i)] = 1;
      continue;
    }
    out[i] = sp.values[static_cast<std::size_t>(c.splitter)];
    out_ranks[i] = c.rank;
  }
  const core::approx_fallback fb = core::collect_fallback(
      needs_exact, std::span<const std::int64_t>(ranks, static_cast<std::size_t>(num_ranks)));
  if (fb.index.empty()) return;
  std::vector<T> exact(fb.ranks.size());
  multiselect(values, n, fb.ranks.data(), static_cast<std::int64_t>(fb.ranks.size()), exact.data(), num_threads);
  for (std::size_t i = 0; i < fb.index.size(); ++i) {
    out[fb.index[i]] = exact[i];
    out_ranks[fb.index[i]] = fb.ranks[i];
  }
}

#define KSELECT_INSTANTIATE(T)                                                                              \
  template void approx_multiselect<T>(const T*, std::int64_t, const std::int64_t*, std::int64_t, std::int64_t, \
                                      T*, std::int64_t*, int, int, bool);
KSELECT_FOR_EACH_KEY_TYPE(KSELECT_INSTANTIATE)
#undef KSELECT_INSTANTIATE

}  // namespace kselect::cpu
