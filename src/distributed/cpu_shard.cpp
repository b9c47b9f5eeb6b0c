// The CPU backend of a distributed call's local work (shard.hpp): host memory, OpenMP.
//
// Every pass cuts the keys it reads into contiguous chunks, one work item each
// (cpu::parallel_for, which carries exceptions out of the parallel region); a chunk
// counts into its own histogram and interval minima / maxima, merged afterwards, so
// results do not depend on the thread count. Compaction:
//   - the first compacting count reads the caller's array: each chunk appends its kept
//     keys to a buffer of its own, then the buffers are copied into the shard's vector;
//   - later ones read that vector: each chunk packs its kept keys to its own start (in
//     place), then the chunks are moved together in chunk order.
// Top-k's take() counts per chunk first, so that each chunk knows its output offset
// and how many of the ties it takes, then writes in index order.
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <numeric>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "core/bucket_table.hpp"
#include "core/key_traits.hpp"
#include "core/sampling.hpp"
#include "cpu/parallel.hpp"
#include "cpu/radix_sort.hpp"
#include "distributed/shard.hpp"
#include "kselect/types.hpp"

namespace kselect::distributed {
namespace {

/// Fewest keys per chunk: below this a parallel region costs more than it saves.
constexpr std::int64_t min_chunk = std::int64_t{1} << 14;

/// First index of chunk c of `chunks` over [0, m).
inline std::int64_t chunk_begin(std::int64_t m, std::int64_t chunks, std::int64_t c) {
  return m / chunks * c + std::min(c, m % chunks);
}

/// How a counting chunk keeps the keys inside the intervals.
enum class keep_mode { none, in_place, buffer };

template <class T>
class cpu_shard final : public shard<T> {
 public:
  using U = typename shard<T>::key_type;
  using traits = core::key_traits<T>;

  cpu_shard(const T* values, std::int64_t n, int threads) : values_(values), n_(n), opt_threads_(threads) {}

  std::int64_t size() const override { return compacted_ ? static_cast<std::int64_t>(keys_.size()) : n_; }

  void min_max(U& lo, U& hi) override {
    const std::int64_t chunks = chunk_count(n_, min_chunk);
    std::vector<U> los(static_cast<std::size_t>(chunks), ~U(0)), his(static_cast<std::size_t>(chunks), U(0));
    cpu::parallel_for(chunks, threads(), [&](std::int64_t c) {
      U l = ~U(0), h = U(0);
      for (std::int64_t i = chunk_begin(n_, chunks, c), end = chunk_begin(n_, chunks, c + 1); i < end; ++i) {
        const U k = traits::to_key(values_[i]);
        l = std::min(l, k);
        h = std::max(h, k);
      }
      los[static_cast<std::size_t>(c)] = l;
      his[static_cast<std::size_t>(c)] = h;
    });
    lo = *std::min_element(los.begin(), los.end());
    hi = *std::max_element(his.begin(), his.end());
  }

  std::int64_t count_nan() override {
    if constexpr (!std::is_floating_point_v<T>) {
      return 0;
    } else {
      const std::int64_t chunks = chunk_count(n_, min_chunk);
      std::vector<std::int64_t> nans(static_cast<std::size_t>(chunks), 0);
      cpu::parallel_for(chunks, threads(), [&](std::int64_t c) {
        std::int64_t k = 0;
        for (std::int64_t i = chunk_begin(n_, chunks, c), end = chunk_begin(n_, chunks, c + 1); i < end; ++i)
          k += std::isnan(values_[i]) ? 1 : 0;
        nans[static_cast<std::size_t>(c)] = k;
      });
      std::int64_t total = 0;
      for (const std::int64_t k : nans) total += k;
      return total;
    }
  }

  void sample(std::uint64_t seed, std::span<U> out) override {
    if (n_ == 0) return;
    // SplitMix64's stream from a mixed seed (neighbouring seeds give unrelated
    // streams); position j = the j-th word scaled to [0, n) by a high product.
    const std::uint64_t state = core::mix64(seed);
    const auto count = static_cast<std::int64_t>(out.size());
    const auto n = static_cast<std::uint64_t>(n_);
#pragma omp parallel for num_threads(threads()) schedule(static) if (count >= min_chunk)
    for (std::int64_t j = 0; j < count; ++j) {
      const std::uint64_t word = core::mix64(state + static_cast<std::uint64_t>(j) * 0x9e3779b97f4a7c15ull);
      out[static_cast<std::size_t>(j)] = traits::to_key(values_[core::mul_high(word, n)]);
    }
  }

  void count(const round_table<U>& table, std::uint64_t* counts, bool minmax, U* interval_min, U* interval_max,
             bool compact, std::int64_t expected_kept) override {
    check_round_table(table, "cpu shard");
    const int intervals = static_cast<int>(table.intervals.size());
    const std::uint32_t buckets = table.buckets;
    // The intervals' directory (core::interval_directory), as the CUDA shard's pass uses:
    // most keys find their interval, or that they have none, with one lookup.
    const core::interval_directory<U> directory = table_directory(table, directory_slots);
    const std::int64_t m = size();
    // A chunk also zeroes and merges a histogram: at least as many keys as buckets.
    const std::int64_t chunks = chunk_count(m, std::max<std::int64_t>(min_chunk, buckets));
    std::fill(counts, counts + buckets, std::uint64_t{0});
    // Chunk 0 counts into `counts` itself, the others into their own histograms.
    std::vector<std::vector<std::uint64_t>> histograms(static_cast<std::size_t>(chunks - 1));
    std::vector<U> mins, maxs;
    if (minmax) {
      mins.assign(static_cast<std::size_t>(chunks * intervals), ~U(0));
      maxs.assign(static_cast<std::size_t>(chunks * intervals), U(0));
    }
    const keep_mode mode = !compact ? keep_mode::none : compacted_ ? keep_mode::in_place : keep_mode::buffer;
    std::vector<std::vector<U>> buffers(mode == keep_mode::buffer ? static_cast<std::size_t>(chunks) : 0);
    std::vector<std::int64_t> kept(static_cast<std::size_t>(chunks), 0);

    cpu::parallel_for(chunks, threads(), [&](std::int64_t c) {
      const std::int64_t begin = chunk_begin(m, chunks, c), end = chunk_begin(m, chunks, c + 1);
      std::uint64_t* histogram = counts;
      if (c > 0) {
        auto& h = histograms[static_cast<std::size_t>(c - 1)];
        h.assign(buckets, 0);
        histogram = h.data();
      }
      chunk_work work{table.lo_keys.data(), table.intervals.data(), intervals, &directory, histogram,
                      minmax ? mins.data() + c * intervals : nullptr, minmax ? maxs.data() + c * intervals : nullptr,
                      mode == keep_mode::in_place ? keys_.data() + begin : nullptr,
                      mode == keep_mode::buffer ? &buffers[static_cast<std::size_t>(c)] : nullptr};
      kept[static_cast<std::size_t>(c)] = count_chunk(work, begin, end, minmax, mode);
    });

    if (chunks > 1) {
      const auto b_count = static_cast<std::int64_t>(buckets);
#pragma omp parallel for num_threads(threads()) schedule(static) if (b_count >= min_chunk)
      for (std::int64_t b = 0; b < b_count; ++b) {
        std::uint64_t sum = counts[b];
        for (const auto& h : histograms) sum += h[static_cast<std::size_t>(b)];
        counts[b] = sum;
      }
    }
    if (minmax) {
      for (int i = 0; i < intervals; ++i) {
        U lo = ~U(0), hi = U(0);
        for (std::int64_t c = 0; c < chunks; ++c) {
          lo = std::min(lo, mins[static_cast<std::size_t>(c * intervals + i)]);
          hi = std::max(hi, maxs[static_cast<std::size_t>(c * intervals + i)]);
        }
        interval_min[i] = lo;
        interval_max[i] = hi;
      }
    }
    if (!compact) return;

    std::int64_t total = 0;
    for (const std::int64_t k : kept) total += k;
    if (mode == keep_mode::in_place) {
      // Chunk c's kept keys start at its first index; moved to the packed offset in
      // chunk order, a destination never reaches keys of a later chunk.
      std::int64_t next = 0;
      for (std::int64_t c = 0; c < chunks; ++c) {
        const std::int64_t from = chunk_begin(m, chunks, c), k = kept[static_cast<std::size_t>(c)];
        if (k > 0 && from != next)
          std::memmove(keys_.data() + next, keys_.data() + from, static_cast<std::size_t>(k) * sizeof(U));
        next += k;
      }
      keys_.resize(static_cast<std::size_t>(total));
      // Give back the memory of a large reduction.
      if (keys_.capacity() / 2 > keys_.size()) std::vector<U>(keys_.begin(), keys_.end()).swap(keys_);
    } else {
      std::vector<std::int64_t> offsets(static_cast<std::size_t>(chunks), 0);
      for (std::int64_t c = 1; c < chunks; ++c)
        offsets[static_cast<std::size_t>(c)] = offsets[static_cast<std::size_t>(c - 1)] + kept[static_cast<std::size_t>(c - 1)];
      std::vector<U> keys(static_cast<std::size_t>(total));
      cpu::parallel_for(chunks, threads(), [&](std::int64_t c) {
        const auto& buffer = buffers[static_cast<std::size_t>(c)];
        std::copy(buffer.begin(), buffer.end(), keys.begin() + offsets[static_cast<std::size_t>(c)]);
      });
      keys_.swap(keys);
      compacted_ = true;
    }
    // The shard is consistent either way (the keys in contention are the ones inside
    // the intervals); a different number means the caller's bookkeeping is wrong.
    if (expected_kept >= 0 && expected_kept != total)
      throw unexpected_keys("cpu shard", "count()", "kept", total, std::to_string(expected_kept));
  }

  void extract(const round_table<U>& table, std::vector<U>& out, std::int64_t expected_keys) override {
    check_round_table(table, "cpu shard");
    const std::size_t before = out.size();
    const int intervals = static_cast<int>(table.intervals.size());
    const U* lo_keys = table.lo_keys.data();
    const core::bucket_interval<U>* ivs = table.intervals.data();
    for_each_contention([&](auto key_at, std::int64_t m) {
      const std::int64_t chunks = chunk_count(m, min_chunk);
      std::vector<std::vector<U>> buffers(static_cast<std::size_t>(chunks));
      cpu::parallel_for(chunks, threads(), [&](std::int64_t c) {
        auto& buffer = buffers[static_cast<std::size_t>(c)];
        for (std::int64_t i = chunk_begin(m, chunks, c), end = chunk_begin(m, chunks, c + 1); i < end; ++i) {
          const U k = key_at(i);
          if (core::find_interval(lo_keys, ivs, intervals, k) >= 0) buffer.push_back(k);
        }
      });
      std::size_t total = 0;
      for (const auto& b : buffers) total += b.size();
      out.reserve(out.size() + total);
      for (const auto& b : buffers) out.insert(out.end(), b.begin(), b.end());
    });
    const auto found = static_cast<std::int64_t>(out.size() - before);
    if (expected_keys >= 0 && expected_keys != found)
      throw unexpected_keys("cpu shard", "extract()", "found", found, std::to_string(expected_keys));
  }

  void extract_all(std::vector<U>& out) override {
    const std::size_t old = out.size();
    out.resize(old + static_cast<std::size_t>(n_));
    U* to = out.data() + old;
#pragma omp parallel for num_threads(threads()) schedule(static) if (n_ >= 4 * min_chunk)
    for (std::int64_t i = 0; i < n_; ++i) to[i] = traits::to_key(values_[i]);
  }

  void sort_keys(std::vector<U>& keys) override {
    cpu::stable_radix_sort<U, U>(keys.data(), nullptr, static_cast<std::int64_t>(keys.size()),
                                 [](U k) { return k; }, opt_threads_);
  }

  void counts_beyond_and_equal(U threshold, bool largest, std::int64_t& beyond, std::int64_t& equal) override {
    const std::int64_t chunks = chunk_count(n_, min_chunk);
    std::vector<std::int64_t> b(static_cast<std::size_t>(chunks)), e(static_cast<std::size_t>(chunks));
    count_beyond_equal_chunks(threshold, largest, chunks, b, e);
    beyond = std::accumulate(b.begin(), b.end(), std::int64_t{0});
    equal = std::accumulate(e.begin(), e.end(), std::int64_t{0});
  }

  void counts_of_key(U key, std::int64_t& below, std::int64_t& equal, std::int64_t& other_bits) override {
    const std::int64_t chunks = chunk_count(n_, min_chunk);
    std::vector<std::int64_t> b(static_cast<std::size_t>(chunks)), e(b.size()), o(b.size());
    count_beyond_equal_chunks(key, false, chunks, b, e, &o);
    below = std::accumulate(b.begin(), b.end(), std::int64_t{0});
    equal = std::accumulate(e.begin(), e.end(), std::int64_t{0});
    other_bits = std::accumulate(o.begin(), o.end(), std::int64_t{0});
  }

  T equal_element(U key, std::int64_t ordinal) override {
    const std::int64_t chunks = chunk_count(n_, min_chunk);
    std::vector<std::int64_t> beyond(static_cast<std::size_t>(chunks)), equal(static_cast<std::size_t>(chunks));
    count_beyond_equal_chunks(key, false, chunks, beyond, equal);
    std::int64_t left = ordinal;
    for (std::int64_t c = 0; c < chunks && left >= 0; ++c) {
      if (left >= equal[static_cast<std::size_t>(c)]) {
        left -= equal[static_cast<std::size_t>(c)];
        continue;
      }
      for (std::int64_t i = chunk_begin(n_, chunks, c);; ++i)
        if (traits::to_key(values_[i]) == key && left-- == 0) return values_[i];
    }
    throw std::out_of_range("cpu shard: no element " + std::to_string(ordinal) + " of key " + std::to_string(key));
  }

  void take(U threshold, bool largest, std::int64_t take_ties, bool with_indices, std::vector<T>& values,
            std::vector<std::int64_t>& indices) override {
    const std::int64_t chunks = chunk_count(n_, min_chunk);
    std::vector<std::int64_t> beyond(static_cast<std::size_t>(chunks)), equal(static_cast<std::size_t>(chunks));
    count_beyond_equal_chunks(threshold, largest, chunks, beyond, equal);
    // The first take_ties equal elements in index order: chunk by chunk.
    std::vector<std::int64_t> ties(static_cast<std::size_t>(chunks)), offsets(static_cast<std::size_t>(chunks));
    std::int64_t ties_left = std::max<std::int64_t>(take_ties, 0), total = 0;
    for (std::int64_t c = 0; c < chunks; ++c) {
      const auto s = static_cast<std::size_t>(c);
      ties[s] = std::min(ties_left, equal[s]);
      ties_left -= ties[s];
      offsets[s] = total;
      total += beyond[s] + ties[s];
    }
    const std::size_t old_values = values.size(), old_indices = indices.size();
    values.resize(old_values + static_cast<std::size_t>(total));
    if (with_indices) indices.resize(old_indices + static_cast<std::size_t>(total));
    T* out_values = values.data() + old_values;
    std::int64_t* out_indices = with_indices ? indices.data() + old_indices : nullptr;
    cpu::parallel_for(chunks, threads(), [&](std::int64_t c) {
      const auto s = static_cast<std::size_t>(c);
      std::int64_t at = offsets[s], ties_to_take = ties[s];
      const std::int64_t end = chunk_begin(n_, chunks, c + 1);
      for (std::int64_t i = chunk_begin(n_, chunks, c); i < end; ++i) {
        const U k = traits::to_key(values_[i]);
        bool take_it = largest ? k > threshold : k < threshold;
        if (!take_it && k == threshold && ties_to_take > 0) {
          take_it = true;
          --ties_to_take;
        }
        if (!take_it) continue;
        std::memcpy(out_values + at, values_ + i, sizeof(T));  // bit for bit: -0.0 and NaN payloads
        if (out_indices) out_indices[at] = i;
        ++at;
      }
    });
  }

 private:
  /// What a counting chunk writes to.
  struct chunk_work {
    const U* lo_keys;
    const core::bucket_interval<U>* intervals;
    int interval_count;
    const core::interval_directory<U>* directory;
    std::uint64_t* histogram;
    U* mins;            ///< null without minmax
    U* maxs;
    U* in_place;        ///< keep_mode::in_place: the chunk's first key in keys_
    std::vector<U>* buffer;  ///< keep_mode::buffer
  };

  int threads() const { return opt_threads_ > 0 ? opt_threads_ : std::max(1, omp_get_max_threads()); }

  /// Chunks for m keys of at least `per_chunk` keys each, at most one per thread.
  std::int64_t chunk_count(std::int64_t m, std::int64_t per_chunk) const {
    return std::max<std::int64_t>(1, std::min<std::int64_t>(threads(), m / per_chunk));
  }

  /// f(key_at, m): key_at(i) is key i of the m keys in contention.
  template <class F>
  void for_each_contention(F&& f) {
    if (compacted_) {
      const U* keys = keys_.data();
      f([keys](std::int64_t i) { return keys[i]; }, static_cast<std::int64_t>(keys_.size()));
    } else {
      const T* values = values_;
      f([values](std::int64_t i) { return traits::to_key(values[i]); }, n_);
    }
  }

  /// Counts keys [begin, end) in contention; returns how many lie inside an interval.
  std::int64_t count_chunk(const chunk_work& w, std::int64_t begin, std::int64_t end, bool minmax, keep_mode mode) {
    // One loop per combination, so the inner loop carries no tests of them.
    const auto dispatch = [&]<bool MinMax, keep_mode Mode>() -> std::int64_t {
      std::int64_t kept = 0;
      for_each_contention([&](auto key_at, std::int64_t) {
        kept = count_loop<MinMax, Mode>(w, begin, end, key_at);
      });
      return kept;
    };
    switch (mode) {
      case keep_mode::none:
        return minmax ? dispatch.template operator()<true, keep_mode::none>()
                      : dispatch.template operator()<false, keep_mode::none>();
      case keep_mode::in_place:
        return minmax ? dispatch.template operator()<true, keep_mode::in_place>()
                      : dispatch.template operator()<false, keep_mode::in_place>();
      case keep_mode::buffer:
        return minmax ? dispatch.template operator()<true, keep_mode::buffer>()
                      : dispatch.template operator()<false, keep_mode::buffer>();
    }
    return 0;
  }

  template <bool MinMax, keep_mode Mode, class KeyAt>
  static std::int64_t count_loop(const chunk_work& w, std::int64_t begin, std::int64_t end, KeyAt key_at) {
    std::int64_t kept = 0;
    const core::interval_directory<U>& d = *w.directory;
    const U last_offset = core::directory_last_offset<U>(d.slots, d.shift, d.base);
    for (std::int64_t i = begin; i < end; ++i) {
      const U k = key_at(i);
      const std::uint32_t word =
          core::directory_word(d.word.data(), d.slots, d.base, d.shift, last_offset, d.below, d.above, k);
      bool whole = false;
      const int iv = core::directory_resolve(w.lo_keys, w.interval_count, word, k, whole);
      if (iv < 0) continue;
      const core::bucket_interval<U>& interval = w.intervals[iv];
      if (!whole && (k < interval.lo || k > interval.hi)) continue;
      ++w.histogram[interval.first + core::bucket_offset(interval, k)];
      if constexpr (MinMax) {
        w.mins[iv] = std::min(w.mins[iv], k);
        w.maxs[iv] = std::max(w.maxs[iv], k);
      }
      if constexpr (Mode == keep_mode::in_place) w.in_place[kept] = k;  // kept <= i - begin: no key unread is overwritten
      if constexpr (Mode == keep_mode::buffer) w.buffer->push_back(k);
      ++kept;
    }
    return kept;
  }

  /// Per chunk: the elements beyond the threshold and equal to it; with other_bits,
  /// also those equal to it with bits other than from_key(threshold)'s.
  void count_beyond_equal_chunks(U threshold, bool largest, std::int64_t chunks, std::vector<std::int64_t>& beyond,
                                 std::vector<std::int64_t>& equal, std::vector<std::int64_t>* other_bits = nullptr) {
    const U canonical = traits::bits_of(traits::from_key(threshold));
    cpu::parallel_for(chunks, threads(), [&](std::int64_t c) {
      std::int64_t b = 0, e = 0, o = 0;
      const std::int64_t end = chunk_begin(n_, chunks, c + 1);
      for (std::int64_t i = chunk_begin(n_, chunks, c); i < end; ++i) {
        const U k = traits::to_key(values_[i]);
        b += (largest ? k > threshold : k < threshold) ? 1 : 0;
        e += k == threshold ? 1 : 0;
        if (other_bits) o += k == threshold && traits::bits_of(values_[i]) != canonical ? 1 : 0;
      }
      beyond[static_cast<std::size_t>(c)] = b;
      equal[static_cast<std::size_t>(c)] = e;
      if (other_bits) (*other_bits)[static_cast<std::size_t>(c)] = o;
    });
  }

  /// Directory slots of a count: 32 KiB, cache-resident beside a chunk's histogram.
  static constexpr int directory_slots = 8192;

  const T* values_;
  std::int64_t n_;
  int opt_threads_;
  bool compacted_ = false;  ///< keys_ holds the keys in contention (else the whole array)
  std::vector<U> keys_;
};

}  // namespace

template <class T>
std::unique_ptr<shard<T>> make_cpu_shard(const T* values, std::int64_t n, const kselect::options& opt) {
  if (n < 0) throw std::invalid_argument("make_cpu_shard: negative size " + std::to_string(n));
  if (n > 0 && values == nullptr) throw std::invalid_argument("make_cpu_shard: null values for a non-empty array");
  return std::make_unique<cpu_shard<T>>(values, n, opt.cpu_threads);
}

#define KSELECT_INSTANTIATE(T) \
  template std::unique_ptr<shard<T>> make_cpu_shard<T>(const T*, std::int64_t, const kselect::options&);
KSELECT_FOR_EACH_KEY_TYPE(KSELECT_INSTANTIATE)
#undef KSELECT_INSTANTIATE

}  // namespace kselect::distributed
