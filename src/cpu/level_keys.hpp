// Reading a level's keys one at a time (sampling, small levels), and selecting
// order statistics in a small array in place.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <span>
#include <type_traits>
#include <vector>

#include "cpu/kernels.hpp"
#include "core/sampling.hpp"

namespace kselect::cpu {

/// A level's keys: the caller's values as bits (mapped to pre-keys on the fly, as
/// the kernels do) or a buffer of pre-keys.
template <class K>
struct level_keys {
  const K* data;
  kernels::xform x;

  K operator[](std::int64_t i) const {
    K u;
    std::memcpy(&u, data + i, sizeof u);  // the caller's floats read as bits
    constexpr K sign = K(1) << (sizeof(K) * 8 - 1);
    switch (x) {
      case kernels::xform::none:
        return u;
      case kernels::xform::flip_sign:
        return static_cast<K>(u ^ sign);
      case kernels::xform::float_bits: {
        constexpr K mantissa = sizeof(K) == 4 ? K(0x007fffffu) : K(0x000fffffffffffffull);
        using S = std::make_signed_t<K>;
        const K flip = static_cast<K>(static_cast<K>(static_cast<S>(u) >> (sizeof(K) * 8 - 1)) | sign);
        return static_cast<K>((u ^ flip) - mantissa);
      }
    }
    return u;
  }
};

/// Afterwards a[p] holds the element of rank p of a[0..n), for each p in `at`
/// (sorted ascending, each in [0, n)): nth_element on the middle position, then the
/// same on each side, so each element is moved O(log |at|) times. `done`: sorted
/// positions that already hold their element with the array partitioned around
/// them (an earlier call's `at`); only the stretches between them are searched.
template <class K>
void select_positions(K* a, std::int64_t n, std::span<const std::int64_t> at, std::span<const std::int64_t> done = {}) {
  if (at.empty() || n <= 1) return;
  if (!done.empty()) {
    std::int64_t lo = 0;  // the stretch [lo, hi) between partition points
    std::size_t i = 0;
    for (std::size_t d = 0; d <= done.size(); ++d) {
      const std::int64_t hi = d < done.size() ? done[d] : n;
      std::vector<std::int64_t> inside;
      for (; i < at.size() && at[i] < hi; ++i)
        if (at[i] >= lo) inside.push_back(at[i] - lo);
      if (i < at.size() && at[i] == hi) ++i;  // already in place
      select_positions(a + lo, hi - lo, std::span<const std::int64_t>(inside));
      lo = hi + 1;
    }
    return;
  }
  const std::size_t mid = at.size() / 2;
  const std::int64_t p = at[mid];
  std::nth_element(a, a + p, a + n);
  select_positions(a, p, at.first(mid));
  const auto right = at.subspan(mid + 1);
  if (!right.empty()) {
    std::vector<std::int64_t> shifted(right.begin(), right.end());
    for (std::int64_t& q : shifted) q -= p + 1;
    select_positions(a + p + 1, n - p - 1, std::span<const std::int64_t>(shifted));
  }
}

/// A sample of `runs` * g keys: one run of g consecutive keys in each of `runs`
/// equal strata of [0, n), at a random position aligned to g (a run of 64 bytes is
/// one cache line when the array is aligned, so each miss brings g sample keys).
/// Jittered stratified sampling (core::sample_position) for g = 1.
/// Needs runs * g <= n.
template <class K>
std::vector<K> sample_runs(const level_keys<K>& in, std::int64_t n, std::int64_t runs, int g, std::uint64_t seed) {
  std::vector<std::int64_t> start(static_cast<std::size_t>(runs));
  for (std::int64_t r = 0; r < runs; ++r) {
    if (g == 1) {
      start[static_cast<std::size_t>(r)] = core::sample_position(r, runs, n, seed);
      continue;
    }
    const std::int64_t a = r * n / runs, b = (r + 1) * n / runs;  // stratum [a, b)
    const std::int64_t first = (a + g - 1) / g * g, last = (b - g) / g * g;
    if (first <= last) {
      const auto choices = static_cast<std::uint64_t>((last - first) / g + 1);
      start[static_cast<std::size_t>(r)] = first + g * static_cast<std::int64_t>(core::mul_high(
                                                           core::mix64(seed ^ static_cast<std::uint64_t>(r)), choices));
    } else {
      start[static_cast<std::size_t>(r)] = std::min(a, n - g);
    }
  }
  // The runs are cache misses (and, in a large input, TLB misses) of their own:
  // prefetched a few dozen runs ahead, they overlap instead of being read one after
  // the other (docs/performance.md, "CPU tuning").
  constexpr std::int64_t ahead = 32;
  std::vector<K> s(static_cast<std::size_t>(runs * g));
  for (std::int64_t r = 0; r < runs; ++r) {
    if (r + ahead < runs) {
      const K* p = in.data + start[static_cast<std::size_t>(r + ahead)];
      __builtin_prefetch(p);
      __builtin_prefetch(p + g - 1);
    }
    const std::int64_t at = start[static_cast<std::size_t>(r)];
    for (int u = 0; u < g; ++u) s[static_cast<std::size_t>(r * g + u)] = in[at + u];
  }
  return s;
}

}  // namespace kselect::cpu
