// The CUDA backend of a distributed call's local work (src/distributed/shard.hpp):
// the caller's device array on the current device, every pass on options.stream,
// device memory taken stream-ordered (cudaMallocAsync) and given back when the shard
// goes. Each method ends with the stream synchronised and its answers on the host
// (the engine all-reduces them over MPI next).
//
// count(): one pass (shard_kernels.cuh's count_kernel) counts into a per-block
// shared histogram, flushed with one atomic per non-empty bucket, and appends the
// keys inside the intervals to a new buffer when compacting (in no order: the
// distributed algorithms need none). take(): two passes and two scans over tiles,
// so that the first take_ties tied elements in index order are taken and the
// output is in index order.
#pragma once

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <exception>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/key_traits.hpp"
#include "core/phase_clock.hpp"
#include "core/sampling.hpp"
#include "cuda/backend.hpp"
#include "cuda/common.cuh"
#include "cuda/dispatch/profiler.hpp"
#include "cuda/distributed/cuda_shard.hpp"
#include "cuda/distributed/launch_shape.hpp"
#include "cuda/distributed/pinned_staging.hpp"
#include "cuda/distributed/scratch_pool.hpp"
#include "cuda/distributed/shard_kernels.cuh"
#include "cuda/distributed/slot_kernels.cuh"
#include "cuda/owning_support.hpp"
#include "cuda/radix_sort_pairs.hpp"
#include "distributed/shard.hpp"

namespace kselect::cuda::distributed {

using cuda_backend::check;
using cuda_backend::stream_buffer;
using kselect::distributed::round_table;

template <class T>
class cuda_shard final : public kselect::distributed::shard<T> {
 public:
  using U = core::key_t<T>;

  cuda_shard(const T* values, std::int64_t n, const kselect::options& opt, std::int64_t shared_budget)
      : values_(values), n_(n), opt_(opt), stream_(static_cast<cudaStream_t>(opt.stream)) {
    int device = 0;
    check(cudaGetDevice(&device), "cudaGetDevice");
    check(cudaDeviceGetAttribute(&sms_, cudaDevAttrMultiProcessorCount, device), "cudaDeviceGetAttribute");
    pool_ = scratch_pool(device);
    int optin = 0;
    check(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device), "cudaDeviceGetAttribute");
    shared_budget_ = shared_budget >= 0 ? std::min<std::int64_t>(shared_budget, optin) : optin;
  }

  /// KSELECT_PROFILE=1: the call's passes, one line each, when the shard goes.
  ~cuda_shard() override {
    profiler_.report();
    host_clock_.report("cuda shard's host steps");
  }

  std::int64_t size() const override { return compacted_ ? kept_size_ : n_; }

  std::int64_t noncanonical_seen() const override { return noncanonical_; }

  void min_max(U& lo, U& hi) override {
    lo = ~U(0);
    hi = U(0);
    if (n_ == 0) return;
    stream_buffer out(2 * sizeof(U), stream_, pool_);
    const U init[2] = {~U(0), U(0)};
    check(cudaMemcpyAsync(out.get(), init, sizeof init, cudaMemcpyHostToDevice, stream_), "copying to the GPU");
    min_max_kernel<T><<<blocks_for(n_), shard_tuning::threads, 0, stream_>>>(values_, n_, static_cast<U*>(out.get()));
    check(cudaGetLastError(), "min_max_kernel launch");
    U result[2];
    download(result, out.get(), sizeof result);
    lo = result[0];
    hi = result[1];
  }

  std::int64_t count_nan() override { return n_ == 0 ? 0 : cuda_backend::count_nan<T>(values_, n_, opt_); }

  void sample(std::uint64_t seed, std::span<U> out) override {
    if (n_ == 0 || out.empty()) return;
    host_clock_.resume();
    const auto count = static_cast<std::int64_t>(out.size());
    stream_buffer keys(out.size_bytes(), stream_, pool_);
    sample_kernel<T><<<static_cast<unsigned>((count + 255) / 256), 256, 0, stream_>>>(
        values_, n_, core::mix64(seed), count, static_cast<U*>(keys.get()));
    check(cudaGetLastError(), "sample_kernel launch");
    host_clock_.mark("sample launch");
    download(out.data(), keys.get(), out.size_bytes());
    host_clock_.mark("sample wait");
  }

  void count(const round_table<U>& table, std::uint64_t* counts, bool minmax, U* interval_min, U* interval_max,
             bool compact, std::int64_t expected_kept) override {
    stream_buffer kept = launch_round(table, minmax, compact, expected_kept, false);
    round_.download_outputs(stream_);
    host_clock_.mark("wait");
    finish_round(table, counts, round_.host_counts(), minmax, interval_min, interval_max, round_.host_min(),
                 round_.host_max(), kept, compact, expected_kept);
    host_clock_.mark("finish");
  }

  /// The pass, then the counts all-reduced on the device before the one copy back
  /// (src/distributed/shard.hpp). A failure before the all-reduce still takes part in
  /// it through the host path, with the failure slot set.
  std::exception_ptr count_and_reduce(const round_table<U>& table, bool minmax, bool compact,
                                      std::int64_t expected_kept, bool failed,
                                      kselect::distributed::device_allreduce& reduce,
                                      kselect::distributed::reduced_counts<U>& out) override {
    std::exception_ptr error;
    stream_buffer kept(0, stream_, pool_);
    if (!failed) {
      try {
        kept = launch_round(table, minmax, compact, expected_kept, true);
      } catch (...) {
        error = std::current_exception();
        failed = true;
      }
    }
    if (failed) {
      kselect::distributed::shard<T>::count_and_reduce(table, minmax, compact, expected_kept, true, reduce, out);
      return error;
    }
    round_.reduce(reduce, stream_);
    host_clock_.mark("reduce");
    round_.download_outputs(stream_);
    host_clock_.mark("wait");
    const std::size_t nb = table.buckets, ni = table.intervals.size();
    out.local.resize(nb);
    out.global.assign(round_.host_reduced_counts(), round_.host_reduced_counts() + nb + 1);
    out.min.resize(minmax ? ni : 0);
    out.max.resize(minmax ? ni : 0);
    finish_round(table, out.local.data(), round_.host_counts(), minmax, out.min.data(), out.max.data(),
                 round_.host_reduced_min(), round_.host_reduced_max(), kept, compact, expected_kept);
    host_clock_.mark("finish");
    return nullptr;
  }

  void extract(const round_table<U>& table, std::vector<U>& out, std::int64_t expected_keys) override {
    kselect::distributed::check_round_table(table, "cuda shard");
    if (table.intervals.empty() || size() == 0) {
      if (expected_keys > 0)
        throw kselect::distributed::unexpected_keys("cuda shard", "extract()", "found", 0, std::to_string(expected_keys));
      return;
    }
    host_clock_.resume();
    // The number of keys inside when the caller knows it: they are copied back right
    // after the pass, with its outputs (one wait). Otherwise a first guess at the room
    // needed, and a second pass when more keys are inside.
    const bool known = expected_keys >= 0;
    std::int64_t capacity = known ? expected_keys : std::min<std::int64_t>(size(), std::int64_t{1} << 20);
    for (;;) {
      round_.upload(table, false, /*with_counts=*/false, compacted_, stream_, pool_);
      const std::size_t bytes = static_cast<std::size_t>(std::max<std::int64_t>(capacity, 1)) * sizeof(U);
      unsigned char* host = extracted_.reserve(bytes, stream_, pool_);
      count_args<U> a = round_.args(table);
      a.kept = reinterpret_cast<U*>(extracted_.device());
      a.capacity = capacity;
      run_count(a);
      if (known && capacity > 0)
        check(cudaMemcpyAsync(host, extracted_.device(), static_cast<std::size_t>(capacity) * sizeof(U),
                              cudaMemcpyDeviceToHost, stream_), "copying the extracted keys");
      host_clock_.mark("extract launch");
      round_.download_outputs(stream_);
      host_clock_.mark("extract wait");
      const auto found = static_cast<std::int64_t>(round_.host_kept());
      if (known && found != expected_keys)
        throw kselect::distributed::unexpected_keys("cuda shard", "extract()", "found", found, std::to_string(expected_keys));
      if (found <= capacity) {
        if (!known) download(host, extracted_.device(), static_cast<std::size_t>(found) * sizeof(U));
        const auto* keys = reinterpret_cast<const U*>(host);
        out.insert(out.end(), keys, keys + found);
        host_clock_.mark("extract copy");
        return;
      }
      capacity = found;
    }
  }

  void extract_all(std::vector<U>& out) override {
    if (n_ == 0) return;
    stream_buffer keys(static_cast<std::size_t>(n_) * sizeof(U), stream_, pool_);
    to_keys_kernel<T><<<blocks_for(n_), 256, 0, stream_>>>(values_, n_, static_cast<U*>(keys.get()));
    check(cudaGetLastError(), "to_keys_kernel launch");
    const std::size_t old = out.size();
    out.resize(old + static_cast<std::size_t>(n_));
    download(out.data() + old, keys.get(), static_cast<std::size_t>(n_) * sizeof(U));
  }

  void sort_keys(std::vector<U>& keys) override {
    const auto count = static_cast<std::int64_t>(keys.size());
    if (count < 2) return;
    const std::size_t bytes = keys.size() * sizeof(U);
    stream_buffer a(bytes, stream_, pool_), b(bytes, stream_, pool_);
    check(cudaMemcpyAsync(a.get(), keys.data(), bytes, cudaMemcpyHostToDevice, stream_), "copying keys to the GPU");
    using W = std::conditional_t<sizeof(U) == 4, std::uint32_t, std::uint64_t>;
    cub::DoubleBuffer<W> buffer(static_cast<W*>(a.get()), static_cast<W*>(b.get()));
    std::size_t temp_bytes = 0;
    check(cuda::sort_keys<W>(nullptr, temp_bytes, buffer, count, stream_), "sort workspace query");
    stream_buffer temp(temp_bytes, stream_, pool_);
    check(cuda::sort_keys<W>(temp.get(), temp_bytes, buffer, count, stream_), "sorting keys");
    download(keys.data(), buffer.Current(), bytes);
  }

  void counts_beyond_and_equal(U threshold, bool largest, std::int64_t& beyond, std::int64_t& equal) override {
    beyond = equal = 0;
    if (n_ == 0) return;
    stream_buffer totals(2 * sizeof(unsigned long long), stream_, pool_);
    check(cudaMemsetAsync(totals.get(), 0, 2 * sizeof(unsigned long long), stream_), "cudaMemsetAsync");
    tile_counts_kernel<T><<<tiles(), shard_tuning::take_threads, 0, stream_>>>(
        values_, n_, threshold, largest, nullptr, nullptr, static_cast<unsigned long long*>(totals.get()));
    check(cudaGetLastError(), "tile_counts_kernel launch");
    unsigned long long result[2];
    download(result, totals.get(), sizeof result);
    beyond = static_cast<std::int64_t>(result[0]);
    equal = static_cast<std::int64_t>(result[1]);
  }

  void counts_of_key(U key, std::int64_t& below, std::int64_t& equal, std::int64_t& other_bits) override {
    below = equal = other_bits = 0;
    if (n_ == 0) return;
    stream_buffer totals(3 * sizeof(unsigned long long), stream_, pool_);
    check(cudaMemsetAsync(totals.get(), 0, 3 * sizeof(unsigned long long), stream_), "cudaMemsetAsync");
    tile_counts_kernel<T><<<tiles(), shard_tuning::take_threads, 0, stream_>>>(
        values_, n_, key, false, nullptr, nullptr, static_cast<unsigned long long*>(totals.get()), true);
    check(cudaGetLastError(), "tile_counts_kernel launch");
    unsigned long long result[3];
    download(result, totals.get(), sizeof result);
    below = static_cast<std::int64_t>(result[0]);
    equal = static_cast<std::int64_t>(result[1]);
    other_bits = static_cast<std::int64_t>(result[2]);
  }

  void take(U threshold, bool largest, std::int64_t take_ties, bool with_indices, std::vector<T>& values,
            std::vector<std::int64_t>& indices) override {
    if (n_ == 0) return;
    const std::int64_t count = tiles();
    // Per tile: beyond, equal, equal before it, ties taken, taken, output offset; totals.
    stream_buffer scratch((6 * static_cast<std::size_t>(count) + 2) * sizeof(unsigned long long), stream_, pool_);
    auto* base = static_cast<unsigned long long*>(scratch.get());
    unsigned long long *tile_beyond = base, *tile_equal = base + count, *equal_before = base + 2 * count,
                       *tile_ties = base + 3 * count, *tile_taken = base + 4 * count, *tile_offset = base + 5 * count,
                       *totals = base + 6 * count;
    check(cudaMemsetAsync(totals, 0, 2 * sizeof(unsigned long long), stream_), "cudaMemsetAsync");
    tile_counts_kernel<T><<<static_cast<unsigned>(count), shard_tuning::take_threads, 0, stream_>>>(
        values_, n_, threshold, largest, tile_beyond, tile_equal, totals);
    check(cudaGetLastError(), "tile_counts_kernel launch");
    exclusive_sum(tile_equal, equal_before, count);
    const auto ties = static_cast<unsigned long long>(std::max<std::int64_t>(take_ties, 0));
    tile_takes_kernel<<<static_cast<unsigned>((count + 255) / 256), 256, 0, stream_>>>(
        tile_beyond, tile_equal, equal_before, count, ties, tile_ties, tile_taken);
    check(cudaGetLastError(), "tile_takes_kernel launch");
    exclusive_sum(tile_taken, tile_offset, count);
    unsigned long long sums[2];
    download(sums, totals, sizeof sums);
    const auto total = static_cast<std::int64_t>(sums[0] + std::min<unsigned long long>(sums[1], ties));
    if (total == 0) return;
    stream_buffer out_values(static_cast<std::size_t>(total) * sizeof(T), stream_, pool_);
    stream_buffer out_indices(with_indices ? static_cast<std::size_t>(total) * sizeof(std::int64_t) : 0, stream_, pool_);
    take_kernel<T><<<static_cast<unsigned>(count), shard_tuning::take_threads, 0, stream_>>>(
        values_, n_, threshold, largest, tile_ties, tile_offset, static_cast<T*>(out_values.get()),
        static_cast<std::int64_t*>(out_indices.get()));
    check(cudaGetLastError(), "take_kernel launch");
    const std::size_t old_values = values.size(), old_indices = indices.size();
    values.resize(old_values + static_cast<std::size_t>(total));
    if (with_indices) {
      indices.resize(old_indices + static_cast<std::size_t>(total));
      check(cudaMemcpyAsync(indices.data() + old_indices, out_indices.get(),
                            static_cast<std::size_t>(total) * sizeof(std::int64_t), cudaMemcpyDeviceToHost, stream_),
            "copying indices");
    }
    download(values.data() + old_values, out_values.get(), static_cast<std::size_t>(total) * sizeof(T));
  }

  T equal_element(U key, std::int64_t ordinal) override {
    const std::int64_t count = n_ == 0 ? 0 : tiles();
    // Per tile: equal, equal before it; the totals; the element.
    stream_buffer scratch((2 * static_cast<std::size_t>(count) + 2) * sizeof(unsigned long long) + sizeof(T), stream_, pool_);
    auto* base = static_cast<unsigned long long*>(scratch.get());
    unsigned long long *tile_equal = base, *equal_before = base + count, *totals = base + 2 * count;
    T* element = reinterpret_cast<T*>(totals + 2);
    unsigned long long sums[2] = {0, 0};
    if (count > 0) {
      check(cudaMemsetAsync(totals, 0, 2 * sizeof(unsigned long long), stream_), "cudaMemsetAsync");
      tile_counts_kernel<T><<<static_cast<unsigned>(count), shard_tuning::take_threads, 0, stream_>>>(
          values_, n_, key, false, nullptr, tile_equal, totals);
      check(cudaGetLastError(), "tile_counts_kernel launch");
      exclusive_sum(tile_equal, equal_before, count);
      download(sums, totals, sizeof sums);
    }
    if (ordinal < 0 || static_cast<unsigned long long>(ordinal) >= sums[1])
      throw std::out_of_range("cuda shard: no element " + std::to_string(ordinal) + " of key " + std::to_string(key) +
                              " (" + std::to_string(sums[1]) + " such elements)");
    pick_equal_kernel<T><<<static_cast<unsigned>(count), shard_tuning::take_threads, 0, stream_>>>(
        values_, n_, key, equal_before, tile_equal, static_cast<unsigned long long>(ordinal), element);
    check(cudaGetLastError(), "pick_equal_kernel launch");
    T out;
    download(&out, element, sizeof out);
    return out;
  }

 private:
  /// A round's table and the count pass's outputs in one device buffer, kept for the
  /// shard's life (grown when a table needs more), and its host image: the table with
  /// the outputs' initial values goes up in one copy and the outputs come back in one,
  /// so that a round is three operations on the GPU (a copy, the pass, a copy).
  /// Processes that share a GPU without MPS take turns on it, and each operation can
  /// cost a turn. Layout: [lo][hi][scale][first u32][directory u32][counts u64][failure slot u64][min]
  /// [max][kept count][noncanonical count], then, for count_and_reduce, the reduced
  /// [counts][slot][min][max].
  class round_buffers {
   public:
    /// with_directory: false for a pass that needs no interval directory (the slot
    /// passes), which then is not built; with_intervals: false for a pass that needs
    /// neither the intervals (the first slot pass: its slot map has them; no extremes),
    /// which then are not copied; compacted: the pass reads kept keys
    /// (directory_slots_for).
    void upload(const round_table<U>& table, bool minmax, bool with_counts, bool compacted, cudaStream_t stream,
                cudaMemPool_t pool, bool reduced = false, bool with_directory = true, bool with_intervals = true) {
      ni_ = with_intervals || minmax ? table.intervals.size() : 0;
      buckets_ = with_counts ? table.buckets : 0;
      minmax_ = minmax;
      hi_at_ = ni_ * sizeof(U);
      scale_at_ = 2 * ni_ * sizeof(U);
      first_at_ = 3 * ni_ * sizeof(U);
      if (with_directory) {
        directory_ = kselect::distributed::table_directory(table, compacted ? kept_directory_slots : directory_slots);
      } else {
        directory_ = {};
      }
      directory_at_ = align(first_at_ + ni_ * sizeof(std::uint32_t));  // 16-byte aligned: copy_to_shared's vectors
      counts_at_ = align(directory_at_ + directory_.word.size() * sizeof(std::uint32_t));
      flag_at_ = counts_at_ + buckets_ * sizeof(unsigned long long);
      min_at_ = flag_at_ + sizeof(unsigned long long);
      max_at_ = min_at_ + (minmax ? ni_ * sizeof(U) : 0);
      kept_at_ = align(max_at_ + (minmax ? ni_ * sizeof(U) : 0));
      bytes_ = kept_at_ + 2 * sizeof(unsigned long long);
      reduced_at_ = 0;
      if (reduced) {  // the all-reduced counts, flag and extremes, laid out as the local ones
        reduced_at_ = align(bytes_);
        bytes_ = reduced_at_ + (kept_at_ - counts_at_);
      }
      unsigned char* host = staging_.reserve(bytes_, stream, pool);
      std::memset(host, 0, bytes_);
      for (std::size_t i = 0; i < ni_; ++i) {
        const core::bucket_interval<U>& iv = table.intervals[i];
        std::memcpy(host + i * sizeof(U), &iv.lo, sizeof(U));
        std::memcpy(host + hi_at_ + i * sizeof(U), &iv.hi, sizeof(U));
        std::memcpy(host + scale_at_ + i * sizeof(U), &iv.scale, sizeof(U));
        std::memcpy(host + first_at_ + i * sizeof(std::uint32_t), &iv.first, sizeof(std::uint32_t));
      }
      if (!directory_.word.empty())
        std::memcpy(host + directory_at_, directory_.word.data(), directory_.word.size() * sizeof(std::uint32_t));
      if (minmax) std::memset(host + min_at_, 0xff, ni_ * sizeof(U));  // minima start at ~0
      if (reduced && minmax) std::memset(host + reduced_at_ + (min_at_ - counts_at_), 0xff, ni_ * sizeof(U));
      check(cudaMemcpyAsync(staging_.device(), host, bytes_, cudaMemcpyHostToDevice, stream),
            "copying the round table");
    }

    count_args<U> args(const round_table<U>& table) const {
      count_args<U> a{};
      a.lo = reinterpret_cast<const U*>(at(0));
      a.hi = reinterpret_cast<const U*>(at(hi_at_));
      a.scale = reinterpret_cast<const U*>(at(scale_at_));
      a.first = reinterpret_cast<const std::uint32_t*>(at(first_at_));
      a.directory = reinterpret_cast<const std::uint32_t*>(at(directory_at_));
      a.directory_base = directory_.base;
      a.directory_shift = directory_.shift;
      a.directory_slots = directory_.slots;
      a.directory_below = directory_.below;
      a.directory_above = directory_.above;
      a.num_intervals = static_cast<int>(ni_);
      a.buckets = table.buckets;
      a.counts = buckets_ ? reinterpret_cast<unsigned long long*>(at(counts_at_)) : nullptr;
      a.interval_min = minmax_ ? reinterpret_cast<U*>(at(min_at_)) : nullptr;
      a.interval_max = minmax_ ? reinterpret_cast<U*>(at(max_at_)) : nullptr;
      a.kept_count = reinterpret_cast<unsigned long long*>(at(kept_at_));
      a.noncanonical = nullptr;  // launch_round asks for the tally
      return a;
    }

    /// The outputs, device to host, then waits for the stream.
    void download_outputs(cudaStream_t stream) {
      check(cudaMemcpyAsync(staging_.host() + counts_at_, at(counts_at_), bytes_ - counts_at_, cudaMemcpyDeviceToHost,
                            stream),
            "copying the round's counts");
      check(cudaStreamSynchronize(stream), "a distributed counting pass on the GPU");
    }
    const unsigned long long* host_counts() const {
      return reinterpret_cast<const unsigned long long*>(staging_.host() + counts_at_);
    }
    const U* host_min() const { return reinterpret_cast<const U*>(staging_.host() + min_at_); }
    const U* host_max() const { return reinterpret_cast<const U*>(staging_.host() + max_at_); }
    /// The reduced copy (upload with reduced): counts and the failure slot, extremes.
    const unsigned long long* host_reduced_counts() const {
      return reinterpret_cast<const unsigned long long*>(staging_.host() + reduced_at_);
    }
    const U* host_reduced_min() const { return reinterpret_cast<const U*>(staging_.host() + reduced_at_ + (min_at_ - counts_at_)); }
    const U* host_reduced_max() const { return reinterpret_cast<const U*>(staging_.host() + reduced_at_ + (max_at_ - counts_at_)); }

    /// Enqueues the all-reduce of the counts with the failure slot (and the extremes)
    /// into the reduced copy, on the device.
    void reduce(kselect::distributed::device_allreduce& r, cudaStream_t stream) {
      using op = kselect::distributed::device_allreduce::op;
      const std::size_t to = reduced_at_ - counts_at_;
      r.device(at(counts_at_), at(counts_at_ + to), buckets_ + 1, 8, op::sum, stream);
      if (minmax_ && ni_) {
        r.device(at(min_at_), at(min_at_ + to), ni_, sizeof(U), op::min, stream);
        r.device(at(max_at_), at(max_at_ + to), ni_, sizeof(U), op::max, stream);
      }
    }
    unsigned long long host_kept() const {
      unsigned long long k = 0;
      std::memcpy(&k, staging_.host() + kept_at_, sizeof k);
      return k;
    }
    unsigned long long host_noncanonical() const {
      unsigned long long k = 0;
      std::memcpy(&k, staging_.host() + kept_at_ + sizeof k, sizeof k);
      return k;
    }

   private:
    static std::size_t align(std::size_t b) { return (b + 15) / 16 * 16; }
    unsigned char* at(std::size_t offset) const { return staging_.device() + offset; }
    std::size_t ni_ = 0, buckets_ = 0, bytes_ = 0;
    bool minmax_ = false;
    std::size_t hi_at_ = 0, scale_at_ = 0, first_at_ = 0, directory_at_ = 0, counts_at_ = 0, flag_at_ = 0, min_at_ = 0,
                max_at_ = 0, kept_at_ = 0, reduced_at_ = 0;
    /// Directory slots: 32 KiB of shared memory beside the table (two blocks of the
    /// count pass still fit an SM). The finer the slots, the more of them lie whole
    /// inside an interval or in a gap, where a key costs one load: on uniform floats the
    /// densest exponent gets about 800 slots, against 50 active buckets for 101 ranks.
    static constexpr int directory_slots = 8192;
    /// For a pass over kept keys, which all lie inside the intervals (no slot of a gap
    /// saves them a search), only enough slots to part the intervals (a few hundred):
    /// building the directory is host time in every later round.
    static constexpr int kept_directory_slots = 1024;
    core::interval_directory<U> directory_;
    staged_buffer staging_;  ///< page-aligned; offsets are multiples of 16 or of sizeof(U)
  };

  /// Uploads the round's table and launches its count pass (compacting into the
  /// returned buffer when asked); nothing is waited for.
  stream_buffer launch_round(const round_table<U>& table, bool minmax, bool compact, std::int64_t expected_kept,
                             bool reduced) {
    host_clock_.resume();
    kselect::distributed::check_round_table(table, "cuda shard");
    const std::int64_t capacity = compact ? (expected_kept >= 0 ? expected_kept : size()) : 0;
    stream_buffer kept(compact ? static_cast<std::size_t>(std::max<std::int64_t>(capacity, 1)) * sizeof(U) : 0, stream_, pool_);
    // The first pass over the caller's values also tallies its noncanonical elements.
    tallied_ = !compacted_ && noncanonical_ < 0;
    // A first round (no extremes, nothing kept) in radix slots counts through them; a
    // later compacting pass over the values routes through the last slot map counted
    // (any monotone map routes exactly: only the speed depends on it being the round
    // before's, as it is in the engine). Neither needs the interval directory.
    const bool slot_count = !compacted_ && !compact && !minmax && table.slots.slots != 0;
    const bool slot_refine = !compacted_ && compact && !tallied_ && first_map_.slots != 0;
    const auto prepare = [&](bool with_directory) {
      round_.upload(table, minmax, /*with_counts=*/true, compacted_, stream_, pool_, reduced, with_directory,
                    /*with_intervals=*/with_directory || !slot_count);
      count_args<U> a = round_.args(table);
      if (compact) {
        a.kept = static_cast<U*>(kept.get());
        a.capacity = capacity;
      }
      if (tallied_) a.noncanonical = a.kept_count + 1;
      return a;
    };
    count_args<U> a = prepare(!(slot_count || slot_refine));
    host_clock_.mark("table");
    bool ran = slot_count ? run_slot_count(table, a) : slot_refine ? run_slot_refine(table, a) : false;
    if (!ran) {
      if (slot_count || slot_refine) {  // the slot pass did not apply: the general one, with its directory
        check(cudaStreamSynchronize(stream_), "the round table's copy");  // before the staging is written again
        a = prepare(true);
      }
      ran = run_count(a);
    }
    host_clock_.mark("launch");
    tallied_ = ran && tallied_;
    kept_capacity_ = capacity;
    return kept;
  }

  /// The slot map of an image: sizes and lookup constants (the arrays' device pointers
  /// come with upload_slot_map).
  static slot_map_args<U> slot_map_of(const kselect::distributed::radix_slot_image<U>& image, std::uint32_t buckets) {
    slot_map_args<U> m{};
    m.lookup = image.map();
    m.slots = image.slots;
    m.num_dense = static_cast<std::uint32_t>(image.dense.size());
    m.num_sub_words = static_cast<std::uint32_t>(image.sub_words.size());
    m.buckets = buckets;
    return m;
  }

  /// Copies [prefix][entries][dense records][sub-slot words] to the device in one buffer
  /// (`into`, 16-byte aligned parts) and returns the map over them.
  slot_map_args<U> upload_slot_map(const kselect::distributed::radix_slot_image<U>& image,
                                   const std::vector<core::radix_slot_entry>& entries, std::uint32_t buckets,
                                   std::span<const unsigned char> prefix, staged_buffer& into) {
    const auto align = [](std::size_t b) { return (b + 15) / 16 * 16; };
    const std::size_t entries_at = align(prefix.size());
    const std::size_t dense_at = align(entries_at + entries.size() * sizeof(core::radix_slot_entry));
    const std::size_t sub_at = align(dense_at + image.dense.size() * sizeof(core::radix_dense_record<U>));
    const std::size_t bytes = sub_at + image.sub_words.size() * sizeof(std::uint32_t);
    unsigned char* host = into.reserve(bytes, stream_, pool_);
    if (!prefix.empty()) std::memcpy(host, prefix.data(), prefix.size());
    std::memcpy(host + entries_at, entries.data(), entries.size() * sizeof(core::radix_slot_entry));
    if (!image.dense.empty())
      std::memcpy(host + dense_at, image.dense.data(), image.dense.size() * sizeof(core::radix_dense_record<U>));
    if (!image.sub_words.empty())
      std::memcpy(host + sub_at, image.sub_words.data(), image.sub_words.size() * sizeof(std::uint32_t));
    check(cudaMemcpyAsync(into.device(), host, bytes, cudaMemcpyHostToDevice, stream_), "copying the slot map");
    unsigned char* device = into.device();
    slot_map_args<U> m = slot_map_of(image, buckets);
    m.lookup.entries = reinterpret_cast<const core::radix_slot_entry*>(device + entries_at);
    m.lookup.dense = reinterpret_cast<const core::radix_dense_record<U>*>(device + dense_at);
    m.lookup.sub_words = reinterpret_cast<const std::uint32_t*>(device + sub_at);
    return m;
  }

  /// A first round laid out in radix slots (core::radix_slots) over the caller's
  /// values: slot_count_kernel, with the slot map's image kept on the host for the next
  /// round's run_slot_refine. False (nothing launched) where it does not apply: another
  /// table, no values, or shared memory too small.
  bool run_slot_count(const round_table<U>& table, const count_args<U>& a) {
    std::shared_ptr<const kselect::distributed::radix_slot_image<U>> made = table.slot_image;
    if (!made) made = std::make_shared<const kselect::distributed::radix_slot_image<U>>(
        kselect::distributed::make_radix_slot_image(table));
    const kselect::distributed::radix_slot_image<U>& image = *made;
    if (image.slots == 0 || n_ == 0 || n_ > (std::int64_t{1} << 31) * sms_) return false;
    slot_count_args<U> s{};
    s.map = slot_map_of(image, table.buckets);
    s.counts = a.counts;
    s.noncanonical = a.noncanonical;
    const slot_shared_layout layout = slot_shared_layout::count(s);
    const auto launch = [&](auto kernel) {
      const unsigned blocks = grid_for(kernel, layout.bytes, n_);
      if (blocks == 0) return false;
      s.map = upload_slot_map(image, image.entries, table.buckets, {}, first_entries_);
      host_clock_.mark("slot map");
      profiler_.start(stream_, "distributed count: " + std::to_string(n_) + " keys, " + std::to_string(image.slots) +
                                   " radix slots (" + std::to_string(image.dense.size()) + " dense)");
      kernel<<<blocks, shard_tuning::count_threads, layout.bytes, stream_>>>(values_, n_, s);
      profiler_.stop(stream_);
      check(cudaGetLastError(), "slot_count_kernel launch");
      first_map_ = s.map;
      first_image_ = made;
      return true;
    };
    const bool dense = !image.dense.empty();
    if constexpr (std::is_floating_point_v<T>) {
      if (a.noncanonical) return dense ? launch(slot_count_kernel<T, true, true>) : launch(slot_count_kernel<T, true, false>);
    }
    return dense ? launch(slot_count_kernel<T, false, true>) : launch(slot_count_kernel<T, false, false>);
  }

  /// The round after a slot-table first round, over the caller's values, counting and
  /// keeping: slot_refine_kernel, each first-round bucket routed to the one interval
  /// of this table that meets it (bucket order is key order, so the buckets from the one
  /// holding lo to the one holding hi). False where it does not apply (no slot round
  /// before, an interval meeting a bucket another one meets, too many intervals for the
  /// 16-bit routes, shared memory too small).
  bool run_slot_refine(const round_table<U>& table, const count_args<U>& a) {
    if (first_map_.slots == 0 || !first_image_) return false;
    const kselect::distributed::radix_slot_image<U>& map = *first_image_;
    if (n_ == 0 || !a.counts || !a.kept || table.intervals.size() >= 0xffff ||
        n_ > (std::int64_t{1} << 31) * sms_)
      return false;
    const core::radix_slot_map<U> host_map = map.map();
    const auto bucket_of = [&](U key) { return core::radix_slot_bucket(host_map, key); };
    route_host_.assign(first_map_.buckets, 0);
    for (std::size_t i = 0; i < table.intervals.size(); ++i) {
      const std::uint32_t from = bucket_of(table.intervals[i].lo), to = bucket_of(table.intervals[i].hi);
      for (std::uint32_t b = from; b <= to; ++b) {
        if (route_host_[b] != 0) return false;
        route_host_[b] = static_cast<std::uint16_t>(i + 1);
      }
    }
    // The slot entries again, those of plain slots with no routed bucket marked: their
    // keys skip the route. A slot has a routed bucket exactly when it meets an interval
    // (an interval is the keys of its buckets), so only the slots the intervals meet are
    // looked at, not every bucket. The tails' entries stay (entries[0] and [slots + 1]).
    std::vector<core::radix_slot_entry> entries(map.entries.size(), unrouted_entry);
    entries.front() = map.entries.front();
    entries.back() = map.entries.back();
    for (std::uint32_t j = 1; j <= map.slots; ++j)
      if (map.entries[j].dense()) entries[j] = map.entries[j];
    // An interval's slots are the entries from its lo's to its hi's (index 0 and slots + 1
    // are the tails, already kept).
    for (const core::bucket_interval<U>& iv : table.intervals) {
      U top;
      const std::uint32_t from = core::radix_entry_index(host_map, iv.lo, top),
                          to = core::radix_entry_index(host_map, iv.hi, top);
      for (std::uint32_t j = from; j <= to; ++j) entries[j] = map.entries[j];
    }
    slot_refine_args<U> r{};
    r.previous = slot_map_of(map, first_map_.buckets);
    r.lo = a.lo;
    r.hi = a.hi;
    r.scale = a.scale;
    r.first = a.first;
    r.num_intervals = a.num_intervals;
    r.buckets = a.buckets;
    r.counts = a.counts;
    r.interval_min = a.interval_min;
    r.interval_max = a.interval_max;
    r.kept = a.kept;
    r.capacity = a.capacity;
    r.kept_count = a.kept_count;
    const slot_shared_layout layout = slot_shared_layout::refine(r);
    const auto kernel = map.dense.empty() ? slot_refine_kernel<T, false> : slot_refine_kernel<T, true>;
    const unsigned blocks = grid_for(kernel, layout.bytes, n_);
    if (blocks == 0) return false;
    const std::span<const unsigned char> routes(reinterpret_cast<const unsigned char*>(route_host_.data()),
                                                route_host_.size() * sizeof(std::uint16_t));
    host_clock_.mark("routes");
    r.previous = upload_slot_map(map, entries, first_map_.buckets, routes, route_);
    host_clock_.mark("slot map");
    r.route = reinterpret_cast<const std::uint16_t*>(route_.device());
    profiler_.start(stream_, "distributed count: " + std::to_string(n_) + " keys, " + std::to_string(a.num_intervals) +
                                 " intervals through " + std::to_string(first_map_.slots) + " radix slots, keeping");
    kernel<<<blocks, shard_tuning::count_threads, layout.bytes, stream_>>>(values_, n_, r);
    profiler_.stop(stream_);
    check(cudaGetLastError(), "slot_refine_kernel launch");
    return true;
  }

  /// The grid of a pass over m keys with `shared_bytes` of dynamic shared memory: as
  /// many blocks as fit the SMs (at most one per tile), or 0 when the shared memory
  /// (with the kernel's static part) passes the budget.
  template <class Kernel>
  unsigned grid_for(Kernel kernel, std::size_t shared_bytes, std::int64_t m) {
    if (static_cast<std::int64_t>(shared_bytes + static_shared_bytes(kernel)) > shared_budget_) return 0;
    const int per_sm = shape_of(kernel, shard_tuning::count_threads, shared_bytes).blocks_per_sm;
    return per_sm == 0 ? 0u : grid_of(per_sm, m);
  }

  /// As many blocks as `per_sm` per SM allows, at most one per tile of m keys.
  unsigned grid_of(int per_sm, std::int64_t m) const {
    const std::int64_t tiles_needed = (m + shard_tuning::count_tile - 1) / shard_tuning::count_tile;
    return static_cast<unsigned>(
        std::max<std::int64_t>(1, std::min<std::int64_t>(tiles_needed, static_cast<std::int64_t>(sms_) * per_sm)));
  }

  template <class Kernel>
  static std::size_t static_shared_bytes(Kernel kernel) {
    return shape_of(kernel, shard_tuning::count_threads, 0).static_bytes;
  }

  /// After the copy back: the counts and extremes to the caller's arrays, and the
  /// compaction taken (or refused when the keys did not fit).
  void finish_round(const round_table<U>& table, std::uint64_t* counts, const unsigned long long* got_counts,
                    bool minmax, U* interval_min, U* interval_max, const U* got_min, const U* got_max,
                    stream_buffer& kept, bool compact, std::int64_t expected_kept) {
    const std::size_t ni = table.intervals.size();
    if (tallied_) noncanonical_ = static_cast<std::int64_t>(round_.host_noncanonical());
    if (table.buckets) std::memcpy(counts, got_counts, table.buckets * sizeof(std::uint64_t));
    if (minmax && ni) {
      std::memcpy(interval_min, got_min, ni * sizeof(U));
      std::memcpy(interval_max, got_max, ni * sizeof(U));
    }
    if (!compact) return;
    const auto total = static_cast<std::int64_t>(round_.host_kept());
    // More keys than the buffer holds: some were not written, the shard stays as it
    // was. Otherwise the compaction is done, whatever the caller expected.
    const bool complete = total <= kept_capacity_;
    if (complete) {
      keys_ = std::move(kept);
      kept_size_ = total;
      compacted_ = true;
    }
    if (!complete || (expected_kept >= 0 && total != expected_kept))
      throw kselect::distributed::unexpected_keys(
          "cuda shard", "count()", "kept", total,
          expected_kept >= 0 ? std::to_string(expected_kept) : "at most " + std::to_string(kept_capacity_));
  }

  /// Runs count_kernel over the keys in contention: with the table, its directory, the
  /// extremes and the histogram in shared memory when they fit the budget (the
  /// common case: 8192 buckets and a few hundred intervals take about 50 KiB), in
  /// global memory otherwise.
  /// Whether it ran (with no keys or no intervals it launches nothing).
  bool run_count(count_args<U>& a) {
    const std::int64_t m = size();
    if (m == 0 || a.num_intervals == 0) return m == 0;
    if (compacted_) dispatch_count(key_source<T, false>{static_cast<const U*>(keys_.get())}, m, a);
    else dispatch_count(key_source<T, true>{values_}, m, a);
    return true;
  }

  /// Shared memory when the round's layout fits beside the kernel's own static shared
  /// memory (the compaction's stages) within the budget, then the kernel of the round's
  /// flags. A block's shared counters are 32-bit: a grid of at least one block per SM
  /// keeps each block below 2^31 keys up to m = 2^31 * SMs.
  template <bool FromValues>
  void dispatch_count(key_source<T, FromValues> src, std::int64_t m, count_args<U>& a) {
    a.in_shared = true;
    const count_shared_layout<U> layout(a);
    a.in_shared = static_cast<std::int64_t>(layout.bytes + static_shared_bytes(count_kernel<T, FromValues, runtime_flags>)) <=
                      shared_budget_ &&
                  (!a.counts || m <= (std::int64_t{1} << 31) * sms_);
    if (!a.in_shared) return launch_count(count_kernel<T, FromValues, runtime_flags>, src, m, a, 0);
    const bool keep = a.kept != nullptr, minmax = a.interval_min != nullptr;
    const auto go = [&](auto flags) {
      launch_count(count_kernel<T, FromValues, decltype(flags)>, src, m, a, layout.bytes);
    };
    if constexpr (FromValues && std::is_floating_point_v<T>) {
      if (a.noncanonical != nullptr) {
        if (keep) minmax ? go(fixed_flags<true, true, true>{}) : go(fixed_flags<true, false, true>{});
        else minmax ? go(fixed_flags<false, true, true>{}) : go(fixed_flags<false, false, true>{});
        return;
      }
    }
    if (keep) minmax ? go(fixed_flags<true, true, false>{}) : go(fixed_flags<true, false, false>{});
    else minmax ? go(fixed_flags<false, true, false>{}) : go(fixed_flags<false, false, false>{});
  }

  template <class Kernel, class Source>
  void launch_count(Kernel kernel, Source src, std::int64_t m, count_args<U>& a, std::size_t shared_bytes) {
    // dispatch_count checked the shared memory against the budget (a test's small budget
    // sends the tables to global memory; the kernel's own stages stay in shared memory).
    const unsigned blocks = grid_of(std::max(shape_of(kernel, shard_tuning::count_threads, shared_bytes).blocks_per_sm, 1), m);
    profiler_.start(stream_, "distributed count: " + std::to_string(m) + " keys, " +
                                 std::to_string(a.num_intervals) + " intervals" + (a.kept ? ", keeping" : "") +
                                 (a.in_shared ? "" : ", table in global memory"));
    kernel<<<blocks, shard_tuning::count_threads, shared_bytes, stream_>>>(src, m, a);
    profiler_.stop(stream_);
    check(cudaGetLastError(), "count_kernel launch");
  }

  /// A grid of one wave (2 blocks per SM) for the simple streaming kernels.
  unsigned blocks_for(std::int64_t m) const {
    const std::int64_t needed = (m + shard_tuning::tile - 1) / shard_tuning::tile;
    return static_cast<unsigned>(std::max<std::int64_t>(1, std::min<std::int64_t>(needed, 2 * sms_)));
  }

  unsigned tiles() const {
    const std::int64_t count = (n_ + shard_tuning::take_tile - 1) / shard_tuning::take_tile;
    if (count > 0x7fffffff) throw kselect::error("cuda shard: too many elements for top-k's tiles");
    return static_cast<unsigned>(count);
  }

  void exclusive_sum(const unsigned long long* in, unsigned long long* out, std::int64_t count) {
    std::size_t bytes = 0;
    check(exclusive_sum_u64(nullptr, bytes, in, out, count, stream_), "scan workspace query");
    stream_buffer temp(bytes, stream_, pool_);
    check(exclusive_sum_u64(temp.get(), bytes, in, out, count, stream_), "scan");
  }

  /// Device to host, then waits for the stream: every earlier launch is checked here.
  void download(void* host, const void* device, std::size_t bytes) {
    if (bytes) check(cudaMemcpyAsync(host, device, bytes, cudaMemcpyDeviceToHost, stream_), "copying from the GPU");
    check(cudaStreamSynchronize(stream_), "a distributed pass on the GPU");
  }

  const T* values_;
  std::int64_t n_;
  kselect::options opt_;
  cudaStream_t stream_;
  cudaMemPool_t pool_ = nullptr;  ///< every device buffer's (scratch_pool.hpp)
  int sms_ = 1;
  std::int64_t shared_budget_ = 0;
  bool compacted_ = false;
  std::int64_t kept_size_ = 0;
  std::int64_t kept_capacity_ = 0;  ///< room of the last launch_round's compaction buffer
  stream_buffer keys_{0, nullptr};  ///< the keys in contention once compacted
  bool tallied_ = false;            ///< the last launch_round read the whole array
  std::int64_t noncanonical_ = -1;  ///< noncanonical_seen()
  round_buffers round_;
  /// The last first round's slot map when it ran as slot_count_kernel (slots == 0:
  /// it did not) and its image on the host, for the next round's run_slot_refine; the
  /// map's device copy for that pass; the refining pass's routes and its own copy of the
  /// map (its entries marked where no bucket is routed).
  slot_map_args<U> first_map_{};
  std::shared_ptr<const kselect::distributed::radix_slot_image<U>> first_image_;
  staged_buffer first_entries_;
  std::vector<std::uint16_t> route_host_;
  staged_buffer route_;
  staged_buffer extracted_;  ///< extract()'s keys, on the device and back
  launch_profiler profiler_;
  core::phase_clock host_clock_;  ///< KSELECT_PROFILE=1: the host steps of the shard's calls
};

template <class T>
std::unique_ptr<kselect::distributed::shard<T>> make_cuda_shard_with_shared_budget(const T* values, std::int64_t n,
                                                                                   const kselect::options& opt,
                                                                                   std::int64_t shared_budget) {
  if (n < 0) throw std::invalid_argument("make_cuda_shard: negative size " + std::to_string(n));
  if (n > 0 && values == nullptr) throw std::invalid_argument("make_cuda_shard: null values for a non-empty array");
  if (n > 0 && !is_device_accessible(values))
    throw std::invalid_argument("make_cuda_shard: values is not device memory (a host pointer where the CUDA "
                                "backend needs a device one)");
  return std::make_unique<cuda_shard<T>>(values, n, opt, shared_budget);
}

}  // namespace kselect::cuda::distributed

namespace kselect::distributed {

template <class T>
std::unique_ptr<shard<T>> make_cuda_shard(const T* values, std::int64_t n, const kselect::options& opt) {
  return cuda::distributed::make_cuda_shard_with_shared_budget<T>(values, n, opt, -1);
}

}  // namespace kselect::distributed

/// The definitions for one key type (src/cuda/instantiate/distributed_*.cu).
#define KSELECT_INSTANTIATE_CUDA_SHARD(T)                                                                  \
  template std::unique_ptr<kselect::distributed::shard<T>> kselect::distributed::make_cuda_shard<T>(        \
      const T*, std::int64_t, const kselect::options&);                                                    \
  template std::unique_ptr<kselect::distributed::shard<T>>                                                 \
  kselect::cuda::distributed::make_cuda_shard_with_shared_budget<T>(const T*, std::int64_t,               \
                                                                    const kselect::options&, std::int64_t);
