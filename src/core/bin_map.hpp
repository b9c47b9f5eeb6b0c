// A cheap, monotone map from pre-keys (key_traits::pre_key) to histogram bins,
// shaped by a sorted sample: the multiselection pre-pass counts every key into
// up to 8192 bins with it, then copies only the bins that hold target ranks.
//
// The range between the sample's smallest and largest pre-key is cut into 2048
// equal radix slots; each slot gets a number of bins proportional to the sample
// keys it holds, spread linearly over the slot. A slot is one 32-bit word (first
// bin | bins << 16), so a key costs a clamp, a shift, one shared-memory word and
// a multiply. Why so lean: the passes are bound by shared-memory wavefronts, not
// by instructions, so wider slots (with their own sample spans, or read as one
// 16-byte vector) made the passes slower (measured on the H100: docs/performance.md; the design:
// docs/algorithms.md, "Many ranks: a pre-pass that shrinks the input"). It gives up per-slot spans: a cluster much
// narrower than a slot gets few bins (the sample then predicts a large copy and
// the caller runs the general driver).
//
// Any monotone map gives exact counts (bins are ordered pre-key intervals); the
// sample only makes the bins small where the keys are. Pre-keys refine the key
// order (-0.0 before +0.0, NaNs apart), so ties of the key order may straddle
// bins; selection stays exact because the sorted order of the selected bins' keys
// is still the keys' sorted order.
#pragma once

#include <algorithm>
#include <cstdint>

#include "hd.hpp"
#include "int_math.hpp"

namespace kselect::core {

inline constexpr int bin_map_slot_bits = 11;
inline constexpr int bin_map_slots = 1 << bin_map_slot_bits;  // 2048
/// Bins of a map (its histogram: 32 KiB of 32-bit shared counters per block).
inline constexpr std::uint32_t bin_map_max_bins = 8192;

template <class K>
struct bin_map {
  K low;                      ///< smallest sample pre-key; smaller keys count as it
  K high;                     ///< largest sample pre-key; larger keys count as it
  std::uint32_t shift;        ///< slot of a key: (pre - low) >> shift
  std::uint32_t frac_right;   ///< 16-bit position in the slot: ((d >> frac_right) << frac_left) & 0xffff
  std::uint32_t frac_left;
  std::uint32_t num_bins;     ///< every bin_of is below this
  std::uint32_t slot[bin_map_slots];  ///< first bin (low 16 bits) | bins in the slot (high 16 bits)
};

/// Sets low, high and the shifts: the smallest shift that puts [low, high] in the slots.
template <class K>
KSELECT_HD void set_bin_map_range(bin_map<K>& m, K low, K high) {
  m.low = low;
  m.high = high;
  const int width = bit_width_of(static_cast<K>(high - low));
  m.shift = static_cast<std::uint32_t>(width > bin_map_slot_bits ? width - bin_map_slot_bits : 0);
  m.frac_right = m.shift >= 16 ? m.shift - 16 : 0;
  m.frac_left = m.shift >= 16 ? 0 : 16 - m.shift;
}

/// Slot of a pre-key (clamped to the sample's range).
template <class K>
KSELECT_HD K bin_map_offset(const bin_map<K>& m, K pre) {
  return static_cast<K>((pre < m.low ? m.low : pre > m.high ? m.high : pre) - m.low);
}

/// Sample keys per knot of the interpolated sample distribution (see below).
inline constexpr int bin_map_knot_stride = 4;

/// Position of pre-key b among `count` sorted sample pre-keys, in units of 2^-16
/// sample positions: 0 at or below the first, (count - 1) << 16 above the last,
/// and in between linear between knots, every bin_map_knot_stride-th sample key
/// (and the last). Knots rather than every sample key: bins are narrower than
/// the gaps between sample keys, so a bin's keys vary as the gap it sits in
/// (exponentially); across 4 gaps they vary 4x less. Integer arithmetic, so the
/// host and the device agree to the bit.
template <class K>
KSELECT_HD std::uint64_t interpolated_position(const K* sorted, int count, K b) {
  constexpr int stride = bin_map_knot_stride;
  const int knots = (count - 1 + stride - 1) / stride + 1;  // knot i: sample key min(i * stride, count - 1)
  const auto at = [&](int i) { return i * stride < count - 1 ? i * stride : count - 1; };
  const auto j = static_cast<int>(partition_point(knots, [&](std::int64_t i) { return sorted[at(int(i))] < b; }));
  if (j == 0) return 0;
  if (j == knots) return static_cast<std::uint64_t>(count - 1) << 16;
  // knot j - 1 < b <= knot j: the fraction (b - a) / (c - a) of the knots' span
  // of sample positions, with both terms cut to 48 bits first so that the
  // shifted numerator fits.
  std::uint64_t e = static_cast<std::uint64_t>(b - sorted[at(j - 1)]);
  std::uint64_t d = static_cast<std::uint64_t>(sorted[at(j)] - sorted[at(j - 1)]);
  const int excess = bit_width_of(d) - 48;
  if (excess > 0) e >>= excess, d >>= excess;
  const auto span = static_cast<std::uint64_t>(at(j) - at(j - 1));
  return (static_cast<std::uint64_t>(at(j - 1)) << 16) + (e << 16) / d * span;
}

/// Bins (of `target`) before slot s when bins follow the interpolated sample
/// positions: a slot between two far-apart knots gets its share of the bins they
/// span (counting whole sample keys per slot would leave runs of empty slots
/// sharing one overfull bin).
template <class K>
KSELECT_HD std::uint64_t bins_before_slot(const bin_map<K>& m, const K* sorted, int count, int s,
                                          std::uint32_t target) {
  if (count < 2) return 0;
  const std::uint64_t end = static_cast<std::uint64_t>(count - 1) << 16;
  // Slot s starts at low + (s << shift); past high, every bin is before it. (s <
  // slots cannot overflow the shift: (high - low) >> shift < slots.)
  if (s >= bin_map_slots || (static_cast<K>(s) << m.shift) > static_cast<K>(m.high - m.low)) return target;
  const std::uint64_t at = interpolated_position(sorted, count, static_cast<K>(m.low + (static_cast<K>(s) << m.shift)));
  return target * at / end;
}

/// Bins of slot s, from the bins before it and before the next: at most as many
/// as the slot has distinct 16-bit positions (the caller sums the capped counts).
KSELECT_HD std::uint32_t slot_bin_count(std::uint64_t before, std::uint64_t before_next, std::uint32_t shift) {
  const std::uint64_t cap = std::uint64_t(1) << (shift < 16 ? shift : 16);
  const std::uint64_t want = before_next - before;
  return static_cast<std::uint32_t>(want < cap ? want : cap);
}

KSELECT_HD std::uint32_t slot_word(std::uint32_t first_bin, std::uint32_t bins) {
  return first_bin | (bins << 16);
}

/// Bin of a pre-key: non-decreasing in `pre`, always < num_bins. A slot with no
/// bins shares the first bin of the next slot.
template <class K>
KSELECT_HD std::uint32_t bin_of(const bin_map<K>& m, K pre) {
  const K d = bin_map_offset(m, pre);
  const std::uint32_t w = m.slot[static_cast<std::uint32_t>(d >> m.shift)];
  const std::uint32_t frac = static_cast<std::uint32_t>((d >> m.frac_right) << m.frac_left) & 0xffffu;
  return (w & 0xffffu) + ((frac * (w >> 16)) >> 16);
}

/// Builds the map from `count` (> 0) sorted sample pre-keys for at most `target`
/// (< bin_map_max_bins) bins. The device builds the same map in one block
/// (bin_map_kernel) with these helpers and a block scan.
template <class K>
bin_map<K> build_bin_map(const K* sorted_pre, int count, std::uint32_t target) {
  bin_map<K> m{};
  set_bin_map_range<K>(m, sorted_pre[0], sorted_pre[count - 1]);
  std::uint32_t first = 0;
  std::uint64_t before = 0;
  for (int s = 0; s < bin_map_slots; ++s) {
    const std::uint64_t before_next = bins_before_slot(m, sorted_pre, count, s + 1, target);
    const std::uint32_t bins = slot_bin_count(before, before_next, m.shift);
    m.slot[s] = slot_word(first, bins);
    first += bins;
    before = before_next;
  }
  m.num_bins = first + 1;
  return m;
}

/// Sample index where rank `rank` of n keys is expected among `sample_count` sorted sample keys.
KSELECT_HD std::int64_t expected_sample_index(std::int64_t rank, std::int64_t n, std::int64_t sample_count) {
  // rank < 2^40 and sample_count <= 2^12 keep the product below 2^52.
  const std::int64_t i = rank * sample_count / n;
  return i < sample_count ? i : sample_count - 1;
}

/// Entries of sorted `a` (count entries) equal to v.
template <class A, class V>
KSELECT_HD std::int64_t count_equal_sorted(const A* a, std::int64_t count, V v) {
  return partition_point(count, [&](std::int64_t i) { return a[i] <= v; }) -
         partition_point(count, [&](std::int64_t i) { return a[i] < v; });
}

/// Rank k's share of the predicted copy: the sample keys in the bin of its
/// expected sample position, or 0 when rank k - 1 predicted the same bin (ranks
/// are sorted, so a bin's ranks are adjacent). `bins_of_sample`: the sorted
/// sample keys' bins (non-decreasing).
template <class B>
KSELECT_HD std::int64_t predicted_sample_keys(const B* bins_of_sample, std::int64_t sample_count,
                                              const std::int64_t* ranks, std::int64_t k, std::int64_t n) {
  const B bin = bins_of_sample[expected_sample_index(ranks[k], n, sample_count)];
  if (k > 0 && bins_of_sample[expected_sample_index(ranks[k - 1], n, sample_count)] == bin) return 0;
  return count_equal_sorted(bins_of_sample, sample_count, bin);
}

}  // namespace kselect::core
