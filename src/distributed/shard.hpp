// A process's local keys during a distributed call, and the local work the
// distributed algorithms ask of them. One implementation per backend:
// src/distributed/cpu_shard.cpp (host memory, OpenMP) and src/cuda/distributed/
// (device memory, the options' stream). Nothing here communicates: the MPI library
// (src/mpi/, target kselect_mpi) does, so the shards live in the main library and
// are tested without MPI.
//
// The shard starts as the caller's array (never written). count() with compact = true
// then keeps only the keys inside the round's intervals, as order-preserving keys
// (core/key_traits.hpp) in storage the shard owns; later rounds read those. Order
// among the kept keys does not matter.
#pragma once

#include <cstdint>
#include <exception>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/bucket_table.hpp"
#include "core/key_traits.hpp"
#include "kselect/types.hpp"

namespace kselect::distributed {

template <class U>
struct radix_slot_image;

/// The intervals of one round (host memory; lo_keys[i] == intervals[i].lo) and its
/// number of buckets; `slots` describes them when they are radix slots
/// (core::radix_slots: a backend may then find a key's bucket without its interval),
/// and `slot_image` may carry their image for the passes (make_radix_slot_image of
/// this table, made once by the plan that checked it; null: a backend makes it).
template <class U>
struct round_table {
  std::vector<U> lo_keys;
  std::vector<core::bucket_interval<U>> intervals;
  std::uint32_t buckets = 0;
  core::radix_slots<U> slots;
  std::shared_ptr<const radix_slot_image<U>> slot_image;
};

/// An all-reduce across the processes of a distributed call that runs on their GPUs
/// (src/mpi/device_collectives.cpp: NCCL), for the round counts. Every process must
/// make the same calls in the same order, one collective each (not grouped: NCCL
/// fuses a group into one launch, which would not match a process that makes the
/// same calls one by one, through host()); words are unsigned, of 4 or 8 bytes.
class device_allreduce {
 public:
  enum class op { sum, min, max };
  virtual ~device_allreduce() = default;
  /// out[i] = op over the processes of in[i] (device memory; in == out allowed), for
  /// `count` words, enqueued on `stream` (a cudaStream_t): the caller synchronises.
  virtual void device(const void* in, void* out, std::size_t count, int word_bytes, op o, void* stream) = 0;
  /// The same over host memory, in place, through the device; returns when done.
  virtual void host(void* data, std::size_t count, int word_bytes, op o) = 0;
};

/// A round's counts after count_and_reduce(): this process's own (local, to size its
/// next compaction), and the sums over every process with the interval extremes.
template <class U>
struct reduced_counts {
  std::vector<std::uint64_t> local;   ///< table.buckets
  std::vector<std::uint64_t> global;  ///< table.buckets + 1: the last is the number of processes that failed
  std::vector<U> min, max;            ///< one per interval when minmax, global
};

template <class T>
class shard {
 public:
  using key_type = core::key_t<T>;
  virtual ~shard() = default;

  /// Keys currently in contention on this process (the whole array until the first
  /// compacting count).
  virtual std::int64_t size() const = 0;

  /// Smallest and largest key of the whole array; for an empty array lo = ~0, hi = 0.
  virtual void min_max(key_type& lo, key_type& hi) = 0;

  /// NaNs in the whole array (0 for integer types).
  virtual std::int64_t count_nan() = 0;

  /// Keys at `count` positions drawn uniformly (with replacement) from the whole array,
  /// from `seed` (used as given: the engine passes each process an unrelated seed);
  /// host memory, out.size() == count, which is 0 when the array is empty.
  virtual void sample(std::uint64_t seed, std::span<key_type> out) = 0;

  /// Counts the keys in contention into the table's buckets: counts[b] (host,
  /// table.buckets entries, overwritten) for every key inside an interval. With
  /// minmax, also interval_min[i] / interval_max[i] (host, one per interval;
  /// ~0 / 0 for an interval with no local key). With compact, the keys in contention
  /// become the keys inside the intervals; expected_kept is their number (known to
  /// the caller from the previous round's local counts; -1: unknown; a backend may
  /// check it, and throws kselect::error on a mismatch). interval_min / interval_max
  /// may be null when minmax is false. A table is valid when lo_keys[i] ==
  /// intervals[i].lo, the intervals are ascending and disjoint, and every interval's
  /// buckets lie below table.buckets.
  virtual void count(const round_table<key_type>& table, std::uint64_t* counts, bool minmax,
                     key_type* interval_min, key_type* interval_max, bool compact,
                     std::int64_t expected_kept) = 0;

  /// count(), then the counts (and extremes, with minmax) all-reduced across processes
  /// by `reduce`. Every process must call it, also one whose earlier step failed
  /// (`failed`: it adds 1 to the failure slot and counts nothing), so that none is
  /// left waiting in the all-reduce. A local failure comes back as the exception to
  /// rethrow (null when none), after the others have been told through the failure
  /// slot; a failure of the all-reduce itself throws (like an MPI failure, it may
  /// leave the others waiting). This default counts on the host and reduces the host
  /// arrays; a device shard reduces its device arrays instead.
  virtual std::exception_ptr count_and_reduce(const round_table<key_type>& table, bool minmax, bool compact,
                                              std::int64_t expected_kept, bool failed, device_allreduce& reduce,
                                              reduced_counts<key_type>& out) {
    const std::size_t nb = table.buckets, ni = table.intervals.size();
    out.local.assign(nb, 0);
    out.min.assign(minmax ? ni : 0, static_cast<key_type>(~key_type(0)));
    out.max.assign(minmax ? ni : 0, key_type(0));
    std::exception_ptr error;
    if (!failed) {
      try {
        count(table, out.local.data(), minmax, out.min.data(), out.max.data(), compact, expected_kept);
      } catch (...) {
        error = std::current_exception();
        failed = true;
      }
    }
    out.global.assign(out.local.begin(), out.local.end());
    out.global.push_back(failed ? 1 : 0);
    reduce.host(out.global.data(), out.global.size(), 8, device_allreduce::op::sum);
    if (minmax && ni) {
      reduce.host(out.min.data(), ni, sizeof(key_type), device_allreduce::op::min);
      reduce.host(out.max.data(), ni, sizeof(key_type), device_allreduce::op::max);
    }
    return error;
  }

  /// The elements whose bits are not those of their key's value (-0.0; a NaN other than
  /// the positive quiet NaN: core::key_traits<T>::from_key) that a count() over the
  /// whole array saw (the first round's), or -1 when unknown (no such count yet, or a
  /// backend that does not tally them: the CPU shard). When no process holds any, the
  /// answers that are zeros or NaNs need no counts_of_key() pass.
  virtual std::int64_t noncanonical_seen() const { return -1; }

  /// The keys in contention that lie inside the table's intervals, appended to `out`
  /// (host), in any order. Does not change the keys in contention. expected_keys: how
  /// many they are (from the counts of the round before), or -1 when unknown; a known
  /// number lets a device backend copy them back with the pass's outputs, in one wait.
  /// A different number means the caller's bookkeeping is wrong: an error.
  virtual void extract(const round_table<key_type>& table, std::vector<key_type>& out, std::int64_t expected_keys) = 0;

  /// Every key of the whole array, appended to `out` (host), in any order.
  virtual void extract_all(std::vector<key_type>& out) = 0;

  /// Sorts keys (host memory) ascending, on this backend (Sort&Choose's sort: CUB's
  /// radix sort on the GPU after one copy there, the CPU's radix sort otherwise).
  virtual void sort_keys(std::vector<key_type>& keys) = 0;

  /// Top-k's local part: the elements of the whole array strictly beyond `threshold`
  /// (key order; beyond = greater when largest, smaller otherwise), then the first
  /// `take_ties` elements equal to it in index order (all of them when take_ties is
  /// larger), merged into index order. Values
  /// (bit for bit) and local indices, appended to the host vectors (indices only when
  /// with_indices). counts_beyond_and_equal() gives the two counts first.
  virtual void counts_beyond_and_equal(key_type threshold, bool largest, std::int64_t& beyond,
                                       std::int64_t& equal) = 0;
  virtual void take(key_type threshold, bool largest, std::int64_t take_ties, bool with_indices,
                    std::vector<T>& values, std::vector<std::int64_t>& indices) = 0;

  /// For the answers whose key stands for several bit patterns (a zero, a NaN): the
  /// elements of the whole array below `key`, equal to it, and equal to it with bits
  /// other than core::key_traits<T>::from_key(key) (-0.0 among the zeros; a NaN with
  /// another sign or payload than the positive quiet NaN), in one pass. With no such
  /// other bits on any process (or, for zeros, nothing but -0.0), every answer of that
  /// key is known without equal_element().
  virtual void counts_of_key(key_type key, std::int64_t& below, std::int64_t& equal, std::int64_t& other_bits) = 0;

  /// The element of the whole array (bits as stored) at `ordinal` among those whose
  /// key is `key`, in index order: which -0.0 or +0.0, which NaN, a rank's answer is
  /// (elements equal in key differ in bits only for zeros and NaNs). Throws
  /// std::out_of_range when fewer than ordinal + 1 elements have that key.
  virtual T equal_element(key_type key, std::int64_t ordinal) = 0;
};

/// The interval directory (core::interval_directory) of a round's intervals, at most
/// max_slots slots: what both backends' count passes look a key's interval up in.
template <class U>
core::interval_directory<U> table_directory(const round_table<U>& table, int max_slots) {
  std::vector<U> his(table.intervals.size());
  for (std::size_t i = 0; i < his.size(); ++i) his[i] = table.intervals[i].hi;
  return core::make_interval_directory<U>(table.lo_keys, his, max_slots);
}

/// The error of a shard whose step found another number of keys than its caller's
/// bookkeeping (the counts of the round before) says: `expected` ("at most N" where the
/// caller gave none and the room ran out).
inline kselect::error unexpected_keys(const char* who, const char* step, const char* verb, std::int64_t found,
                                      const std::string& expected) {
  return kselect::error(std::string(who) + ": " + step + " " + verb + " " + std::to_string(found) +
                        " keys, the caller expected " + expected);
}

/// What the backends' passes rely on, one look at each interval (against writes out
/// of bounds): lo_keys match the intervals, the intervals are ascending and
/// disjoint, their buckets lie inside the table. Throws std::invalid_argument naming
/// `who` and the interval otherwise.
template <class U>
void check_round_table(const round_table<U>& table, const char* who) {
  if (table.lo_keys.size() != table.intervals.size())
    throw std::invalid_argument(std::string(who) + ": round table with " + std::to_string(table.lo_keys.size()) +
                                " lo_keys for " + std::to_string(table.intervals.size()) + " intervals");
  for (std::size_t i = 0; i < table.intervals.size(); ++i) {
    const auto& iv = table.intervals[i];
    const bool ok = table.lo_keys[i] == iv.lo && iv.lo <= iv.hi && (i == 0 || table.intervals[i - 1].hi < iv.lo) &&
                    static_cast<std::uint64_t>(iv.first) + iv.count <= table.buckets;
    if (!ok) throw std::invalid_argument(std::string(who) + ": round table's interval " + std::to_string(i) + " is malformed");
  }
}

/// A slot table's image for the passes (core::radix_slot_map): an entry per slot and
/// per tail (entries[0] below the slots, entries[slots + 1] above; a placeholder where
/// the slots reach that end of the key space), the dense slots' records and sub-slot
/// words; slots == 0 when the table's `slots` do not describe its intervals exactly
/// (then the intervals are used as they are).
template <class U>
struct radix_slot_image {
  std::uint32_t slots = 0;
  U base = 0, last_offset = 0;
  int shift = 1;
  std::vector<core::radix_slot_entry> entries;
  std::vector<std::uint32_t> sub_words;
  std::vector<core::radix_dense_record<U>> dense;

  /// The map over this image's host arrays.
  core::radix_slot_map<U> map() const {
    return core::make_radix_slot_map<U>(entries.data(), dense.data(), sub_words.data(), base, shift, slots);
  }
};

template <class U>
radix_slot_image<U> make_radix_slot_image(const round_table<U>& table) {
  radix_slot_image<U> image;
  const core::radix_slots<U>& s = table.slots;
  constexpr int bits = 8 * sizeof(U);
  if (s.slots == 0 || s.shift < 1 || s.shift >= bits || table.buckets >= (1u << core::radix_slot_first_bits))
    return image;
  if (!s.tail_below && s.base != U(0)) return image;
  const std::vector<core::bucket_interval<U>>& ivs = table.intervals;
  std::size_t next = 0;  // the next interval to match
  // Interval `next` must be [lo, hi] with `count` buckets (any count when count == 0)
  // and the projection of a run of 2^shift keys (when shift > 0): returns its first bucket.
  bool ok = true;
  const auto take = [&](U lo, U hi, std::uint32_t count, int shift) -> std::uint32_t {
    if (!ok || next >= ivs.size()) return ok = false, 0u;
    const core::bucket_interval<U>& iv = ivs[next++];
    ok = iv.lo == lo && iv.hi == hi && iv.count >= 1 && (count == 0 || iv.count == count);
    if (ok && shift > 0) {
      const U width = static_cast<U>(U(1) << shift);
      ok = iv.count <= core::radix_slot_max_count && static_cast<U>(iv.count) <= width &&
           (iv.scale == 0 ? static_cast<U>(iv.count) == width
                          : iv.scale == static_cast<U>(static_cast<U>(iv.count) << (bits - shift)));
    }
    return iv.first;
  };
  image.entries.push_back(core::radix_tail_entry(s.tail_below ? take(U(0), static_cast<U>(s.base - 1), 1, 0) : 0u));
  std::size_t d = 0;
  const U width_less_one = static_cast<U>((U(1) << s.shift) - 1);
  for (std::uint32_t j = 0; j < s.slots && ok; ++j) {
    const U lo = static_cast<U>(s.base + (static_cast<U>(j) << s.shift)), hi = static_cast<U>(lo + width_less_one);
    if (d < s.dense.size() && s.dense[d].slot == j) {
      const core::radix_dense_slot<U>& ds = s.dense[d];
      const U sub_width_less_one = static_cast<U>((U(1) << ds.sub_shift) - 1);
      const U span_less_one = static_cast<U>((static_cast<U>(ds.subs) << ds.sub_shift) - 1);
      ok = ds.sub_shift >= 1 && ds.sub_shift <= s.shift && ds.subs >= 1 && ds.sub_base >= lo &&
           static_cast<U>(ds.sub_base - lo) <= static_cast<U>(width_less_one - span_less_one);
      if (!ok) break;
      const auto first_word = static_cast<std::uint32_t>(image.sub_words.size());
      ok = first_word <= core::radix_dense_max_first_word && ds.sub_shift < 64;
      if (!ok) break;
      // The buckets of the slot's keys below and above the sub-slots; 0 where the
      // sub-slots start or end with the slot (no key of the slot is there).
      std::uint32_t below = 0, above = 0;
      const U sub_end = static_cast<U>(ds.sub_base + span_less_one);
      if (ds.sub_base > lo) below = take(lo, static_cast<U>(ds.sub_base - 1), 1, 0);
      for (std::uint32_t i = 0; i < ds.subs && ok; ++i) {
        const U sub_lo = static_cast<U>(ds.sub_base + (static_cast<U>(i) << ds.sub_shift));
        const std::uint32_t first = take(sub_lo, static_cast<U>(sub_lo + sub_width_less_one), 0, ds.sub_shift);
        if (ok) image.sub_words.push_back(core::radix_slot_word(first, ivs[next - 1].count));
      }
      if (sub_end < hi) above = take(static_cast<U>(sub_end + 1), hi, 1, 0);
      image.entries.push_back(core::radix_dense_entry(static_cast<std::uint32_t>(image.dense.size())));
      image.dense.push_back(core::make_radix_dense_record<U>(ds.sub_base, span_less_one, below, above, first_word, ds.sub_shift));
      ++d;
    } else {
      const std::uint32_t first = take(lo, hi, 0, s.shift);
      if (ok) image.entries.push_back(core::radix_plain_entry(first, ivs[next - 1].count));
    }
  }
  if (!ok || d != s.dense.size()) return {};
  image.last_offset = core::radix_slots_last_offset<U>(s.slots, s.shift);
  if (s.tail_above) {
    const U above_lo = static_cast<U>(s.base + image.last_offset + 1);
    image.entries.push_back(core::radix_tail_entry(take(above_lo, static_cast<U>(~U(0)), 1, 0)));
    if (!ok) return {};
  } else if (static_cast<U>(s.base + image.last_offset) != static_cast<U>(~U(0))) {
    return {};
  }
  if (next != ivs.size()) return {};
  if (!s.tail_above) image.entries.push_back(core::radix_tail_entry(0));  // never read: no key lies above the slots
  image.slots = s.slots;
  image.base = s.base;
  image.shift = s.shift;
  return image;
}

/// A shard over host memory (values may be null when n == 0).
template <class T>
std::unique_ptr<shard<T>> make_cpu_shard(const T* values, std::int64_t n, const kselect::options& opt);

/// A shard over device memory, working on opt.stream. Throws kselect::error in builds
/// without CUDA.
template <class T>
std::unique_ptr<shard<T>> make_cuda_shard(const T* values, std::int64_t n, const kselect::options& opt);

}  // namespace kselect::distributed
