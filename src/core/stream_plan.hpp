// Host-side planning of selection over an array streamed through the GPU in chunks
// (an array in host memory, possibly larger than the GPU): which key intervals each
// pass over the array counts and which it keeps, and what the counts then say about
// every rank. Plain C++ on order-preserving keys (core/key_traits.hpp), so the CPU
// tests drive it through simulated passes; src/cuda/streamed/ runs the passes.
//
// Each pass reads the whole array once. Its table is a list of ascending, disjoint key
// intervals, each cut into buckets of 2^shift keys and counted (keys outside every
// interval are ignored); the keys of a `keep` interval are also copied into a device
// buffer of `capacity` keys. A rank is answered when its bucket is one key wide, or
// when its bucket lies in a kept interval and the buffer did not overflow (the answer
// is then a selection among the kept keys, on the GPU).
//
// The first pass comes from a sample of the host array: a window of keys around each
// rank's expected position, with the keys between windows counted in one bucket each
// (so every count below a window is exact), and the windows kept while their expected
// size fits half the buffer. On most inputs that one pass answers every rank. Where a
// rank fell outside its window, or the buffer overflowed, the counts still place it in
// one bucket with an exact count below it; later passes keep that bucket when it fits
// the buffer and cut it into more buckets otherwise, so every pass either answers a
// rank or narrows its interval by the number of buckets it gets.
#pragma once

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "sampling.hpp"

namespace kselect::core {

/// One interval of a pass's table: keys [lo, hi], counted into `buckets` buckets of
/// 2^shift keys (key k into first + ((k - lo) >> shift)); kept when `keep`.
template <class U>
struct stream_interval {
  U lo = 0, hi = 0;
  std::uint32_t first = 0, buckets = 1;
  int shift = 0;
  bool keep = false;
};

/// A rank's state: its answer's key lies in [lo, hi], which holds `inside` keys with
/// `below` keys of the whole array below lo.
template <class U>
struct stream_rank {
  std::int64_t rank = 0;
  U lo = 0, hi = static_cast<U>(~U(0));
  std::int64_t below = 0, inside = 0;
  bool answered = false;
  U key = 0;  ///< the answer's key, once answered by the counts
};

/// A rank the kept keys answer: the element at position `kept_rank` of the kept keys
/// in ascending order is the answer of ranks()[index].
struct kept_answer {
  std::size_t index = 0;
  std::int64_t kept_rank = 0;
};

/// Tuning of the first pass, with where it comes from.
struct stream_sampling {
  /// Half a window, in standard deviations of a sample rank (sqrt(s p (1 - p)) for s
  /// sample keys and the rank's quantile p): a rank falls outside its window with a
  /// probability of about 6e-7 per side.
  double deviations = 5.0;
  /// Sample keys: keys_per_rank for each rank, at least min_keys and at most
  /// max_keys (and the array's size). A window takes about 10 sqrt(p (1 - p)) /
  /// sqrt(s) of the array: 0.5 % for a median from 2^20 keys, and 101 percentiles
  /// together about 20 % from 2^22 (the windows are kept on the device, whose
  /// bandwidth is tens of times the host link's, so wide windows cost little). The host reads the sample at random positions of
  /// the array and sorts it (docs/performance.md, issue 25, has its cost), against one
  /// pass more when the windows do not fit half the buffer.
  std::int64_t min_keys = std::int64_t{1} << 20;
  std::int64_t keys_per_rank = std::int64_t{1} << 20;
  std::int64_t max_keys = std::int64_t{1} << 22;
  /// Arrays of at most this many keys are kept whole in one pass when the buffer
  /// holds them (no sample); larger ones are sampled, so that the buffer (and its
  /// allocation, which maps device memory) holds the windows only.
  std::int64_t keep_whole_max = std::int64_t{1} << 24;
};

/// Sample keys for `ranks` ranks of an array of n keys (stream_sampling's bounds).
inline std::int64_t stream_sample_keys(std::int64_t n, std::int64_t ranks, const stream_sampling& s) {
  return std::min(n, std::min(s.max_keys, std::max(s.min_keys, ranks * s.keys_per_rank)));
}

/// A rank's window in an ascending sample of `count` keys from an array of n
/// (core::predict_window with the sampling's deviations and a margin of 2),
/// clipped to the sample.
inline sample_window window_in_sample(std::int64_t rank, std::int64_t n, std::int64_t count,
                                      const stream_sampling& s) {
  const sample_window w = predict_window(rank, n, count, s.deviations, 2.0);
  return {std::max<std::int64_t>(0, w.first), std::min(count - 1, w.last)};
}

/// Room for the keys of windows expected to hold `expected` array keys over
/// `positions` sample positions: the array's keys between sample order statistics
/// that many positions apart vary with a standard deviation of about
/// sqrt(positions) n / count; eight of them more, and 2^16.
inline std::int64_t expected_room(double expected, double positions, std::int64_t n, std::int64_t count) {
  const double spread = std::sqrt(positions) * static_cast<double>(n) / static_cast<double>(count);
  return static_cast<std::int64_t>(std::ceil(expected + 8 * spread)) + (std::int64_t{1} << 16);
}

/// The keys a streamed rank range keeps in one pass (src/cuda/streamed/
/// streamed_range.cpp): [lo, hi] from the start of the window of ascending rank r_lo
/// to the end of that of r_hi (r_lo <= r_hi), 0 and the top key at the sample's ends,
/// with the array keys it should hold and the room to give them.
template <class U>
struct candidate_keys {
  U lo = 0, hi = 0;
  double expected = 0;
  std::int64_t room = 0;
};

template <class U>
candidate_keys<U> range_candidate_keys(std::span<const U> sorted_sample, std::int64_t n, std::int64_t r_lo,
                                       std::int64_t r_hi, const stream_sampling& s = {}) {
  const auto count = static_cast<std::int64_t>(sorted_sample.size());
  const std::int64_t a = window_in_sample(r_lo, n, count, s).first, b = window_in_sample(r_hi, n, count, s).last;
  candidate_keys<U> c;
  c.lo = a == 0 ? U(0) : sorted_sample[static_cast<std::size_t>(a)];
  c.hi = b == count - 1 ? static_cast<U>(~U(0)) : sorted_sample[static_cast<std::size_t>(b)];
  const auto positions = static_cast<double>(b - a + 1);
  c.expected = positions / static_cast<double>(count) * static_cast<double>(n);
  c.room = std::min(n, expected_room(c.expected, positions, n, count));
  return c;
}

/// Buckets a table aims at: the histogram a block of the count kernel keeps in shared
/// memory (8192 four-byte words, 32 KiB). Tables over many ranks may hold more (at
/// least two buckets per interval cut); the kernel then counts in global memory.
inline constexpr std::uint32_t stream_max_buckets = 8192;

template <class U>
class stream_planner {
 public:
  /// ranks: ascending, unique, in [0, n); capacity: keys the device's kept buffer holds.
  stream_planner(std::int64_t n, std::span<const std::int64_t> ranks, std::int64_t capacity)
      : n_(n), capacity_(capacity) {
    if (n <= 0 || capacity < 1) throw std::invalid_argument("stream_planner: empty array or no room to keep keys");
    for (std::size_t i = 0; i < ranks.size(); ++i) {
      if (ranks[i] < 0 || ranks[i] >= n || (i > 0 && ranks[i] <= ranks[i - 1]))
        throw std::invalid_argument("stream_planner: ranks must be ascending, unique and in [0, n)");
      stream_rank<U> r;
      r.rank = ranks[i];
      r.inside = n;
      ranks_.push_back(r);
    }
  }

  const std::vector<stream_rank<U>>& ranks() const { return ranks_; }
  bool done() const {
    return std::all_of(ranks_.begin(), ranks_.end(), [](const stream_rank<U>& r) { return r.answered; });
  }

  /// How many sample keys the first pass wants (0: none, the array is kept whole).
  std::int64_t sample_keys(const stream_sampling& s = {}) const {
    if (keeps_whole(s)) return 0;
    return stream_sample_keys(n_, static_cast<std::int64_t>(ranks_.size()), s);
  }

  /// Keys the kept buffer must hold for the table last planned (first_table or
  /// next_table): the kernel stores that many at most; more mean an overflow.
  std::int64_t room() const { return room_; }

  /// The first pass: everything kept when the buffer holds the array; otherwise a
  /// window around each rank from the ascending sample of sample_keys() keys.
  std::vector<stream_interval<U>> first_table(std::span<const U> sorted_sample, const stream_sampling& s = {}) {
    constexpr U top = static_cast<U>(~U(0));
    if (keeps_whole(s) || sorted_sample.empty()) {
      room_ = std::min(n_, capacity_);
      return {stream_interval<U>{U(0), top, 0, 1, 0, room_ == n_}};
    }
    const auto count = static_cast<std::int64_t>(sorted_sample.size());
    // Windows in sample positions [a, b]; key lo of the first sample key (0 at the
    // sample's start), hi of the last (the top key at its end); merged where they meet.
    std::vector<U> lo, hi;
    std::vector<double> expected, positions;  // array keys each window should hold, its sample positions
    double last_b = -1;
    for (const stream_rank<U>& r : ranks_) {
      if (r.answered) continue;
      const auto [a, b] = window_in_sample(r.rank, n_, count, s);
      const U wlo = a == 0 ? U(0) : sorted_sample[static_cast<std::size_t>(a)];
      const U whi = b == count - 1 ? top : sorted_sample[static_cast<std::size_t>(b)];
      const double keys = static_cast<double>(b - a + 1) / static_cast<double>(count) * static_cast<double>(n_);
      if (!lo.empty() && (wlo <= hi.back() || wlo - hi.back() == 1)) {
        // Overlapping windows: the union's positions, from the last window's end on.
        const double added = std::min(static_cast<double>(b - a + 1), static_cast<double>(b) - last_b);
        hi.back() = std::max(hi.back(), whi);
        expected.back() += added / static_cast<double>(count) * static_cast<double>(n_);
        positions.back() += added;
      } else {
        lo.push_back(wlo);
        hi.push_back(whi);
        expected.push_back(keys);
        positions.push_back(static_cast<double>(b - a + 1));
      }
      last_b = static_cast<double>(b);
    }
    // The gaps between windows (and at the ends) get one bucket each; the windows
    // share the rest, each a power of two.
    std::size_t gaps = 0;
    for (std::size_t w = 0; w <= lo.size(); ++w) gaps += gap_exists(lo, hi, w) ? 1 : 0;
    const std::uint32_t per_window = bucket_share(static_cast<std::int64_t>(stream_max_buckets) - gaps, lo.size());
    std::vector<stream_interval<U>> table;
    double kept = 0, kept_positions = 0;
    for (std::size_t w = 0; w <= lo.size(); ++w) {
      if (gap_exists(lo, hi, w))
        table.push_back(stream_interval<U>{w == 0 ? U(0) : static_cast<U>(hi[w - 1] + 1),
                                           w == lo.size() ? top : static_cast<U>(lo[w] - 1), 0, 1, 0, false});
      if (w == lo.size()) break;
      stream_interval<U> iv = split(lo[w], hi[w], per_window);
      // A window one key wide is answered by its count; the others are kept while
      // their expected keys fit half the buffer (the sample's estimate may be short).
      iv.keep = lo[w] != hi[w] && kept + expected[w] <= 0.5 * static_cast<double>(capacity_);
      if (iv.keep) {
        kept += expected[w];
        kept_positions += positions[w];
      }
      table.push_back(iv);
    }
    number(table);
    // The kept windows hold about `kept` keys; room for more, within the buffer.
    room_ = kept == 0 ? 0 : std::min(capacity_, expected_room(kept, kept_positions, n_, count));
    return table;
  }

  /// A later pass: each pending rank's interval, kept while the kept keys fit the
  /// buffer, cut into buckets otherwise.
  std::vector<stream_interval<U>> next_table() {
    std::vector<stream_interval<U>> table;
    std::size_t cut = 0;
    std::int64_t kept = 0;
    for (const stream_rank<U>& r : ranks_) {
      if (r.answered || (!table.empty() && table.back().lo == r.lo)) continue;
      stream_interval<U> iv{r.lo, r.hi, 0, 1, 0, false};
      iv.keep = kept + r.inside <= capacity_;
      if (iv.keep) kept += r.inside;
      else ++cut;
      table.push_back(iv);
    }
    const std::uint32_t share =
        bucket_share(static_cast<std::int64_t>(stream_max_buckets) - static_cast<std::int64_t>(table.size() - cut), cut);
    for (stream_interval<U>& iv : table)
      if (!iv.keep) iv = split(iv.lo, iv.hi, share);
    number(table);
    room_ = kept;
    return table;
  }

  /// Takes a pass's counts (table's buckets, in order) and the number of keys the kept
  /// intervals sent to the buffer (more than room(): it overflowed and kept nothing
  /// usable). Narrows every pending rank to its bucket, answers those whose
  /// bucket is one key wide, and returns those the kept keys answer. Throws
  /// std::logic_error when the counts contradict what earlier passes counted.
  std::vector<kept_answer> apply(std::span<const stream_interval<U>> table, std::span<const std::uint64_t> counts,
                                 std::int64_t kept_keys) {
    std::vector<kept_answer> from_kept;
    // Counts before each bucket (in table order), and the keys of the kept intervals
    // before each interval, with their sum (the buffer's keys).
    const std::uint32_t buckets = stream_table_buckets<U>(table);
    std::vector<std::int64_t> before(static_cast<std::size_t>(buckets) + 1, 0);
    for (std::uint32_t b = 0; b < buckets; ++b) before[b + 1] = before[b] + static_cast<std::int64_t>(counts[b]);
    std::vector<std::int64_t> kept_before(table.size() + 1, 0);
    for (std::size_t i = 0; i < table.size(); ++i) {
      const stream_interval<U>& iv = table[i];
      kept_before[i + 1] = kept_before[i] + (iv.keep ? before[iv.first + iv.buckets] - before[iv.first] : 0);
    }
    if (kept_keys != kept_before.back())
      throw std::logic_error("stream_planner: the pass kept " + std::to_string(kept_keys) + " keys, its counts say " +
                             std::to_string(kept_before.back()));
    const bool kept_usable = kept_keys <= room_;
    for (std::size_t index = 0; index < ranks_.size(); ++index) {
      stream_rank<U>& r = ranks_[index];
      if (r.answered) continue;
      // The table's intervals inside [r.lo, r.hi] are consecutive, their buckets too:
      // the rank's bucket is the one whose counts, from r.below at the first, pass it
      // (binary searches, so that many ranks cost no walk over many buckets each).
      const auto first_iv = static_cast<std::size_t>(
          std::lower_bound(table.begin(), table.end(), r.lo,
                           [](const stream_interval<U>& iv, U key) { return iv.hi < key; }) -
          table.begin());
      const auto end_iv = static_cast<std::size_t>(
          std::upper_bound(table.begin(), table.end(), r.hi,
                           [](U key, const stream_interval<U>& iv) { return key < iv.lo; }) -
          table.begin());
      if (first_iv == end_iv || table[first_iv].lo != r.lo || table[end_iv - 1].hi != r.hi)
        throw std::logic_error("stream_planner: the table does not cover rank " + std::to_string(r.rank) +
                               "'s interval");
      const std::uint32_t first_bucket = table[first_iv].first;
      const std::uint32_t end_bucket = table[end_iv - 1].first + table[end_iv - 1].buckets;
      const std::int64_t target = r.rank - r.below + before[first_bucket];  // in `before`'s terms
      const auto b = static_cast<std::uint32_t>(
          std::upper_bound(before.begin() + first_bucket + 1, before.begin() + end_bucket + 1, target) -
          before.begin() - 1);
      if (b >= end_bucket || target < before[first_bucket])
        throw std::logic_error("stream_planner: rank " + std::to_string(r.rank) +
                               " lies in no bucket of the pass (counts below " + std::to_string(r.below) + ")");
      const auto i = static_cast<std::size_t>(
          std::upper_bound(table.begin() + static_cast<std::ptrdiff_t>(first_iv),
                           table.begin() + static_cast<std::ptrdiff_t>(end_iv), b,
                           [](std::uint32_t bucket, const stream_interval<U>& iv) { return bucket < iv.first; }) -
          table.begin() - 1);
      const stream_interval<U>& iv = table[i];
      const std::int64_t interval_below = r.below + before[iv.first] - before[first_bucket];
      r.lo = bucket_lo(iv, b - iv.first);
      r.hi = bucket_hi(iv, b - iv.first);
      r.below = r.below + before[b] - before[first_bucket];
      r.inside = before[b + 1] - before[b];
      if (r.lo == r.hi) {
        r.answered = true;
        r.key = r.lo;
      } else if (iv.keep && kept_usable) {
        from_kept.push_back({index, r.rank - interval_below + kept_before[i]});
      }
    }
    return from_kept;
  }

  /// Records the answer of ranks()[index] (a key the kept keys gave).
  void answer(std::size_t index, U key) {
    ranks_[index].answered = true;
    ranks_[index].key = key;
  }

 private:
  /// Whether there is a gap before window w (w == size(): after the last).
  static bool gap_exists(const std::vector<U>& lo, const std::vector<U>& hi, std::size_t w) {
    if (lo.empty()) return w == 0;
    if (w == 0) return lo[0] > U(0);
    if (w == lo.size()) return hi.back() < static_cast<U>(~U(0));
    return lo[w] - hi[w - 1] > 1;
  }

  /// The largest power of two with `parts` of it within `total` (at least 2: many
  /// ranks may take a table past stream_max_buckets, which the kernel then counts in
  /// global memory).
  static std::uint32_t bucket_share(std::int64_t total, std::size_t parts) {
    if (parts == 0 || total <= 0) return 2;
    const auto each = static_cast<std::uint64_t>(std::max<std::int64_t>(2, total / static_cast<std::int64_t>(parts)));
    return static_cast<std::uint32_t>(std::bit_floor(each));
  }

  /// [lo, hi] in at most `buckets` buckets of 2^shift keys (at least 2 unless one key).
  static stream_interval<U> split(U lo, U hi, std::uint32_t buckets) {
    const U span = static_cast<U>(hi - lo);  // width - 1
    int shift = 0;
    while (shift < static_cast<int>(8 * sizeof(U)) - 1 && (span >> shift) >= buckets) ++shift;
    return stream_interval<U>{lo, hi, 0, static_cast<std::uint32_t>(span >> shift) + 1, shift, false};
  }

  static void number(std::vector<stream_interval<U>>& table) {
    std::uint32_t first = 0;
    for (stream_interval<U>& iv : table) {
      // One bucket: every key of the interval in bucket 0 (the kernel clamps the
      // offset to the last bucket; the widest shift keeps it a valid shift).
      if (iv.buckets == 1) iv.shift = 8 * sizeof(U) - 1;
      iv.first = first;
      first += iv.buckets;
    }
  }

  static U bucket_lo(const stream_interval<U>& iv, std::uint32_t b) {
    return iv.buckets == 1 ? iv.lo : static_cast<U>(iv.lo + (static_cast<U>(b) << iv.shift));
  }
  static U bucket_hi(const stream_interval<U>& iv, std::uint32_t b) {
    return b + 1 == iv.buckets ? iv.hi : static_cast<U>(bucket_lo(iv, b + 1) - 1);
  }

  bool keeps_whole(const stream_sampling& s) const { return n_ <= capacity_ && n_ <= s.keep_whole_max; }

  std::int64_t n_, capacity_, room_ = 0;
  std::vector<stream_rank<U>> ranks_;
};

/// Total buckets of a table.
template <class U>
std::uint32_t stream_table_buckets(std::span<const stream_interval<U>> table) {
  return table.empty() ? 0 : table.back().first + table.back().buckets;
}

}  // namespace kselect::core
