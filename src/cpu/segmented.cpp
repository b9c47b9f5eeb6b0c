// The segmented CPU backend (cpu/segmented.hpp): which thread answers which segment,
// and each operation's answer from the selections of cpu/segment_select.hpp.
#include "cpu/segmented.hpp"

#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <span>
#include <vector>

#include "core/key_traits.hpp"
#include "core/quantile_math.hpp"
#include "core/ranks.hpp"
#include "core/segments.hpp"
#include "cpu/parallel.hpp"
#include "cpu/segment_select.hpp"

namespace kselect::cpu {
namespace {

// Short segments are dealt to threads in chunks of consecutive segments, so that a
// batch of millions of tiny segments costs one scheduling step per chunk, not per
// segment. A chunk holds at least chunk_min_work (values, plus per_segment_work per
// segment for its fixed cost), and there are about chunks_per_thread chunks per
// thread where the batch is large enough: dynamic scheduling evens out the
// lengths of ragged segments.
constexpr std::int64_t chunk_min_work = std::int64_t{1} << 14;
constexpr std::int64_t per_segment_work = 16;
constexpr std::int64_t chunks_per_thread = 8;

/// Chunk c is the short segments among [starts[c], starts[c + 1]); `big` lists the
/// segments of at least big_segment_min values, which run apart.
struct segment_plan {
  std::vector<std::int64_t> starts;
  std::vector<std::int64_t> big;
};

segment_plan plan_segments(const segments& segs, int threads) {
  const std::int64_t m = segs.count;
  segment_plan plan;
  // Computed twice rather than stored: m may be as large as n.
  const auto length = [&](std::int64_t i) { return core::bounds_of(i, segs.offsets, segs.row_length).length(); };
  const auto work = [&](std::int64_t i) {
    const std::int64_t len = length(i);
    return (len >= big_segment_min ? 0 : len) + per_segment_work;
  };
  std::int64_t total = 0;
  for (std::int64_t i = 0; i < m; ++i) {
    total += work(i);
    if (length(i) >= big_segment_min) plan.big.push_back(i);
  }
  const std::int64_t target = std::max(chunk_min_work, total / (std::int64_t{threads} * chunks_per_thread));
  plan.starts.push_back(0);
  std::int64_t filled = 0;
  for (std::int64_t i = 0; i < m; ++i) {
    filled += work(i);
    if (filled >= target) {
      plan.starts.push_back(i + 1);
      filled = 0;
    }
  }
  if (plan.starts.back() != m) plan.starts.push_back(m);
  return plan;
}

/// body(i, segment, length, threads, scratch) for every segment i: the short ones in
/// parallel chunks, one thread each, then the big ones in order, each with every thread.
template <class T, class Body>
void for_each_segment(const T* values, const segments& segs, int num_threads, Body&& body) {
  const int threads = std::max(1, num_threads > 0 ? num_threads : omp_get_max_threads());
  const segment_plan plan = plan_segments(segs, threads);
  const auto chunks = static_cast<std::int64_t>(plan.starts.size()) - 1;
  parallel_for(chunks, threads, [&](std::int64_t c) {
    segment_scratch<T> s;
    for (std::int64_t i = plan.starts[static_cast<std::size_t>(c)]; i < plan.starts[static_cast<std::size_t>(c) + 1];
         ++i) {
      const core::segment_bounds b = core::bounds_of(i, segs.offsets, segs.row_length);
      if (b.length() < big_segment_min) body(i, values + b.begin, b.length(), 1, s);
    }
  });
  segment_scratch<T> s;
  for (const std::int64_t i : plan.big) {
    const core::segment_bounds b = core::bounds_of(i, segs.offsets, segs.row_length);
    body(i, values + b.begin, b.length(), threads, s);
  }
}

}  // namespace

template <class T>
void segmented_select(const T* values, const segments& segs, std::int64_t k, const std::int64_t* ks, T* out,
                      int num_threads) {
  for_each_segment(values, segs, num_threads,
                   [&](std::int64_t i, const T* seg, std::int64_t len, int threads, segment_scratch<T>& s) {
                     const std::int64_t rank = ks ? ks[i] : k;
                     core::key_t<T> key{};
                     select_segment_keys(seg, len, std::span<const std::int64_t>(&rank, 1), &key, threads, s);
                     out[i] = core::key_traits<T>::from_key(key);
                   });
}

template <class T>
void segmented_multiselect(const T* values, const segments& segs, const std::int64_t* ranks,
                           std::int64_t num_ranks, T* out, int num_threads) {
  if (num_ranks == 0) return;
  // Every rank was checked against every segment; here only sorted and made unique.
  const core::rank_set set = core::normalize_ranks(std::span<const std::int64_t>(ranks, num_ranks),
                                                   std::numeric_limits<std::int64_t>::max());
  const auto r = static_cast<std::size_t>(num_ranks);
  for_each_segment(values, segs, num_threads,
                   [&](std::int64_t i, const T* seg, std::int64_t len, int threads, segment_scratch<T>& s) {
                     s.found.resize(set.sorted.size());
                     select_segment_keys(seg, len, std::span<const std::int64_t>(set.sorted), s.found.data(),
                                         threads, s);
                     T* row = out + static_cast<std::size_t>(i) * r;
                     for (std::size_t j = 0; j < r; ++j)
                       row[j] = core::key_traits<T>::from_key(s.found[static_cast<std::size_t>(set.slot[j])]);
                   });
}

namespace {

/// segmented_quantile's body; numpy_median: the one q is 0.5 with method linear, and
/// its neighbours are combined as numpy.median does (core::median_of) instead of lerped.
template <class T>
void quantiles_of_segments(const T* values, const segments& segs, const double* qs, std::int64_t num_qs,
                           quantile_method method, bool ignore_nan, bool numpy_median, quantile_value_t<T>* out,
                           int num_threads) {
  using R = quantile_value_t<T>;
  using traits = core::key_traits<T>;
  if (num_qs == 0) return;
  const auto r = static_cast<std::size_t>(num_qs);
  for_each_segment(values, segs, num_threads, [&](std::int64_t i, const T* seg, std::int64_t len, int threads,
                                                  segment_scratch<T>& s) {
    R* row = out + static_cast<std::size_t>(i) * r;
    const auto answer_nan = [&] { std::fill(row, row + r, std::numeric_limits<R>::quiet_NaN()); };
    // NumPy: nanquantile leaves the NaNs out (they order last, so the ranks below
    // `valid` are those of the other values), and an empty remainder answers NaN.
    const std::int64_t valid = ignore_nan ? len - count_segment_nans(seg, len, threads) : len;
    if (valid == 0) return answer_nan();
    s.ranks.clear();
    for (std::size_t j = 0; j < r; ++j) {
      const core::quantile_point p = core::quantile_point_of(valid, qs[j], method);
      s.ranks.push_back(p.lo);
      s.ranks.push_back(p.hi);
    }
    // quantile: one NaN makes every quantile NaN, and there is one exactly when the
    // largest key is NaN: that rank is selected with the others (no pass of its own).
    const bool check_nan = is_floating_key_v<T> && !ignore_nan;
    if (check_nan) s.ranks.push_back(len - 1);
    std::sort(s.ranks.begin(), s.ranks.end());
    s.ranks.erase(std::unique(s.ranks.begin(), s.ranks.end()), s.ranks.end());
    s.found.resize(s.ranks.size());
    select_segment_keys(seg, len, std::span<const std::int64_t>(s.ranks), s.found.data(), threads, s);
    if constexpr (is_floating_key_v<T>)
      if (check_nan && s.found.back() == traits::nan_key) return answer_nan();
    const auto value_of_rank = [&](std::int64_t rank) {
      const auto at = std::lower_bound(s.ranks.begin(), s.ranks.end(), rank) - s.ranks.begin();
      return core::arithmetic_value(traits::from_key(s.found[static_cast<std::size_t>(at)]));
    };
    for (std::size_t j = 0; j < r; ++j) {
      const core::quantile_point p = core::quantile_point_of(valid, qs[j], method);
      const auto a = value_of_rank(p.lo), b = value_of_rank(p.hi);
      row[j] = static_cast<R>(numpy_median ? core::median_of(valid, a, b) : core::combine(p, a, b));
    }
  });
}

}  // namespace

template <class T>
void segmented_quantile(const T* values, const segments& segs, const double* qs, std::int64_t num_qs,
                        quantile_method method, bool ignore_nan, quantile_value_t<T>* out, int num_threads) {
  quantiles_of_segments(values, segs, qs, num_qs, method, ignore_nan, false, out, num_threads);
}

template <class T>
void segmented_median(const T* values, const segments& segs, quantile_value_t<T>* out, int num_threads) {
  const double half = 0.5;
  quantiles_of_segments(values, segs, &half, 1, quantile_method::linear, false, true, out, num_threads);
}

template <class T>
void segmented_topk(const T* values, const segments& segs, std::int64_t k, bool largest, bool sorted,
                    T* out_values, std::int64_t* out_indices, int num_threads) {
  if (k == 0) return;
  const T padding = core::topk_padding<T>(largest);
  for_each_segment(values, segs, num_threads,
                   [&](std::int64_t i, const T* seg, std::int64_t len, int threads, segment_scratch<T>& s) {
                     T* row_values = out_values + i * k;
                     std::int64_t* row_indices = out_indices ? out_indices + i * k : nullptr;
                     const std::int64_t taken = std::min(k, len);
                     topk_of_segment(seg, len, taken, largest, sorted, row_values, row_indices, threads, s);
                     std::fill(row_values + taken, row_values + k, padding);
                     if (row_indices) std::fill(row_indices + taken, row_indices + k, std::int64_t{-1});
                   });
}

#define KSELECT_INSTANTIATE(T)                                                                                \
  template void segmented_select<T>(const T*, const segments&, std::int64_t, const std::int64_t*, T*, int);  \
  template void segmented_multiselect<T>(const T*, const segments&, const std::int64_t*, std::int64_t, T*,   \
                                         int);                                                               \
  template void segmented_quantile<T>(const T*, const segments&, const double*, std::int64_t, quantile_method, \
                                      bool, quantile_value_t<T>*, int);                                      \
  template void segmented_median<T>(const T*, const segments&, quantile_value_t<T>*, int);                   \
  template void segmented_topk<T>(const T*, const segments&, std::int64_t, bool, bool, T*, std::int64_t*, int);
KSELECT_FOR_EACH_SEGMENTED_KEY_TYPE(KSELECT_INSTANTIATE)
#undef KSELECT_INSTANTIATE

}  // namespace kselect::cpu
