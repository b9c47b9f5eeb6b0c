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
// docs/algorithms.md, "Many ranks: a pre-pass that shrinks the input").
//
// Dense ranges. The slots give up per-slot spans, so a value the sample repeats
// (few distinct values, all keys equal) or a cluster much narrower than a slot
// lands in one bin, and a rank there would copy most of the input. Where a rank's
// expected bin holds more than dense_min_sample_keys sample keys, the map gets a
// dense range instead: the pre-keys from that bin's first sample key to its last
// (widened to every pre-key of the last key), cut into bins of their own, equal in
// width, up to 127 ranges (a 7-step search per key, which a key equal to the thread's
// previous one skips in the count pass; a map without ranges skips it).
// A range that holds one key (a repeated value), or whose bins are one pre-key
// wide (a cluster of few distinct values), answers its ranks without a copy
// (bin_first_pre_key). Keys outside every range keep their slot bin, moved up by
// the bins of the ranges below them, so the map stays monotone.
//
// Hints. A byte per slot says how many dense ranges start below the
// slot and whether one starts inside it, so that a key finds its range among the
// few starting in its slot instead of among all of them (bin_of_hinted: the count
// pass on 16 distinct values and on clustered keys was bound by the search's
// shared-memory loads). Where no slot holds the starts of two ranges (few
// distinct values: each value a range of its own slot) that is one compare; where
// a slot holds up to 7 (clusters closer than a slot is wide) a search of 3 steps
// instead of 7; more, and the map takes no hints (hint_steps 0). The count kernel
// branches once per block on hint_steps, not per key. (8-byte keys' maps, with
// their 2 KiB of hints, leave the passes that copy the map to shared memory as
// little as 32 bytes of the 48 KiB of static shared memory: the filter's stage
// flushes sooner for them, bin_extract_flush_at.)
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
#include "key_traits.hpp"

namespace kselect::core {

inline constexpr int bin_map_slot_bits = 11;
inline constexpr int bin_map_slots = 1 << bin_map_slot_bits;  // 2048
/// Bins of a map (its histogram: 32 KiB of 32-bit shared counters per block).
inline constexpr std::uint32_t bin_map_max_bins = 8192;

/// Dense ranges a map holds at most (a key finds its range in 7 search steps,
/// fewer with fewer ranges: 101 percentiles of 64 tight clusters take 63).
inline constexpr int bin_map_max_dense = 127;
/// A rank's expected bin holding more sample keys than this gets a dense range
/// (of 4096: the bin would hold ~n/256 keys, 32 times a bin's share).
inline constexpr int dense_min_sample_keys = 16;
/// Bins the dense ranges share at most; the slots keep the rest.
inline constexpr std::uint32_t dense_bins_budget = 6144;
/// A dense range gets up to this many bins per sample key it holds (fewer where
/// the ranges would pass the budget, or its pre-keys are fewer).
inline constexpr int dense_bins_per_sample_key = 8;

/// Field order: no padding, so a map compares bytewise (host against device).
/// Bins fit 16 bits (bin_map_max_bins), shifts 8.
template <class K>
struct bin_map {
  K low;                      ///< smallest sample pre-key; smaller keys count as it
  K high;                     ///< largest sample pre-key; larger keys count as it
  K dense_first[bin_map_max_dense + 1];  ///< dense range j: pre-keys [first, last], sorted, disjoint;
                                         ///< past num_dense (when > 0) the largest pre-key
  K dense_last[bin_map_max_dense + 1];
  std::uint32_t shift;        ///< slot of a key: (pre - low) >> shift
  std::uint32_t frac_right;   ///< 16-bit position in the slot: ((d >> frac_right) << frac_left) & 0xffff
  std::uint32_t frac_left;
  std::uint32_t num_bins;     ///< every bin_of is below this
  std::uint32_t num_dense;    ///< dense ranges (0: the slots alone)
  std::uint32_t hint_steps;   ///< 0: no hints; 1 or 3: bin_of_hinted's steps (dense_hint_steps)
  std::uint16_t dense_base[bin_map_max_dense + 1];   ///< range j's first bin
  std::uint16_t dense_after[bin_map_max_dense + 1];  ///< bins the ranges up to j add before keys above j
  std::uint8_t dense_shift[bin_map_max_dense + 1];   ///< bin in range j: base + ((pre - first) >> shift)
  std::uint8_t dense_one_key[bin_map_max_dense + 1]; ///< 1: every bin of range j holds one key
  std::uint32_t slot[bin_map_slots];  ///< first bin (low 16 bits) | bins in the slot (high 16 bits)
  /// Per slot: the dense ranges starting below the slot (low 7 bits), and whether
  /// one starts inside it (bit 7).
  std::uint8_t dense_hint[bin_map_slots];
};
static_assert(bin_map_max_bins <= 65536, "dense_base and dense_after are 16-bit");

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

/// Knots of interpolated_position over `count` sample keys; knot i is sample key
/// knot_key_index(count, i).
KSELECT_HD int knot_count(int count) { return (count - 1 + bin_map_knot_stride - 1) / bin_map_knot_stride + 1; }
KSELECT_HD int knot_key_index(int count, int i) {
  return i * bin_map_knot_stride < count - 1 ? i * bin_map_knot_stride : count - 1;
}

/// interpolated_position given j, the number of knots below b (the caller's search: a
/// host walking ascending keys advances j instead of searching for each).
template <class K>
KSELECT_HD std::uint64_t interpolated_position_at(const K* sorted, int count, K b, int j) {
  const int knots = knot_count(count);
  const auto at = [&](int i) { return knot_key_index(count, i); };
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

/// Position of pre-key b among `count` sorted sample pre-keys, in units of 2^-16
/// sample positions: 0 at or below the first, (count - 1) << 16 above the last,
/// and in between linear between knots, every bin_map_knot_stride-th sample key
/// (and the last). Knots rather than every sample key: bins are narrower than
/// the gaps between sample keys, so a bin's keys vary as the gap it sits in
/// (exponentially); across 4 gaps they vary 4x less. Integer arithmetic, so the
/// host and the device agree to the bit.
template <class K>
KSELECT_HD std::uint64_t interpolated_position(const K* sorted, int count, K b) {
  const auto j = static_cast<int>(
      partition_point(knot_count(count), [&](std::int64_t i) { return sorted[knot_key_index(count, int(i))] < b; }));
  return interpolated_position_at(sorted, count, b, j);
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

/// Slot bin of a pre-key (the map without its dense ranges): non-decreasing in
/// `pre`. A slot with no bins shares the first bin of the next slot.
template <class K>
KSELECT_HD std::uint32_t slot_bin_of(const bin_map<K>& m, K pre) {
  const K d = bin_map_offset(m, pre);
  const std::uint32_t w = m.slot[static_cast<std::uint32_t>(d >> m.shift)];
  const std::uint32_t frac = static_cast<std::uint32_t>((d >> m.frac_right) << m.frac_left) & 0xffffu;
  return (w & 0xffffu) + ((frac * (w >> 16)) >> 16);
}

/// Dense ranges whose first pre-key is at most `pre` (0..num_dense): a binary
/// search of 7 steps, unrolled, over dense_first padded past num_dense with the
/// largest pre-key (plan_dense_ranges), so that a step is a load, a compare and
/// an add: the count pass is bound by issued instructions, and a step that first
/// checked j + step <= num_dense issued half as many again. Only the largest
/// pre-key passes a pad; the clamp keeps it at num_dense.
template <class K>
KSELECT_HD int dense_ranges_from(const bin_map<K>& m, K pre, std::uint32_t num_dense) {
  static_assert(bin_map_max_dense < 128, "7 steps");
  int j = 0;
  for (int step = 64; step >= 1; step /= 2)
    if (m.dense_first[j + step - 1] <= pre) j += step;
  return j < static_cast<int>(num_dense) ? j : static_cast<int>(num_dense);
}

/// Bin of a pre-key given j, the dense ranges whose first pre-key is at most
/// `pre` (however the caller found them): its range's bin if range j - 1 holds
/// it, else its slot bin moved up by the ranges below. The slot's offset is
/// computed on that branch only: keys inside a range (clustered keys, all of
/// them) skip it, in a pass bound by issued instructions.
template <class K>
KSELECT_HD std::uint32_t bin_of_ranges_below(const bin_map<K>& m, K pre, int j) {
  if (j > 0 && pre <= m.dense_last[j - 1])
    return m.dense_base[j - 1] + static_cast<std::uint32_t>((pre - m.dense_first[j - 1]) >> m.dense_shift[j - 1]);
  return slot_bin_of(m, pre) + (j > 0 ? m.dense_after[j - 1] : 0u);
}

/// Bin of a pre-key: non-decreasing in `pre`, always < num_bins. `num_dense`:
/// m.num_dense, which the passes keep in a register.
template <class K>
KSELECT_HD std::uint32_t bin_of(const bin_map<K>& m, K pre, std::uint32_t num_dense) {
  if (num_dense == 0) return slot_bin_of(m, pre);
  return bin_of_ranges_below(m, pre, dense_ranges_from(m, pre, num_dense));
}

template <class K>
KSELECT_HD std::uint32_t bin_of(const bin_map<K>& m, K pre) {
  return bin_of(m, pre, m.num_dense);
}

/// Hint bit: a dense range starts inside the slot.
inline constexpr std::uint8_t dense_hint_starts_inside = 0x80;

/// bin_of of a map with dense ranges and hints of `Steps` steps (m.hint_steps):
/// the slot's hint gives the ranges starting below the key; where
/// some start inside the slot, a search of Steps steps over the 2^Steps - 1 first
/// pre-keys from there counts those at most `pre` (the ones past the slot's are
/// larger than any of its keys; the pads past num_dense pass only the largest
/// pre-key, hence the clamp). The same bins as bin_of.
template <int Steps, class K>
KSELECT_HD std::uint32_t bin_of_hinted(const bin_map<K>& m, K pre, std::uint32_t num_dense) {
  static_assert(Steps == 1 || Steps == 3, "dense_hint_steps");
  const K d = bin_map_offset(m, pre);
  const auto s = static_cast<std::uint32_t>(d >> m.shift);
  const std::uint8_t hint = m.dense_hint[s];
  int j = hint & ~dense_hint_starts_inside;
  if ((hint & dense_hint_starts_inside) != 0) {
    for (int step = 1 << (Steps - 1); step >= 1; step /= 2)
      if (m.dense_first[j + step - 1] <= pre) j += step;
    if constexpr (Steps > 1) j = j < static_cast<int>(num_dense) ? j : static_cast<int>(num_dense);
  }
  return bin_of_ranges_below(m, pre, j);
}

/// bin_of_hinted with the map's own steps (m.hint_steps > 0).
template <class K>
KSELECT_HD std::uint32_t bin_of_hinted(const bin_map<K>& m, K pre) {
  return m.hint_steps == 1 ? bin_of_hinted<1>(m, pre, m.num_dense) : bin_of_hinted<3>(m, pre, m.num_dense);
}

/// The hints of slots [first, end) of a map with its dense ranges placed; returns
/// the most ranges starting inside one of those slots (dense_hint_steps). A
/// slot's keys are the pre-keys that bin_map_offset puts in it: slot 0 also holds
/// those below low, the slot of high those above it; slots past it hold none (hint 0).
template <class K>
KSELECT_HD int set_dense_hints(bin_map<K>& m, int first, int end) {
  const auto last_slot = static_cast<int>(static_cast<K>(m.high - m.low) >> m.shift);
  const auto n = static_cast<std::int64_t>(m.num_dense);
  std::int64_t most = 0;
  for (int s = first; s < end; ++s) {
    m.dense_hint[s] = 0;
    if (s > last_slot) continue;
    const K lo = s == 0 ? K(0) : static_cast<K>(m.low + (static_cast<K>(s) << m.shift));
    const K hi =
        s == last_slot ? static_cast<K>(~K(0)) : static_cast<K>(m.low + (static_cast<K>(s + 1) << m.shift) - 1);
    const std::int64_t below = partition_point(n, [&](std::int64_t i) { return m.dense_first[i] < lo; });
    const std::int64_t through = partition_point(n, [&](std::int64_t i) { return m.dense_first[i] <= hi; });
    most = through - below > most ? through - below : most;
    m.dense_hint[s] = static_cast<std::uint8_t>(below | (through > below ? dense_hint_starts_inside : 0));
  }
  return static_cast<int>(most);
}

/// The hints' steps for a map whose slots hold at most `most_starts` range
/// starts each: 1 where that is one, 3 where it is up to 7 (two would save one
/// compare on few maps and cost a third loop in the count kernel), else 0 (no
/// hints: the full search). A search of 3 steps from a slot's first range reads
/// up to 6 first pre-keys past it (the last range's: index num_dense + 5), which
/// must stay within the padded ones (indices below bin_map_max_dense): so at most
/// 121 ranges.
KSELECT_HD std::uint32_t dense_hint_steps(int most_starts, std::uint32_t num_dense) {
  if (most_starts <= 1) return 1;
  if (most_starts <= 7 && num_dense + 6 <= static_cast<std::uint32_t>(bin_map_max_dense)) return 3;
  return 0;
}

/// Bins of dense range j (dense_after also counts the slot bin after each range).
template <class K>
KSELECT_HD std::uint32_t dense_bins(const bin_map<K>& m, std::uint32_t j) {
  return m.dense_after[j] - (j > 0 ? m.dense_after[j - 1] : 0u) - 1;
}

/// The last dense range whose first bin is at most b (their first bins increase), or -1.
template <class K>
KSELECT_HD int dense_range_at_or_below(const bin_map<K>& m, std::uint32_t b) {
  return static_cast<int>(partition_point(m.num_dense, [&](std::int64_t i) { return m.dense_base[i] <= b; }) - 1);
}

/// Dense range holding bin b, or -1.
template <class K>
KSELECT_HD int dense_range_of_bin(const bin_map<K>& m, std::uint32_t b) {
  const int j = dense_range_at_or_below(m, b);
  return j >= 0 && b < m.dense_base[j] + dense_bins(m, static_cast<std::uint32_t>(j)) ? j : -1;
}

/// Whether every key of bin b is one key (a dense range's bin of one key): its
/// ranks are answered from bin_first_pre_key, without a copy.
template <class K>
KSELECT_HD bool bin_holds_one_key(const bin_map<K>& m, std::uint32_t b) {
  const int j = dense_range_of_bin(m, b);
  return j >= 0 && m.dense_one_key[j] != 0;
}

/// The first pre-key of a dense range's bin b.
template <class K>
KSELECT_HD K bin_first_pre_key(const bin_map<K>& m, std::uint32_t b) {
  const int j = dense_range_of_bin(m, b);
  return static_cast<K>(m.dense_first[j] + (static_cast<K>(b - m.dense_base[j]) << m.dense_shift[j]));
}

/// The slots of a map whose range is set (set_bin_map_range), for at most
/// `target` slot bins; num_bins is then the slot bins plus one.
template <class K>
void fill_bin_map_slots(bin_map<K>& m, const K* sorted_pre, int count, std::uint32_t target) {
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
}

/// Builds the map from `count` (> 0) sorted sample pre-keys for at most `target`
/// (< bin_map_max_bins) bins, without dense ranges. The device builds the same
/// map in one block (bin_map_kernel) with these helpers and a block scan.
template <class K>
bin_map<K> build_bin_map(const K* sorted_pre, int count, std::uint32_t target) {
  bin_map<K> m{};
  set_bin_map_range<K>(m, sorted_pre[0], sorted_pre[count - 1]);
  fill_bin_map_slots(m, sorted_pre, count, target);
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

/// A dense range's sample keys: sorted sample positions [lo, hi) (empty: none).
struct dense_candidate {
  std::int32_t lo, hi;
};

/// Rank k's dense range, if it makes one: the sample keys in the bin of its
/// expected sample position (bin_at(i): sample key i's bin, non-decreasing), when
/// they are more than dense_min_sample_keys and rank k - 1 expected another bin.
template <class BinAt>
KSELECT_HD dense_candidate dense_candidate_of_rank(BinAt bin_at, int sample_count, const std::int64_t* ranks,
                                                   std::int64_t k, std::int64_t n) {
  const auto bin = bin_at(expected_sample_index(ranks[k], n, sample_count));
  if (k > 0 && bin_at(expected_sample_index(ranks[k - 1], n, sample_count)) == bin) return {0, 0};
  const auto lo = static_cast<std::int32_t>(partition_point(sample_count, [&](std::int64_t i) { return bin_at(i) < bin; }));
  const auto hi =
      static_cast<std::int32_t>(partition_point(sample_count, [&](std::int64_t i) { return bin_at(i) <= bin; }));
  if (hi - lo <= dense_min_sample_keys) return {0, 0};
  return {lo, hi};
}

/// Range j's shift for `per_key` bins per sample key: its bins are at most
/// per_key * (sample keys), rounded up to a power of 2, and no narrower than a pre-key.
template <class K>
KSELECT_HD std::uint32_t dense_shift(K first, K last, std::int32_t sample_keys, int per_key) {
  const int width_bits = bit_width_of(static_cast<K>(last - first));
  const int want_bits = bit_width_of(static_cast<std::uint32_t>(sample_keys * per_key - 1));
  return static_cast<std::uint32_t>(width_bits > want_bits ? width_bits - want_bits : 0);
}

// Planning the dense ranges, range by range: plan_dense_ranges and
// place_dense_ranges run these in loops; bin_map_kernel runs them a thread per
// range, with block scans for the sums, the same map bit for bit (one thread
// planning every range was a serial third of the kernel on clustered keys:
// docs/performance.md).

/// Whether candidate j (of those passed) makes a range: sorted ranks give
/// candidates in key order, and the first out of order ends the list.
KSELECT_HD bool dense_candidate_in_order(const dense_candidate* c, int j) {
  return c[j].hi > c[j].lo && (j == 0 || c[j].lo >= c[j - 1].hi);
}

/// Range j's pre-keys: its first sample key to every pre-key of its last sample
/// key's key (+0.0 after -0.0, every NaN).
template <class T>
KSELECT_HD void set_dense_range_bounds(bin_map<key_t<T>>& m, const key_t<T>* sorted_pre, const dense_candidate* c,
                                       int j) {
  using kt = key_traits<T>;
  m.dense_first[j] = sorted_pre[c[j].lo];
  m.dense_last[j] = kt::pre_key_last(kt::key_of_pre_key(sorted_pre[c[j].hi - 1]));
}

/// Range j's shift for `per_key` bins per sample key (its bounds set).
template <class K>
KSELECT_HD std::uint32_t dense_range_shift_for(const bin_map<K>& m, const dense_candidate* c, int j, int per_key) {
  return dense_shift(m.dense_first[j], m.dense_last[j], c[j].hi - c[j].lo, per_key);
}

/// What range j takes of dense_bins_budget: its bins, and the slot bin after it.
template <class K>
KSELECT_HD std::uint32_t dense_range_cost(const bin_map<K>& m, const dense_candidate* c, int j, int per_key) {
  const auto bins = static_cast<std::uint32_t>(static_cast<K>(m.dense_last[j] - m.dense_first[j]) >>
                                               dense_range_shift_for(m, c, j, per_key)) + 1;
  return bins + 1;
}

/// Range j's bins for `per_key`, given `after`, the costs of ranges 0..j (its
/// first bin waits for place_dense_range).
template <class T>
KSELECT_HD void set_dense_range_bins(bin_map<key_t<T>>& m, const dense_candidate* c, int j, int per_key,
                                     std::uint32_t after) {
  using kt = key_traits<T>;
  const std::uint32_t shift = dense_range_shift_for(m, c, j, per_key);
  m.dense_after[j] = static_cast<std::uint16_t>(after);
  m.dense_shift[j] = static_cast<std::uint8_t>(shift);
  m.dense_one_key[j] = shift == 0 || kt::key_of_pre_key(m.dense_first[j]) == kt::key_of_pre_key(m.dense_last[j]);
}

/// The pads of the ranges past `used` (of `ranges` planned): those left out as
/// in a map without them, and dense_ranges_from's pads (the largest pre-key).
template <class K>
KSELECT_HD void pad_dense_range(bin_map<K>& m, int j, int ranges) {
  if (j < ranges) m.dense_last[j] = 0;
  m.dense_first[j] = static_cast<K>(~K(0));
}

/// After the slots are refilled: range j's first bin, one above the slot bin of
/// its first pre-key (which keeps the keys below it).
template <class K>
KSELECT_HD void place_dense_range(bin_map<K>& m, std::uint32_t j) {
  const std::uint32_t below = j > 0 ? m.dense_after[j - 1] : 0u;
  m.dense_base[j] = static_cast<std::uint16_t>(slot_bin_of(m, m.dense_first[j]) + below + 1);
}

/// Sets the dense ranges of m (a map without any) from `count` candidates in key
/// order: the first bin_map_max_dense, with the most bins per sample key (8, 4,
/// 2, 1) that keeps them within dense_bins_budget, fewer ranges if even one is
/// too many. Returns the bins they add; the caller then refills the slots with
/// that many fewer (fill_bin_map_slots) and calls place_dense_ranges.
template <class T>
std::uint32_t plan_dense_ranges(bin_map<key_t<T>>& m, const key_t<T>* sorted_pre, const dense_candidate* c,
                                int count) {
  int ranges = 0;
  while (ranges < count && ranges < bin_map_max_dense && dense_candidate_in_order(c, ranges)) ++ranges;
  for (int j = 0; j < ranges; ++j) set_dense_range_bounds<T>(m, sorted_pre, c, j);
  int per_key = dense_bins_per_sample_key, used = ranges;
  for (;; per_key /= 2) {
    std::uint32_t total = 0;
    used = 0;
    while (used < ranges && total + dense_range_cost(m, c, used, per_key) <= dense_bins_budget)
      total += dense_range_cost(m, c, used++, per_key);
    if (used == ranges || per_key == 1) break;
  }
  std::uint32_t after = 0;
  m.num_dense = static_cast<std::uint32_t>(used);
  for (int j = 0; j < used; ++j) {
    after += dense_range_cost(m, c, j, per_key);
    set_dense_range_bins<T>(m, c, j, per_key, after);
  }
  for (int j = used; j < bin_map_max_dense; ++j) pad_dense_range(m, j, ranges);
  return after;
}

/// place_dense_range for every range, and num_bins.
template <class K>
void place_dense_ranges(bin_map<K>& m) {
  for (std::uint32_t j = 0; j < m.num_dense; ++j) place_dense_range(m, j);
  if (m.num_dense > 0) m.num_bins += m.dense_after[m.num_dense - 1];
}

/// The host's version of bin_map_kernel's map: build_bin_map, then dense ranges
/// where the ranks' expected bins hold many sample keys.
template <class T>
bin_map<key_t<T>> build_bin_map_for_ranks(const key_t<T>* sorted_pre, int count, std::uint32_t target,
                                          const std::int64_t* ranks, std::int64_t num_ranks, std::int64_t n) {
  bin_map<key_t<T>> m = build_bin_map(sorted_pre, count, target);
  dense_candidate c[bin_map_max_dense];
  int found = 0;
  const auto bin_at = [&](std::int64_t i) { return slot_bin_of(m, sorted_pre[i]); };
  for (std::int64_t k = 0; k < num_ranks && found < bin_map_max_dense; ++k) {
    const dense_candidate d = dense_candidate_of_rank(bin_at, count, ranks, k, n);
    if (d.hi > d.lo) c[found++] = d;
  }
  if (found == 0) return m;
  const std::uint32_t range_bins = plan_dense_ranges<T>(m, sorted_pre, c, found);
  fill_bin_map_slots(m, sorted_pre, count, target - range_bins);
  place_dense_ranges(m);
  m.hint_steps = dense_hint_steps(set_dense_hints(m, 0, bin_map_slots), m.num_dense);
  return m;
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

/// predicted_sample_keys for a map with dense ranges: nothing for a rank whose
/// bin holds one key (answered without a copy).
template <class K, class B>
KSELECT_HD std::int64_t predicted_sample_keys(const bin_map<K>& m, const B* bins_of_sample, std::int64_t sample_count,
                                              const std::int64_t* ranks, std::int64_t k, std::int64_t n) {
  const B bin = bins_of_sample[expected_sample_index(ranks[k], n, sample_count)];
  if (bin_holds_one_key(m, static_cast<std::uint32_t>(bin))) return 0;
  return predicted_sample_keys(bins_of_sample, sample_count, ranks, k, n);
}

}  // namespace kselect::core
