// CPU backend of the filters (include/kselect/filter.hpp): order-preserving
// stream compaction with OpenMP, in two sweeps over contiguous chunks of the input
// in index order (moderngpu's upsweep / downsweep):
//   1. filter_count: each chunk counts its selected elements; an exclusive scan over
//      the chunk counts gives every chunk its first output position;
//   2. filter_write: each chunk writes its selected elements from there, in index
//      order (and, for a partition, its other elements after all selected ones).
// The output is the same for any number of threads or chunks.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "kselect/filter.hpp"

namespace kselect::cpu {

struct filter_tuning {
  /// Below this many elements one chunk (one thread) does the work: a parallel
  /// region costs about what it saves. Measured on the 2-core development machine
  /// (filter_count + filter_write of uniform floats at 50%, OMP_WAIT_POLICY=passive):
  /// 2^16 elements 53 us on one thread, 63 us on two; 2^18: 207 us, 130 us.
  std::int64_t parallel_min = std::int64_t{1} << 17;
  /// Number of chunks from parallel_min on; 0: one per thread. The tests set more
  /// chunks than threads, and parallel_min = 0, to exercise the scan on small inputs.
  std::int64_t chunks = 0;
};

/// The counting sweep's result: the chunks and, per chunk, the number of selected
/// elements before it.
struct filter_plan {
  std::int64_t n = 0;
  /// chunks() + 1 entries: selected_before[c] is the number of selected elements in
  /// chunks [0, c); the last entry is the total.
  std::vector<std::int64_t> selected_before;

  std::int64_t chunks() const noexcept { return static_cast<std::int64_t>(selected_before.size()) - 1; }
  /// The first index of chunk c (c in [0, chunks()]; chunk_begin(chunks()) == n).
  std::int64_t chunk_begin(std::int64_t c) const noexcept {
    const std::int64_t k = chunks();
    return n / k * c + (c < n % k ? c : n % k);
  }
  std::int64_t selected() const noexcept { return selected_before.back(); }
};

/// Sweep 1: counts the selected elements of values[0..n) per chunk. An element i
/// is selected when flags[i] != 0 if `flags` is not null, else when pred(values[i]).
/// Arguments are validated by the caller (n >= 0; values, flags not null when used
/// and n > 0). num_threads 0 = OpenMP default.
template <class T>
filter_plan filter_count(const T* values, std::int64_t n, const predicate<T>& pred, const std::uint8_t* flags,
                         int num_threads = 0, const filter_tuning& tuning = {});

/// Sweep 2: writes the selected elements (the same selection as filter_count's,
/// given `plan` from it) in index order to out_values[0..plan.selected()) and, if
/// not null, their indices to out_indices and their payload elements (payload_bytes
/// each, from `payload`) to out_payload. With `partition`, the other elements follow
/// in index order, up to position n. Values and payload are copied bit for bit.
template <class T>
void filter_write(const T* values, const predicate<T>& pred, const std::uint8_t* flags,
                  const filter_plan& plan, const void* payload, std::size_t payload_bytes, bool partition,
                  T* out_values, std::int64_t* out_indices, void* out_payload, int num_threads = 0);

/// The number of elements of values[0..n) satisfying pred.
template <class T>
std::int64_t count_if(const T* values, std::int64_t n, const predicate<T>& pred, int num_threads = 0,
                      const filter_tuning& tuning = {});

/// Moves the elements of values[0..n) satisfying pred, in index order, to
/// values[0..count) and returns count. Each chunk first compacts itself to its own
/// start (in parallel; writes never pass the reads), then the chunks' parts move
/// down in chunk order (memmove). values[count..n) is left holding input elements.
template <class T>
std::int64_t filter_inplace(T* values, std::int64_t n, const predicate<T>& pred, int num_threads = 0,
                            const filter_tuning& tuning = {});

}  // namespace kselect::cpu
