// A stable least-significant-digit radix sort for the CPU backend: values (and,
// optionally, a parallel array of 64-bit payloads such as input positions) sorted by
// an unsigned key computed from each value, 8 bits per pass.
//
// Why not std::sort of (key, position) pairs, as range_select did before: for the
// sorted output of a large top-k that took most of the run's time and 16 bytes per
// element on top of the output. Radix passes are streaming reads and
// 256-way scatters, and stability gives the (key, index) order for free when the input
// is in index order. Memory: one scratch array of each sorted array.
//
// Threads: the input is cut into one contiguous chunk per thread; each pass counts
// each chunk's digits, then scatters each chunk from its own offsets (digit-major,
// chunk-minor), so the result is stable and independent of the thread count. One
// first read counts every pass's digits, and passes whose digit is the same for every
// key are skipped.
#pragma once

#include <omp.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

namespace kselect::cpu {

/// Sorts values[0..m) (and payload[0..m) with them, if not null) stably by
/// key_of(value), an unsigned integer of sizeof(Key) bytes. num_threads 0: OpenMP's
/// default. Allocates a scratch copy of each array.
template <class T, class Key, class KeyOf>
void stable_radix_sort(T* values, std::int64_t* payload, std::int64_t m, KeyOf key_of, int num_threads = 0) {
  constexpr int digit_bits = 8;
  constexpr int radix = 1 << digit_bits;
  constexpr int passes = static_cast<int>(sizeof(Key)) * 8 / digit_bits;
  if (m <= 1) return;
  // Below this a parallel region costs more than it saves.
  constexpr std::int64_t parallel_min = std::int64_t{1} << 18;
  const int threads = m >= parallel_min ? (num_threads > 0 ? num_threads : omp_get_max_threads()) : 1;
  const std::int64_t chunks = std::max(1, threads);
  const auto chunk_begin = [&](std::int64_t c) { return m / chunks * c + std::min(c, m % chunks); };

  // 1. Every pass's digit counts over the whole input, in one read: a pass whose digit
  //    every key shares moves nothing and is skipped.
  using histogram = std::array<std::int64_t, radix>;
  std::vector<std::array<histogram, passes>> totals(static_cast<std::size_t>(chunks));
#pragma omp parallel for num_threads(threads) schedule(static, 1) if (chunks > 1)
  for (std::int64_t c = 0; c < chunks; ++c) {
    auto& h = totals[static_cast<std::size_t>(c)];
    for (auto& row : h) row.fill(0);
    for (std::int64_t i = chunk_begin(c), end = chunk_begin(c + 1); i < end; ++i) {
      const Key k = key_of(values[i]);
      for (int p = 0; p < passes; ++p) ++h[p][(k >> (p * digit_bits)) & (radix - 1)];
    }
  }
  bool needed[passes];
  for (int p = 0; p < passes; ++p) {
    needed[p] = true;
    for (int d = 0; d < radix; ++d) {
      std::int64_t total = 0;
      for (std::int64_t c = 0; c < chunks; ++c) total += totals[static_cast<std::size_t>(c)][p][d];
      if (total == m) needed[p] = false;
    }
  }

  const auto scratch_values = std::make_unique_for_overwrite<T[]>(static_cast<std::size_t>(m));
  std::unique_ptr<std::int64_t[]> scratch_payload;
  if (payload) scratch_payload = std::make_unique_for_overwrite<std::int64_t[]>(static_cast<std::size_t>(m));
  T* src = values;
  T* dst = scratch_values.get();
  std::int64_t* src_payload = payload;
  std::int64_t* dst_payload = scratch_payload.get();

  // 2. Each pass: every chunk counts its digits (the chunks hold other keys after
  //    each pass), then scatters from its offsets, digit-major and chunk-minor.
  std::vector<histogram> offsets(static_cast<std::size_t>(chunks));
  for (int p = 0; p < passes; ++p) {
    if (!needed[p]) continue;
    const int shift = p * digit_bits;
#pragma omp parallel num_threads(threads) if (chunks > 1)
    {
#pragma omp for schedule(static, 1)
      for (std::int64_t c = 0; c < chunks; ++c) {
        histogram& h = offsets[static_cast<std::size_t>(c)];
        h.fill(0);
        for (std::int64_t i = chunk_begin(c), end = chunk_begin(c + 1); i < end; ++i)
          ++h[(key_of(src[i]) >> shift) & (radix - 1)];
      }
#pragma omp single
      {
        std::int64_t next = 0;
        for (int d = 0; d < radix; ++d)
          for (std::int64_t c = 0; c < chunks; ++c) {
            const std::int64_t count = offsets[static_cast<std::size_t>(c)][d];
            offsets[static_cast<std::size_t>(c)][d] = next;
            next += count;
          }
      }
#pragma omp for schedule(static, 1)
      for (std::int64_t c = 0; c < chunks; ++c) {
        histogram& at = offsets[static_cast<std::size_t>(c)];
        for (std::int64_t i = chunk_begin(c), end = chunk_begin(c + 1); i < end; ++i) {
          const std::int64_t to = at[(key_of(src[i]) >> shift) & (radix - 1)]++;
          dst[to] = src[i];
          if (src_payload) dst_payload[to] = src_payload[i];
        }
      }
    }
    std::swap(src, dst);
    std::swap(src_payload, dst_payload);
  }
  // An odd number of passes ran: the result is in the scratch arrays.
  if (src != values) {
    std::memcpy(values, src, static_cast<std::size_t>(m) * sizeof(T));
    if (payload) std::memcpy(payload, src_payload, static_cast<std::size_t>(m) * sizeof(std::int64_t));
  }
}

}  // namespace kselect::cpu
