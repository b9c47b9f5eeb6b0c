#include "cpu/sample_select.hpp"

#include <omp.h>

#include <algorithm>
#include <bit>
#include <limits>
#include <memory>
#include <span>
#include <utility>
#include <vector>

#include "cpu/classifier.hpp"
#include "cpu/parallel.hpp"
#include "plan/buckets.hpp"
#include "kselect/types.hpp"  // KSELECT_FOR_EACH_KEY_TYPE
#include "plan/key_traits.hpp"

namespace kselect::cpu {
namespace {

std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// Where a level reads its keys: the caller's values (level 0, mapped on the fly) ...
template <class T>
struct value_source {
  const T* data;
  plan::key_t<T> operator[](std::int64_t i) const { return plan::key_traits<T>::to_key(data[i]); }
};
// ... or a buffer of keys copied by the level above.
template <class K>
struct key_source {
  const K* data;
  K operator[](std::int64_t i) const { return data[i]; }
};

struct run_context {
  const tuning& cfg;
  int threads;  ///< threads for parallel levels (>= 1)
};

// First index of chunk c when n is cut into `chunks` near-equal chunks.
std::int64_t chunk_begin(std::int64_t n, std::int64_t chunks, std::int64_t c) {
  return n / chunks * c + std::min(c, n % chunks);
}

// Splitters for a level of n keys holding `num_ranks` target ranks.
int splitter_count(std::int64_t n, std::size_t num_ranks, const tuning& cfg) {
  std::int64_t want = cfg.single_rank_splitters;
  if (num_ranks > 1) {
    const auto buckets = std::bit_ceil(static_cast<std::uint64_t>(num_ranks) *
                                       static_cast<std::uint64_t>(cfg.buckets_per_rank));
    want = std::min<std::int64_t>(
        std::max<std::int64_t>(static_cast<std::int64_t>(buckets) - 1, cfg.single_rank_splitters),
        cfg.max_splitters);
  }
  // Small levels: the sample (oversampling per bucket) stays at most a quarter of n.
  const std::int64_t cap = std::max<std::int64_t>(1, n / (4 * std::int64_t{cfg.oversampling}));
  return static_cast<int>(std::max<std::int64_t>(1, std::min(want, cap)));
}

// Sorted distinct splitters: evenly spaced order statistics of a random sample
// (with replacement). Every splitter is a key of the level, so each range bucket
// misses at least one key and the recursion always shrinks.
template <class K, class Src>
std::vector<K> draw_splitters(const Src& src, std::int64_t n, int m, int oversampling,
                              std::uint64_t salt) {
  const std::int64_t s = std::int64_t{m + 1} * oversampling;
  std::vector<K> sample(static_cast<std::size_t>(s));
  for (std::int64_t i = 0; i < s; ++i)
    sample[i] = src[static_cast<std::int64_t>(splitmix64(salt + static_cast<std::uint64_t>(i)) %
                                              static_cast<std::uint64_t>(n))];
  std::sort(sample.begin(), sample.end());
  std::vector<K> splitters;
  splitters.reserve(static_cast<std::size_t>(m));
  for (std::int64_t j = 1; j <= m; ++j) {
    const K v = sample[static_cast<std::size_t>(j * s / (m + 1))];
    if (splitters.empty() || splitters.back() != v) splitters.push_back(v);
  }
  return splitters;
}

// Base case (and the depth guard): sort the level's keys.
template <class K, class Src>
void solve_by_sorting(const Src& src, std::int64_t n, std::span<const std::int64_t> ranks, K* out) {
  std::vector<K> keys(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) keys[i] = src[i];
  if (ranks.size() == 1) {
    std::nth_element(keys.begin(), keys.begin() + ranks[0], keys.end());
  } else {
    std::sort(keys.begin(), keys.end());
  }
  for (std::size_t r = 0; r < ranks.size(); ++r) out[r] = keys[static_cast<std::size_t>(ranks[r])];
}

// The keys of range bucket 2i, splitters[i-1] < key < splitters[i], as the closed
// interval [first, last]; contains() is one unsigned comparison.
template <class K>
struct interval {
  K first, last;
  bool contains(K key) const { return static_cast<K>(key - first) <= static_cast<K>(last - first); }
};

template <class K>
interval<K> bucket_interval(const std::vector<K>& splitters, int bucket) {
  const auto i = static_cast<std::size_t>(bucket / 2);
  // A range bucket holding a rank is not empty, so first <= last.
  return {i > 0 ? static_cast<K>(splitters[i - 1] + 1) : K{0},
          i < splitters.size() ? static_cast<K>(splitters[i] - 1) : std::numeric_limits<K>::max()};
}

// The range buckets a level copies, seen through a reduced splitter set that holds
// only their boundaries: classifying against it tells whether a key is copied and
// where, in log2(2 * targets) comparisons instead of log2(splitters) (two boundaries,
// one or two comparisons, when a single rank is wanted).
template <class K>
struct extraction {
  std::vector<K> bounds;       ///< sorted distinct boundaries of the copied buckets
  std::vector<int> target_of;  ///< per bucket of `bounds`: index of the copied bucket, or -1
};

template <class K>
extraction<K> plan_extraction(const std::vector<K>& splitters,
                              std::span<const plan::bucket_ranks> targets) {
  extraction<K> x;
  const int m = static_cast<int>(splitters.size());
  std::vector<std::pair<int, int>> reduced;  // (bucket of `bounds`, target)
  for (std::size_t j = 0; j < targets.size(); ++j) {
    const int i = targets[j].bucket / 2;  // range bucket 2i holds splitters[i-1] < key < splitters[i]
    if (i > 0 && (x.bounds.empty() || x.bounds.back() != splitters[i - 1]))
      x.bounds.push_back(splitters[i - 1]);
    // Targets come in bucket order, so the lower boundary (if any) is bounds.back().
    reduced.emplace_back(2 * static_cast<int>(x.bounds.size()), static_cast<int>(j));
    if (i < m) x.bounds.push_back(splitters[i]);
  }
  x.target_of.assign(static_cast<std::size_t>(plan::num_buckets(static_cast<int>(x.bounds.size()))), -1);
  for (const auto& [bucket, target] : reduced) x.target_of[static_cast<std::size_t>(bucket)] = target;
  return x;
}

template <class K, class Src>
void solve(const Src& src, std::int64_t n, std::span<const std::int64_t> ranks, K* out,
           const run_context& ctx, int depth, bool parallel) {
  const tuning& cfg = ctx.cfg;
  if (n <= cfg.base_case || depth >= cfg.max_depth) {
    solve_by_sorting(src, n, ranks, out);
    return;
  }

  // 1. Splitters.
  const std::uint64_t salt =
      cfg.seed ^ splitmix64(static_cast<std::uint64_t>(depth) << 48 ^ static_cast<std::uint64_t>(n));
  const std::vector<K> splitters =
      draw_splitters<K>(src, n, splitter_count(n, ranks.size(), cfg), cfg.oversampling, salt);
  const tree_classifier<K> tree(splitters);
  const int nb = tree.num_buckets();

  // 2. Count per chunk, then sum. Each chunk has its own counters, so the copy below
  // knows where each chunk writes without atomics.
  const bool split = parallel && ctx.threads > 1 && n >= cfg.parallel_min;
  // More chunks than threads, handed out dynamically: a thread the OS preempts then
  // delays the level by one chunk, not by its whole share.
  const std::int64_t chunks =
      split ? std::clamp<std::int64_t>(n / std::max<std::int64_t>(1, cfg.parallel_min / 4), ctx.threads,
                                       std::int64_t{ctx.threads} * cfg.chunks_per_thread)
            : 1;
  const int threads = split ? ctx.threads : 1;
  std::vector<std::uint64_t> counts(static_cast<std::size_t>(chunks * nb), 0);
  parallel_for(chunks, threads, [&](std::int64_t c) {
    std::uint64_t* const cnt = counts.data() + c * nb;
    const std::int64_t end = chunk_begin(n, chunks, c + 1);
    classify_range(src, chunk_begin(n, chunks, c), end, tree, [cnt](K, int b) { ++cnt[b]; });
  });
  std::vector<std::uint64_t> totals(counts.begin(), counts.begin() + nb);
  for (std::int64_t c = 1; c < chunks; ++c)
    for (int b = 0; b < nb; ++b) totals[b] += counts[c * nb + b];

  // 3. Buckets holding ranks; equality buckets answer at once.
  std::vector<plan::bucket_ranks> targets;
  for (const plan::bucket_ranks& g : plan::locate_ranks(totals, ranks)) {
    if (plan::is_equality_bucket(g.bucket)) {
      std::fill(out + g.first_rank, out + g.end_rank, splitters[g.bucket / 2]);
    } else {
      targets.push_back(g);
    }
  }
  if (targets.empty()) return;

  // 4. Copy the target buckets, bucket after bucket, each chunk to its own slice.
  const auto num_targets = static_cast<std::int64_t>(targets.size());
  std::vector<std::int64_t> base(targets.size());
  std::vector<std::int64_t> cursor(static_cast<std::size_t>(chunks * num_targets));
  std::int64_t copied = 0;
  for (std::int64_t j = 0; j < num_targets; ++j) {
    base[j] = copied;
    for (std::int64_t c = 0; c < chunks; ++c) {
      cursor[c * num_targets + j] = copied;
      copied += static_cast<std::int64_t>(counts[c * nb + targets[j].bucket]);
    }
  }
  // Uninitialised on purpose: every slot is written by the copy.
  const auto buffer = std::make_unique_for_overwrite<K[]>(static_cast<std::size_t>(copied));
  K* const buf = buffer.get();
  if (num_targets == 1) {
    // One bucket (the usual case for one rank): a range test, no classification.
    const interval<K> in = bucket_interval(splitters, targets[0].bucket);
    parallel_for(chunks, threads, [&](std::int64_t c) {
      std::int64_t cur = cursor[static_cast<std::size_t>(c)];
      const std::int64_t end = chunk_begin(n, chunks, c + 1);
      for (std::int64_t i = chunk_begin(n, chunks, c); i < end; ++i) {
        const K key = src[i];
        if (in.contains(key)) buf[cur++] = key;
      }
    });
  } else {
    const extraction<K> x = plan_extraction(splitters, targets);
    const tree_classifier<K> reduced(x.bounds);
    const int* const target_of = x.target_of.data();
    parallel_for(chunks, threads, [&](std::int64_t c) {
      std::int64_t* const cur = cursor.data() + c * num_targets;
      const std::int64_t end = chunk_begin(n, chunks, c + 1);
      classify_range(src, chunk_begin(n, chunks, c), end, reduced, [&](K key, int b) {
        const int j = target_of[b];
        if (j >= 0) buf[cur[j]++] = key;
      });
    });
  }

  // 5. Recurse into each copied bucket with ranks relative to it.
  auto recurse = [&](std::int64_t j, bool sub_parallel) {
    const plan::bucket_ranks& g = targets[static_cast<std::size_t>(j)];
    std::vector<std::int64_t> sub_ranks(ranks.begin() + g.first_rank, ranks.begin() + g.end_rank);
    for (std::int64_t& r : sub_ranks) r -= g.offset;
    solve(key_source<K>{buf + base[j]}, g.size, std::span<const std::int64_t>(sub_ranks),
          out + g.first_rank, ctx, depth + 1, sub_parallel);
  };
  std::vector<std::int64_t> small;  // run one per thread
  std::int64_t small_keys = 0;
  for (std::int64_t j = 0; j < num_targets; ++j) {
    if (parallel && targets[j].size >= cfg.parallel_min) {
      recurse(j, true);  // large: all threads inside
    } else {
      small.push_back(j);
      small_keys += targets[j].size;
    }
  }
  // A parallel region only pays off with enough work (and idle OpenMP threads spin).
  const bool spread = parallel && small_keys >= cfg.parallel_min;
  parallel_for(static_cast<std::int64_t>(small.size()), spread ? ctx.threads : 1,
               [&](std::int64_t s) { recurse(small[static_cast<std::size_t>(s)], false); });
}

}  // namespace

template <class T>
void sample_select(const T* values, std::int64_t n, const std::int64_t* ranks,
                   std::int64_t num_ranks, T* out, int num_threads, const tuning& cfg) {
  if (num_ranks <= 0) return;
  using K = plan::key_t<T>;
  const int threads = num_threads > 0 ? num_threads : omp_get_max_threads();
  std::vector<K> keys(static_cast<std::size_t>(num_ranks));
  solve<K>(value_source<T>{values}, n,
           std::span<const std::int64_t>(ranks, static_cast<std::size_t>(num_ranks)), keys.data(),
           run_context{cfg, std::max(1, threads)}, 0, threads > 1 && n >= cfg.parallel_min);
  for (std::int64_t i = 0; i < num_ranks; ++i) out[i] = plan::key_traits<T>::from_key(keys[i]);
}

#define KSELECT_INSTANTIATE(T)                                                                 \
  template void sample_select<T>(const T*, std::int64_t, const std::int64_t*, std::int64_t, T*, \
                                 int, const tuning&);
KSELECT_FOR_EACH_KEY_TYPE(KSELECT_INSTANTIATE)
#undef KSELECT_INSTANTIATE

}  // namespace kselect::cpu
