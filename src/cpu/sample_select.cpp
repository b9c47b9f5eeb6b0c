#include "cpu/sample_select.hpp"

#include <omp.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <span>
#include <stdexcept>
#include <type_traits>
#include <vector>

#include "cpu/kernels.hpp"
#include "cpu/level_keys.hpp"
#include "cpu/parallel.hpp"
#include "cpu/search_tree.hpp"
#include "cpu/window_plan.hpp"
#include "kselect/types.hpp"  // KSELECT_FOR_EACH_KEY_TYPE
#include "core/approx.hpp"    // value_of_pre_key
#include "core/buckets.hpp"
#include "core/key_traits.hpp"
#include "core/sampling.hpp"

namespace kselect::cpu {
namespace {

template <class K>
struct kernel_set {
  std::int64_t (*window)(const kernels::window_job<K>&);
  void (*count)(const kernels::count_job<K>&);
  void (*copy)(const kernels::copy_job<K>&);
};

template <class K>
kernel_set<K> kernels_for(isa which) {
  switch (resolve_isa(which)) {
#if defined(__x86_64__)
    case isa::avx512:
      return {&kernels::avx512::window_pass, &kernels::avx512::count_cells, &kernels::avx512::copy_buckets};
    case isa::avx2:
      return {&kernels::avx2::window_pass, &kernels::avx2::count_cells, &kernels::avx2::copy_buckets};
#endif
    default:
      return {&kernels::scalar::window_pass, &kernels::scalar::count_cells, &kernels::scalar::copy_buckets};
  }
}

// First index of chunk c when n is cut into `chunks` near-equal chunks.
std::int64_t chunk_begin(std::int64_t n, std::int64_t chunks, std::int64_t c) {
  return n / chunks * c + std::min(c, n % chunks);
}

// Uninitialised storage for keys that a pass writes (zeroing it would cost a write
// of its own).
template <class K>
struct key_buffer {
  std::unique_ptr<K[]> data;
  std::int64_t capacity = 0;

  key_buffer() = default;  // no storage: data is null
  explicit key_buffer(std::int64_t n)
      : data(std::make_unique_for_overwrite<K[]>(static_cast<std::size_t>(n))), capacity(n) {}
};

// The copy of one window: one buffer with a region per chunk, sized from the sample,
// so that no buffer is allocated (and page-faulted) after the pass and the chunks'
// keys become contiguous by moving them down in place. A chunk whose region fills
// continues in a buffer of its own (spill).
template <class K>
struct window_copy_of {
  key_buffer<K> shared;
  std::vector<std::int64_t> region;  ///< [chunks + 1] region starts; empty: not copied
  std::vector<key_buffer<K>> spill;  ///< [chunks]
  std::vector<std::int64_t> used;    ///< [chunks] keys written

  /// The window's `size` keys, contiguous.
  const K* gather(std::int64_t size) {
    const auto chunks = static_cast<std::int64_t>(used.size());
    bool spilled = false;
    for (const key_buffer<K>& b : spill) spilled = spilled || b.data != nullptr;
    if (!spilled) {
      std::int64_t at = used[0];
      for (std::int64_t c = 1; c < chunks; ++c) {
        std::memmove(shared.data.get() + at, shared.data.get() + region[static_cast<std::size_t>(c)],
                     static_cast<std::size_t>(used[static_cast<std::size_t>(c)]) * sizeof(K));
        at += used[static_cast<std::size_t>(c)];
      }
      if (at != size) throw std::logic_error("kselect: a window's copy does not match its count");
      return shared.data.get();
    }
    key_buffer<K> all(size);
    std::int64_t at = 0;
    for (std::int64_t c = 0; c < chunks; ++c) {
      const auto ci = static_cast<std::size_t>(c);
      const K* from = spill[ci].data ? spill[ci].data.get() : shared.data.get() + region[ci];
      if (at + used[ci] > size) throw std::logic_error("kselect: a window's copy does not match its count");
      std::memcpy(all.data.get() + at, from, static_cast<std::size_t>(used[ci]) * sizeof(K));
      at += used[ci];
    }
    if (at != size) throw std::logic_error("kselect: a window's copy does not match its count");
    shared = std::move(all);
    spill.clear();
    return shared.data.get();
  }
};

template <class K>
class selector {
  using window_copy = window_copy_of<K>;

 public:
  selector(const tuning& cfg, int threads) : cfg_(cfg), k_(kernels_for<K>(cfg.kernels)), threads_(threads) {}

  /// out[i] = the pre-key of rank ranks[i] among the level's n keys. `parallel`: the
  /// level may use all threads; `windows`: the window path may run (off where a
  /// window's copy kept more than half of its level: the bucket path then
  /// guarantees progress).
  void solve(level_keys<K> in, std::int64_t n, std::span<const std::int64_t> ranks, K* out, int depth, bool parallel,
             bool windows) {
    if (ranks.empty()) return;
    if (n <= cfg_.base_case || depth >= cfg_.max_depth) {
      solve_small(in, n, ranks, out);
      return;
    }
    const bool par = parallel && threads_ > 1 && n >= cfg_.parallel_min;
    if (windows && ranks.size() <= static_cast<std::size_t>(cfg_.max_windows) &&
        by_windows(in, n, ranks, out, depth, par))
      return;
    by_buckets(in, n, ranks, out, depth, par);
  }

 private:
  std::uint64_t salt(int depth, std::int64_t n, std::uint64_t path) const {
    return cfg_.seed ^ core::mix64(static_cast<std::uint64_t>(depth) << 48 ^ static_cast<std::uint64_t>(n) ^ path);
  }
  int run_length(std::int64_t n) const { return n >= cfg_.run_sampling_min ? static_cast<int>(64 / sizeof(K)) : 1; }
  std::int64_t chunks(std::int64_t n, bool par) const {
    if (!par) return 1;
    return std::clamp<std::int64_t>(n / std::max<std::int64_t>(1, cfg_.parallel_min / 4), threads_,
                                    std::int64_t{threads_} * cfg_.chunks_per_thread);
  }

  void solve_small(level_keys<K> in, std::int64_t n, std::span<const std::int64_t> ranks, K* out) const {
    std::vector<K> keys(static_cast<std::size_t>(n));
    if (in.x == kernels::xform::none) {
      std::memcpy(keys.data(), in.data, static_cast<std::size_t>(n) * sizeof(K));
    } else {
      for (std::int64_t i = 0; i < n; ++i) keys[static_cast<std::size_t>(i)] = in[i];
    }
    if (static_cast<std::int64_t>(ranks.size()) * 16 > n) {
      std::sort(keys.begin(), keys.end());
    } else {
      select_positions(keys.data(), n, ranks);
    }
    for (std::size_t r = 0; r < ranks.size(); ++r) out[r] = keys[static_cast<std::size_t>(ranks[r])];
  }

  // ---- window path -------------------------------------------------------------

  bool by_windows(level_keys<K> in, std::int64_t n, std::span<const std::int64_t> ranks, K* out, int depth, bool par) {
    const int g = run_length(n);
    const double want = cfg_.sample_scale * std::pow(static_cast<double>(n), 2.0 / 3.0);
    const std::int64_t keys =
        std::min<std::int64_t>(std::clamp<std::int64_t>(std::llround(want), cfg_.sample_min, cfg_.sample_max), n / 8);
    const std::int64_t runs = std::max<std::int64_t>(1, keys / g);
    std::vector<K> sample = sample_runs(in, n, runs, g, salt(depth, n, 1));
    const std::vector<key_window<K>> windows =
        plan_windows(sample, g, n, ranks, window_settings{cfg_.window_sigmas, cfg_.window_margin});
    double copy_fraction = 0;
    for (const key_window<K>& w : windows) copy_fraction += w.point() ? 0.0 : w.fraction;
    if (copy_fraction > cfg_.max_window_fraction || windows.size() > kernels::kMaxWindowBounds / 2) return false;

    // Boundaries lo, hi + 1 per window (an open top has no hi + 1: it is the last).
    const int num_windows = static_cast<int>(windows.size());
    std::vector<K> bounds;
    for (const key_window<K>& w : windows) {
      bounds.push_back(w.lo);
      if (w.hi != std::numeric_limits<K>::max()) bounds.push_back(static_cast<K>(w.hi + 1));
    }
    const int m = static_cast<int>(bounds.size());

    const std::int64_t C = chunks(n, par);
    std::vector<std::uint64_t> below(static_cast<std::size_t>(C * m), 0);
    std::vector<window_copy> copies(static_cast<std::size_t>(num_windows));
    for (int w = 0; w < num_windows; ++w) {
      if (windows[static_cast<std::size_t>(w)].point()) continue;  // counted, not copied
      window_copy& wc = copies[static_cast<std::size_t>(w)];
      wc.region.assign(static_cast<std::size_t>(C) + 1, 0);
      for (std::int64_t c = 0; c < C; ++c) {
        const double expect = static_cast<double>(chunk_begin(n, C, c + 1) - chunk_begin(n, C, c)) *
                              windows[static_cast<std::size_t>(w)].fraction;
        wc.region[static_cast<std::size_t>(c) + 1] = wc.region[static_cast<std::size_t>(c)] +
                                                     static_cast<std::int64_t>(expect * cfg_.window_capacity) +
                                                     cfg_.window_capacity_min + kernels::kWindowSlack;
      }
      wc.shared = key_buffer<K>(wc.region.back());
      wc.spill.resize(static_cast<std::size_t>(C));
      wc.used.assign(static_cast<std::size_t>(C), 0);
    }
    parallel_for(C, par ? threads_ : 1, [&](std::int64_t c) {
      const auto ci = static_cast<std::size_t>(c);
      const std::int64_t begin = chunk_begin(n, C, c), end = chunk_begin(n, C, c + 1);
      K* dst[kernels::kMaxWindowBounds / 2] = {};
      K* dst_end[kernels::kMaxWindowBounds / 2] = {};
      for (int w = 0; w < num_windows; ++w) {
        window_copy& wc = copies[static_cast<std::size_t>(w)];
        if (wc.region.empty()) continue;
        dst[w] = wc.shared.data.get() + wc.region[ci];
        dst_end[w] = wc.shared.data.get() + wc.region[ci + 1];
      }
      kernels::window_job<K> job{in.data, begin, end, in.x, bounds.data(), m, below.data() + c * m, dst, dst_end};
      for (;;) {
        job.begin = k_.window(job);
        if (job.begin >= end) break;
        // A region filled up: the chunk continues in a buffer of its own, doubled as
        // often as it fills.
        for (int w = 0; w < num_windows; ++w) {
          if (!dst[w] || dst_end[w] - dst[w] >= kernels::kWindowSlack) continue;
          window_copy& wc = copies[static_cast<std::size_t>(w)];
          key_buffer<K>& own = wc.spill[ci];
          const K* from = own.data ? own.data.get() : wc.shared.data.get() + wc.region[ci];
          const std::int64_t kept = dst[w] - from;
          key_buffer<K> bigger(2 * (dst_end[w] - from) + kernels::kWindowSlack);
          std::memcpy(bigger.data.get(), from, static_cast<std::size_t>(kept) * sizeof(K));
          own = std::move(bigger);
          dst[w] = own.data.get() + kept;
          dst_end[w] = own.data.get() + own.capacity;
        }
      }
      for (int w = 0; w < num_windows; ++w) {
        window_copy& wc = copies[static_cast<std::size_t>(w)];
        if (!dst[w]) continue;
        wc.used[ci] = dst[w] - (wc.spill[ci].data ? wc.spill[ci].data.get() : wc.shared.data.get() + wc.region[ci]);
      }
    });
    std::vector<std::uint64_t> total(static_cast<std::size_t>(m), 0);
    for (std::int64_t c = 0; c < C; ++c)
      for (int j = 0; j < m; ++j) total[static_cast<std::size_t>(j)] += below[static_cast<std::size_t>(c * m + j)];

    // Each rank to the window whose keys it falls among (windows and ranks both
    // ascend), or to the missed ones.
    std::vector<std::int64_t> missed;  // indices into ranks
    std::size_t r = 0;
    for (int w = 0; w < num_windows && r < ranks.size(); ++w) {
      const key_window<K>& win = windows[static_cast<std::size_t>(w)];
      const auto first = static_cast<std::int64_t>(total[static_cast<std::size_t>(2 * w)]);
      const std::int64_t last =
          2 * w + 1 < m ? static_cast<std::int64_t>(total[static_cast<std::size_t>(2 * w + 1)]) : n;
      for (; r < ranks.size() && ranks[r] < first; ++r) missed.push_back(static_cast<std::int64_t>(r));
      const std::size_t hit_begin = r;
      while (r < ranks.size() && ranks[r] < last) ++r;
      const std::size_t hit_end = r;
      if (hit_begin == hit_end) continue;
      if (win.point()) {  // every key inside equals lo
        std::fill(out + hit_begin, out + hit_end, win.lo);
        continue;
      }
      const std::int64_t size = last - first;
      const K* const keys = copies[static_cast<std::size_t>(w)].gather(size);
      std::vector<std::int64_t> sub(ranks.begin() + static_cast<std::ptrdiff_t>(hit_begin),
                                    ranks.begin() + static_cast<std::ptrdiff_t>(hit_end));
      for (std::int64_t& q : sub) q -= first;
      // A copy holding more than half its level turns the windows off below it: the
      // bucket path then guarantees that every level shrinks.
      solve(level_keys<K>{keys, kernels::xform::none}, size, sub, out + hit_begin, depth + 1, par, size <= n / 2);
      copies[static_cast<std::size_t>(w)] = window_copy();
    }
    for (; r < ranks.size(); ++r) missed.push_back(static_cast<std::int64_t>(r));
    if (!missed.empty()) {
      std::vector<std::int64_t> missed_ranks;
      for (const std::int64_t r : missed) missed_ranks.push_back(ranks[static_cast<std::size_t>(r)]);
      std::sort(missed_ranks.begin(), missed_ranks.end());
      std::vector<K> found(missed_ranks.size());
      copies.clear();
      by_buckets(in, n, missed_ranks, found.data(), depth, par);
      for (const std::int64_t r : missed) {
        const auto at = std::lower_bound(missed_ranks.begin(), missed_ranks.end(), ranks[static_cast<std::size_t>(r)]);
        out[r] = found[static_cast<std::size_t>(at - missed_ranks.begin())];
      }
    }
    return true;
  }

  // ---- bucket path -------------------------------------------------------------

  // Coarse boundaries from a sorted sample: `want` evenly spaced sample keys. A key
  // drawn at two neighbouring positions is heavy: it gets a bucket of its own,
  // [v, v + 1), whose ranks are answered without a copy. A lone boundary always
  // does, so that no bucket can hold the whole level.
  static std::vector<K> coarse_bounds(const std::vector<K>& sample, int want) {
    const auto s = static_cast<std::int64_t>(sample.size());
    std::vector<K> splitters;
    std::vector<bool> heavy;
    for (std::int64_t j = 1; j <= want; ++j) {
      const K v = sample[static_cast<std::size_t>(j * s / (want + 1))];
      if (!splitters.empty() && splitters.back() == v) {
        heavy.back() = true;
      } else {
        splitters.push_back(v);
        heavy.push_back(false);
      }
    }
    if (splitters.size() == 1) heavy[0] = true;
    std::vector<K> bounds;
    for (std::size_t i = 0; i < splitters.size(); ++i) {
      const K v = splitters[i];
      bounds.push_back(v);
      if (heavy[i] && v != std::numeric_limits<K>::max() && (i + 1 == splitters.size() || splitters[i + 1] != v + 1))
        bounds.push_back(static_cast<K>(v + 1));
    }
    return bounds;
  }

  void by_buckets(level_keys<K> in, std::int64_t n, std::span<const std::int64_t> ranks, K* out, int depth, bool par) {
    constexpr int coarse_slots = 1 << kernels::kCoarseLevels<K>;
    constexpr int fine_bits = kernels::kFineBits<K>;
    constexpr std::uint64_t last_fine = (std::uint64_t{1} << fine_bits) - 1;
    constexpr K top = std::numeric_limits<K>::max();
    const int g = run_length(n);
    const std::int64_t runs = std::max<std::int64_t>(1, std::min(cfg_.bucket_sample, n / 4) / g);
    std::vector<K> sample = sample_runs(in, n, runs, g, salt(depth, n, 2));
    std::sort(sample.begin(), sample.end());
    std::vector<K> bounds;
    for (int want = coarse_slots - 1;; want /= 2) {
      bounds = coarse_bounds(sample, want);
      if (bounds.size() < static_cast<std::size_t>(coarse_slots)) break;
    }
    const search_tree<K> tree{std::span<const K>(bounds)};
    const int m = static_cast<int>(bounds.size());

    // Each coarse bucket [first, last] is cut into up to 2^fine_bits cells of 2^shift
    // keys from `base`. The open ends start and stop at the sample's extremes (keys
    // beyond fall into the end cells), not at the key span's.
    std::vector<K> base(coarse_slots, 0), shift(coarse_slots, 0);
    auto first_of = [&](int j) { return j > 0 ? bounds[static_cast<std::size_t>(j - 1)] : K(0); };
    auto last_of = [&](int j) { return j < m ? static_cast<K>(bounds[static_cast<std::size_t>(j)] - 1) : top; };
    for (int j = 0; j <= m; ++j) {
      if (j == 0 && bounds[0] == 0) continue;  // bucket 0 is empty
      K lo = first_of(j), hi = last_of(j);
      if (j == 0) lo = std::min(std::max(lo, sample.front()), hi);
      if (j == m) hi = std::max(std::min(hi, sample.back()), lo);
      base[static_cast<std::size_t>(j)] = lo;
      shift[static_cast<std::size_t>(j)] =
          static_cast<K>(std::max(0, static_cast<int>(std::bit_width(static_cast<K>(hi - lo))) - fine_bits));
    }

    // Count pass.
    const std::int64_t C = chunks(n, par);
    const std::size_t cells = (static_cast<std::size_t>(m) + 1) << fine_bits;
    std::vector<std::uint64_t> counts(static_cast<std::size_t>(C) * cells, 0);
    parallel_for(C, par ? threads_ : 1, [&](std::int64_t c) {
      std::vector<std::uint32_t> scratch(4 * cells);
      const kernels::count_job<K> job{in.data,
                                      chunk_begin(n, C, c),
                                      chunk_begin(n, C, c + 1),
                                      in.x,
                                      tree.view(),
                                      base.data(),
                                      shift.data(),
                                      counts.data() + static_cast<std::size_t>(c) * cells,
                                      scratch.data()};
      k_.count(job);
    });
    std::vector<std::uint64_t> total(counts.begin(), counts.begin() + static_cast<std::ptrdiff_t>(cells));
    for (std::int64_t c = 1; c < C; ++c)
      for (std::size_t b = 0; b < cells; ++b) total[b] += counts[static_cast<std::size_t>(c) * cells + b];

    // Cells holding ranks; those of one key value answer at once.
    struct target {
      core::bucket_ranks where;
      K lo, hi;  // the cell's keys, inclusive
    };
    std::vector<target> targets;
    for (const core::bucket_ranks& g_ : core::locate_ranks(total, ranks)) {
      const int j = g_.bucket >> fine_bits;
      const std::uint64_t f = static_cast<std::uint64_t>(g_.bucket) & last_fine;
      const K b = base[static_cast<std::size_t>(j)];
      const auto sh = static_cast<unsigned>(shift[static_cast<std::size_t>(j)]);
      const K last = last_of(j);
      // Cell f starts at b + f 2^sh (cell 0 at the bucket's first key) and ends
      // before the next cell (the last cell at the bucket's last key).
      auto start = [&](std::uint64_t step) {
        return static_cast<unsigned __int128>(b) + (static_cast<unsigned __int128>(step) << sh);
      };
      const K lo = f == 0 ? first_of(j) : static_cast<K>(std::min<unsigned __int128>(start(f), last));
      const K hi = f == last_fine ? last : static_cast<K>(std::min<unsigned __int128>(start(f + 1) - 1, last));
      if (lo == hi) {
        std::fill(out + g_.first_rank, out + g_.end_rank, lo);
      } else {
        targets.push_back({g_, lo, hi});
      }
    }
    if (targets.empty()) return;

    // Copy pass: classify against the targets' boundaries alone (target j is the
    // odd bucket 2j + 1), each chunk into its own slice of each target's copy.
    std::vector<K> reduced;
    for (const target& t : targets) {
      reduced.push_back(t.lo);
      if (t.hi != std::numeric_limits<K>::max()) reduced.push_back(static_cast<K>(t.hi + 1));
    }
    const search_tree<K> copy_tree{std::span<const K>(reduced)};
    const auto T = static_cast<std::int64_t>(targets.size());
    std::vector<std::int64_t> offset(static_cast<std::size_t>(T));
    std::vector<std::int64_t> cursor(static_cast<std::size_t>(C * T));
    std::int64_t copied = 0;
    for (std::int64_t j = 0; j < T; ++j) {
      offset[static_cast<std::size_t>(j)] = copied;
      for (std::int64_t c = 0; c < C; ++c) {
        cursor[static_cast<std::size_t>(c * T + j)] = copied;
        copied += static_cast<std::int64_t>(
            counts[static_cast<std::size_t>(c) * cells +
                   static_cast<std::size_t>(targets[static_cast<std::size_t>(j)].where.bucket)]);
      }
    }
    const key_buffer<K> buf(copied);
    parallel_for(C, par ? threads_ : 1, [&](std::int64_t c) {
      std::vector<K*> dst(static_cast<std::size_t>(T));
      for (std::int64_t j = 0; j < T; ++j)
        dst[static_cast<std::size_t>(j)] = buf.data.get() + cursor[static_cast<std::size_t>(c * T + j)];
      const kernels::copy_job<K> job{in.data, chunk_begin(n, C, c), chunk_begin(n, C, c + 1),
                                     in.x,    copy_tree.view(),     dst.data()};
      k_.copy(job);
    });

    // Recurse into each copy with ranks relative to it: large ones with all threads
    // inside, small ones one per thread.
    auto recurse = [&](std::int64_t j, bool sub_parallel) {
      const core::bucket_ranks& g_ = targets[static_cast<std::size_t>(j)].where;
      std::vector<std::int64_t> sub(ranks.begin() + g_.first_rank, ranks.begin() + g_.end_rank);
      for (std::int64_t& r : sub) r -= g_.offset;
      solve(level_keys<K>{buf.data.get() + offset[static_cast<std::size_t>(j)], kernels::xform::none}, g_.size, sub,
            out + g_.first_rank, depth + 1, sub_parallel, true);
    };
    std::vector<std::int64_t> small;
    std::int64_t small_keys = 0;
    for (std::int64_t j = 0; j < T; ++j) {
      if (par && targets[static_cast<std::size_t>(j)].where.size >= cfg_.parallel_min) {
        recurse(j, true);
      } else {
        small.push_back(j);
        small_keys += targets[static_cast<std::size_t>(j)].where.size;
      }
    }
    const bool spread = par && small.size() > 1 && small_keys >= cfg_.parallel_min / 4;
    parallel_for(static_cast<std::int64_t>(small.size()), spread ? threads_ : 1,
                 [&](std::int64_t i) { recurse(small[static_cast<std::size_t>(i)], false); });
  }

  const tuning& cfg_;
  kernel_set<K> k_;
  int threads_;
};

}  // namespace

template <class T>
void sample_select(const T* values, std::int64_t n, const std::int64_t* ranks, std::int64_t num_ranks, T* out,
                   int num_threads, const tuning& cfg) {
  if (num_ranks <= 0) return;
  using K = core::key_t<T>;
  using traits = core::key_traits<T>;
  const int threads = std::max(1, num_threads > 0 ? num_threads : omp_get_max_threads());
  const kernels::xform x = std::is_floating_point_v<T> ? kernels::xform::float_bits
                           : std::is_signed_v<T>       ? kernels::xform::flip_sign
                                                       : kernels::xform::none;
  std::vector<K> keys(static_cast<std::size_t>(num_ranks));
  selector<K> sel(cfg, threads);
  sel.solve(level_keys<K>{reinterpret_cast<const K*>(values), x}, n,
            std::span<const std::int64_t>(ranks, static_cast<std::size_t>(num_ranks)), keys.data(), 0, threads > 1,
            true);
  for (std::int64_t i = 0; i < num_ranks; ++i)
    out[i] = traits::from_key(traits::to_key(core::value_of_pre_key<T>(keys[static_cast<std::size_t>(i)])));
}

#define KSELECT_INSTANTIATE(T) \
  template void sample_select<T>(const T*, std::int64_t, const std::int64_t*, std::int64_t, T*, int, const tuning&);
KSELECT_FOR_EACH_KEY_TYPE(KSELECT_INSTANTIATE)
#undef KSELECT_INSTANTIATE

}  // namespace kselect::cpu
