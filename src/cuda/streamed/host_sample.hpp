// The sample a streamed call plans its first pass from (src/cuda/streamed/): keys
// read by the host threads at random positions of the host array, sorted there.
#pragma once

#include <omp.h>

#include <cstdint>
#include <vector>

#include "core/key_traits.hpp"
#include "core/sampling.hpp"
#include "cpu/radix_sort.hpp"

namespace kselect::cuda_backend {

/// Keys at `count` random positions of values[0..n), ascending.
template <class T>
std::vector<core::key_t<T>> host_sample(const T* values, std::int64_t n, std::int64_t count, int threads) {
  using U = core::key_t<T>;
  std::vector<U> sample(static_cast<std::size_t>(count));
#pragma omp parallel for num_threads(threads) schedule(static) if (count >= 4096)
  for (std::int64_t i = 0; i < count; ++i)
    sample[static_cast<std::size_t>(i)] = core::key_traits<T>::to_key(
        values[core::mix64(0x6b73656c656374ull ^ static_cast<std::uint64_t>(i)) % static_cast<std::uint64_t>(n)]);
  cpu::stable_radix_sort<U, U>(sample.data(), nullptr, count, [](U k) { return k; }, threads);
  return sample;
}

}  // namespace kselect::cuda_backend
