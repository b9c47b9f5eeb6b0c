// The approximate counting pass's classifier: a pre-key's bucket among up to
// 4095 splitters (core/approx.hpp: bucket = number of splitter boundaries <= the
// pre-key, core/buckets.hpp's layout) from two table reads, shared by the CUDA
// kernels and the CPU backend.
//
// Why a table and not a search. The pass reads every key once and is meant to
// run near the read floor, so per key it can afford about as much as the
// multiselection pre-pass's bin_count_kernel (one shared table word, one shared
// atomic). A binary search over 4095 splitters in shared memory is 12 dependent
// reads, past the first five levels on random banks; and a slot table whose slots
// follow the key span linearly (kernels/slot_table.cuh, the general driver's)
// is compute-bound where splitters crowd: uniform floats put half of them into
// the top binade, 1/12 of the key span. (docs/algorithms.md, "Approximate
// selection", has the measurements.)
//
// So: two levels of radix slots over the pre-keys, offsets d = pre-key - lo.
//   coarse: d >> coarse_shift. Two modes, by the boundaries' span:
//           - wrap (the span covers at least 8 of these slots: smooth float
//             data over many binades, wide integers): the top 9 bits
//             (11 for 64-bit keys) of d, the whole key space in 512 (2048)
//             slots; a float slot is one binade (two for double), so a smooth
//             density is nearly flat inside it (it doubles from one binade to
//             the next). lo is aligned to a slot, so the pre-keys below it wrap
//             around into slots of their own that count as bucket 0: no clamp.
//           - clamp (narrower spans): 32 slots over [lo, hi], the first
//             boundary - 1 to the last, pre-keys clamped into it first.
//           A warp's keys fall in a few adjacent coarse slots (different banks,
//           or one broadcast word). Each word gives its slot's own fine
//           resolution, a power of two from the boundaries inside it (binades
//           dense with splitters get narrow fine slots; a run of coarse slots
//           without boundaries shares one fine slot), and where its fine slots
//           start: fine byte offset = (word + ((d >> fine_shift) << 8)) >> 6.
//   fine:   up to 16384 32-bit words (64 KiB). A word holds the boundaries below
//           its slot (13 bits) and, when the slot is at most 2^15 pre-keys wide
//           and holds no boundary, one, or the two of a singleton key (first and
//           first + 1), how many and the first one's offset. The bucket is then
//           base + min(max(f + 1 - offset, 0), count) with f = the key's low 15
//           bits: no compare, no further read. Other slots (several splitters,
//           or wide slots, which is every slot holding a boundary for 64-bit
//           floats) are marked `search`: a binary search over their few
//           boundaries.
// Then one shared atomic on the bucket's counter. The fine resolution gets
// about 16 slots per bucket (approx_fine_budget), so with splitters every 4 to
// 128 sample keys few slots hold two splitters. Narrow clusters of keys (a few
// hundred distinct values holding many splitters) are the weak case: they fall
// into one fine slot and are searched (exact, slower).
//
// Exactness does not depend on the sample: every pre-key reaches the slot of
// its offset (clamping or wrapping below lo changes no bucket), and slots with
// more boundaries than fit are searched. The sample only makes search slots rare.
#pragma once

#include <cstdint>
#include <span>
#include <stdexcept>
#include <vector>

#include "hd.hpp"
#include "int_math.hpp"

namespace kselect::core {

/// Clamp mode's coarse slots: 2^5.
inline constexpr int approx_coarse_bits = 5;
/// Wrap mode's coarse slots: the top 9 bits of a 32-bit key (float: sign and
/// exponent, one slot per binade), the top 11 of a 64-bit key (double: two
/// binades per slot; 2^12 slots would be 16 KiB, and two counting blocks with
/// 4096 buckets would no longer fit an H100 SM).
template <class K>
inline constexpr int approx_wrap_bits = sizeof(K) == 4 ? 9 : 11;
template <class K>
inline constexpr std::uint32_t approx_max_coarse = 1u << approx_wrap_bits<K>;
/// Wrap mode when the boundaries span at least 2^approx_wrap_min_width pre-keys,
/// 8 wrap slots (clamp mode's 32 slots would be at least a quarter of a wrap
/// slot wide: a quarter of a float binade, half of a double one).
template <class K>
inline constexpr int approx_wrap_min_width = static_cast<int>(sizeof(K) * 8) - approx_wrap_bits<K> + 3;
/// Most fine slots: 64 KiB of shared memory, which with the histogram of 4096
/// buckets (32 KiB) keeps two counting blocks per H100 SM (228 KiB).
inline constexpr int approx_max_fine_slots = 16384;
/// Boundaries at most (two per splitter): fits the word's 13-bit base.
inline constexpr int approx_max_boundaries = 8190;

/// Fine slots for a bucket count: 16 per bucket (8 per boundary; the power-of-two
/// resolution per coarse slot uses half to all of its share), between 8192 and
/// approx_max_fine_slots. The floor keeps few buckets' fine slots at most 2^16
/// pre-keys wide in the binades holding boundaries, so that few keys of smooth
/// data reach the search (a lower floor sent a large share of normal floats
/// there); 32 KiB is still small. Always more than the reserve
/// (approx_fine_reserve: at most 2 * boundaries + 2).
KSELECT_HD constexpr int approx_fine_budget(int buckets) {
  int b = 1;
  while (b < buckets) b <<= 1;
  const int want = 16 * b;
  return want < 8192 ? 8192 : want > approx_max_fine_slots ? approx_max_fine_slots : want;
}

/// The table's parameters and coarse words (the fine words are a separate array).
template <class K>
struct approx_lookup {
  K lo;                         ///< offsets are pre-key - lo
  K hi;                         ///< clamp mode: larger pre-keys count as hi (the last boundary)
  std::uint32_t wrap;           ///< 1: wrap mode, 0: clamp mode
  std::uint32_t coarse_shift;   ///< coarse slot of offset d: d >> coarse_shift
  std::uint32_t coarse_used;    ///< coarse slots (wrap mode: all of them)
  std::uint32_t forward;        ///< coarse slots of offsets [0, range]; the rest (wrap mode) hold
                                ///< the pre-keys below lo
  std::uint32_t num_boundaries;
  std::uint32_t fine_used;      ///< fine words in use
  std::uint32_t coarse[approx_max_coarse<K>];  ///< adjustment << 8 | fine shift (mod 2^32)
};

/// Sets lo, hi, the mode, coarse_shift, coarse_used and forward for sorted
/// boundaries first .. last.
template <class K>
KSELECT_HD void approx_set_range(approx_lookup<K>& t, K first, K last) {
  constexpr int width_bits = static_cast<int>(sizeof(K) * 8);
  const K lo = first > 0 ? static_cast<K>(first - 1) : K(0);
  const int width = bit_width_of(static_cast<K>(last - lo));
  if (width >= approx_wrap_min_width<K>) {
    t.wrap = 1;
    t.coarse_shift = static_cast<std::uint32_t>(width_bits - approx_wrap_bits<K>);
    t.lo = static_cast<K>(lo & ~static_cast<K>((K(1) << t.coarse_shift) - 1));  // a whole slot: wrapped keys
    t.hi = static_cast<K>(~K(0));                                                // get slots of their own
    t.coarse_used = approx_max_coarse<K>;
  } else {
    t.wrap = 0;
    t.coarse_shift = static_cast<std::uint32_t>(width > approx_coarse_bits ? width - approx_coarse_bits : 0);
    t.lo = lo;
    t.hi = last;
    t.coarse_used = static_cast<std::uint32_t>(static_cast<K>(last - lo) >> t.coarse_shift) + 1;
  }
  t.forward = static_cast<std::uint32_t>(static_cast<K>(t.hi - t.lo) >> t.coarse_shift) + 1;
}

/// The largest offset of the forward slots: hi - lo.
template <class K>
KSELECT_HD K approx_range(const approx_lookup<K>& t) {
  return static_cast<K>(t.hi - t.lo);
}

/// A pre-key's offset: clamped into [0, hi - lo] (clamp mode), or wrapped modulo
/// the key width (wrap mode; pre-keys below lo land in the slots past `forward`).
template <class K>
KSELECT_HD K approx_clamped_offset(K lo, K hi, K pre) {
  return static_cast<K>((pre < lo ? lo : pre > hi ? hi : pre) - lo);
}
template <class K>
KSELECT_HD K approx_offset(const approx_lookup<K>& t, K pre) {
  return t.wrap ? static_cast<K>(pre - t.lo) : approx_clamped_offset(t.lo, t.hi, pre);
}

template <class K>
KSELECT_HD std::uint32_t approx_coarse_of(const approx_lookup<K>& t, K d) {
  return static_cast<std::uint32_t>(d >> t.coarse_shift);
}

/// Fine slots set aside before the shares: one per forward coarse slot holding
/// boundaries (its share may round to less than one slot), one per run of
/// forward coarse slots without any (they share one slot), and one for the
/// pre-keys below lo in wrap mode. At most 2 * boundaries + 2.
KSELECT_HD std::uint32_t approx_fine_reserve(std::uint32_t nonempty_coarse, std::uint32_t empty_runs,
                                             bool wrapped_slots) {
  return nonempty_coarse + empty_runs + (wrapped_slots ? 1u : 0u);
}

/// log2 of the fine slots of a coarse slot holding `in_slot` (> 0) of `total`
/// boundaries: the power of two at or below its share of the `shared` slots
/// (budget - approx_fine_reserve), at least one slot, at most 2^coarse_shift
/// (width 1). Summed over the coarse slots, plus the reserve's other slots,
/// this stays within the budget: each slot takes at most max(1, its share).
KSELECT_HD int approx_fine_bits(std::uint32_t in_slot, std::uint32_t total, std::uint32_t shared,
                                std::uint32_t coarse_shift) {
  const std::uint64_t want = static_cast<std::uint64_t>(shared) * in_slot / total;
  int bits = want <= 1 ? 0 : bit_width_of(want) - 1;
  return bits > static_cast<int>(coarse_shift) ? static_cast<int>(coarse_shift) : bits;
}

/// Rounding each share down to a power of two leaves a quarter to a half of the
/// budget unused; the builders also try the shares scaled by 1 + k/4 for
/// k = approx_share_scales - 1 .. 1 and keep the largest scale whose slots fit,
/// so that more of the budget is used and fewer keys land in searched slots.
inline constexpr int approx_share_scales = 5;
KSELECT_HD std::uint32_t approx_scaled_share(std::uint32_t shared, int k) {
  return static_cast<std::uint32_t>(static_cast<std::uint64_t>(shared) * (4 + k) / 4);
}

/// Fine slots that forward coarse slot c uses, its part of offsets [0, range],
/// with fine slots 2^fine_shift wide.
template <class K>
KSELECT_HD std::uint32_t approx_fine_used(K range, std::uint32_t c, std::uint32_t coarse_shift,
                                          std::uint32_t fine_shift) {
  const K start = static_cast<K>(static_cast<K>(c) << coarse_shift);  // c < forward: at most range
  // The slot's last offset; for the top slot of the key space the shift wraps to
  // 0 and the -1 to the largest key, which the min cuts to range.
  const K slot_last = static_cast<K>(static_cast<K>(static_cast<K>(c + 1) << coarse_shift) - 1);
  const K last = slot_last < range ? slot_last : range;
  return static_cast<std::uint32_t>((last >> fine_shift) - (start >> fine_shift) + 1);
}

/// The coarse word of slot c: its fine shift and the adjustment that makes
/// (d >> fine_shift) + adjustment the index `fine_start` at the slot's first
/// offset. The adjustment is kept modulo 2^24 (<< 8; fine indices are below
/// 2^14, so the sum modulo 2^24 is the index), bits 6 and 7 are zero: then
/// (word + ((d >> fine_shift) << 8)) >> 6 is the fine word's byte offset, with
/// no mask (approx_classifier).
KSELECT_HD std::uint32_t approx_coarse_word(std::uint32_t fine_start, std::uint32_t fine_shift, std::uint32_t c,
                                            std::uint32_t coarse_shift) {
  const std::uint32_t adjust = fine_start - (c << (coarse_shift - fine_shift));  // modulo 2^32
  return (adjust << 8) | fine_shift;
}

template <class K>
KSELECT_HD std::uint32_t approx_fine_index(std::uint32_t coarse_word, K d) {
  return (coarse_word + (static_cast<std::uint32_t>(d >> (coarse_word & 63u)) << 8)) >> 8;
}

// Fine word layout: base (13 bits) | search (1) | cap (2) | k (16, signed).
inline constexpr std::uint32_t approx_base_mask = 0x1fffu;       ///< boundaries below the slot
inline constexpr std::uint32_t approx_search_bit = 1u << 13;     ///< classify by a search (k: the count)
inline constexpr int approx_cap_shift = 14;                      ///< boundaries in the slot, 0 to 2
inline constexpr int approx_k_shift = 16;                        ///< 1 - the first boundary's offset
/// Slots at most 2^15 pre-keys wide keep their first boundary's offset in the word.
inline constexpr std::uint32_t approx_max_inline_shift = 15;
inline constexpr std::uint32_t approx_offset_mask = 0x7fffu;

/// The fine word of a slot with `count` boundaries, `base` boundaries below it,
/// 2^fine_shift pre-keys wide; b0, b1 are its first two boundaries (read only when
/// count is at least 1 or 2), lo the table's lo. Inline, the bucket of a key at
/// offset f in the slot is base + min(max(f + k, 0), cap) with k = 1 - o for the
/// first boundary's offset o: 0 below it, 1 on it, cap above (one boundary, or two
/// at o and o + 1: a key whose pre-keys are one, the usual splitter). An aligned
/// slot at most 2^15 wide lies in one aligned 2^15 block of offsets, so inside
/// it an offset's low 15 bits order as the offset does: the decoder uses those.
template <class K>
KSELECT_HD std::uint32_t approx_fine_word(std::uint32_t base, std::uint32_t count, K b0, K b1,
                                          std::uint32_t fine_shift, K lo) {
  if (count == 0) return base;
  if (fine_shift <= approx_max_inline_shift && (count == 1 || (count == 2 && b1 == static_cast<K>(b0 + 1)))) {
    const auto o = static_cast<std::uint32_t>(static_cast<K>(b0 - lo) & K(approx_offset_mask));
    return base | (count << approx_cap_shift) | ((1u - o) << approx_k_shift);
  }
  return base | approx_search_bit | (count << approx_k_shift);
}

/// The classifier: the table's scalars by value, its arrays by pointer. The CUDA
/// count pass builds one per thread, so lo, hi and the shift sit in registers:
/// read through the shared table they would be reloaded after every shared
/// atomic on the histogram, which the compiler cannot tell apart from the table.
/// `coarse` and `fine` live where the caller reads fast (shared memory on the
/// GPU); `boundaries`, read only by searched slots, may be in global memory.
template <class K>
struct approx_classifier {
  K lo, hi;
  std::uint32_t coarse_shift;
  bool wrap;
  const std::uint32_t* coarse;
  const std::uint32_t* fine;
  const K* boundaries;

  /// Bucket of pre-key `pre`: the number of boundaries <= pre. Wrap is the
  /// table's mode (a template argument, so that the count pass's loop has no
  /// test for it).
  template <bool Wrap>
  KSELECT_HD std::uint32_t bucket(K pre) const {
    const K d = Wrap ? static_cast<K>(pre - lo) : approx_clamped_offset(lo, hi, pre);
    const std::uint32_t cw = coarse[static_cast<std::uint32_t>(d >> coarse_shift)];
    const std::uint32_t byte = (cw + (static_cast<std::uint32_t>(d >> (cw & 63u)) << 8)) >> 6;
    const std::uint32_t w = *reinterpret_cast<const std::uint32_t*>(reinterpret_cast<const char*>(fine) + byte);
    const std::uint32_t base = w & approx_base_mask;
    if (w & approx_search_bit) {
      const K p = static_cast<K>(lo + d);
      const std::uint32_t count = w >> approx_k_shift;
      return base + static_cast<std::uint32_t>(
                        partition_point(count, [&](std::int64_t i) { return boundaries[base + i] <= p; }));
    }
    const std::int32_t t = static_cast<std::int32_t>(static_cast<std::uint32_t>(d) & approx_offset_mask) +
                           (static_cast<std::int32_t>(w) >> approx_k_shift);
    const std::int32_t cap = static_cast<std::int32_t>((w >> approx_cap_shift) & 3u);
    const std::int32_t above = t < 0 ? 0 : t;
    return base + static_cast<std::uint32_t>(above < cap ? above : cap);
  }

  KSELECT_HD std::uint32_t bucket(K pre) const { return wrap ? bucket<true>(pre) : bucket<false>(pre); }
};

template <class K>
KSELECT_HD approx_classifier<K> approx_classifier_of(const approx_lookup<K>& t, const std::uint32_t* fine,
                                                     const K* boundaries) {
  return {t.lo, t.hi, t.coarse_shift, t.wrap != 0, t.coarse, fine, boundaries};
}

/// A built table (host): parameters with coarse words, and the fine words.
template <class K>
struct approx_lookup_table {
  approx_lookup<K> params{};
  std::vector<std::uint32_t> fine;
};

/// Builds the table for sorted (non-decreasing) boundaries, 1 to
/// approx_max_boundaries of them, with at most `budget` fine slots. The budget
/// must exceed the reserve (at most 2 * boundaries + 2), as
/// approx_fine_budget(buckets) does for the boundaries of buckets - 1
/// splitters. The CUDA plan kernel builds the same table in one block from the
/// same helpers.
template <class K>
approx_lookup_table<K> build_approx_lookup(std::span<const K> boundaries, int budget) {
  approx_lookup_table<K> out;
  approx_lookup<K>& t = out.params;
  const auto nb = static_cast<std::uint32_t>(boundaries.size());
  approx_set_range<K>(t, boundaries.front(), boundaries.back());
  t.num_boundaries = nb;
  const K range = approx_range(t);
  const std::uint32_t nf = t.forward;
  const bool wrapped = t.coarse_used > nf;
  std::vector<std::uint32_t> in_coarse(nf, 0);
  for (const K b : boundaries) ++in_coarse[approx_coarse_of(t, approx_offset(t, b))];
  std::uint32_t nonempty = 0, runs = 0;
  for (std::uint32_t c = 0; c < nf; ++c) {
    nonempty += in_coarse[c] > 0;
    runs += in_coarse[c] == 0 && (c == 0 || in_coarse[c - 1] > 0);
  }
  const std::uint32_t reserve = approx_fine_reserve(nonempty, runs, wrapped);
  if (static_cast<std::uint32_t>(budget) <= reserve)
    throw std::logic_error("kselect: approximate lookup budget below its reserve");
  auto bits_of = [&](std::uint32_t c, std::uint32_t shared) {
    return static_cast<std::uint32_t>(approx_fine_bits(in_coarse[c], nb, shared, t.coarse_shift));
  };
  // The shares, scaled up as far as the budget allows (approx_share_scales).
  std::uint32_t shared = static_cast<std::uint32_t>(budget) - reserve;
  for (int k = approx_share_scales - 1; k > 0; --k) {
    const std::uint32_t scaled = approx_scaled_share(shared, k);
    std::uint32_t total = reserve;
    for (std::uint32_t c = 0; c < nf; ++c)
      if (in_coarse[c] > 0)
        total += approx_fine_used(range, c, t.coarse_shift, t.coarse_shift - bits_of(c, scaled)) - 1;
    if (total <= static_cast<std::uint32_t>(budget)) {
      shared = scaled;
      break;
    }
  }
  std::uint32_t start = 0;
  std::vector<std::uint32_t> slot_shift;  // per fine slot
  for (std::uint32_t c = 0; c < nf; ++c) {
    if (in_coarse[c] == 0) {
      // A run of empty coarse slots shares one fine slot (shift = coarse shift:
      // d >> shift is c, one index per coarse slot).
      const bool first_of_run = c == 0 || in_coarse[c - 1] > 0;
      t.coarse[c] = approx_coarse_word(first_of_run ? start : start - 1, t.coarse_shift, c, t.coarse_shift);
      if (first_of_run) slot_shift.push_back(t.coarse_shift), ++start;
      continue;
    }
    const std::uint32_t shift = t.coarse_shift - bits_of(c, shared);
    t.coarse[c] = approx_coarse_word(start, shift, c, t.coarse_shift);
    const std::uint32_t used = approx_fine_used(range, c, t.coarse_shift, shift);
    slot_shift.insert(slot_shift.end(), used, shift);
    start += used;
  }
  const std::uint32_t forward_slots = start;
  // Wrap mode: the pre-keys below lo, in the slots past the forward ones, share
  // one more fine slot, bucket 0.
  if (wrapped) {
    for (std::uint32_t c = nf; c < t.coarse_used; ++c)
      t.coarse[c] = approx_coarse_word(start, t.coarse_shift, c, t.coarse_shift);
    slot_shift.push_back(t.coarse_shift);
    ++start;
  }
  t.fine_used = start;
  std::vector<std::uint32_t> count(start, 0);
  for (const K b : boundaries) {
    const K d = approx_offset(t, b);
    ++count[approx_fine_index(t.coarse[approx_coarse_of(t, d)], d)];
  }
  out.fine.resize(start);
  std::uint32_t base = 0;
  for (std::uint32_t f = 0; f < forward_slots; ++f) {
    const K b0 = count[f] >= 1 ? boundaries[base] : K(0);
    const K b1 = count[f] >= 2 ? boundaries[base + 1] : K(0);
    out.fine[f] = approx_fine_word<K>(base, count[f], b0, b1, slot_shift[f], t.lo);
    base += count[f];
  }
  if (wrapped) out.fine[forward_slots] = approx_fine_word<K>(0, 0, K(0), K(0), t.coarse_shift, t.lo);
  return out;
}

}  // namespace kselect::core
