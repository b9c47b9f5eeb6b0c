// Exact selection on 16-bit keys (float16, bfloat16) by counting: one pass counts
// every one of the 65536 possible order keys, and a walk over the counts answers any
// number of ranks, or finds the k-th key of a top-k. For long segments this is
// cheaper than any comparison-based selection (one streaming pass, no copies), and
// the single-array backend (cpu::multiselect) has no 16-bit key types.
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "core/key_traits.hpp"
#include "cpu/parallel.hpp"

namespace kselect::cpu {

/// The number of distinct 16-bit keys.
inline constexpr std::int64_t key16_count = std::int64_t{1} << 16;

/// The order key of a 16-bit value: key_traits' key, complemented for descending order.
template <class T>
std::uint16_t order_key16(T x, bool descending) {
  const std::uint16_t k = core::key_traits<T>::to_key(x);
  return descending ? static_cast<std::uint16_t>(~k) : k;
}

/// counts[key] = how many of values[0..n) have that order key. Up to `threads`
/// chunks counted in parallel, each into its own table, then summed.
template <class T>
std::vector<std::int64_t> count_keys16(const T* values, std::int64_t n, bool descending, int threads) {
  // Below this many values per chunk, clearing and summing a 512 KiB table costs
  // more than the chunk's count.
  constexpr std::int64_t min_chunk = std::int64_t{1} << 18;
  const std::int64_t chunks = std::max<std::int64_t>(1, std::min<std::int64_t>(threads, n / min_chunk));
  std::vector<std::vector<std::int64_t>> partial(static_cast<std::size_t>(chunks));
  parallel_for(chunks, threads, [&](std::int64_t c) {
    std::vector<std::int64_t>& counts = partial[static_cast<std::size_t>(c)];
    counts.assign(static_cast<std::size_t>(key16_count), 0);
    const std::int64_t begin = n * c / chunks, end = n * (c + 1) / chunks;
    for (std::int64_t i = begin; i < end; ++i) ++counts[order_key16(values[i], descending)];
  });
  std::vector<std::int64_t> total = std::move(partial[0]);
  for (std::size_t c = 1; c < partial.size(); ++c)
    for (std::size_t key = 0; key < total.size(); ++key) total[key] += partial[c][key];
  return total;
}

/// out[i] = the key of rank ranks[i] (ascending, unique, below the counts' total).
inline void keys_at_ranks16(const std::vector<std::int64_t>& counts, std::span<const std::int64_t> ranks,
                            std::uint16_t* out) {
  std::int64_t below = 0;  // keys ordered before `key`
  std::size_t next = 0;
  for (std::int64_t key = 0; key < key16_count && next < ranks.size(); ++key) {
    below += counts[static_cast<std::size_t>(key)];
    while (next < ranks.size() && ranks[next] < below) out[next++] = static_cast<std::uint16_t>(key);
  }
}

/// Where the k smallest order keys end (1 <= k <= total): every key below `key` is
/// taken, and the first `ties` (by index) of those equal to it.
struct key16_threshold {
  std::uint16_t key;
  std::int64_t ties;
};

inline key16_threshold threshold16(const std::vector<std::int64_t>& counts, std::int64_t k) {
  std::int64_t below = 0;
  for (std::int64_t key = 0; key < key16_count; ++key) {
    const std::int64_t count = counts[static_cast<std::size_t>(key)];
    if (below + count >= k) return {static_cast<std::uint16_t>(key), k - below};
    below += count;
  }
  return {static_cast<std::uint16_t>(key16_count - 1), 0};  // k > total: the caller's mistake
}

}  // namespace kselect::cpu
