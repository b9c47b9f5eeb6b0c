// Selection inside one segment, for the segmented CPU backend (cpu/segmented.cpp).
// Two ways, by the segment's length:
//  - short segments (one thread each, many segments at once): the segment's order
//    keys are copied to a per-thread scratch and answered with std::nth_element
//    (few ranks) or std::sort (many), top-k with (key, index) pairs, so ties go to
//    the smaller index;
//  - big segments (every thread on one segment): the single-array backend
//    (cpu::multiselect, cpu::range_select), or, for the 16-bit keys it lacks,
//    counting (cpu/key_counts.hpp).
// Every answer is exact, and top-k deterministic: the same as the stable sort.
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "core/key_traits.hpp"
#include "cpu/cpu_select.hpp"
#include "cpu/key_counts.hpp"
#include "cpu/radix_sort.hpp"
#include "kselect/types.hpp"

namespace kselect::cpu {

/// Segments at least this long are answered one at a time with every thread;
/// shorter ones by one thread each, many at once (where a parallel region over one
/// segment would cost more than it saves; the single-array backend's threshold).
inline constexpr std::int64_t big_segment_min = std::int64_t{1} << 20;

/// One thread's buffers, kept from segment to segment.
template <class T>
struct segment_scratch {
  using K = core::key_t<T>;
  std::vector<K> keys;
  std::vector<std::pair<K, std::int64_t>> ranked;  ///< (order key, local index)
  std::vector<T> values;
  std::vector<std::int64_t> ranks;
  std::vector<K> found;
};

/// Up to this many ranks a short segment is answered by nth_element per rank, more by one sort.
inline constexpr std::size_t nth_element_max_ranks = 4;

/// out[i] = the key of rank ranks[i] of seg[0..len); ranks ascending, unique, in [0, len).
template <class T>
void select_segment_keys(const T* seg, std::int64_t len, std::span<const std::int64_t> ranks,
                         core::key_t<T>* out, int threads, segment_scratch<T>& s) {
  using traits = core::key_traits<T>;
  if (ranks.empty()) return;
  if (len >= big_segment_min) {
    if constexpr (is_half_key_v<T>) {
      keys_at_ranks16(count_keys16(seg, len, false, threads), ranks, out);
    } else {
      s.values.assign(ranks.size(), T{});
      multiselect(seg, len, ranks.data(), static_cast<std::int64_t>(ranks.size()), s.values.data(), threads);
      for (std::size_t i = 0; i < ranks.size(); ++i) out[i] = traits::to_key(s.values[i]);
    }
    return;
  }
  s.keys.resize(static_cast<std::size_t>(len));
  for (std::int64_t i = 0; i < len; ++i) s.keys[static_cast<std::size_t>(i)] = traits::to_key(seg[i]);
  const auto first = s.keys.begin();
  if (ranks.size() <= nth_element_max_ranks) {
    // Each rank's nth_element only reorders what lies right of the previous rank.
    auto lo = first;
    for (const std::int64_t r : ranks) {
      std::nth_element(lo, first + r, s.keys.end());
      lo = first + r + 1;
    }
  } else {
    std::sort(first, s.keys.end());
  }
  for (std::size_t i = 0; i < ranks.size(); ++i) out[i] = s.keys[static_cast<std::size_t>(ranks[i])];
}

/// Number of NaNs in seg[0..len) (0 for integers).
template <class T>
std::int64_t count_segment_nans(const T* seg, std::int64_t len, int threads) {
  if constexpr (!is_floating_key_v<T>) {
    (void)seg, (void)len, (void)threads;
    return 0;
  } else {
    using traits = core::key_traits<T>;
    std::int64_t nans = 0;
#pragma omp parallel for num_threads(threads) reduction(+ : nans) if (threads > 1 && len >= big_segment_min)
    for (std::int64_t i = 0; i < len; ++i) nans += traits::to_key(seg[i]) == traits::nan_key ? 1 : 0;
    return nans;
  }
}

namespace detail {

/// Big 16-bit segments: the k-th order key by counting, then one sweep in index order
/// takes every element before it and the first of its ties.
template <class T>
void topk_by_counting(const T* seg, std::int64_t len, std::int64_t k, bool largest, bool sorted, T* out_values,
                      std::int64_t* out_indices, int threads) {
  const key16_threshold t = threshold16(count_keys16(seg, len, largest, threads), k);
  std::int64_t ties = 0, taken = 0;
  for (std::int64_t i = 0; i < len && taken < k; ++i) {
    const std::uint16_t key = order_key16(seg[i], largest);
    if (key < t.key || (key == t.key && ties++ < t.ties)) {
      out_values[taken] = seg[i];
      if (out_indices) out_indices[taken] = i;
      ++taken;
    }
  }
  // Stable: the index order of equal keys survives, so the result is in (key, index) order.
  if (sorted)
    stable_radix_sort<T, std::uint16_t>(out_values, out_indices, k,
                                        [largest](T x) { return order_key16(x, largest); }, threads);
}

}  // namespace detail

/// The k smallest (largest: largest) of seg[0..len), 0 <= k <= len, as the stable
/// sort's first k: unsorted in index order, sorted in (key, index) order. Values are
/// the input's bit for bit; indices (if not null) local to the segment.
template <class T>
void topk_of_segment(const T* seg, std::int64_t len, std::int64_t k, bool largest, bool sorted, T* out_values,
                     std::int64_t* out_indices, int threads, segment_scratch<T>& s) {
  using K = core::key_t<T>;
  if (k == 0) return;
  if (len >= big_segment_min) {
    if constexpr (is_half_key_v<T>) {
      detail::topk_by_counting(seg, len, k, largest, sorted, out_values, out_indices, threads);
    } else {
      range_select(seg, len, 0, k, largest, sorted, out_values, out_indices, threads);
    }
    return;
  }
  // (order key, index) pairs are unique, so the k smallest pairs are the stable sort's first k.
  s.ranked.resize(static_cast<std::size_t>(len));
  for (std::int64_t i = 0; i < len; ++i) {
    const K key = core::key_traits<T>::to_key(seg[i]);
    s.ranked[static_cast<std::size_t>(i)] = {largest ? static_cast<K>(~key) : key, i};
  }
  const auto first = s.ranked.begin(), last = first + k;
  if (k < len) std::nth_element(first, last - 1, s.ranked.end());
  if (sorted) {
    std::sort(first, last);
  } else {
    std::sort(first, last, [](const auto& a, const auto& b) { return a.second < b.second; });
  }
  for (std::int64_t j = 0; j < k; ++j) {
    const std::int64_t i = s.ranked[static_cast<std::size_t>(j)].second;
    out_values[j] = seg[i];
    if (out_indices) out_indices[j] = i;
  }
}

}  // namespace kselect::cpu
