#include "api/dispatch.hpp"

#include <new>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "api/input_elements.hpp"
#include "cpu/cpu_select.hpp"
#include "cpu/filter.hpp"
#ifdef KSELECT_WITH_CUDA
#include "cuda/backend.hpp"
#include "cuda/streamed/streamed_range.hpp"
#include "cuda/streamed/streamed_select.hpp"
#endif

namespace kselect::detail {
namespace {

/// Buckets of the CPU approximate counting pass: cpu::approx_multiselect's default,
/// as device::approx_config's (the owning API has no option for it).
constexpr int cpu_approx_buckets = 1024;

}  // namespace

void check_array(const void* array, std::int64_t n, const options& opt, const char* name) {
  if (n < 0) throw std::invalid_argument("kselect: n = " + std::to_string(n) + " is negative");
  if (array == nullptr && n > 0)
    throw std::invalid_argument(std::string("kselect: ") + name + " is null (n = " + std::to_string(n) + ")");
  if (opt.cpu_threads < 0)
    throw std::invalid_argument("kselect: options.cpu_threads = " + std::to_string(opt.cpu_threads) +
                                " is negative (0 means the OpenMP default)");
}

void check_input(const void* values, std::int64_t n, const options& opt) {
  if (n <= 0)
    throw std::invalid_argument("kselect: n = " + std::to_string(n) +
                                ": the input is empty (n must be at least 1)");
  check_array(values, n, opt, "values");
}

backend choose_backend(const void* values, const options& opt, host_input host) {
#ifdef KSELECT_WITH_CUDA
  const bool on_device = cuda_backend::is_device_pointer(values);
#else
  (void)values;
  const bool on_device = false;
#endif
  switch (opt.device) {
    case device_kind::automatic:
      return on_device ? backend::cuda : backend::cpu;
    case device_kind::cpu:
      if (on_device)
        throw std::invalid_argument(
            "kselect: options.device is cpu but values points to device memory");
      return backend::cpu;
    case device_kind::cuda:
#ifdef KSELECT_WITH_CUDA
      if (!on_device) {
        if (host == host_input::stream) return backend::cuda_host;
        throw std::invalid_argument(
            "kselect: options.device is cuda but values points to host memory (only select, multiselect, "
            "quantile, nanquantile, topk and rank_range stream host arrays through the GPU)");
      }
      return backend::cuda;
#else
      throw std::invalid_argument("kselect was built without CUDA");
#endif
  }
  throw std::invalid_argument("kselect: options.device = " +
                              std::to_string(static_cast<int>(opt.device)) + " is not a device_kind");
}

template <class T>
void run_multiselect(backend b, const T* values, std::int64_t n, const std::int64_t* ranks,
                     std::int64_t num_ranks, T* out, const options& opt) {
  if (num_ranks == 0) return;
#ifdef KSELECT_WITH_CUDA
  if (b == backend::cuda) cuda_backend::multiselect(values, n, ranks, num_ranks, out, opt);
  if (b == backend::cuda_host) {
    // Host input streamed through the GPU: the pass saw whether any element has bits
    // other than its key's value; if so, zeros and NaNs are looked up on the host.
    if (!cuda_backend::streamed_multiselect(values, n, ranks, num_ranks, out, opt))
      restore_input_elements(backend::cpu, values, n, ranks, num_ranks, out, opt);
    return;
  }
#endif
  if (b == backend::cpu) cpu_call([&] { cpu::multiselect(values, n, ranks, num_ranks, out, opt.cpu_threads); });
  restore_input_elements(b, values, n, ranks, num_ranks, out, opt);
}

template <class T>
void run_range_select(backend b, const T* values, std::int64_t n, std::int64_t lo, std::int64_t hi,
                      bool descending, bool sorted, bool deterministic, T* out_values,
                      std::int64_t* out_indices, const options& opt) {
  if (hi == lo) return;
#ifdef KSELECT_WITH_CUDA
  if (b == backend::cuda) {
    cuda_backend::range_select(values, n, lo, hi, descending, sorted, deterministic, out_values, out_indices,
                               opt);
    return;
  }
  if (b == backend::cuda_host) {
    // Streamed through the GPU: the CPU backend's answer, so always deterministic.
    cuda_backend::streamed_range_select(values, n, lo, hi, descending, sorted, out_values, out_indices, opt);
    return;
  }
#else
  (void)b;
#endif
  // The CPU backend is always deterministic.
  (void)deterministic;
  cpu_call([&] {
    cpu::range_select(values, n, lo, hi, descending, sorted, out_values, out_indices, opt.cpu_threads);
  });
}

template <class T>
void run_approx_multiselect(backend b, const T* values, std::int64_t n, const std::int64_t* ranks,
                            std::int64_t num_ranks, std::int64_t max_rank_error, T* out,
                            std::int64_t* out_ranks, const options& opt) {
  if (num_ranks == 0) return;
#ifdef KSELECT_WITH_CUDA
  if (b == backend::cuda)
    cuda_backend::approx_multiselect(values, n, ranks, num_ranks, max_rank_error, out, out_ranks, opt);
#endif
  if (b == backend::cpu)
    cpu_call([&] {
      cpu::approx_multiselect(values, n, ranks, num_ranks, max_rank_error, out, out_ranks,
                              cpu_approx_buckets, opt.cpu_threads);
    });
  // The element at its exact rank, bit for bit.
  restore_input_elements(b, values, n, out_ranks, num_ranks, out, opt);
}

template <class T>
std::int64_t run_count_nan(backend b, const T* values, std::int64_t n, const options& opt) {
  if constexpr (!std::is_floating_point_v<T>) {
    (void)b, (void)values, (void)n, (void)opt;
    return 0;
  } else {
#ifdef KSELECT_WITH_CUDA
    if (b == backend::cuda) return cuda_backend::count_nan(values, n, opt);
#else
    (void)b;
#endif
    // The CPU also counts the NaNs of host input streamed through the GPU (cuda_host).
    return cpu_call([&] { return cpu::count_nan(values, n, opt.cpu_threads); });
  }
}

template <class T>
std::int64_t run_filter(backend b, const T* values, std::int64_t n, const filter_condition<T>& cond,
                        const void* payload, std::size_t payload_bytes, bool partition, bool with_indices,
                        filter_target& target, const options& opt) {
#ifdef KSELECT_WITH_CUDA
  if (b == backend::cuda)
    return cuda_backend::filter(values, n, cond, payload, payload_bytes, partition, with_indices, target, opt);
#else
  (void)b;
#endif
  return cpu_call([&] {
    const std::uint8_t* flags = cond.flagged ? cond.flags : nullptr;
    const cpu::filter_plan plan = cpu::filter_count(values, n, cond.pred, flags, opt.cpu_threads);
    const filter_buffers out = target.allocate(partition ? n : plan.selected());
    cpu::filter_write(values, cond.pred, flags, plan, payload, payload_bytes, partition,
                      static_cast<T*>(out.values), with_indices ? out.indices : nullptr,
                      payload_bytes > 0 ? out.payload : nullptr, opt.cpu_threads);
    return plan.selected();
  });
}

template <class T>
std::int64_t run_count_if(backend b, const T* values, std::int64_t n, const predicate<T>& pred,
                          const options& opt) {
#ifdef KSELECT_WITH_CUDA
  if (b == backend::cuda) return cuda_backend::count_if(values, n, pred, opt);
#else
  (void)b;
#endif
  return cpu_call([&] { return cpu::count_if(values, n, pred, opt.cpu_threads); });
}

template <class T>
std::int64_t run_filter_inplace(backend b, T* values, std::int64_t n, const predicate<T>& pred,
                                const options& opt) {
#ifdef KSELECT_WITH_CUDA
  if (b == backend::cuda) return cuda_backend::filter_inplace(values, n, pred, opt);
#else
  (void)b;
#endif
  return cpu_call([&] { return cpu::filter_inplace(values, n, pred, opt.cpu_threads); });
}

#define KSELECT_INSTANTIATE(T)                                                                   \
  template void run_multiselect<T>(backend, const T*, std::int64_t, const std::int64_t*,         \
                                   std::int64_t, T*, const options&);                            \
  template void run_range_select<T>(backend, const T*, std::int64_t, std::int64_t, std::int64_t, \
                                    bool, bool, bool, T*, std::int64_t*, const options&);        \
  template void run_approx_multiselect<T>(backend, const T*, std::int64_t, const std::int64_t*,  \
                                          std::int64_t, std::int64_t, T*, std::int64_t*,         \
                                          const options&);                                       \
  template std::int64_t run_count_nan<T>(backend, const T*, std::int64_t, const options&);        \
  template std::int64_t run_filter<T>(backend, const T*, std::int64_t, const filter_condition<T>&, \
                                      const void*, std::size_t, bool, bool, filter_target&,      \
                                      const options&);                                           \
  template std::int64_t run_count_if<T>(backend, const T*, std::int64_t, const predicate<T>&,    \
                                        const options&);                                         \
  template std::int64_t run_filter_inplace<T>(backend, T*, std::int64_t, const predicate<T>&,    \
                                              const options&);
KSELECT_FOR_EACH_KEY_TYPE(KSELECT_INSTANTIATE)
#undef KSELECT_INSTANTIATE

}  // namespace kselect::detail
