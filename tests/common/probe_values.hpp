// Values every key type must get right: the special floats (both NaN signs, a
// negative NaN with every payload bit set, +-0, +-inf, denormals, extremes) and
// the integer extremes, plus `count` special and `count` normal generated values.
#pragma once

#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

#include "common/generate.hpp"
#include "core/key_traits.hpp"

namespace kselect::test {

template <class T>
std::vector<T> probe_values(std::int64_t count, std::uint64_t seed) {
  std::vector<T> v = generate<T>(dist::special, count, seed);
  const std::vector<T> u = generate<T>(dist::normal, count, seed + 1);
  v.insert(v.end(), u.begin(), u.end());
  using lim = std::numeric_limits<T>;
  v.push_back(lim::max());
  v.push_back(lim::lowest());
  v.push_back(T(0));
  if constexpr (std::is_floating_point_v<T>) {
    v.push_back(-T(0));
    v.push_back(lim::infinity());
    v.push_back(-lim::infinity());
    v.push_back(lim::quiet_NaN());
    v.push_back(-lim::quiet_NaN());
    v.push_back(lim::denorm_min());
    v.push_back(-lim::denorm_min());
    const auto all = static_cast<core::key_t<T>>(~core::key_t<T>(0));
    T x;
    std::memcpy(&x, &all, sizeof x);
    v.push_back(x);
  }
  return v;
}

}  // namespace kselect::test
