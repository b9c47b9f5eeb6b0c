// The pre-pass filter's test as pre-key intervals. The filter copies the keys of
// the selected bins (the bins holding ranks). Where the map has dense ranges, a
// key's bin costs a search in shared memory (core/bin_map.hpp), and the filter
// pays it for every key, though it usually copies a few bins: clustered keys keep
// one or two bins, the ranks in the other clusters being answered without a copy.
// Since bin_of is non-decreasing in the pre-key, a run of selected bins
// [b, e] is exactly the pre-keys [first_pre_key_of_bin(b), first_pre_key_of_bin(e + 1) - 1];
// with few runs the filter compares each key with a few bounds held in registers
// instead of finding its bin.
#pragma once

#include <cstdint>

#include "bin_map.hpp"
#include "hd.hpp"

namespace kselect::core {

/// Runs of selected bins the filter tests as intervals at most; more runs, or a
/// map without dense ranges (a key's bin is one shared-memory word), and the
/// filter tests bins.
inline constexpr int bin_filter_max_intervals = 8;

/// The selected bins as pre-key intervals: key x is selected exactly when
/// first[i] <= pre_key(x) <= last[i] for some i < count. count 0: test bins.
template <class K>
struct bin_intervals {
  std::uint32_t count;
  std::uint32_t unused;  ///< keeps the arrays aligned without padding
  K first[bin_filter_max_intervals];
  K last[bin_filter_max_intervals];
};

/// The smallest x in [lo, hi] with pred(x), where pred is monotone (false, then
/// true) and pred(hi) holds: a binary search. first_pre_key_of_bin's default
/// search; bin_reduce_kernel passes a warp's (32 probes a step).
struct binary_first_true {
  template <class K, class Pred>
  KSELECT_HD K operator()(K lo, K hi, Pred pred) const {
    while (lo < hi) {
      const K mid = static_cast<K>(lo + (hi - lo) / 2);
      if (pred(mid)) hi = mid; else lo = static_cast<K>(mid + 1);
    }
    return lo;
  }
};

/// Whether some pre-key has a bin of at least b, and if so the smallest one, in
/// `first`. A dense range's bin, and the bin just past a range's, start at a
/// pre-key the range gives (keys below a range have smaller bins, keys above it
/// larger ones); any other bin by a search over all pre-keys (bin_of is
/// non-decreasing): 32 or 64 calls of bin_of in a row with the binary search.
template <class K, class Search = binary_first_true>
KSELECT_HD bool first_pre_key_of_bin(const bin_map<K>& m, std::uint32_t b, K& first, Search search = {}) {
  const K top = static_cast<K>(~K(0));
  const int j = dense_range_at_or_below(m, b);
  if (j >= 0) {
    const std::uint32_t bins = dense_bins(m, static_cast<std::uint32_t>(j));
    const std::uint32_t t = b - m.dense_base[j];
    if (t < bins) {
      first = static_cast<K>(m.dense_first[j] + (static_cast<K>(t) << m.dense_shift[j]));
      return true;
    }
    if (t == bins) {
      first = static_cast<K>(m.dense_last[j] + 1);
      return m.dense_last[j] != top;
    }
  }
  if (bin_of(m, top) < b) return false;
  first = search(K(0), top, [&](K x) { return bin_of(m, x) >= b; });
  return true;
}

/// The largest pre-key whose bin is at most e: where a run of bins [b, e] ends.
template <class K, class Search = binary_first_true>
KSELECT_HD K last_pre_key_of_bin(const bin_map<K>& m, std::uint32_t e, Search search = {}) {
  K next = 0;
  return first_pre_key_of_bin(m, e + 1, next, search) ? static_cast<K>(next - 1) : static_cast<K>(~K(0));
}

/// Whether pre-key `pre` lies in one of the intervals (count > 0). The loop ends
/// at count, so that a key tests the runs there are, not all
/// bin_filter_max_intervals (measured: docs/performance.md).
template <class K>
KSELECT_HD bool in_bin_intervals(const bin_intervals<K>& iv, K pre) {
  bool in = false;
#ifdef __CUDA_ARCH__
#pragma unroll  // the bounds stay in registers
#endif
  for (int i = 0; i < bin_filter_max_intervals; ++i) {
    if (static_cast<std::uint32_t>(i) == iv.count) break;
    in |= pre >= iv.first[i] && pre <= iv.last[i];
  }
  return in;
}

/// The host's version of what bin_reduce_kernel computes: the intervals of the
/// selected bins (bitmap `selected`, a bit per bin of m) where m has dense ranges
/// and the bins form at most bin_filter_max_intervals runs; else count 0.
template <class K>
bin_intervals<K> selected_bin_intervals(const bin_map<K>& m, const std::uint32_t* selected) {
  bin_intervals<K> iv{};
  if (m.num_dense == 0) return iv;
  const auto is_selected = [&](std::uint32_t b) { return b < m.num_bins && ((selected[b / 32] >> (b % 32)) & 1u); };
  std::uint32_t runs = 0;
  for (std::uint32_t b = 0; b < m.num_bins; ++b) {
    if (!is_selected(b) || (b > 0 && is_selected(b - 1))) continue;
    std::uint32_t e = b;
    while (is_selected(e + 1)) ++e;
    if (runs == bin_filter_max_intervals) return bin_intervals<K>{};
    first_pre_key_of_bin(m, b, iv.first[runs]);  // a selected bin holds keys: b has a first pre-key
    iv.last[runs] = last_pre_key_of_bin(m, e);
    ++runs;
  }
  iv.count = runs;
  return iv;
}

}  // namespace kselect::core
