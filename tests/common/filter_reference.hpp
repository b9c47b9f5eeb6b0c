// The filters' reference and inputs (CPU and GPU suites): which
// elements a predicate keeps, written out comparison by comparison; std::copy_if
// of the elements and their positions; selection masks of given selectivities and
// patterns, and keys that a threshold predicate selects exactly by such a mask.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <numeric>
#include <string>
#include <type_traits>
#include <vector>

#include "common/rng.hpp"
#include "kselect/filter.hpp"

namespace kselect::test {

/// Whether x satisfies p, by IEEE comparisons (NaN compares false, -0.0 == +0.0).
template <class T>
bool reference_keep(const predicate<T>& p, T x) {
  switch (p.op) {
    case filter_op::lt: return x < p.value;
    case filter_op::le: return x <= p.value;
    case filter_op::gt: return x > p.value;
    case filter_op::ge: return x >= p.value;
    case filter_op::eq: return x == p.value;
    case filter_op::ne: return !(x == p.value);
    case filter_op::range: return x >= p.value && x < p.hi;
  }
  return false;
}

/// The selected elements and their positions, in input order.
template <class T>
struct reference_selection {
  std::vector<T> values;
  std::vector<std::int64_t> indices;
};

/// std::copy_if of values (and of their positions) where keep(i).
template <class T, class Keep>
reference_selection<T> reference_filter(const std::vector<T>& values, Keep keep) {
  reference_selection<T> r;
  std::vector<std::int64_t> all(values.size());
  std::iota(all.begin(), all.end(), std::int64_t{0});
  std::copy_if(all.begin(), all.end(), std::back_inserter(r.indices), keep);
  std::int64_t i = 0;
  std::copy_if(values.begin(), values.end(), std::back_inserter(r.values), [&](const T&) { return keep(i++); });
  return r;
}

/// The elements of v at `indices`, in that order.
template <class V>
std::vector<V> gather(const std::vector<V>& v, const std::vector<std::int64_t>& indices) {
  std::vector<V> out;
  out.reserve(indices.size());
  for (const std::int64_t i : indices) out.push_back(v[static_cast<std::size_t>(i)]);
  return out;
}

/// A partition's order: the selected positions (ascending), then the others (ascending).
inline std::vector<std::int64_t> partition_order(const std::vector<std::int64_t>& selected, std::int64_t n) {
  std::vector<std::int64_t> order = selected;
  std::size_t j = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    if (j < selected.size() && selected[j] == i) ++j;
    else order.push_back(i);
  }
  return order;
}

/// Equal sizes and equal bits (NaN payloads and the sign of zero included).
template <class T>
bool same_bits(const std::vector<T>& a, const std::vector<T>& b) {
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0);
}

/// Where the selected elements of a mask lie.
enum class mask_pattern {
  random,       ///< each element selected with the given probability
  alternating,  ///< every other element (odd positions)
  runs,         ///< clustered: runs of 1 to 1000 selected, then 1 to 1000 not, ...
  last_only,    ///< only the last element
  first_only,   ///< only the first element
};

inline std::string name(mask_pattern p) {
  switch (p) {
    case mask_pattern::random: return "random";
    case mask_pattern::alternating: return "alternating";
    case mask_pattern::runs: return "runs";
    case mask_pattern::last_only: return "last_only";
    case mask_pattern::first_only: return "first_only";
  }
  return "?";
}

/// n flags (0 or 1) of pattern p; `selectivity` is the probability of random.
inline std::vector<std::uint8_t> selection_mask(mask_pattern p, std::int64_t n, double selectivity,
                                                std::uint64_t seed) {
  std::vector<std::uint8_t> m(static_cast<std::size_t>(n), 0);
  switch (p) {
    case mask_pattern::random: {
      // Exactly 0 and 1 for selectivity 0 and 1: compare 53 random bits with p * 2^53.
      const auto bound = static_cast<std::uint64_t>(selectivity * 0x1.0p53);
      for (std::int64_t i = 0; i < n; ++i)
        m[static_cast<std::size_t>(i)] = (random_word(seed, static_cast<std::uint64_t>(i)) >> 11) < bound;
      break;
    }
    case mask_pattern::alternating:
      for (std::int64_t i = 0; i < n; ++i) m[static_cast<std::size_t>(i)] = i % 2 == 1;
      break;
    case mask_pattern::runs: {
      bool on = true;
      std::uint64_t run = 0;
      for (std::int64_t i = 0; i < n;) {
        const auto len = static_cast<std::int64_t>(1 + random_word(seed, run++) % 1000);
        for (std::int64_t j = i; j < std::min(n, i + len); ++j) m[static_cast<std::size_t>(j)] = on;
        i += len;
        on = !on;
      }
      break;
    }
    case mask_pattern::last_only:
      if (n > 0) m.back() = 1;
      break;
    case mask_pattern::first_only:
      if (n > 0) m.front() = 1;
      break;
  }
  return m;
}

/// The constant that splits keys_for_mask's keys: lt(split_key<T>()) selects
/// exactly the masked elements, ge(split_key<T>()) exactly the others.
template <class T>
constexpr T split_key() {
  if constexpr (std::is_unsigned_v<T>) return T(1) << (sizeof(T) * 8 - 1);
  else return T(0);
}

/// Keys for a mask: masked elements below split_key (down to the type's lowest,
/// -inf for floats), the others at or above it (+0.0, -0.0 and +inf among them
/// for floats; the type's maximum for integers). Random otherwise.
template <class T>
std::vector<T> keys_for_mask(const std::vector<std::uint8_t>& mask, std::uint64_t seed) {
  using lim = std::numeric_limits<T>;
  std::vector<T> v(mask.size());
  const T split = split_key<T>();
  for (std::size_t i = 0; i < mask.size(); ++i) {
    const std::uint64_t w = random_word(seed, i);
    const bool below = mask[i] != 0;
    if constexpr (std::is_floating_point_v<T>) {
      switch (w % 64) {
        case 0: v[i] = below ? -lim::infinity() : lim::infinity(); break;
        case 1: v[i] = below ? -lim::denorm_min() : T(-0.0); break;  // -0.0 == split: not below
        case 2: v[i] = below ? lim::lowest() : T(0.0); break;
        case 3: v[i] = below ? -lim::min() / 4 : lim::denorm_min(); break;  // denormals
        default: {
          const T mag = static_cast<T>(unit_double(w) * 1e6);
          v[i] = below ? -(mag + T(1)) : mag;
        }
      }
    } else {
      const auto off = static_cast<T>(w % 100000);
      if (w % 64 == 0) v[i] = below ? lim::lowest() : lim::max();
      else v[i] = below ? static_cast<T>(split - T(1) - off) : static_cast<T>(split + off);
    }
  }
  return v;
}

}  // namespace kselect::test
