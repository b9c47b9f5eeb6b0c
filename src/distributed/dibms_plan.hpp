// DIBMS's host-side planning (Blanchard, Fu & Knoth 2024, section II), in plain C++:
// the first round's pivot intervals from a sample, the active buckets after each
// all-reduce of the counts, the next round's intervals with their proportional
// allotment of buckets, and exact termination. Every process runs it on the same
// global counts and so makes the same plan; no communication here.
//
// Differences from the paper, each for exactness:
//  - The projection works on order-preserving integer keys (core/bucket_table.hpp),
//    so a bucket is an exact key range: the next round's pivot intervals are these
//    ranges, with no inversion of a floating-point slope (the paper's eq. 10).
//  - Termination is exact, not the paper's "the count did not change twice" heuristic:
//    a rank is answered when its bucket is one key value wide, or when the all-reduced
//    minimum and maximum of its interval are equal (every key in it is the same value:
//    duplicates, all-equal data, NaN).
//  - A rank's position is tracked among the keys counted in the round (the union of
//    the intervals, in key order), so no separate bookkeeping per interval is needed.
#pragma once

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "core/bin_map.hpp"
#include "core/bucket_table.hpp"
#include "distributed/shard.hpp"

namespace kselect::distributed {

/// An unsigned integer twice as wide as keys of U: a bucket's scale is (buckets << W) /
/// width. 64 bits for 32-bit keys, whose divisions then cost a fraction of a 128-bit one
/// (a first table makes thousands of them, on the host, between the sample and the
/// first pass).
template <class U>
using wide_t = std::conditional_t<sizeof(U) <= 4, std::uint64_t, unsigned __int128>;

/// An interval [lo, hi] given `buckets` buckets (fewer when it holds fewer key values).
template <class U>
core::bucket_interval<U> make_interval(U lo, U hi, std::uint32_t buckets, std::uint32_t first) {
  constexpr int bits = 8 * sizeof(U);
  using wide = wide_t<U>;
  const wide width = static_cast<wide>(hi - lo) + 1;  // up to 2^bits
  core::bucket_interval<U> iv{lo, hi, U(0), first, buckets};
  if (width <= buckets) {
    iv.count = static_cast<std::uint32_t>(width);
    iv.scale = 0;
  } else if ((width & (width - 1)) == 0) {  // 2^s keys (a radix slot): no division
    const auto low = static_cast<std::uint64_t>(width);
    const int s = low != 0 ? std::countr_zero(low) : 64 + std::countr_zero(static_cast<std::uint64_t>(width >> 32 >> 32));
    iv.scale = static_cast<U>(static_cast<wide>(buckets) << (bits - s));  // buckets < width = 2^s
  } else {
    iv.scale = static_cast<U>((static_cast<wide>(buckets) << bits) / width);  // < 2^bits
  }
  return iv;
}

/// First key of bucket `j` (relative to the interval's first bucket) of interval iv.
template <class U>
U bucket_first_key(const core::bucket_interval<U>& iv, std::uint32_t j) {
  constexpr int bits = 8 * sizeof(U);
  using wide = wide_t<U>;
  if (iv.scale == 0) return static_cast<U>(iv.lo + j);
  const wide numerator = static_cast<wide>(j) << bits;
  const wide offset = (numerator + iv.scale - 1) / iv.scale;  // ceil(j * 2^bits / scale)
  return static_cast<U>(iv.lo + static_cast<U>(offset));
}

/// Last key of bucket j of interval iv.
template <class U>
U bucket_last_key(const core::bucket_interval<U>& iv, std::uint32_t j) {
  return j + 1 >= iv.count ? iv.hi : static_cast<U>(bucket_first_key(iv, j + 1) - 1);
}

/// Whether bucket j of interval iv holds one key value: every bucket does when the
/// interval has one per key (scale 0); one before the last does not when the interval
/// is at least twice as wide as its buckets (each then spans more than
/// 2^W / scale - 1 >= width / count - 1 >= 1 keys); otherwise its first and last keys
/// say (two divisions, which the first table's checks would make for every sample key).
template <class U>
bool bucket_is_one_key(const core::bucket_interval<U>& iv, std::uint32_t j) {
  if (iv.scale == 0) return true;
  using wide = wide_t<U>;
  if (j + 1 < iv.count && static_cast<wide>(static_cast<U>(iv.hi - iv.lo)) + 1 >= 2 * static_cast<wide>(iv.count))
    return false;
  return bucket_first_key(iv, j) == bucket_last_key(iv, j);
}

/// A table from ascending, disjoint [lo, hi] ranges and their bucket allotments.
template <class U>
round_table<U> make_table(std::span<const U> lo, std::span<const U> hi,
                          std::span<const std::uint32_t> allot) {
  round_table<U> t;
  t.intervals.reserve(lo.size());
  t.lo_keys.reserve(lo.size());
  std::uint32_t first = 0;
  for (std::size_t i = 0; i < lo.size(); ++i) {
    t.intervals.push_back(make_interval(lo[i], hi[i], allot[i], first));
    t.lo_keys.push_back(lo[i]);
    first += t.intervals.back().count;
  }
  t.buckets = first;
  return t;
}

/// Radix slots of the first table (at most; fewer where the sample's span has fewer
/// key values or the buckets are few): 2048, the single-GPU bin map's (core/bin_map.hpp),
/// so that the slots' words take 8 KiB beside the histogram.
inline constexpr int first_table_max_slots = 2048;

/// True when the sample repeats a key: the data may hold heavy duplicates, so the
/// first round should also find each interval's minimum and maximum (an interval
/// holding one value then answers its ranks at once).
template <class U>
bool sample_has_repeats(std::span<const U> sorted_sample) {
  return std::adjacent_find(sorted_sample.begin(), sorted_sample.end()) != sorted_sample.end();
}

/// Dense slots a first table holds at most, and sub-slots per dense slot at most: their
/// words take 16 KiB of shared memory beside the slots'.
inline constexpr std::size_t first_table_max_dense = 16;
inline constexpr std::uint32_t first_table_max_subs = 256;

/// The most distinct sample keys one bucket of a first table may hold: max(4 + 4 s / B,
/// s / 256) for s sample keys and B buckets (a bucket's fair share is s / B).
inline std::size_t crowded_bucket_keys(std::size_t sample_keys, std::uint32_t buckets) {
  return std::max<std::size_t>(4 + 4 * sample_keys / std::max<std::uint32_t>(buckets, 1), sample_keys / 256);
}

/// Whether sorted sample keys crowd a bucket wider than one key value: more than
/// `limit` of them in it, or (repeats_crowd) a key the sample holds twice. bucket_of(key)
/// is non-decreasing in the key; one_key(b) says whether bucket b is one key value wide
/// (called with non-decreasing b).
template <class U, class BucketOf, class OneKey>
bool crowds_a_bucket(std::span<const U> sorted, std::size_t limit, bool repeats_crowd, BucketOf&& bucket_of,
                     OneKey&& one_key) {
  // At most `limit` keys, none repeated (where repeats crowd), crowd no bucket: most
  // slots of a first table over spread data, which then find no key's bucket.
  if (sorted.size() <= limit && (!repeats_crowd || std::adjacent_find(sorted.begin(), sorted.end()) == sorted.end()))
    return false;
  std::size_t run = 0;
  std::uint32_t run_bucket = ~0u;
  for (std::size_t k = 0; k < sorted.size(); ++k) {
    const std::uint32_t b = bucket_of(sorted[k]);
    run = b == run_bucket ? run + 1 : 1;
    run_bucket = b;
    const bool repeated = repeats_crowd && k > 0 && sorted[k] == sorted[k - 1];
    if ((run > limit || repeated) && !one_key(b)) return true;
  }
  return false;
}

/// The most buckets a slot or sub-slot of 2^shift keys takes: one per key value, and no
/// more than a slot word holds.
inline std::uint64_t slot_bucket_cap(int shift) {
  return std::min<std::uint64_t>(core::radix_slot_max_count, shift >= 32 ? ~0ull : 1ull << shift);
}

/// The slots of a first table over the sorted sample's span: the narrowest of 2^shift
/// keys that need at most max_slots of them, from the sample's minimum (moved down where
/// they would pass the largest key), with the tails below and above them (no dense slots).
template <class U>
core::radix_slots<U> slot_layout_of(std::span<const U> sorted_sample, int max_slots) {
  constexpr int bits = 8 * sizeof(U);
  const U smin = sorted_sample.front(), smax = sorted_sample.back();
  const U span = static_cast<U>(smax - smin);
  core::radix_slots<U> layout;
  layout.shift = 1;
  while (layout.shift < bits - 1 && (span >> layout.shift) >= static_cast<U>(max_slots)) ++layout.shift;
  layout.slots = static_cast<std::uint32_t>(span >> layout.shift) + 1;
  const U last = core::radix_slots_last_offset<U>(layout.slots, layout.shift);  // slots * 2^shift - 1
  layout.base = static_cast<U>(~smin) < last ? static_cast<U>(~last) : smin;
  layout.tail_below = layout.base > U(0);
  layout.tail_above = static_cast<U>(layout.base + last) < static_cast<U>(~U(0));
  return layout;
}

/// Whether the sorted sample holds two different keys more than `limit` times each
/// (crowded_bucket_keys) in one slot of the layout, at least first_table_max_subs *
/// (radix_slot_max_count + 1) keys apart. slot_table_spreads_sample() then refuses the
/// slot table for certain: a slot gets at most radix_slot_max_count buckets, a sub-slot
/// at most one more, and that slot's sub-slots (at most first_table_max_subs over the two
/// keys' span; or the slot itself, where it is not made dense) are wider than that, so
/// no bucket there is one key wide, and each of the two keys crowds its bucket. One walk
/// over the sample, against building the table to find out (hundreds of thousands of
/// instructions, on the host before the first pass).
template <class U>
bool heavy_keys_share_a_slot(std::span<const U> sorted_sample, const core::radix_slots<U>& layout, std::size_t limit) {
  constexpr std::uint64_t apart = std::uint64_t{first_table_max_subs} * (core::radix_slot_max_count + 1);
  bool have = false;
  U previous = 0;  // the last heavy key
  for (std::size_t k = 0; k < sorted_sample.size();) {
    std::size_t end = k + 1;
    while (end < sorted_sample.size() && sorted_sample[end] == sorted_sample[k]) ++end;
    const U key = sorted_sample[k];
    if (end - k > limit) {
      if (have && previous >= layout.base &&
          static_cast<U>(key - layout.base) >> layout.shift == static_cast<U>(previous - layout.base) >> layout.shift &&
          static_cast<std::uint64_t>(static_cast<U>(key - previous)) >= apart)
        return true;
      previous = key;
      have = true;
    }
    k = end;
  }
  return false;
}

/// Phase 1's table as radix slots (core::radix_slots): the span of the sample cut into
/// equal slots of 2^shift keys, each given one bucket plus its share of the rest, in
/// proportion to the sample keys it holds (interpolated between knots every few sample
/// keys, core::interpolated_position, as the single-GPU bin map does), at most one
/// bucket per key value of the slot; tails below and above the slots with one bucket
/// each. The same kernel-density idea as the paper's pivot intervals, at a finer grain,
/// and a key's bucket costs a shift, one word and one multiply, with no search for its
/// interval. A slot whose buckets would crowd many sample keys into one (a repeated
/// value, a cluster narrower than the slot) is made *dense*: its sample keys' range is
/// cut into up to 256 sub-slots, each with buckets in proportion to the sample keys it
/// holds; a repeated value alone gets a sub-slot of two keys and two buckets, so its
/// ranks are answered after this round (the heavy keys of the pivot intervals, below,
/// do the same there).
template <class U>
round_table<U> first_round_slot_table(std::span<const U> sorted_sample, std::uint32_t buckets, int max_slots) {
  core::radix_slots<U> layout = slot_layout_of(sorted_sample, max_slots);
  const U last = core::radix_slots_last_offset<U>(layout.slots, layout.shift);  // slots * 2^shift - 1
  const std::uint32_t tails = (layout.tail_below ? 1u : 0u) + (layout.tail_above ? 1u : 0u);
  const int count = static_cast<int>(sorted_sample.size());
  const std::uint64_t end = static_cast<std::uint64_t>(std::max(count - 1, 1)) << 16;
  const U width_less_one = static_cast<U>((U(1) << layout.shift) - 1);
  const std::uint64_t slot_cap = slot_bucket_cap(layout.shift);
  const auto slot_lo = [&](std::uint32_t j) { return static_cast<U>(layout.base + (static_cast<U>(j) << layout.shift)); };
  const auto slot_hi = [&](std::uint32_t j) { return static_cast<U>(slot_lo(j) + width_less_one); };
  // Each slot's buckets: one plus its share of `spare`, by the interpolated sample positions.
  const auto allot_slots = [&](std::uint64_t spare) {
    // Slots ascend: the knots below a slot's first key are walked to, not searched for.
    int knots_below = 0;
    const int knots = core::knot_count(count);
    const auto before = [&](std::uint32_t j) -> std::uint64_t {
      if (j >= layout.slots) return spare;
      if (count < 2) return spare * j / layout.slots;
      const U key = slot_lo(j);
      while (knots_below < knots && sorted_sample[core::knot_key_index(count, knots_below)] < key) ++knots_below;
      const std::uint64_t at = core::interpolated_position_at(sorted_sample.data(), count, key, knots_below);
      // at <= end < 2^40 (count <= 2^24): in 64 bits while spare < 2^24, as it is for
      // the options' buckets (a 128-bit division per slot cost more than the rest).
      if (spare < (std::uint64_t{1} << 24) && end < (std::uint64_t{1} << 40)) return spare * at / end;
      return static_cast<std::uint64_t>(static_cast<unsigned __int128>(spare) * at / end);
    };
    std::vector<std::uint32_t> allot(layout.slots);
    std::uint64_t at = before(0);
    for (std::uint32_t j = 0; j < layout.slots; ++j) {
      const std::uint64_t next = before(j + 1);
      allot[j] = static_cast<std::uint32_t>(std::min<std::uint64_t>(1 + next - at, slot_cap));
      at = next;
    }
    return allot;
  };
  const std::uint64_t spare = buckets > layout.slots + tails ? buckets - layout.slots - tails : 0;
  std::vector<std::uint32_t> allot = allot_slots(spare);
  // The sample keys of each slot: [from[j], from[j + 1]).
  std::vector<std::size_t> from(layout.slots + 1, sorted_sample.size());
  {
    std::size_t k = 0;
    while (k < sorted_sample.size() && sorted_sample[k] < layout.base) ++k;
    for (std::uint32_t j = 0; j < layout.slots; ++j) {
      from[j] = k;
      while (k < sorted_sample.size() && sorted_sample[k] <= slot_hi(j)) ++k;
    }
    from[layout.slots] = k;
  }
  // Dense slots: those with a bucket wider than one key value that holds more sample
  // keys than the crowding limit, or a key the sample repeats (likely a heavy key, whose
  // ranks a bucket of its own answers at once), the fullest first.
  const std::size_t limit = crowded_bucket_keys(sorted_sample.size(), buckets);
  std::vector<std::pair<std::size_t, std::uint32_t>> crowded;  // (sample keys, slot)
  for (std::uint32_t j = 0; j < layout.slots; ++j) {
    const core::bucket_interval<U> iv = make_interval(slot_lo(j), slot_hi(j), allot[j], 0);
    const bool dense = crowds_a_bucket(
        sorted_sample.subspan(from[j], from[j + 1] - from[j]), limit, /*repeats_crowd=*/true,
        [&](U key) { return core::bucket_offset(iv, key); },
        [&](std::uint32_t b) { return bucket_is_one_key(iv, b); });
    if (dense) crowded.emplace_back(from[j + 1] - from[j], j);
  }
  std::sort(crowded.begin(), crowded.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  if (crowded.size() > first_table_max_dense) crowded.resize(first_table_max_dense);
  std::sort(crowded.begin(), crowded.end(), [](const auto& a, const auto& b) { return a.second < b.second; });
  for (const auto& c : crowded) {
    const std::uint32_t j = c.second;
    const U kmin = sorted_sample[from[j]], kmax = sorted_sample[from[j + 1] - 1];
    core::radix_dense_slot<U> d;
    d.slot = j;
    d.sub_shift = 1;
    const auto subs_of = [&](int shift) { return static_cast<U>(static_cast<U>(kmax - kmin) >> shift) + 1; };  // in U: no wrap
    while (d.sub_shift < layout.shift && subs_of(d.sub_shift) > first_table_max_subs) ++d.sub_shift;
    // The sub-slots lie inside the slot (subs * 2^sub_shift at most its width).
    while (d.sub_shift < layout.shift &&
           static_cast<U>((static_cast<U>(subs_of(d.sub_shift)) << d.sub_shift) - 1) > width_less_one)
      ++d.sub_shift;
    d.subs = static_cast<std::uint32_t>(subs_of(d.sub_shift));  // at most first_table_max_subs (or 1 at the slot's shift)
    const U sub_span_less_one = static_cast<U>((static_cast<U>(d.subs) << d.sub_shift) - 1);
    d.sub_base = static_cast<U>(slot_hi(j) - kmin) < sub_span_less_one ? static_cast<U>(slot_hi(j) - sub_span_less_one) : kmin;
    layout.dense.push_back(d);
  }
  // Buckets for the dense slots' sub-slots and their slots' ends come out of the spare.
  std::uint64_t dense_extra = 0;
  for (const auto& d : layout.dense) dense_extra += d.subs + 2;
  if (dense_extra > 0) allot = allot_slots(spare > dense_extra ? spare - dense_extra : 0);

  std::vector<U> lo, hi;
  std::vector<std::uint32_t> counts;
  std::size_t intervals = layout.slots + 2;
  for (const auto& d : layout.dense) intervals += d.subs + 2;
  lo.reserve(intervals);
  hi.reserve(intervals);
  counts.reserve(intervals);
  const auto add = [&](U a, U b, std::uint64_t c) {
    lo.push_back(a);
    hi.push_back(b);
    counts.push_back(static_cast<std::uint32_t>(c));
  };
  if (layout.tail_below) add(U(0), static_cast<U>(layout.base - 1), 1);
  std::size_t next_dense = 0;
  for (std::uint32_t j = 0; j < layout.slots; ++j) {
    const U first_key = slot_lo(j), last_key = slot_hi(j);
    if (next_dense < layout.dense.size() && layout.dense[next_dense].slot == j) {
      const core::radix_dense_slot<U>& d = layout.dense[next_dense++];
      const U sub_width_less_one = static_cast<U>((U(1) << d.sub_shift) - 1);
      const U sub_end = static_cast<U>(d.sub_base + ((static_cast<U>(d.subs) << d.sub_shift) - 1));
      const std::uint64_t sub_cap = slot_bucket_cap(d.sub_shift);
      const std::size_t held = from[j + 1] - from[j];
      if (d.sub_base > first_key) add(first_key, static_cast<U>(d.sub_base - 1), 1);
      std::size_t k = from[j];
      for (std::uint32_t i = 0; i < d.subs; ++i) {
        const U sub_lo = static_cast<U>(d.sub_base + (static_cast<U>(i) << d.sub_shift));
        const U sub_hi = static_cast<U>(sub_lo + sub_width_less_one);
        std::size_t in_sub = 0;
        while (k < from[j + 1] && sorted_sample[k] <= sub_hi) ++k, ++in_sub;
        add(sub_lo, sub_hi, std::min<std::uint64_t>(1 + allot[j] * in_sub / std::max<std::size_t>(held, 1), sub_cap));
      }
      if (sub_end < last_key) add(static_cast<U>(sub_end + 1), last_key, 1);
    } else {
      add(first_key, last_key, allot[j]);
    }
  }
  if (layout.tail_above) add(static_cast<U>(layout.base + last + 1), static_cast<U>(~U(0)), 1);
  round_table<U> t = make_table<U>(lo, hi, counts);
  t.slots = layout;
  return t;
}

/// Whether a slot table spreads the sample over its buckets: no bucket wider than one
/// key value holds more than crowded_bucket_keys() sample keys. Slots are equal in key
/// width, and within a slot buckets are too: keys packed at one end of a slot (integers
/// skewed over many orders of magnitude; more crowded slots than dense ones) would share
/// one bucket, and a rank there would keep most of them for the next round. The pivot
/// intervals, which start at sample keys, are then the better first table.
template <class U>
bool slot_table_spreads_sample(const round_table<U>& t, const radix_slot_image<U>& image,
                               std::span<const U> sorted_sample) {
  if (image.slots == 0) return false;
  const core::radix_slot_map<U> map = image.map();
  std::size_t iv = 0;  // the interval of bucket b (bucket order is interval order)
  return !crowds_a_bucket(
      sorted_sample, crowded_bucket_keys(sorted_sample.size(), t.buckets), /*repeats_crowd=*/false,
      [&](U key) { return core::radix_slot_bucket(map, key); },
      [&](std::uint32_t b) {
        while (iv + 1 < t.intervals.size() && t.intervals[iv].first + t.intervals[iv].count <= b) ++iv;
        const core::bucket_interval<U>& in = t.intervals[iv];
        return bucket_is_one_key(in, b - in.first);
      });
}

/// Phase 1's pivot intervals from the sorted sample of all processes (non-empty):
/// pivots at the sample's i/P quantiles, equal pivots merged, the intervals between
/// them given buckets in proportion to the sample keys they hold (at least 2 each).
/// The table covers every key: below the sample's minimum and above its maximum are
/// two tail intervals, given the share of one sample key each. So no pass over the
/// data for its minimum and maximum is needed before the first count.
///
/// Heavy keys (not in the paper): a value the sample holds at least twice gets an
/// interval of its own, one bucket wide, cut out of the interval that holds it. Such a
/// value likely has many copies in the data (about its share of the sample), so ranks
/// fall on it; its count is then exact after the first round and those ranks are
/// answered at once. Data with few distinct values (16 values, clustered keys that are
/// a few hundred float values) would otherwise need a second round just to find that
/// a bucket holds one value. Uniform data rarely repeats a sample key: its table is
/// the paper's.
template <class U>
round_table<U> first_round_pivot_table(std::span<const U> sorted_sample, int pivot_intervals,
                                       std::uint32_t buckets) {
  const std::size_t s = sorted_sample.size();
  const U smin = sorted_sample.front(), smax = sorted_sample.back();
  std::vector<U> pivots{smin};
  for (int i = 1; i < pivot_intervals; ++i) {
    const U p = sorted_sample[std::min(s - 1, s * static_cast<std::size_t>(i) / pivot_intervals)];
    if (p > pivots.back()) pivots.push_back(p);
  }
  std::vector<U> heavy;  // ascending
  for (std::size_t i = 0; i + 1 < s;) {
    std::size_t j = i;
    while (j + 1 < s && sorted_sample[j + 1] == sorted_sample[i]) ++j;
    if (j > i) heavy.push_back(sorted_sample[i]);
    i = j + 1;
  }
  // Sample keys in [lo, hi] (the sample is sorted).
  const auto held = [&](U lo, U hi) {
    return static_cast<double>(std::upper_bound(sorted_sample.begin(), sorted_sample.end(), hi) -
                               std::lower_bound(sorted_sample.begin(), sorted_sample.end(), lo));
  };
  std::vector<U> lo, hi;
  std::vector<double> weight;  // sample keys held (a tail: one)
  std::vector<bool> single;    // a heavy key's interval: one bucket
  // [a, b] with the heavy keys inside cut out as intervals of their own.
  const auto add = [&](U a, U b, double w) {
    auto h = std::lower_bound(heavy.begin(), heavy.end(), a);
    if (h == heavy.end() || *h > b) {
      lo.push_back(a);
      hi.push_back(b);
      weight.push_back(w);
      single.push_back(false);
      return;
    }
    U from = a;
    bool more = true;  // from <= b still to be covered
    for (; h != heavy.end() && *h <= b; ++h) {
      if (from < *h) {
        lo.push_back(from);
        hi.push_back(static_cast<U>(*h - 1));
        weight.push_back(held(from, static_cast<U>(*h - 1)));
        single.push_back(false);
      }
      lo.push_back(*h);
      hi.push_back(*h);
      weight.push_back(held(*h, *h));
      single.push_back(true);
      if (*h == b) {
        more = false;
        break;
      }
      from = static_cast<U>(*h + 1);
    }
    if (more) {
      lo.push_back(from);
      hi.push_back(b);
      weight.push_back(held(from, b));
      single.push_back(false);
    }
  };
  const double tail_weight = 1.0;
  if (smin > U(0)) add(U(0), static_cast<U>(smin - 1), tail_weight);
  for (std::size_t i = 0; i < pivots.size(); ++i) {
    const U top = i + 1 < pivots.size() ? static_cast<U>(pivots[i + 1] - 1) : smax;
    add(pivots[i], top, held(pivots[i], top));
  }
  if (smax < static_cast<U>(~U(0))) add(static_cast<U>(smax + 1), static_cast<U>(~U(0)), tail_weight);
  // Shares of the whole sample (the heavy keys' too, so that cutting them out does not
  // hand their buckets to the rest).
  double total = 0;
  for (const double w : weight) total += w;
  std::vector<std::uint32_t> allot(weight.size());
  for (std::size_t i = 0; i < weight.size(); ++i)
    allot[i] = single[i] ? 1u
                         : std::max<std::uint32_t>(2, static_cast<std::uint32_t>(std::llround(weight[i] / total * buckets)));
  return make_table<U>(lo, hi, allot);
}

/// Phase 1's table: radix slots (first_round_slot_table) where they spread the sample
/// over their buckets (slot_table_spreads_sample), else the pivot intervals
/// (first_round_pivot_table). Where the sample repeats keys and the slots do not spread
/// it (two repeated values in one slot share its sub-slots' buckets: 16 values 0.375
/// apart), slots half and a quarter as wide are tried first.
template <class U>
round_table<U> first_round_table(std::span<const U> sorted_sample, int pivot_intervals, std::uint32_t buckets) {
  const int slots = static_cast<int>(std::min<std::uint32_t>(first_table_max_slots, buckets / 4));
  if (slots >= 2 && buckets + (first_table_max_subs + 2) * first_table_max_dense < (1u << core::radix_slot_first_bits)) {
    const bool repeats = sample_has_repeats<U>(sorted_sample);
    // Slot counts tried: `slots`, twice and four times as many, at most buckets / 2.
    const auto allowed = [&](int tried) { return tried <= 4 * slots && tried <= static_cast<int>(buckets / 2); };
    for (int tried = slots; allowed(tried); tried *= 2) {
      if (repeats && allowed(2 * tried) &&
          heavy_keys_share_a_slot(sorted_sample, slot_layout_of(sorted_sample, tried),
                                  crowded_bucket_keys(sorted_sample.size(), buckets)))
        continue;  // refused below for certain: the next, narrower slots at once
      round_table<U> t = first_round_slot_table<U>(sorted_sample, buckets, tried);
      auto image = std::make_shared<const radix_slot_image<U>>(make_radix_slot_image(t));
      if (slot_table_spreads_sample(t, *image, sorted_sample)) {
        t.slot_image = std::move(image);
        return t;
      }
      if (!repeats) break;
    }
  }
  return first_round_pivot_table(sorted_sample, pivot_intervals, buckets);
}

/// A rank still being looked for: its position among the keys the current round counts
/// (the union of the round's intervals, in key order), and where its answer goes.
struct rank_target {
  std::int64_t position;
  std::size_t slot;
};

/// The outcome of one round's planning.
template <class U>
struct round_outcome {
  std::vector<rank_target> pending;  ///< positions among the next round's keys
  round_table<U> next;               ///< the unresolved active buckets (empty: done)
  std::int64_t next_keys = 0;        ///< keys inside next's intervals, over all processes
  /// local_next_keys: this process's keys inside next's intervals (from local counts).
  std::int64_t local_next_keys = 0;
};

/// After a round's all-reduce: finds each pending rank's bucket in the global counts,
/// answers the ranks whose bucket (intersected with the interval's global min/max, when
/// minmax) holds one key value (answers[slot] = that key), and builds the next round
/// from the other active buckets with the paper's proportional allotment (eq. 11,
/// at least 2 buckets each, about `buckets` in all). local_counts: this process's
/// counts of the same round (to size its next compaction).
template <class U>
round_outcome<U> plan_next_round(const round_table<U>& table, std::span<const std::uint64_t> global_counts,
                                 std::span<const std::uint64_t> local_counts, bool minmax,
                                 std::span<const U> interval_min, std::span<const U> interval_max,
                                 std::span<const rank_target> pending, std::uint32_t buckets,
                                 std::vector<U>& answers) {
  round_outcome<U> out;
  // Bucket -> interval, and cumulative counts (global positions of each bucket's first key).
  const std::size_t nb = table.buckets;

  struct active {
    std::uint32_t bucket;
    U lo, hi;
    std::int64_t count, local_count;
  };
  std::vector<active> actives;
  std::vector<std::pair<std::size_t, std::int64_t>> waiting;  // (index into actives, position within bucket)
  // `pending` is in ascending position order, so buckets come in ascending order too:
  // one walk over the counts finds them all (bucket b holds positions [start, start +
  // count); empty buckets are stepped over).
  std::size_t iv = 0;
  std::uint32_t b = 0;
  std::int64_t start = 0;  // keys in buckets before b
  for (const rank_target& t : pending) {
    while (b + 1 < nb && start + static_cast<std::int64_t>(global_counts[b]) <= t.position)
      start += static_cast<std::int64_t>(global_counts[b++]);
    while (table.intervals[iv].first + table.intervals[iv].count <= b) ++iv;
    const core::bucket_interval<U>& in = table.intervals[iv];
    U lo = bucket_first_key(in, b - in.first), hi = bucket_last_key(in, b - in.first);
    if (minmax) {
      lo = std::max(lo, interval_min[iv]);
      hi = std::min(hi, interval_max[iv]);
    }
    const std::int64_t within = t.position - start;
    if (lo >= hi) {  // one key value (lo > hi cannot happen for a bucket holding the rank)
      answers[t.slot] = lo;
      continue;
    }
    if (actives.empty() || actives.back().bucket != b)
      actives.push_back({b, lo, hi, static_cast<std::int64_t>(global_counts[b]),
                         static_cast<std::int64_t>(local_counts[b])});
    waiting.emplace_back(actives.size() - 1, within);
    out.pending.push_back({0, t.slot});
  }
  if (actives.empty()) return out;

  std::int64_t total = 0;
  for (const active& a : actives) total += a.count;
  const std::uint32_t target = std::max<std::uint32_t>(buckets, 2 * static_cast<std::uint32_t>(actives.size()));
  std::vector<U> lo, hi;
  std::vector<std::uint32_t> allot;
  std::vector<std::int64_t> before(actives.size());
  std::int64_t running = 0;
  for (std::size_t i = 0; i < actives.size(); ++i) {
    lo.push_back(actives[i].lo);
    hi.push_back(actives[i].hi);
    const double share = static_cast<double>(actives[i].count) / static_cast<double>(total);
    allot.push_back(std::max<std::uint32_t>(2, static_cast<std::uint32_t>(std::llround(share * target))));
    before[i] = running;
    running += actives[i].count;
    out.local_next_keys += actives[i].local_count;
  }
  out.next = make_table<U>(lo, hi, allot);
  out.next_keys = total;
  for (std::size_t i = 0; i < waiting.size(); ++i)
    out.pending[i].position = before[waiting[i].first] + waiting[i].second;
  return out;
}

}  // namespace kselect::distributed
