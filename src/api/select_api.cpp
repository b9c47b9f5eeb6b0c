// kselect::select, kselect::multiselect and the device queries (include/kselect/kselect.hpp).
#include <vector>

#include "api/dispatch.hpp"
#include "kselect/detail/nvtx.hpp"
#include "kselect/kselect.hpp"
#include "core/ranks.hpp"
#ifdef KSELECT_WITH_CUDA
#include "cuda/backend.hpp"
#endif

namespace kselect {

template <class T>
T select(const T* values, std::int64_t n, std::int64_t k, const options& opt) {
  KSELECT_NVTX_RANGE("kselect::select");
  detail::check_input(values, n, opt);
  core::check_rank(k, 0, n);
  const detail::backend b = detail::choose_backend(values, opt, detail::host_input::stream);
  T out{};
  detail::run_multiselect(b, values, n, &k, 1, &out, opt);
  return out;
}

template <class T>
std::vector<T> multiselect(const T* values, std::int64_t n, std::span<const std::int64_t> ranks,
                           const options& opt) {
  KSELECT_NVTX_RANGE("kselect::multiselect");
  detail::check_input(values, n, opt);
  const core::rank_set set = core::normalize_ranks(ranks, n);
  const detail::backend b = detail::choose_backend(values, opt, detail::host_input::stream);
  std::vector<T> by_rank(set.sorted.size());
  detail::run_multiselect(b, values, n, set.sorted.data(),
                          static_cast<std::int64_t>(set.sorted.size()), by_rank.data(), opt);
  return core::in_caller_order(set, std::span<const T>(by_rank));
}

bool cuda_available() noexcept {
#ifdef KSELECT_WITH_CUDA
  return cuda_backend::available();
#else
  return false;
#endif
}

device_kind pointer_location(const void* p) noexcept {
#ifdef KSELECT_WITH_CUDA
  return cuda_backend::is_device_pointer(p) ? device_kind::cuda : device_kind::cpu;
#else
  (void)p;
  return device_kind::cpu;
#endif
}

#define KSELECT_INSTANTIATE(T)                                                  \
  template T select<T>(const T*, std::int64_t, std::int64_t, const options&);  \
  template std::vector<T> multiselect<T>(const T*, std::int64_t,               \
                                         std::span<const std::int64_t>, const options&);
KSELECT_FOR_EACH_KEY_TYPE(KSELECT_INSTANTIATE)
#undef KSELECT_INSTANTIATE

}  // namespace kselect
