// A cheap, monotone map from pre-keys (key_traits::pre_key) to histogram bins,
// shaped by a sorted sample: the multiselection pre-pass counts every key into
// ~8K bins with it, then copies only the bins that hold target ranks.
//
// Why not splitters: classifying against thousands of sorted splitters costs a
// search per key (90 instructions per key in the general count kernel). Here a
// key costs a subtraction, a shift, one table read and a multiply: the range
// between the sample's smallest and largest pre-key is cut into `slots` equal
// radix slots; each slot gets a number of bins proportional to the sample keys it
// holds, spread linearly over it. Any monotone map gives exact counts (bins are
// ordered pre-key intervals); the sample only makes the bins small where the keys
// are. Pre-keys refine the key order (-0.0 before +0.0, NaNs apart), so ties of
// the key order may straddle bins; selection stays exact because the sorted
// order of the selected bins' keys is still the keys' sorted order.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "hd.hpp"

namespace kselect::plan {

inline constexpr int bin_map_slots = 512;

/// One radix slot: its bins cover the pre-keys its sample keys span, linearly
/// (a slot that holds one narrow cluster still gets all its bins over the cluster).
template <class K>
struct bin_slot {
  K low;                    ///< smallest sample pre-key in the slot (the slot's start if none)
  std::uint32_t first_bin;  ///< bins of the slot: first_bin .. first_bin + bins - 1
  std::uint16_t bins_minus_1;
  std::int16_t shift;       ///< frac = (pre - low) >> shift (<< -shift if negative), saturated to 16 bits
};

template <class K>
struct bin_map {
  K low;                 ///< smallest sample pre-key; smaller keys go to bin 0
  std::uint32_t shift;   ///< slot of a key: (pre - low) >> shift
  std::uint32_t num_bins;
  bin_slot<K> slots[bin_map_slots];
};

/// Bin of a pre-key: non-decreasing in `pre`, always < num_bins.
template <class K>
KSELECT_HD std::uint32_t bin_of(const bin_map<K>& m, K pre) {
  const K d = pre > m.low ? static_cast<K>(pre - m.low) : K(0);
  const K slot_wide = d >> m.shift;
  const bin_slot<K> s = m.slots[slot_wide < K(bin_map_slots) ? static_cast<int>(slot_wide) : bin_map_slots - 1];
  const K ds = pre > s.low ? static_cast<K>(pre - s.low) : K(0);
  const K frac_wide = s.shift >= 0 ? ds >> s.shift : ds << -s.shift;
  const std::uint32_t frac = frac_wide < K(1u << 16) && (s.shift >= 0 || ds < (K(1) << (16 + s.shift)))
                                 ? static_cast<std::uint32_t>(frac_wide)
                                 : 0xffffu;
  return s.first_bin + ((frac * (std::uint32_t(s.bins_minus_1) + 1)) >> 16);
}

/// Builds the map from `count` sorted sample pre-keys for about `target_bins` bins
/// (at most target_bins + bin_map_slots).
template <class K>
bin_map<K> build_bin_map(const K* sorted_pre, int count, std::uint32_t target_bins) {
  bin_map<K> m{};
  m.low = count > 0 ? sorted_pre[0] : K(0);
  const K span = count > 0 ? static_cast<K>(sorted_pre[count - 1] - m.low) : K(0);
  // Smallest shift with span >> shift < slots: the sample's range fills the slots.
  std::uint32_t shift = 0;
  while (shift < sizeof(K) * 8 && (span >> shift) >= K(bin_map_slots)) ++shift;
  m.shift = shift;
  int i = 0;  // next sample key
  std::uint32_t next = 0;
  for (int s = 0; s < bin_map_slots; ++s) {
    const int first = i;
    while (i < count && ((sorted_pre[i] - m.low) >> shift) == K(s)) ++i;
    bin_slot<K>& slot = m.slots[s];
    const std::uint64_t want = count > 0 ? std::uint64_t(i - first) * target_bins / std::uint64_t(count) : 0;
    if (i == first) {
      slot.low = static_cast<K>(m.low + (static_cast<K>(s) << shift));
      slot.shift = 0;
      slot.bins_minus_1 = 0;
    } else {
      slot.low = sorted_pre[first];
      const K slot_span = static_cast<K>(sorted_pre[i - 1] - slot.low);
      // Smallest shift (negative: left) with slot_span >> shift < 2^16.
      int sh = 0;
      while (sh < int(sizeof(K) * 8) && (slot_span >> sh) >= K(1u << 16)) ++sh;
      // A span below 2^16 is stretched to fill the 16-bit fraction (slot_span << 16
      // cannot overflow a 32-bit key here).
      while (sh == 0 || sh < 0) {
        if (sh <= -16 || (slot_span << (1 - sh)) >= K(1u << 16)) break;
        --sh;
      }
      slot.shift = static_cast<std::int16_t>(sh);
      // Never more bins than distinct pre-keys in the span.
      const std::uint64_t keys_in_span = std::uint64_t(slot_span) + 1;
      const std::uint64_t bins = std::clamp<std::uint64_t>(want, 1, std::min<std::uint64_t>(keys_in_span, 1u << 16));
      slot.bins_minus_1 = static_cast<std::uint16_t>(bins - 1);
    }
    slot.first_bin = next;
    next += std::uint32_t(slot.bins_minus_1) + 1;
  }
  m.num_bins = next;
  return m;
}

}  // namespace kselect::plan
