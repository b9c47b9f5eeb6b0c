// A rank range taken over chunks of the input in index order, once its boundary keys
// are known: cpu::range_select's chunks are its threads' parts of the array, the
// streamed range's (src/cuda/streamed/streamed_range.cpp) are the pieces of a host
// array copied to the GPU one after another. Plain C++, shared by both backends.
//
// Order keys: the key of core::key_traits, or its complement for descending order,
// compared ascending; ties by ascending index in both directions. `first` is the key
// of position lo, `last` that of position hi - 1 (first <= last). Every element
// strictly between them is taken; of the elements equal to a boundary key, the
// stable sort's tie rule takes those with the right ordinals among their equals, in
// index order: of `first`, ordinals [skip_first, end_first); of `last` (when it
// differs from `first`), ordinals [0, take_last).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "hd.hpp"
#include "key_traits.hpp"
#include "stream_plan.hpp"

namespace kselect::core {

/// The order a range is taken in, as an unsigned key compared ascending: key_traits'
/// key, or its complement for descending order (so every step is written once, for
/// ascending keys).
template <class T>
struct range_order_key {
  using K = key_t<T>;
  bool descending;
  KSELECT_HD K operator()(T x) const {
    const K k = key_traits<T>::to_key(x);
    return descending ? static_cast<K>(~k) : k;
  }
};

/// One chunk's elements by where their order key lies relative to the boundary keys.
struct range_chunk_counts {
  std::int64_t before = 0;   ///< key < first
  std::int64_t first = 0;    ///< key == first
  std::int64_t between = 0;  ///< first < key < last
  std::int64_t last = 0;     ///< key == last, when last != first
};

/// Where a chunk starts: the ordinals (among their equals, in index order) of its
/// first elements equal to `first` and to `last`, and its first output position.
struct range_chunk_start {
  std::int64_t first = 0, last = 0, out = 0;
};

/// Number of integers in [a, a + len) ∩ [lo, hi).
inline std::int64_t overlap(std::int64_t a, std::int64_t len, std::int64_t lo, std::int64_t hi) {
  return std::max<std::int64_t>(0, std::min(a + len, hi) - std::max(a, lo));
}

/// What every chunk takes, from all chunks' counts.
struct range_chunk_take {
  std::int64_t skip_first = 0, end_first = 0, take_last = 0;
  /// One per chunk, and one more past the last (its `out` is hi - lo).
  std::vector<range_chunk_start> starts;

  /// Elements chunk c takes.
  std::int64_t taken(std::size_t c) const { return starts[c + 1].out - starts[c].out; }
  /// Of chunk c's elements equal to `first` (counted cc.first), how many it takes.
  std::int64_t first_taken(std::size_t c, const range_chunk_counts& cc) const {
    return overlap(starts[c].first, cc.first, skip_first, end_first);
  }
  std::int64_t last_taken(std::size_t c, const range_chunk_counts& cc) const {
    return overlap(starts[c].last, cc.last, 0, take_last);
  }
  /// Whether chunk c takes some but not all of its elements equal to a boundary key:
  /// then which ones depends on their order inside the chunk. Otherwise the chunk
  /// takes every element of a key class or none, whatever their order.
  bool partial(std::size_t c, const range_chunk_counts& cc) const {
    const std::int64_t f = first_taken(c, cc), l = last_taken(c, cc);
    return (f != 0 && f != cc.first) || (l != 0 && l != cc.last);
  }
};

/// The take of positions [lo, hi) (lo < hi) from the chunks' counts, in index order;
/// one_key when first == last. Throws std::logic_error when the counts cannot be
/// those of the boundary keys of [lo, hi) (an element before position lo would be
/// missing, or the range would not be filled).
inline range_chunk_take plan_range_chunks(std::span<const range_chunk_counts> counts, std::int64_t lo,
                                          std::int64_t hi, bool one_key) {
  std::int64_t before = 0, equal_first = 0, between = 0, equal_last = 0;
  for (const range_chunk_counts& cc : counts)
    before += cc.before, equal_first += cc.first, between += cc.between, equal_last += cc.last;
  range_chunk_take t;
  t.skip_first = lo - before;
  t.end_first = one_key ? hi - before : equal_first;
  t.take_last = one_key ? 0 : hi - (before + equal_first + between);
  const bool consistent = t.skip_first >= 0 && t.skip_first < equal_first && t.end_first <= equal_first &&
                          (one_key ? equal_last == 0 : t.take_last > 0 && t.take_last <= equal_last);
  if (!consistent)
    throw std::logic_error("range chunks: the counts (" + std::to_string(before) + " before, " +
                           std::to_string(equal_first) + " equal to the first key, " + std::to_string(between) +
                           " between, " + std::to_string(equal_last) +
                           " equal to the last) do not hold positions [" + std::to_string(lo) + ", " +
                           std::to_string(hi) + ")");
  t.starts.resize(counts.size() + 1);
  range_chunk_start s;
  for (std::size_t c = 0; c < counts.size(); ++c) {
    const range_chunk_counts& cc = counts[c];
    t.starts[c] = s;
    s.out += overlap(s.first, cc.first, t.skip_first, t.end_first) + cc.between +
             overlap(s.last, cc.last, 0, t.take_last);
    s.first += cc.first;
    s.last += cc.last;
  }
  t.starts.back() = s;
  return t;
}

/// Counts of values[begin, end) against the boundary order keys first <= last.
template <class T>
range_chunk_counts count_range_chunk(const T* values, std::int64_t begin, std::int64_t end, key_t<T> first,
                                     key_t<T> last, range_order_key<T> key) {
  range_chunk_counts cc;
  const bool one_key = first == last;
  for (std::int64_t i = begin; i < end; ++i) {
    const key_t<T> k = key(values[i]);
    cc.before += k < first;
    cc.first += k == first;
    cc.between += k > first && k < last;
    cc.last += !one_key && k == last;
  }
  return cc;
}

/// The classes of range_chunk_counts, as buckets of range_class_table (the element
/// count of class `after`, key > last, is not needed but keeps every key counted).
enum range_class : std::uint32_t { class_before, class_first, class_between, class_last, class_after, range_classes };

/// The class of order key k against the boundary keys first <= last (class_last
/// only where last differs from first). The takes test with it (take_range_chunk,
/// the streamed take's kernel); count_range_chunk counts branch-free instead.
template <class K>
KSELECT_HD range_class class_of_key(K k, K first, K last) {
  if (k < first) return class_before;
  if (k == first) return class_first;
  return k < last ? class_between : k == last ? class_last : class_after;
}

/// Writes the elements of values[begin, end) that `plan` takes, in index order, from
/// the chunk's start `at` (out_indices may be null).
template <class T>
void take_range_chunk(const T* values, std::int64_t begin, std::int64_t end, key_t<T> first, key_t<T> last,
                      range_order_key<T> key, const range_chunk_take& plan, range_chunk_start at, T* out_values,
                      std::int64_t* out_indices) {
  for (std::int64_t i = begin; i < end; ++i) {
    const range_class c = class_of_key(key(values[i]), first, last);
    if (c == class_before || c == class_after) continue;
    bool take = true;
    if (c == class_first) {
      take = at.first >= plan.skip_first && at.first < plan.end_first;
      ++at.first;
    } else if (c == class_last) {
      take = at.last < plan.take_last;
      ++at.last;
    }
    if (!take) continue;
    out_values[at.out] = values[i];
    if (out_indices) out_indices[at.out] = i;
    ++at.out;
  }
}

/// A table for the streamed count kernel (core/stream_plan.hpp's stream_interval, in
/// key_traits' ascending keys) whose bucket i counts the elements of range_class i,
/// for order keys first <= last: one interval of one bucket per non-empty class.
template <class U>
std::vector<stream_interval<U>> range_class_table(U first, U last, bool descending) {
  const U top = static_cast<U>(~U(0));
  struct order_interval {
    U lo, hi;
    range_class c;
  };
  std::vector<order_interval> in_order;
  if (first > 0) in_order.push_back({0, static_cast<U>(first - 1), class_before});
  in_order.push_back({first, first, class_first});
  if (last > first) {
    if (last - first > 1) in_order.push_back({static_cast<U>(first + 1), static_cast<U>(last - 1), class_between});
    in_order.push_back({last, last, class_last});
  }
  if (last < top) in_order.push_back({static_cast<U>(last + 1), top, class_after});
  std::vector<stream_interval<U>> table;
  for (const order_interval& o : in_order) {
    stream_interval<U> iv;
    // The order key is the key, or its complement: an interval of order keys is one of
    // keys, its ends swapped.
    iv.lo = descending ? static_cast<U>(~o.hi) : o.lo;
    iv.hi = descending ? static_cast<U>(~o.lo) : o.hi;
    iv.first = o.c;
    iv.buckets = 1;  // the kernel puts every key of an interval into its last bucket
    table.push_back(iv);
  }
  if (descending) std::reverse(table.begin(), table.end());
  return table;
}

}  // namespace kselect::core
