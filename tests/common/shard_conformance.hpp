// The contract of a distributed call's shard (src/distributed/shard.hpp), checked
// against brute force for any backend: the CPU shard (tests/cpu/
// distributed_shard_test.cpp) and the CUDA shard (tests/cuda/
// distributed_shard_test.cu) run the same bodies, each with its own way of making a
// shard over a host vector and its own variants (thread counts, shared-memory budgets).
//
// Every key type x inputs (uniform, sorted, all equal, 2 and 16 distinct values,
// NaN / +-inf / -0.0 / denormals, NaN payloads) x sizes 0 to 100003 x the backend's
// variants. Rounds of count() over tables a helper builds here (the full key range,
// contiguous covers, intervals with gaps, one-key and scale-0 intervals, the buckets of
// the previous round, no interval at all), with and without compaction: counts per
// bucket, interval minima and maxima, the keys kept (a multiset), extract(). Then
// min_max, count_nan, extract_all, sample, sort_keys, top-k's
// counts_beyond_and_equal / take against a std::stable_sort reference, and
// equal_element (which zero or NaN a rank's answer is) against a scan.
//
// The reference works on the sorted keys in contention: an interval's keys are one
// range of them (lower_bound / upper_bound), and a key's bucket is computed here with
// 128-bit arithmetic, not with core::find_interval / core::bucket_offset.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/generate.hpp"
#include "common/rng.hpp"
#include "core/key_traits.hpp"
#include "distributed/dibms_plan.hpp"
#include "distributed/shard.hpp"
#include "kselect/types.hpp"

namespace kselect::shard_test {

using distributed::round_table;
using u128 = unsigned __int128;

// ---- the backend under test -------------------------------------------------------

/// One way of running a backend (a thread count, a shared-memory budget).
struct variant {
  std::string name;
  std::int64_t setting;
};

/// A shard and what it reads (a device copy of the values), kept alive together.
template <class T>
struct made_shard {
  std::shared_ptr<void> storage;
  std::unique_ptr<distributed::shard<T>> shard;
  distributed::shard<T>* operator->() const { return shard.get(); }
  distributed::shard<T>& operator*() const { return *shard; }
};

/// How a test file makes shards: over a copy of `values` (or nothing when empty),
/// and which variants it runs for n keys.
template <class T>
struct backend {
  std::function<made_shard<T>(const std::vector<T>& values, const variant& v)> make;
  std::function<std::vector<variant>(std::int64_t n)> variants;
  /// A one-process stand-in for the cross-process all-reduce (each word reduced with
  /// itself: a copy), for count_and_reduce.
  std::function<std::unique_ptr<distributed::device_allreduce>()> identity_reduce;
};


using distributed::round_table;
using u128 = unsigned __int128;

template <class U>
constexpr int key_bits = static_cast<int>(sizeof(U) * 8);

// ---- inputs -----------------------------------------------------------------------

/// A float with a given bit pattern.
template <class T>
T from_bits(std::uint64_t bits) {
  T x;
  if constexpr (sizeof(T) == 4) {
    const auto b = static_cast<std::uint32_t>(bits);
    std::memcpy(&x, &b, sizeof x);
  } else {
    std::memcpy(&x, &bits, sizeof x);
  }
  return x;
}

/// Floats: NaNs of many payloads and both signs (quiet and signalling), -0.0, +0.0,
/// denormals, +-inf and a few ordinary values, random.
template <class T>
std::vector<T> nan_payloads(std::int64_t n, std::uint64_t seed) {
  std::vector<T> v(static_cast<std::size_t>(n));
  const bool f32 = sizeof(T) == 4;
  const std::uint64_t exp = f32 ? 0x7f800000ull : 0x7ff0000000000000ull;
  const std::uint64_t sign = f32 ? 0x80000000ull : 0x8000000000000000ull;
  const std::uint64_t mant = f32 ? 0x007fffffull : 0x000fffffffffffffull;
  for (std::int64_t i = 0; i < n; ++i) {
    const std::uint64_t w = test::random_word(seed, static_cast<std::uint64_t>(i));
    const std::uint64_t payload = ((w >> 8) & mant) | 1;  // never 0: never inf
    switch (w % 8) {
      case 0: v[i] = from_bits<T>(exp | payload); break;          // NaN, quiet or signalling
      case 1: v[i] = from_bits<T>(sign | exp | payload); break;   // negative NaN
      case 2: v[i] = T(-0.0); break;
      case 3: v[i] = T(0.0); break;
      case 4: v[i] = from_bits<T>((w >> 16) & (mant >> 3)); break;  // denormal (or +0.0)
      case 5: v[i] = (w & 256) ? std::numeric_limits<T>::infinity() : -std::numeric_limits<T>::infinity(); break;
      default: v[i] = static_cast<T>(static_cast<double>(w % 7) - 3.0); break;
    }
  }
  return v;
}

struct input_kind {
  std::string name;
  test::dist d;
  bool payloads;  ///< nan_payloads instead of test::generate
};

template <class T>
std::vector<input_kind> input_kinds() {
  std::vector<input_kind> kinds = {{"uniform", test::dist::uniform, false},
                                   {"sorted", test::dist::sorted, false},
                                   {"all_equal", test::dist::all_equal, false},
                                   {"two_values", test::dist::two_values, false},
                                   {"sixteen_values", test::dist::sixteen_values, false},
                                   {"special", test::dist::special, false}};
  if constexpr (std::is_floating_point_v<T>) kinds.push_back({"nan_payloads", test::dist::uniform, true});
  return kinds;
}

template <class T>
std::vector<T> make_input(const input_kind& kind, std::int64_t n, std::uint64_t seed) {
  if constexpr (std::is_floating_point_v<T>) {
    if (kind.payloads) return nan_payloads<T>(n, seed);
  }
  return test::generate<T>(kind.d, n, seed);
}

constexpr std::int64_t sizes[] = {0, 1, 2, 31, 33, 1000, 100003};

template <class T>
std::vector<core::key_t<T>> keys_of(const std::vector<T>& values) {
  std::vector<core::key_t<T>> keys(values.size());
  for (std::size_t i = 0; i < values.size(); ++i) keys[i] = core::key_traits<T>::to_key(values[i]);
  return keys;
}

/// Values as bit patterns (to compare -0.0 and NaN payloads).
template <class T>
std::vector<core::key_t<T>> bits_of(const std::vector<T>& values) {
  std::vector<core::key_t<T>> bits(values.size());
  if (!values.empty()) std::memcpy(bits.data(), values.data(), values.size() * sizeof(T));
  return bits;
}

struct rng {
  std::uint64_t seed, i = 0;
  std::uint64_t next() { return test::random_word(seed, i++); }
  std::uint64_t below(std::uint64_t n) { return n == 0 ? 0 : next() % n; }
};

// ---- tables -------------------------------------------------------------------------

template <class U>
struct interval_spec {
  U lo, hi;
  std::uint32_t count;
};

/// The table of ascending, disjoint intervals: scale per core/bucket_table.hpp
/// (0 when the interval has at most `count` keys, else floor(count * 2^W / width)).
template <class U>
round_table<U> make_table(const std::vector<interval_spec<U>>& specs) {
  round_table<U> t;
  std::uint32_t first = 0;
  for (std::size_t i = 0; i < specs.size(); ++i) {
    const auto& s = specs[i];
    if (s.lo > s.hi || s.count == 0 || (i > 0 && s.lo <= specs[i - 1].hi))
      throw std::logic_error("make_table: bad interval");
    const u128 width = static_cast<u128>(s.hi - s.lo) + 1;
    const U scale = width <= s.count ? U(0) : static_cast<U>((static_cast<u128>(s.count) << key_bits<U>) / width);
    t.intervals.push_back({s.lo, s.hi, scale, first, s.count});
    t.lo_keys.push_back(s.lo);
    first += s.count;
  }
  t.buckets = first;
  return t;
}

/// A key's bucket within its interval, computed apart from core::bucket_offset.
template <class U>
std::uint64_t ref_offset(const core::bucket_interval<U>& iv, U key) {
  const u128 d = static_cast<u128>(static_cast<U>(key - iv.lo));
  return static_cast<std::uint64_t>(iv.scale == 0 ? d : (d * iv.scale) >> key_bits<U>);
}

constexpr std::uint32_t bucket_counts[] = {1, 2, 3, 7, 64, 1000, 4096};

template <class U>
std::uint32_t random_count(rng& r) {
  return bucket_counts[r.below(std::size(bucket_counts))];
}

/// Sorted distinct candidates for endpoints: keys in contention, random keys, the ends.
template <class U>
std::vector<U> candidates(const std::vector<U>& sorted_keys, rng& r, std::size_t picks) {
  std::vector<U> c;
  for (std::size_t j = 0; j < picks && !sorted_keys.empty(); ++j) c.push_back(sorted_keys[r.below(sorted_keys.size())]);
  for (std::size_t j = 0; j < picks / 4 + 1; ++j) c.push_back(static_cast<U>(r.next()));
  if (r.below(3) == 0) c.push_back(~U(0));
  if (r.below(3) == 0) c.push_back(U(0));
  std::sort(c.begin(), c.end());
  c.erase(std::unique(c.begin(), c.end()), c.end());
  return c;
}

/// One interval [0, ~0]: width 2^W, scale == count.
template <class U>
round_table<U> full_table(std::uint32_t count) {
  return make_table<U>({{U(0), ~U(0), count}});
}

/// Contiguous intervals covering every key, cut at keys in contention.
template <class U>
round_table<U> cover_table(const std::vector<U>& sorted_keys, rng& r) {
  std::vector<U> cuts = candidates(sorted_keys, r, 15);
  cuts.erase(std::remove(cuts.begin(), cuts.end(), U(0)), cuts.end());
  std::vector<interval_spec<U>> specs;
  U lo = 0;
  for (const U c : cuts) {
    specs.push_back({lo, static_cast<U>(c - 1), random_count<U>(r)});
    lo = c;
  }
  specs.push_back({lo, ~U(0), random_count<U>(r)});
  return make_table(specs);
}

/// Intervals with gaps between them: some wide, some of one key, some of at most
/// `count` keys (scale 0), some of one bucket.
template <class U>
round_table<U> gaps_table(const std::vector<U>& sorted_keys, rng& r) {
  const std::vector<U> e = candidates(sorted_keys, r, 24);
  std::vector<interval_spec<U>> specs;
  for (std::size_t j = 0; j + 1 < e.size(); j += 2) {
    const U a = e[j], b = e[j + 1];
    switch (r.below(4)) {
      case 0: specs.push_back({a, b, random_count<U>(r)}); break;
      case 1: specs.push_back({a, a, static_cast<std::uint32_t>(1 + r.below(3))}); break;
      case 2: {
        const U w = static_cast<U>(std::min<u128>(static_cast<u128>(b - a), r.below(100)));
        specs.push_back({a, static_cast<U>(a + w), static_cast<std::uint32_t>(w + 1 + r.below(4))});
        break;
      }
      default: specs.push_back({a, b, 1}); break;
    }
  }
  return make_table(specs);
}

/// One-key intervals [k, k] at up to 64 consecutive distinct keys (no gap between
/// neighbouring keys of the data, so the intervals may touch).
template <class U>
round_table<U> one_key_table(const std::vector<U>& sorted_keys, rng& r) {
  std::vector<U> d = sorted_keys;
  d.erase(std::unique(d.begin(), d.end()), d.end());
  std::vector<interval_spec<U>> specs;
  const std::size_t start = d.empty() ? 0 : r.below(d.size());
  for (std::size_t j = start; j < d.size() && specs.size() < 64; ++j) specs.push_back({d[j], d[j], 1});
  return make_table(specs);
}

/// The key ranges (smallest to largest key) of some non-empty buckets of the previous
/// round, as the planner would narrow them.
template <class U>
round_table<U> from_buckets_table(const round_table<U>& prev, const std::vector<U>& sorted_keys, rng& r) {
  std::vector<interval_spec<U>> specs;
  for (const auto& iv : prev.intervals) {
    const auto begin = std::lower_bound(sorted_keys.begin(), sorted_keys.end(), iv.lo);
    const auto end = std::upper_bound(sorted_keys.begin(), sorted_keys.end(), iv.hi);
    for (auto it = begin; it != end;) {
      const std::uint64_t b = ref_offset(iv, *it);
      auto next = it;
      while (next != end && ref_offset(iv, *next) == b) ++next;
      if (r.below(3) == 0) specs.push_back({*it, *(next - 1), random_count<U>(r)});
      it = next;
    }
  }
  return make_table(specs);
}

/// The planner's first table (radix slots, dense ones where the sample repeats keys:
/// distributed::first_round_slot_table) from a sample of the keys in contention, with 64
/// or 1000 buckets (the full table when nothing is in contention).
template <class U>
round_table<U> slots_table(const std::vector<U>& sorted_keys, rng& r) {
  if (sorted_keys.empty()) return full_table<U>(64);
  std::vector<U> sample;
  for (int i = 0; i < 200; ++i) sample.push_back(sorted_keys[r.below(sorted_keys.size())]);
  std::sort(sample.begin(), sample.end());  // repeats kept: dense slots where keys repeat
  return distributed::first_round_table<U>(sample, 16, r.below(2) ? 64u : 1000u);
}

// ---- reference ------------------------------------------------------------------------

template <class U>
struct count_reference {
  std::vector<std::uint64_t> counts;
  std::vector<U> mins, maxs;
  std::vector<U> inside;  ///< sorted keys inside the intervals
};

template <class U>
count_reference<U> reference_count(const round_table<U>& t, const std::vector<U>& sorted_keys) {
  count_reference<U> ref;
  ref.counts.assign(t.buckets, 0);
  for (const auto& iv : t.intervals) {
    const auto begin = std::lower_bound(sorted_keys.begin(), sorted_keys.end(), iv.lo);
    const auto end = std::upper_bound(sorted_keys.begin(), sorted_keys.end(), iv.hi);
    ref.mins.push_back(begin == end ? ~U(0) : *begin);
    ref.maxs.push_back(begin == end ? U(0) : *(end - 1));
    for (auto it = begin; it != end; ++it) {
      const std::uint64_t off = ref_offset(iv, *it);
      if (off >= iv.count) throw std::logic_error("reference: bucket beyond the interval's count");
      ++ref.counts[iv.first + off];
    }
    ref.inside.insert(ref.inside.end(), begin, end);
  }
  return ref;
}

/// "" when equal, else where they first differ.
template <class V>
std::string first_difference(const std::vector<V>& got, const std::vector<V>& want) {
  if (got.size() != want.size())
    return "size " + std::to_string(got.size()) + ", expected " + std::to_string(want.size());
  for (std::size_t i = 0; i < got.size(); ++i)
    if (got[i] != want[i])
      return "at " + std::to_string(i) + ": " + std::to_string(static_cast<std::uint64_t>(got[i])) + ", expected " +
             std::to_string(static_cast<std::uint64_t>(want[i]));
  return "";
}

template <class U>
std::vector<U> sorted(std::vector<U> v) {
  std::sort(v.begin(), v.end());
  return v;
}

// ---- the contract ------------------------------------------------------------------

enum class table_kind { full, full_one_bucket, cover, gaps, one_key, from_buckets, slots, empty };

inline const char* name(table_kind k) {
  switch (k) {
    case table_kind::full: return "full";
    case table_kind::full_one_bucket: return "full_one_bucket";
    case table_kind::cover: return "cover";
    case table_kind::gaps: return "gaps";
    case table_kind::one_key: return "one_key";
    case table_kind::from_buckets: return "from_buckets";
    case table_kind::slots: return "slots";
    case table_kind::empty: return "empty";
  }
  return "?";
}

struct step {
  table_kind table;
  bool compact;
};

/// Rounds a shard goes through (each plan on a fresh shard).
inline const std::vector<std::vector<step>> plans = {
    // Keeps everything first (compaction copying every key), then narrows.
    {{table_kind::full, false},
     {table_kind::full, true},
     {table_kind::cover, true},
     {table_kind::from_buckets, true},
     {table_kind::gaps, true},
     {table_kind::one_key, true}},
    // Drops keys on the first compaction; ends with nothing in contention.
    {{table_kind::gaps, false},
     {table_kind::gaps, true},
     {table_kind::from_buckets, true},
     {table_kind::full_one_bucket, false},
     {table_kind::empty, true},
     {table_kind::full, true}},
    // The engine's way on continuous data: radix slots over the values, then buckets
    // of them kept (the GPU's slot passes), then narrower ones; or other tables after
    // the slots (routes that meet, or none).
    {{table_kind::slots, false},
     {table_kind::from_buckets, true},
     {table_kind::from_buckets, true},
     {table_kind::one_key, true}},
    {{table_kind::slots, false},
     {table_kind::gaps, true},
     {table_kind::cover, true}},
    // The planner's way: a cover, then the buckets of each round.
    {{table_kind::cover, true},
     {table_kind::from_buckets, true},
     {table_kind::from_buckets, true},
     {table_kind::one_key, false},
     {table_kind::from_buckets, true}},
};

template <class T>
void count_rounds_match_brute_force(const backend<T>& b) {
  using U = core::key_t<T>;
  for (const input_kind& kind : input_kinds<T>()) {
    for (const std::int64_t n : sizes) {
      const std::vector<T> values = make_input<T>(kind, n, 1000 + static_cast<std::uint64_t>(n));
      for (const variant& v : b.variants(n)) {
        for (std::size_t p = 0; p < plans.size(); ++p) {
          SCOPED_TRACE(testing::Message() << kind.name << ", n = " << n << ", " << v.name << ", plan " << p);
          const made_shard<T> shard = b.make(values, v);
          std::vector<U> contention = sorted(keys_of(values));
          rng r{77 + 13 * p + static_cast<std::uint64_t>(n)};
          round_table<U> prev = full_table<U>(64);
          for (std::size_t s = 0; s < plans[p].size(); ++s) {
            const step st = plans[p][s];
            SCOPED_TRACE(testing::Message() << "round " << s << ", table " << name(st.table)
                                            << (st.compact ? ", compact" : ""));
            round_table<U> table;
            switch (st.table) {
              case table_kind::full: table = full_table<U>(1000); break;
              case table_kind::full_one_bucket: table = full_table<U>(1); break;
              case table_kind::cover: table = cover_table(contention, r); break;
              case table_kind::gaps: table = gaps_table(contention, r); break;
              case table_kind::one_key: table = one_key_table(contention, r); break;
              case table_kind::from_buckets: table = from_buckets_table(prev, contention, r); break;
              case table_kind::slots: table = slots_table(contention, r); break;
              case table_kind::empty: break;
            }
            const count_reference<U> ref = reference_count(table, contention);
            const std::size_t P = table.intervals.size();

            // Without minmax and compaction first (null min/max pointers): nothing changes.
            std::vector<std::uint64_t> counts(table.buckets, 0xdeadbeef);
            shard->count(table, counts.data(), false, nullptr, nullptr, false, -1);
            ASSERT_EQ(first_difference(counts, ref.counts), "") << "counts without minmax";
            ASSERT_EQ(shard->size(), static_cast<std::int64_t>(contention.size()));

            // extract(): the keys inside, appended after what `out` holds, their number
            // unknown or told (then copied back with the pass's outputs on a GPU); a
            // wrong number told is the caller's bookkeeping gone wrong: an error.
            const auto inside = static_cast<std::int64_t>(ref.inside.size());
            for (const std::int64_t expected : {std::int64_t{-1}, inside}) {
              std::vector<U> out = {U(12345)};
              shard->extract(table, out, expected);
              ASSERT_FALSE(out.empty());
              ASSERT_EQ(out[0], U(12345));
              out.erase(out.begin());
              ASSERT_EQ(first_difference(sorted(out), ref.inside), "") << "extract, expecting " << expected;
            }
            if (P > 0) {
              std::vector<U> out;
              EXPECT_THROW(shard->extract(table, out, inside + 1), kselect::error) << "extract, one key more expected";
            }

            std::fill(counts.begin(), counts.end(), 0xdeadbeef);
            std::vector<U> mins(P, U(7)), maxs(P, U(7));
            shard->count(table, counts.data(), true, mins.data(), maxs.data(), st.compact,
                         static_cast<std::int64_t>(ref.inside.size()));
            ASSERT_EQ(first_difference(counts, ref.counts), "") << "counts";
            ASSERT_EQ(first_difference(mins, ref.mins), "") << "interval minima";
            ASSERT_EQ(first_difference(maxs, ref.maxs), "") << "interval maxima";
            if (st.compact) contention = ref.inside;
            ASSERT_EQ(shard->size(), static_cast<std::int64_t>(contention.size()));

            // count_and_reduce on one process: its own counts and extremes, reduced with
            // themselves, and the failure slot (a process that failed counts nothing).
            if (b.identity_reduce) {
              const count_reference<U> now = reference_count(table, contention);
              const auto reduce = b.identity_reduce();
              distributed::reduced_counts<U> rc;
              const std::exception_ptr error = shard->count_and_reduce(table, true, false, -1, false, *reduce, rc);
              ASSERT_FALSE(error) << "count_and_reduce failed";
              ASSERT_EQ(first_difference(rc.local, now.counts), "") << "count_and_reduce: local counts";
              ASSERT_EQ(rc.global.size(), now.counts.size() + 1);
              ASSERT_EQ(rc.global.back(), 0u) << "count_and_reduce: failure slot";
              rc.global.pop_back();
              ASSERT_EQ(first_difference(rc.global, now.counts), "") << "count_and_reduce: reduced counts";
              ASSERT_EQ(first_difference(rc.min, now.mins), "") << "count_and_reduce: minima";
              ASSERT_EQ(first_difference(rc.max, now.maxs), "") << "count_and_reduce: maxima";
              distributed::reduced_counts<U> failed;
              ASSERT_FALSE(shard->count_and_reduce(table, false, false, -1, true, *reduce, failed));
              ASSERT_EQ(failed.global.back(), 1u) << "count_and_reduce: the failure slot of a failed process";
              ASSERT_EQ(std::count(failed.local.begin(), failed.local.end(), 0u),
                        static_cast<std::ptrdiff_t>(failed.local.size()));
            }

            // The keys in contention, as a multiset.
            std::vector<U> all;
            shard->extract(full_table<U>(1), all, -1);
            ASSERT_EQ(first_difference(sorted(all), contention), "") << "keys in contention";
            prev = table;
          }
          // extract_all and min_max read the whole array, whatever was compacted.
          std::vector<U> everything;
          shard->extract_all(everything);
          ASSERT_EQ(first_difference(sorted(everything), sorted(keys_of(values))), "") << "extract_all after rounds";
        }
      }
    }
  }
}

template <class T>
void whole_array_queries(const backend<T>& b) {
  using U = core::key_t<T>;
  for (const input_kind& kind : input_kinds<T>()) {
    for (const std::int64_t n : sizes) {
      const std::vector<T> values = make_input<T>(kind, n, 2000 + static_cast<std::uint64_t>(n));
      const std::vector<U> keys = keys_of(values);
      for (const variant& v : b.variants(n)) {
        SCOPED_TRACE(testing::Message() << kind.name << ", n = " << n << ", " << v.name);
        const made_shard<T> shard = b.make(values, v);
        EXPECT_EQ(shard->size(), n);

        U lo = 1, hi = 1;
        shard->min_max(lo, hi);
        EXPECT_EQ(lo, n ? *std::min_element(keys.begin(), keys.end()) : ~U(0));
        EXPECT_EQ(hi, n ? *std::max_element(keys.begin(), keys.end()) : U(0));

        std::int64_t nans = 0;
        if constexpr (std::is_floating_point_v<T>)
          for (const T v : values) nans += std::isnan(v) ? 1 : 0;
        EXPECT_EQ(shard->count_nan(), nans);

        std::vector<U> all = {U(3), U(4)};
        shard->extract_all(all);
        ASSERT_GE(all.size(), 2u);
        EXPECT_EQ(all[0], U(3));
        EXPECT_EQ(all[1], U(4));
        all.erase(all.begin(), all.begin() + 2);
        EXPECT_EQ(first_difference(all, keys), "") << "extract_all (in index order here, any order allowed)";
      }
    }
  }
}

/// Every variant draws the same sample from a seed (and so does `other`, another
/// backend's shard maker, when given: a seed draws the same keys on every backend).
template <class T>
void sample_draws_elements(const backend<T>& b, const backend<T>* other = nullptr) {
  using U = core::key_t<T>;
  for (const input_kind& kind : input_kinds<T>()) {
    for (const std::int64_t n : sizes) {
      SCOPED_TRACE(testing::Message() << kind.name << ", n = " << n);
      const std::vector<T> values = make_input<T>(kind, n, 3000 + static_cast<std::uint64_t>(n));
      const std::vector<U> keys = sorted(keys_of(values));
      std::vector<made_shard<T>> shards;
      for (const variant& v : b.variants(1000)) shards.push_back(b.make(values, v));
      if (other)
        for (const variant& v : other->variants(1000)) shards.push_back(other->make(values, v));
      const made_shard<T>& one = shards.front();
      for (const std::size_t count : {std::size_t(0), std::size_t(1), std::size_t(1024), std::size_t(40000)}) {
        std::vector<U> a(count, U(5));
        one->sample(99, a);
        if (n == 0) {
          EXPECT_EQ(a, std::vector<U>(count, U(5))) << "an empty array writes nothing";
          continue;
        }
        for (std::size_t s = 1; s < shards.size(); ++s) {
          std::vector<U> b2(count, U(6));
          shards[s]->sample(99, b2);
          EXPECT_EQ(a, b2) << "the same seed gives the same sample, whatever the variant or backend (shard " << s << ")";
        }
        for (const U k : a) ASSERT_TRUE(std::binary_search(keys.begin(), keys.end(), k)) << "not an element: " << k;
        if (count >= 1024 && keys.front() != keys.back()) {
          std::vector<U> c(count);
          one->sample(100, c);
          EXPECT_NE(a, c) << "another seed, another sample";
        }
      }
    }
  }
}

template <class T>
void sample_is_uniform(const backend<T>& b) {
  using U = core::key_t<T>;
  // Distinct ascending values: a key's rank is its position.
  const std::int64_t n = 100003;
  const std::vector<T> values = test::generate<T>(test::dist::sorted, n, 1);
  std::vector<U> keys = keys_of(values);
  ASSERT_TRUE(std::is_sorted(keys.begin(), keys.end()));
  ASSERT_EQ(std::adjacent_find(keys.begin(), keys.end()), keys.end());
  const made_shard<T> shard = b.make(values, b.variants(n).front());
  const std::size_t count = 200000;
  std::vector<U> s(count);
  shard->sample(12345, s);
  std::vector<std::int64_t> bins(10, 0);
  for (const U k : s) {
    const auto pos = std::lower_bound(keys.begin(), keys.end(), k) - keys.begin();
    ++bins[static_cast<std::size_t>(pos * 10 / n)];
  }
  // Expected 20000 +- 134 (one standard deviation) per bin.
  for (std::size_t b = 0; b < bins.size(); ++b) EXPECT_NEAR(static_cast<double>(bins[b]), 20000.0, 1000.0) << "bin " << b;
}

template <class T>
void sort_keys(const backend<T>& b) {
  using U = core::key_t<T>;
  for (const std::int64_t m : {std::int64_t(0), std::int64_t(1), std::int64_t(1000), std::int64_t(300000)}) {
    for (const int mode : {0, 1}) {  // random words, 16 distinct keys
      SCOPED_TRACE(testing::Message() << "m = " << m << ", mode " << mode);
      std::vector<U> keys(static_cast<std::size_t>(m));
      for (std::int64_t i = 0; i < m; ++i) {
        const std::uint64_t w = test::random_word(7, static_cast<std::uint64_t>(i));
        keys[static_cast<std::size_t>(i)] = mode == 0 ? static_cast<U>(w) : static_cast<U>((w % 16) << 5);
      }
      const std::vector<T> one_value(1, T{});
      const made_shard<T> shard = b.make(one_value, b.variants(1000).back());
      const std::vector<U> want = sorted(keys);
      shard->sort_keys(keys);
      EXPECT_EQ(first_difference(keys, want), "");
    }
  }
}

/// Top-k's local part against std::stable_sort: the first k of the stable order.
template <class T>
void check_take(distributed::shard<T>& shard, const std::vector<T>& values, bool largest) {
  using U = core::key_t<T>;
  const std::vector<U> keys = keys_of(values);
  const auto n = static_cast<std::int64_t>(values.size());
  std::vector<std::int64_t> order(values.size());
  for (std::int64_t i = 0; i < n; ++i) order[static_cast<std::size_t>(i)] = i;
  std::stable_sort(order.begin(), order.end(), [&](std::int64_t a, std::int64_t b) {
    return largest ? keys[a] > keys[b] : keys[a] < keys[b];
  });
  std::vector<std::int64_t> ks = {1, 2, n / 3, n / 2, n - 1, n};
  for (const std::int64_t k : ks) {
    if (k < 1 || k > n) continue;
    SCOPED_TRACE(testing::Message() << (largest ? "largest" : "smallest") << ", k = " << k);
    const U threshold = keys[static_cast<std::size_t>(order[static_cast<std::size_t>(k - 1)])];
    std::int64_t want_beyond = 0, want_equal = 0;
    for (const U key : keys) {
      want_beyond += (largest ? key > threshold : key < threshold) ? 1 : 0;
      want_equal += key == threshold ? 1 : 0;
    }
    std::int64_t beyond = -1, equal = -1;
    shard.counts_beyond_and_equal(threshold, largest, beyond, equal);
    ASSERT_EQ(beyond, want_beyond);
    ASSERT_EQ(equal, want_equal);
    const std::int64_t ties = k - beyond;
    ASSERT_GE(ties, 1);
    ASSERT_LE(ties, equal);

    std::vector<std::int64_t> want_indices(order.begin(), order.begin() + k);
    std::sort(want_indices.begin(), want_indices.end());
    std::vector<T> want_values;
    for (const std::int64_t i : want_indices) want_values.push_back(values[static_cast<std::size_t>(i)]);

    // Appended after what the vectors hold.
    const T sentinel = T(9);
    std::vector<T> got_values = {sentinel};
    std::vector<std::int64_t> got_indices = {-5};
    shard.take(threshold, largest, ties, true, got_values, got_indices);
    ASSERT_EQ(got_values.size(), static_cast<std::size_t>(k) + 1);
    ASSERT_EQ(got_indices.size(), static_cast<std::size_t>(k) + 1);
    EXPECT_EQ(got_indices[0], -5);
    got_values.erase(got_values.begin());
    got_indices.erase(got_indices.begin());
    EXPECT_EQ(first_difference(got_indices, want_indices), "") << "indices";
    EXPECT_EQ(first_difference(bits_of(got_values), bits_of(want_values)), "") << "values, bit for bit";

    // Without indices: the same values, indices untouched.
    std::vector<T> v2;
    std::vector<std::int64_t> i2 = {-7};
    shard.take(threshold, largest, ties, false, v2, i2);
    EXPECT_EQ(i2, std::vector<std::int64_t>{-7});
    EXPECT_EQ(first_difference(bits_of(v2), bits_of(want_values)), "") << "values without indices";

    // No ties, and more ties asked than there are (all of them).
    std::vector<T> v3;
    std::vector<std::int64_t> i3;
    shard.take(threshold, largest, 0, true, v3, i3);
    EXPECT_EQ(static_cast<std::int64_t>(i3.size()), beyond);
    for (const std::int64_t i : i3) EXPECT_TRUE(largest ? keys[i] > threshold : keys[i] < threshold);
    EXPECT_TRUE(std::is_sorted(i3.begin(), i3.end()));
    v3.clear();
    i3.clear();
    shard.take(threshold, largest, equal + 5, true, v3, i3);
    EXPECT_EQ(static_cast<std::int64_t>(i3.size()), beyond + equal);
    EXPECT_TRUE(std::is_sorted(i3.begin(), i3.end()));
  }
}

template <class T>
void take_matches_stable_sort(const backend<T>& b) {
  for (const input_kind& kind : input_kinds<T>()) {
    for (const std::int64_t n : sizes) {
      const std::vector<T> values = make_input<T>(kind, n, 4000 + static_cast<std::uint64_t>(n));
      for (const variant& v : b.variants(n)) {
        SCOPED_TRACE(testing::Message() << kind.name << ", n = " << n << ", " << v.name);
        const made_shard<T> shard = b.make(values, v);
        // A compaction first: take() reads the whole array regardless.
        if (n > 0) {
          using U = core::key_t<T>;
          const U k0 = core::key_traits<T>::to_key(values[0]);
          const auto t = make_table<U>({{k0, k0, 1}});
          std::vector<std::uint64_t> c(1);
          shard->count(t, c.data(), false, nullptr, nullptr, true, -1);
        }
        check_take(*shard, values, false);
        if (testing::Test::HasFatalFailure()) return;
        check_take(*shard, values, true);
        if (testing::Test::HasFatalFailure()) return;
      }
    }
  }
}

/// equal_element against a scan in index order: for the keys of the first elements and
/// the most common key (zeros and NaNs of many bit patterns in the payload inputs),
/// ordinals first, second, middle and last, bit for bit; one past the last throws.
template <class T>
void equal_element_in_index_order(const backend<T>& b) {
  using U = core::key_t<T>;
  for (const input_kind& kind : input_kinds<T>()) {
    for (const std::int64_t n : sizes) {
      if (n == 0) continue;
      const std::vector<T> values = make_input<T>(kind, n, 5000 + static_cast<std::uint64_t>(n));
      const std::vector<U> keys = keys_of(values);
      std::vector<U> asked = {keys[0], keys[static_cast<std::size_t>(n / 2)], keys.back()};
      std::vector<U> s = sorted(keys);
      asked.push_back(s[static_cast<std::size_t>(n / 3)]);
      for (const variant& v : b.variants(n)) {
        SCOPED_TRACE(testing::Message() << kind.name << ", n = " << n << ", " << v.name);
        const made_shard<T> shard = b.make(values, v);
        for (const U key : asked) {
          std::vector<std::int64_t> at;  // positions of the elements of this key, in index order
          for (std::int64_t i = 0; i < n; ++i)
            if (keys[static_cast<std::size_t>(i)] == key) at.push_back(i);
          const auto count = static_cast<std::int64_t>(at.size());
          for (const std::int64_t o : {std::int64_t{0}, std::int64_t{1}, count / 2, count - 1}) {
            if (o < 0 || o >= count) continue;
            const T got = shard->equal_element(key, o);
            const T& want = values[static_cast<std::size_t>(at[static_cast<std::size_t>(o)])];
            ASSERT_EQ(std::memcmp(&got, &want, sizeof(T)), 0) << "key " << key << ", ordinal " << o;
          }
          EXPECT_THROW(shard->equal_element(key, count), std::out_of_range);
          EXPECT_THROW(shard->equal_element(key, -1), std::out_of_range);
        }
      }
    }
  }
}

/// counts_of_key against a scan: for the keys of zero (+0.0 and -0.0 mixed, or one of
/// them alone), NaN (many payloads, or only the canonical one), the first element's and
/// the median's, the elements below, equal and equal with bits other than from_key's.
template <class T>
void counts_of_key_match_a_scan(const backend<T>& b) {
  using U = core::key_t<T>;
  using traits = core::key_traits<T>;
  std::vector<input_kind> kinds = input_kinds<T>();
  for (const input_kind& kind : kinds) {
    for (const std::int64_t n : sizes) {
      std::vector<std::vector<T>> inputs = {make_input<T>(kind, n, 6000 + static_cast<std::uint64_t>(n))};
      if constexpr (std::is_floating_point_v<T>) {
        if (kind.payloads) {  // the same with one bit pattern per key: +0.0 alone, -0.0 alone, the canonical NaN
          for (const T zero : {T(0.0), T(-0.0)}) {
            std::vector<T> v = inputs[0];
            for (T& x : v) x = std::isnan(x) ? traits::from_key(traits::nan_key) : x == T(0) ? zero : x;
            inputs.push_back(v);
          }
        }
      }
      for (std::size_t in = 0; in < inputs.size(); ++in) {
        const std::vector<T>& values = inputs[in];
        const std::vector<U> keys = keys_of(values);
        std::vector<U> asked = {traits::to_key(T(0)), U(~U(0))};
        if (n > 0) asked.insert(asked.end(), {keys[0], sorted(keys)[static_cast<std::size_t>(n / 2)]});
        for (const variant& v : b.variants(n)) {
          SCOPED_TRACE(testing::Message() << kind.name << " (input " << in << "), n = " << n << ", " << v.name);
          const made_shard<T> shard = b.make(values, v);
          for (const U key : asked) {
            const T canonical = traits::from_key(key);
            std::int64_t want_below = 0, want_equal = 0, want_other = 0;
            for (std::size_t i = 0; i < values.size(); ++i) {
              want_below += keys[i] < key ? 1 : 0;
              want_equal += keys[i] == key ? 1 : 0;
              want_other += keys[i] == key && std::memcmp(&values[i], &canonical, sizeof(T)) != 0 ? 1 : 0;
            }
            std::int64_t below = -1, equal = -1, other = -1;
            shard->counts_of_key(key, below, equal, other);
            EXPECT_EQ(below, want_below) << "key " << key;
            EXPECT_EQ(equal, want_equal) << "key " << key;
            EXPECT_EQ(other, want_other) << "key " << key;
          }
        }
      }
    }
  }
}

template <class T>
void empty_array(const backend<T>& b) {
  using U = core::key_t<T>;
  const made_shard<T> shard = b.make({}, b.variants(0).front());
  EXPECT_EQ(shard->size(), 0);
  U lo = 1, hi = 1;
  shard->min_max(lo, hi);
  EXPECT_EQ(lo, ~U(0));
  EXPECT_EQ(hi, U(0));
  EXPECT_EQ(shard->count_nan(), 0);
  std::vector<U> s(4, U(2));
  shard->sample(1, s);
  EXPECT_EQ(s, std::vector<U>(4, U(2)));
  const auto table = make_table<U>({{U(0), U(10), 4}, {U(20), ~U(0), 8}});
  std::vector<std::uint64_t> counts(table.buckets, 9);
  std::vector<U> mins(2, U(3)), maxs(2, U(3));
  shard->count(table, counts.data(), true, mins.data(), maxs.data(), true, 0);
  EXPECT_EQ(counts, std::vector<std::uint64_t>(table.buckets, 0));
  EXPECT_EQ(mins, std::vector<U>(2, ~U(0)));
  EXPECT_EQ(maxs, std::vector<U>(2, U(0)));
  EXPECT_EQ(shard->size(), 0);
  shard->count(table, counts.data(), true, mins.data(), maxs.data(), true, 0);  // again, compacted
  std::vector<U> out;
  shard->extract(table, out, 0);
  shard->extract_all(out);
  EXPECT_TRUE(out.empty());
  std::vector<U> keys;
  shard->sort_keys(keys);
  std::int64_t beyond = -1, equal = -1;
  shard->counts_beyond_and_equal(U(0), true, beyond, equal);
  EXPECT_EQ(beyond, 0);
  EXPECT_EQ(equal, 0);
  std::int64_t other = -1;
  shard->counts_of_key(U(0), beyond, equal, other);
  EXPECT_EQ(beyond + equal + other, 0);
  std::vector<T> values;
  std::vector<std::int64_t> indices;
  shard->take(U(0), false, 3, true, values, indices);
  EXPECT_TRUE(values.empty());
  EXPECT_TRUE(indices.empty());
  EXPECT_THROW(shard->equal_element(U(0), 0), std::out_of_range);
}

template <class T>
void wrong_expected_kept_throws_after_compacting(const backend<T>& b) {
  using U = core::key_t<T>;
  const std::vector<T> values = test::generate<T>(test::dist::sixteen_values, 1000, 5);
  const std::vector<U> keys = sorted(keys_of(values));
  const made_shard<T> shard = b.make(values, b.variants(1000).front());
  const auto table = make_table<U>({{keys[0], keys[499], 16}});
  const auto ref = reference_count(table, keys);
  std::vector<std::uint64_t> counts(table.buckets);
  EXPECT_THROW(shard->count(table, counts.data(), false, nullptr, nullptr, true,
                            static_cast<std::int64_t>(ref.inside.size()) + 1),
               kselect::error);
  EXPECT_EQ(shard->size(), static_cast<std::int64_t>(ref.inside.size())) << "the compaction itself is done";
  EXPECT_EQ(first_difference(counts, ref.counts), "");
}

/// Malformed tables are refused before any key is counted.
template <class T>
void malformed_tables_refused(const backend<T>& b) {
  using U = core::key_t<T>;
  const std::vector<T> values = test::generate<T>(test::dist::uniform, 10, 1);
  const made_shard<T> shard = b.make(values, b.variants(10).front());
  std::vector<std::uint64_t> counts(64);
  const auto refused = [&](round_table<U> t) {
    EXPECT_THROW(shard->count(t, counts.data(), false, nullptr, nullptr, false, -1), std::invalid_argument);
    std::vector<U> out;
    EXPECT_THROW(shard->extract(t, out, -1), std::invalid_argument);
  };
  auto t = make_table<U>({{U(0), U(100), 4}, {U(200), U(300), 4}});
  auto bad = t;
  bad.lo_keys.pop_back();
  refused(bad);
  bad = t;
  bad.lo_keys[1] = U(201);
  refused(bad);
  bad = t;
  bad.buckets = 7;
  refused(bad);
  bad = t;
  bad.intervals[1].lo = bad.lo_keys[1] = U(100);  // overlaps interval 0
  refused(bad);
}

}  // namespace kselect::shard_test
