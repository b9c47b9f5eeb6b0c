// The CPU backend's entry points (src/cpu/cpu_select.hpp).
#include "cpu/cpu_select.hpp"

#include <omp.h>

#include <cmath>
#include <type_traits>

#include "cpu/sample_select.hpp"
#include "kselect/types.hpp"  // KSELECT_FOR_EACH_KEY_TYPE

namespace kselect::cpu {

template <class T>
void multiselect(const T* values, std::int64_t n, const std::int64_t* ranks, std::int64_t num_ranks,
                 T* out, int num_threads) {
  sample_select(values, n, ranks, num_ranks, out, num_threads, tuning{});
}

template <class T>
std::int64_t count_nan(const T* values, std::int64_t n, int num_threads) {
  if constexpr (!std::is_floating_point_v<T>) {
    (void)values, (void)n, (void)num_threads;
    return 0;
  } else {
    const int threads = num_threads > 0 ? num_threads : omp_get_max_threads();
    std::int64_t count = 0;
    // Below ~1M values a parallel region costs more than it saves.
#pragma omp parallel for num_threads(threads) reduction(+ : count) if (n >= (std::int64_t{1} << 20))
    for (std::int64_t i = 0; i < n; ++i) count += std::isnan(values[i]) ? 1 : 0;
    return count;
  }
}

#define KSELECT_INSTANTIATE(T)                                                                   \
  template void multiselect<T>(const T*, std::int64_t, const std::int64_t*, std::int64_t, T*, int); \
  template std::int64_t count_nan<T>(const T*, std::int64_t, int);
KSELECT_FOR_EACH_KEY_TYPE(KSELECT_INSTANTIATE)
#undef KSELECT_INSTANTIATE

}  // namespace kselect::cpu
