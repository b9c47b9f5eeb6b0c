// The buckets of one DIBMS round, shared by the planner (host) and the backends that
// count keys into them (CPU and CUDA).
//
// Keys are the order-preserving unsigned keys of core/key_traits.hpp. A round has
// `intervals`: disjoint, ascending, inclusive key ranges [lo, hi]. Interval i owns
// buckets [first, first + count) of the round's bucket array. A key inside interval i
// goes to bucket first + offset(key - lo): a fixed-point linear projection (the
// paper's slope * (x - left), done on the integer keys so that every bucket is an
// exact, non-empty key range and the planner can name each bucket's range without
// rounding). Keys outside every interval are not counted: they are out of contention.
//
// offset(d) = d                      when scale == 0 (the interval has at most `count` keys)
//           = floor(d * scale / 2^W) otherwise, with scale = floor(count * 2^W / width),
// W the key's width in bits and width = hi - lo + 1. Then offset is non-decreasing,
// offset(width - 1) < count, and every bucket of the interval holds at least one key
// value, so each bucket is strictly narrower than its interval (rounds always progress).
#pragma once

#include <cstdint>
#include <span>
#include <type_traits>
#include <vector>

#include "hd.hpp"

namespace kselect::core {

template <class U>
struct bucket_interval {
  U lo;                 ///< first key of the interval
  U hi;                 ///< last key of the interval (inclusive)
  U scale;              ///< fixed-point slope; 0: one bucket per key value
  std::uint32_t first;  ///< the interval's first bucket in the round's bucket array
  std::uint32_t count;  ///< the interval's buckets
};

/// floor(a * b / 2^W) for W-bit unsigned a, b.
template <class U>
KSELECT_HD U mul_hi(U a, U b) {
  static_assert(std::is_same_v<U, std::uint32_t> || std::is_same_v<U, std::uint64_t> ||
                std::is_same_v<U, std::uint16_t>);
  if constexpr (sizeof(U) == 4) {
#if defined(__CUDA_ARCH__)
    return __umulhi(a, b);  // one IMAD.HI; the 64-bit product's form left an integer add of 0 per use
#else
    return static_cast<U>((static_cast<std::uint64_t>(a) * b) >> 32);
#endif
  } else if constexpr (sizeof(U) < 4) {
    return static_cast<U>((static_cast<std::uint64_t>(a) * b) >> (8 * sizeof(U)));
  } else {
#if defined(__CUDA_ARCH__)
    return __umul64hi(a, b);
#else
    return static_cast<U>((static_cast<unsigned __int128>(a) * b) >> 64);
#endif
  }
}

/// The bucket of `key` (at least lo) within an interval from lo with bucket scale
/// `scale` (0: one bucket per key), relative to the interval's first bucket.
template <class U>
KSELECT_HD std::uint32_t bucket_offset(U lo, U scale, U key) {
  const U d = static_cast<U>(key - lo);
  return static_cast<std::uint32_t>(scale == 0 ? d : mul_hi(d, scale));
}

/// The bucket of `key` within interval `iv` (key in [iv.lo, iv.hi]), relative to iv.first.
template <class U>
KSELECT_HD std::uint32_t bucket_offset(const bucket_interval<U>& iv, U key) {
  return bucket_offset(iv.lo, iv.scale, key);
}

/// The last of lo[0..count) (ascending, count >= 1) that is at most `key`, or 0 when
/// none is: a search of fixed depth ceil(log2(count)) with a select per step instead
/// of a branch, so that a CPU core does not mispredict on random keys and the lanes of
/// a GPU warp never diverge. The caller checks lo[i] <= key <= hi[i].
template <class U>
KSELECT_HD int last_interval_at_most(const U* lo, int count, U key) {
  int i = 0;
  for (int len = count; len > 1;) {
    const int half = len / 2;
    i = lo[i + half] <= key ? i + half : i;
    len -= half;
  }
  return i;
}

/// Index of the interval holding `key` among intervals[0..count) (ascending, disjoint),
/// or -1 when no interval holds it. lo_keys[i] == intervals[i].lo (a separate array so
/// a kernel can keep it in shared memory).
template <class U>
KSELECT_HD int find_interval(const U* lo_keys, const bucket_interval<U>* intervals, int count, U key) {
  if (count <= 0) return -1;
  const int i = last_interval_at_most(lo_keys, count, key);
  return (lo_keys[i] <= key && key <= intervals[i].hi) ? i : -1;
}

/// A round whose intervals are radix slots (the first round, distributed/dibms_plan.hpp):
/// slot j is the interval [base + j * 2^shift, base + (j + 1) * 2^shift - 1] with `count`
/// buckets, so that a key's bucket is the slot's entry (first bucket, count) and one
/// multiply, with no interval to look up: offset(d) = floor(d * count / 2^shift) is the
/// interval's projection (scale = count * 2^(W - shift) exactly), computed as
/// mul_hi(d * 2^(W - shift), count). Keys below the slots (a tail interval [0, base - 1])
/// and above them (a tail up to the largest key) have one bucket each.
///
/// A *dense* slot (many sample keys in a few key values: a repeated value, a tight
/// cluster) is cut again the same way: sub-slots of 2^sub_shift keys from sub_base, each
/// an interval with its buckets, and the slot's keys below and above them one interval
/// and bucket each (where the slot has such keys). Its entry is the dense slot's index
/// with radix_dense_flag. Sub-slots of two keys with two buckets make buckets of one key
/// value, so ranks on a repeated value are answered after one round.
///
/// A slot's entry and a sub-slot's word are first | count << radix_slot_first_bits: a
/// table with a slot layout has fewer than 2^radix_slot_first_bits buckets and at most
/// radix_slot_max_count per slot.
inline constexpr int radix_slot_first_bits = 19;
inline constexpr std::uint32_t radix_slot_max_count = (1u << (31 - radix_slot_first_bits)) - 1;  // 4095
inline constexpr std::uint32_t radix_dense_flag = 1u << 31;

template <class U>
struct radix_dense_slot {
  std::uint32_t slot = 0;  ///< the dense slot
  U sub_base = 0;          ///< first key of its first sub-slot
  int sub_shift = 1;       ///< 1 <= sub_shift <= shift
  std::uint32_t subs = 1;  ///< sub-slots (inside the slot)
};

template <class U>
struct radix_slots {
  std::uint32_t slots = 0;  ///< 0: the table is not laid out in slots
  U base = 0;
  int shift = 1;            ///< 1 <= shift < W
  bool tail_below = false;  ///< interval 0 is [0, base - 1]
  bool tail_above = false;  ///< the last interval is [base + slots * 2^shift, max]
  std::vector<radix_dense_slot<U>> dense;  ///< ascending slots
};

KSELECT_HD std::uint32_t radix_slot_word(std::uint32_t first, std::uint32_t count) {
  return first | count << radix_slot_first_bits;
}
/// A plain slot's or a sub-slot's word: its first bucket and number of buckets.
KSELECT_HD std::uint32_t radix_word_first(std::uint32_t w) { return w & ((1u << radix_slot_first_bits) - 1); }
KSELECT_HD std::uint32_t radix_word_count(std::uint32_t w) { return w >> radix_slot_first_bits; }

/// The last key offset (key - base) inside the slots (slots * 2^shift - 1, which is the
/// largest key's offset when the slots reach it).
template <class U>
KSELECT_HD U radix_slots_last_offset(std::uint32_t slots, int shift) {
  return static_cast<U>((static_cast<U>(slots) << shift) - 1);
}

/// A dense slot on the device: its sub-slots' span, the buckets of its keys below and
/// above them, the sub-slots' shift and where their words start, packed in two words so
/// that a record of 32-bit keys is one 16-byte load (every key of a pass over a map with
/// dense slots reads one, and on few-valued data those loads meet on few shared-memory
/// banks: four fields' words made it two loads and more conflicts).
///   low  = below | shift << radix_dense_shift_at        (below < 2^19, shift < 64)
///   high = above | first_word << radix_slot_first_bits  (above < 2^19, first_word < 2^12)
inline constexpr int radix_dense_shift_at = 24;
inline constexpr std::uint32_t radix_dense_max_first_word = (1u << (32 - radix_slot_first_bits - 1)) - 1;  // 4095

template <class U>
struct alignas(16) radix_dense_record {
  U sub_base, sub_last;  ///< sub_last: the last key offset (key - sub_base) inside the sub-slots
  std::uint32_t low, high;
  KSELECT_HD std::uint32_t below() const { return low & ((1u << radix_slot_first_bits) - 1); }
  KSELECT_HD int shift() const { return static_cast<int>(low >> radix_dense_shift_at); }
  KSELECT_HD std::uint32_t above() const { return high & ((1u << radix_slot_first_bits) - 1); }
  KSELECT_HD std::uint32_t first_word() const { return high >> radix_slot_first_bits; }
};

static_assert(sizeof(radix_dense_record<std::uint32_t>) == 16, "one 16-byte load per record of 32-bit keys");

/// A dense record from its fields (below, above < 2^radix_slot_first_bits; shift < 64;
/// first_word <= radix_dense_max_first_word).
template <class U>
KSELECT_HD radix_dense_record<U> make_radix_dense_record(U sub_base, U sub_last, std::uint32_t below, std::uint32_t above,
                                                         std::uint32_t first_word, int shift) {
  return {sub_base, sub_last, below | static_cast<std::uint32_t>(shift) << radix_dense_shift_at,
          above | first_word << radix_slot_first_bits};
}

/// A slot map's entry, one word: radix_slot_word(first, count) of a plain slot; of a
/// tail, its bucket and count 1 (the multiply then adds 0 to every key's); of a dense
/// slot, radix_dense_flag | its record's index. No entry is 0 (a count is at least 1, a
/// dense entry has its flag): a refining pass marks the slots it skips with 0. One word
/// rather than two, so that a warp's lookup is a 4-byte shared-memory load: random 8-byte
/// loads took more shared-memory wavefronts, which bound the first pass once its integer
/// work was cut (docs/performance.md, issue 26).
struct radix_slot_entry {
  std::uint32_t word = 0;
  KSELECT_HD std::uint32_t first() const { return radix_word_first(word); }
  KSELECT_HD std::uint32_t count() const { return radix_word_count(word); }
  KSELECT_HD bool dense() const { return (word & radix_dense_flag) != 0; }
  KSELECT_HD std::uint32_t dense_index() const { return word & ~radix_dense_flag; }
};

KSELECT_HD radix_slot_entry radix_plain_entry(std::uint32_t first, std::uint32_t count) {
  return {radix_slot_word(first, count)};
}
KSELECT_HD radix_slot_entry radix_tail_entry(std::uint32_t bucket) { return radix_plain_entry(bucket, 1u); }
KSELECT_HD radix_slot_entry radix_dense_entry(std::uint32_t index) { return {radix_dense_flag | index}; }

/// A slot table as the passes read it (core::radix_slot_bucket): entries[0] for the keys
/// below the slots, entries[1 + j] for slot j, entries[slots + 1] for the keys above
/// them. A key finds its entry, and its offset in its slot, without a test or a select
/// on which side of the slots it lies. With origin o = base - 2^shift (negative when base
/// < 2^shift), the key is raised to floor = max(o, 0) and then
///   (key - o) * 2^(W - shift) = key * 2^(W - shift) + addend,  addend = -o * 2^(W - shift)
/// (a 2W-bit value, the addend taken modulo 2^2W) holds the entry's index, 1 + (key -
/// base) >> shift, in its high word (0 for keys below base; capped at slots + 1 above the
/// slots) and (key - base) << (W - shift), the key's offset in its slot shifted to the
/// top, in its low word. For 32-bit keys that is one 32 x 32 + 64-bit multiply-add
/// between two clamps: the GPU passes' integer ALU, which bound them, then does two
/// clamps per key instead of nine compares, shifts and selects (docs/performance.md,
/// issue 26).
template <class U>
struct radix_slot_map {
  const radix_slot_entry* entries;          ///< slots + 2
  const radix_dense_record<U>* dense;       ///< one per dense slot
  const std::uint32_t* sub_words;           ///< the dense slots' sub-slot words
  U floor;                                  ///< max(base - 2^shift, 0)
  U scale;                                  ///< 2^(W - shift)
  U addend_low, addend_high;                ///< (2^shift - base) * scale modulo 2^2W
  std::uint32_t last_entry;                 ///< slots + 1
};

/// The map of a slot layout (base, shift with 1 <= shift < W, slots) over its arrays.
template <class U>
radix_slot_map<U> make_radix_slot_map(const radix_slot_entry* entries, const radix_dense_record<U>* dense,
                                      const std::uint32_t* sub_words, U base, int shift, std::uint32_t slots) {
  constexpr int bits = 8 * sizeof(U);
  using wide = std::conditional_t<sizeof(U) <= 4, std::uint64_t, unsigned __int128>;
  const U width = static_cast<U>(U(1) << shift);
  const U scale = static_cast<U>(U(1) << (bits - shift));
  const wide addend = (static_cast<wide>(width) - static_cast<wide>(base)) * scale;  // modulo 2^2W
  return {entries, dense, sub_words, base >= width ? static_cast<U>(base - width) : U(0), scale,
          static_cast<U>(addend), static_cast<U>(addend >> bits), slots + 1};
}

/// The index of `key`'s entry in map m, and `top`: its offset in its slot shifted to the
/// top bits (meaningful for a slot's keys only).
template <class U>
KSELECT_HD std::uint32_t radix_entry_index(const radix_slot_map<U>& m, U key, U& top) {
  const U raised = key > m.floor ? key : m.floor;
  U high;
  if constexpr (sizeof(U) <= 4) {
    const std::uint64_t wide = static_cast<std::uint64_t>(raised) * m.scale +
                               (static_cast<std::uint64_t>(m.addend_high) << 32 | m.addend_low);
    top = static_cast<U>(wide);
    high = static_cast<U>(wide >> 32);
  } else {
    const U low = static_cast<U>(raised * m.scale);
    top = static_cast<U>(low + m.addend_low);
    high = static_cast<U>(mul_hi(raised, m.scale) + m.addend_high + (top < low ? 1 : 0));
  }
  return high < m.last_entry ? static_cast<std::uint32_t>(high) : m.last_entry;
}

/// The bucket of a key with slot offset `top` by a plain slot's or a tail's entry (a dense
/// slot's entry gives a value the caller does not use).
template <class U>
KSELECT_HD std::uint32_t radix_entry_bucket(radix_slot_entry e, U top) {
  return e.first() + static_cast<std::uint32_t>(mul_hi(top, static_cast<U>(e.count())));
}

/// The bucket of key offset rel (within its sub-slot of 2^shift keys) by sub-slot word w.
template <class U>
KSELECT_HD std::uint32_t radix_word_bucket(std::uint32_t w, U rel, int shift) {
  constexpr int bits = 8 * sizeof(U);
  return radix_word_first(w) +
         static_cast<std::uint32_t>(mul_hi(static_cast<U>(rel << (bits - shift)), static_cast<U>(radix_word_count(w))));
}

/// The bucket of `key` in dense slot record d (its sub-slot's word, or the bucket of the
/// slot's keys below or above the sub-slots).
template <class U>
KSELECT_HD std::uint32_t radix_dense_bucket(const radix_dense_record<U>& d, const std::uint32_t* sub_words, U key) {
  const U sub_rel = static_cast<U>(key - d.sub_base);
  const bool in_subs = sub_rel <= d.sub_last;
  const int shift = d.shift();
  const std::uint32_t sub_w = sub_words[d.first_word() + (in_subs ? static_cast<std::uint32_t>(sub_rel >> shift) : 0u)];
  return in_subs ? radix_word_bucket(sub_w, sub_rel, shift) : key < d.sub_base ? d.below() : d.above();
}

/// The bucket of `key` whose entry is e (top from radix_entry_index): a dense slot's keys
/// read its record and a sub-slot word (a branch, taken only on data with dense slots).
/// Dense = false: a map without dense slots, whose passes then carry no branch at all
/// (the dense branch alone slowed the GPU passes over continuous data: docs/performance.md,
/// issue 26).
template <bool Dense = true, class U>
KSELECT_HD std::uint32_t radix_bucket_of_entry(const radix_slot_map<U>& m, radix_slot_entry e, U top, U key) {
  if (Dense && e.dense()) return radix_dense_bucket(m.dense[e.dense_index()], m.sub_words, key);
  return radix_entry_bucket(e, top);
}

/// radix_bucket_of_entry for a map with at least one dense slot, without a branch: every
/// key reads a dense record (its slot's, or the first) and a sub-slot word, and a select
/// picks the bucket. A GPU pass over data with many dense keys (clusters, repeated
/// values) then keeps its keys' loads overlapping instead of branching per key.
template <class U>
KSELECT_HD std::uint32_t radix_bucket_of_entry_by_selects(const radix_slot_map<U>& m, radix_slot_entry e, U top, U key) {
  const bool dense = e.dense();
  const std::uint32_t in_dense = radix_dense_bucket(m.dense[dense ? e.dense_index() : 0u], m.sub_words, key);
  return dense ? in_dense : radix_entry_bucket(e, top);
}

/// The bucket of `key` in a slot table (Dense: as radix_bucket_of_entry).
template <bool Dense = true, class U>
KSELECT_HD std::uint32_t radix_slot_bucket(const radix_slot_map<U>& m, U key) {
  U top;
  const radix_slot_entry e = m.entries[radix_entry_index(m, key, top)];
  return radix_bucket_of_entry<Dense>(m, e, top, key);
}

/// A lookup of a round's intervals by the high bits of the key, so that a pass finds
/// most keys' interval (or that they have none) with one load: slot j covers the keys
/// [base + j * 2^shift, base + (j + 1) * 2^shift) and its word says what lies there:
///  - 0: no interval touches the slot, its keys are out of contention (a later round's
///    gaps between the ranks' buckets, where most keys fall);
///  - directory_whole | i: the slot lies inside interval i (no search, no bounds check:
///    the first round's dense regions);
///  - else the `count` intervals that touch it, from `first` (count << directory_count_shift
///    | first): a search among those and a bounds check; count directory_count_max: a search
///    over every interval.
/// The slots span the intervals but a wide first or last one (the first round's tails
/// below and above the sample); a key below the slots can only lie in that first
/// interval and one above them in that last one (the words `below` and `above`), so no
/// key searches every interval. Keys of one warp that take different paths serialise:
/// a few keys outside the slots that searched every interval made most warps run the
/// search (docs/performance.md, issue 26).
template <class U>
struct interval_directory {
  U base = 0;
  int shift = 0;
  int slots = 0;                    ///< 0: no directory (every key takes the full search)
  std::vector<std::uint32_t> word;  ///< slots
  std::uint32_t below = 0;          ///< the word of the keys below base
  std::uint32_t above = 0;          ///< the word of the keys above the last slot
};

inline constexpr std::uint32_t directory_whole = 1u << 31;
inline constexpr int directory_count_shift = 20;
inline constexpr std::uint32_t directory_count_max = 0x7ff;
inline constexpr std::uint32_t directory_first_mask = (1u << directory_count_shift) - 1;

/// The directory of ascending, disjoint intervals [lo[i], hi[i]] with at most
/// max(max_slots, 2) slots (two halves of the key range at the coarsest).
template <class U>
interval_directory<U> make_interval_directory(std::span<const U> lo, std::span<const U> hi, int max_slots) {
  interval_directory<U> d;
  const std::size_t ni = lo.size();
  if (ni == 0) return d;
  max_slots = max_slots < 2 ? 2 : max_slots;
  // The span covered: every interval but a first or last one wider than the others together.
  std::size_t first = 0, last = ni - 1;
  if (ni >= 3) {
    const U inner = static_cast<U>(hi[ni - 2] - lo[1]);
    if (static_cast<U>(hi[0] - lo[0]) > inner) first = 1;
    if (static_cast<U>(hi[ni - 1] - lo[ni - 1]) > inner) last = ni - 2;
  }
  d.base = lo[first];
  d.below = first == 1 ? std::uint32_t{1} << directory_count_shift : 0u;  // interval 0 alone
  d.above = last == ni - 2 ? std::uint32_t{1} << directory_count_shift | static_cast<std::uint32_t>(ni - 1) : 0u;
  if (ni - 1 > directory_first_mask) d.above = directory_count_max << directory_count_shift;
  const U span = static_cast<U>(hi[last] - d.base);
  constexpr int bits = 8 * sizeof(U);
  while (d.shift < bits - 1 && (span >> d.shift) >= static_cast<U>(max_slots)) ++d.shift;
  d.slots = static_cast<int>(span >> d.shift) + 1;
  d.word.resize(static_cast<std::size_t>(d.slots));
  const U width_less_one = static_cast<U>((U(1) << d.shift) - 1);
  std::size_t touch = 0, stop = 0;  // the intervals touching slot j: [touch, stop), both non-decreasing in j
  for (int j = 0; j < d.slots; ++j) {
    // (slots - 1) << shift <= span, so the start does not pass hi[last]; the end may wrap.
    const U start = static_cast<U>(d.base + (static_cast<U>(j) << d.shift));
    const U end = static_cast<U>(~start) < width_less_one ? static_cast<U>(~U(0)) : static_cast<U>(start + width_less_one);
    while (touch < ni && hi[touch] < start) ++touch;
    stop = stop < touch ? touch : stop;
    while (stop < ni && lo[stop] <= end) ++stop;
    const std::size_t count = stop - touch;
    std::uint32_t w = 0;
    if (count == 1 && lo[touch] <= start && hi[touch] >= end)
      w = directory_whole | static_cast<std::uint32_t>(touch);
    else if (count > 0 && count < directory_count_max && touch <= directory_first_mask)
      w = static_cast<std::uint32_t>(count) << directory_count_shift | static_cast<std::uint32_t>(touch);
    else if (count > 0)
      w = directory_count_max << directory_count_shift;
    d.word[static_cast<std::size_t>(j)] = w;
  }
  return d;
}

/// The last key offset (key - base) inside the slots: a key is in a slot when
/// key - base <= this, computed without wrapping past the top of the key range.
template <class U>
KSELECT_HD U directory_last_offset(int slots, int shift, U base) {
  if (slots <= 0) return U(0);
  const U end = static_cast<U>((static_cast<U>(slots) << shift) - 1);  // slots << shift <= 2^bits
  const U room = static_cast<U>(~base);
  return end < room ? end : room;
}

/// The word of `key` (slots of them; 0 slots: every key gets count_max, a full search).
template <class U>
KSELECT_HD std::uint32_t directory_word(const std::uint32_t* word, int slots, U base, int shift, U last_offset,
                                        std::uint32_t below, std::uint32_t above, U key) {
  if (slots <= 0) return directory_count_max << directory_count_shift;
  const U rel = static_cast<U>(key - base);
  return rel <= last_offset ? word[static_cast<std::size_t>(rel >> shift)] : key < base ? below : above;
}

/// The interval that word w names for `key`: -1 for none (a gap); else i, with whole =
/// true when the key surely lies in interval i, otherwise the only candidate, which the
/// caller checks (lo[i] <= key <= hi[i]). count: the intervals, lo their first keys.
template <class U>
KSELECT_HD int directory_resolve(const U* lo, int count, std::uint32_t w, U key, bool& whole) {
  whole = (w & directory_whole) != 0;
  if (whole) return static_cast<int>(w & ~directory_whole);
  int n = static_cast<int>(w >> directory_count_shift);
  int first = static_cast<int>(w & directory_first_mask);
  if (n == static_cast<int>(directory_count_max)) {
    first = 0;
    n = count;
  }
  if (n <= 0) return -1;  // no interval touches the key's slot, or there is none at all
  return first + last_interval_at_most(lo + first, n, key);
}

/// directory_resolve() of key's word in directory d (host).
template <class U>
int directory_candidate(const interval_directory<U>& d, const U* lo, int count, U key, bool& whole) {
  const std::uint32_t w = directory_word(d.word.data(), d.slots, d.base, d.shift,
                                         directory_last_offset<U>(d.slots, d.shift, d.base), d.below, d.above, key);
  return directory_resolve(lo, count, w, key, whole);
}

}  // namespace kselect::core
