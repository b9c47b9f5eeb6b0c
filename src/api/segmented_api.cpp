// The segmented owning API (include/kselect/segmented.hpp): argument checks (every
// message names the argument, and for ranks the first segment they do not fit), a
// host copy of offsets given in device memory (they are checked on the host), the
// backend choice, and the calls into cpu/segmented.hpp or the CUDA backend.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <new>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "api/dispatch.hpp"
#include "core/quantile_math.hpp"
#include "core/segments.hpp"
#include "cpu/segmented.hpp"
#include "kselect/detail/nvtx.hpp"
#include "kselect/kselect.hpp"
#include "kselect/segmented.hpp"
#ifdef KSELECT_WITH_CUDA
#include <cuda_runtime_api.h>

#include "cuda/backend.hpp"
#endif

namespace kselect {
namespace {

#ifdef KSELECT_WITH_CUDA
/// count device int64s copied to the host, ordered after the work queued on opt.stream
/// (which may be what wrote them).
std::vector<std::int64_t> copy_to_host(const std::int64_t* d_values, std::int64_t count, const options& opt) {
  std::vector<std::int64_t> host(static_cast<std::size_t>(count));
  const auto stream = static_cast<cudaStream_t>(opt.stream);
  cudaError_t e = cudaMemcpyAsync(host.data(), d_values, host.size() * sizeof(std::int64_t),
                                  cudaMemcpyDeviceToHost, stream);
  if (e == cudaSuccess) e = cudaStreamSynchronize(stream);
  if (e != cudaSuccess) {
    (void)cudaGetLastError();  // a non-sticky error must not fail the caller's next CUDA call
    throw error(std::string("kselect: copying the offsets to the host failed: ") + cudaGetErrorString(e));
  }
  return host;
}
#endif

/// The caller's segments, checked, with their offsets readable on the host.
class batch {
 public:
  batch(const void* values, std::int64_t n, const segments& segs, const options& opt) : n_(n), given_(segs) {
    detail::check_array(values, n, opt, "values");
#ifdef KSELECT_WITH_CUDA
    if (segs.offsets && segs.count >= 1 && pointer_location(segs.offsets) == device_kind::cuda) {
      offsets_on_device_ = true;
      host_offsets_ = copy_to_host(segs.offsets, segs.count + 1, opt);
    }
#endif
    core::check_segments(segs.count, segs.row_length, host_offsets(), n);
  }
  batch(const batch&) = delete;
  batch& operator=(const batch&) = delete;

  std::int64_t count() const { return given_.count; }
  std::int64_t length(std::int64_t i) const {
    return core::bounds_of(i, host_offsets(), given_.row_length).length();
  }
  /// The segments with host offsets, for the CPU backend.
  segments on_host() const { return segments{given_.count, given_.row_length, host_offsets()}; }
#ifdef KSELECT_WITH_CUDA
  /// The caller's offsets, wherever they are (the CUDA backend reads either).
  cuda_backend::segmented_shape shape() const {
    return cuda_backend::segmented_shape{n_, given_.count, given_.row_length, given_.offsets, offsets_on_device_};
  }
#endif

 private:
  const std::int64_t* host_offsets() const { return offsets_on_device_ ? host_offsets_.data() : given_.offsets; }

  [[maybe_unused]] std::int64_t n_;  // the CUDA backend's shape only
  segments given_;
  bool offsets_on_device_ = false;
  std::vector<std::int64_t> host_offsets_;
};

/// Throws naming the first segment that one of `ranks` does not fit, and that rank
/// ("ranks[2]" when indexed, else `name` itself).
void check_ranks_in_every_segment(const batch& b, std::span<const std::int64_t> ranks, const std::string& name,
                                  bool indexed) {
  if (ranks.empty()) return;
  const auto [lowest, highest] = std::minmax_element(ranks.begin(), ranks.end());
  for (std::int64_t i = 0; i < b.count(); ++i) {
    const std::int64_t len = b.length(i);
    if (*lowest >= 0 && *highest < len) continue;
    for (std::size_t j = 0; j < ranks.size(); ++j) {
      const std::string what = indexed ? name + "[" + std::to_string(j) + "]" : name;
      core::check_rank_in_segment(ranks[j], i, len, what.c_str());
    }
  }
}

/// One k per segment: as many ks as segments, ks[i] inside segment i.
void check_ks(const batch& b, std::span<const std::int64_t> ks) {
  if (static_cast<std::int64_t>(ks.size()) != b.count())
    throw std::invalid_argument("kselect: ks has " + std::to_string(ks.size()) + " entries but there are " +
                                std::to_string(b.count()) + " segments");
  for (std::int64_t i = 0; i < b.count(); ++i) {
    const std::int64_t k = ks[static_cast<std::size_t>(i)];
    if (k < 0 || k >= b.length(i))
      core::check_rank_in_segment(k, i, b.length(i), ("ks[" + std::to_string(i) + "]").c_str());
  }
}

/// An (m, cols) result; a size beyond memory is kselect::error, as the backends' failures.
template <class V>
matrix<V> result_matrix(std::int64_t m, std::int64_t cols) {
  if (cols > 0 && m > std::numeric_limits<std::int64_t>::max() / cols)
    throw error("kselect: a result of " + std::to_string(m) + " x " + std::to_string(cols) + " is too large");
  try {
    return matrix<V>{std::vector<V>(static_cast<std::size_t>(m * cols)), m, cols};
  } catch (const std::bad_alloc&) {
    throw error("kselect: out of host memory for a result of " + std::to_string(m) + " x " + std::to_string(cols));
  } catch (const std::length_error&) {
    throw error("kselect: a result of " + std::to_string(m) + " x " + std::to_string(cols) + " is too large");
  }
}

/// Checked arguments: one rank (ks null) or one per segment.
template <class T>
std::vector<T> run_select(const T* values, const batch& b, std::int64_t k, const std::int64_t* ks,
                          const options& opt) {
  const detail::backend where = detail::choose_backend(values, opt);
  matrix<T> out = result_matrix<T>(b.count(), 1);
#ifdef KSELECT_WITH_CUDA
  if (where == detail::backend::cuda) {
    cuda_backend::segmented_select(values, b.shape(), k, ks, out.data.data(), opt);
    return std::move(out.data);
  }
#else
  (void)where;
#endif
  detail::cpu_call([&] { cpu::segmented_select(values, b.on_host(), k, ks, out.data.data(), opt.cpu_threads); });
  return std::move(out.data);
}

/// numpy.quantile (ignore_nan false) or numpy.nanquantile of every segment; numpy_median
/// (qs = {0.5}, linear): numpy.median, the middle values' mean instead of the lerp.
template <class T>
matrix<quantile_value_t<T>> run_quantile(const T* values, std::int64_t n, const segments& segs,
                                         std::span<const double> qs, quantile_method m, bool ignore_nan,
                                         bool numpy_median, const options& opt) {
  const batch b(values, n, segs, opt);
  core::validate_quantiles(qs);
  (void)core::quantile_point_for(1, 0.0, m);  // throws for a method value outside the enum
  const detail::backend where = detail::choose_backend(values, opt);
  const auto r = static_cast<std::int64_t>(qs.size());
  matrix<quantile_value_t<T>> out = result_matrix<quantile_value_t<T>>(b.count(), r);
  if (r == 0) return out;
#ifdef KSELECT_WITH_CUDA
  if (where == detail::backend::cuda) {
    if (numpy_median) cuda_backend::segmented_median(values, b.shape(), out.data.data(), opt);
    else cuda_backend::segmented_quantile(values, b.shape(), qs.data(), r, m, ignore_nan, out.data.data(), opt);
    return out;
  }
#else
  (void)where;
#endif
  detail::cpu_call([&] {
    if (numpy_median) cpu::segmented_median(values, b.on_host(), out.data.data(), opt.cpu_threads);
    else cpu::segmented_quantile(values, b.on_host(), qs.data(), r, m, ignore_nan, out.data.data(), opt.cpu_threads);
  });
  return out;
}

}  // namespace

template <class T>
std::vector<T> segmented_select(const T* values, std::int64_t n, const segments& segs, std::int64_t k,
                                const options& opt) {
  KSELECT_NVTX_RANGE("kselect::segmented_select");
  const batch b(values, n, segs, opt);
  check_ranks_in_every_segment(b, std::span<const std::int64_t>(&k, 1), "k", false);
  return run_select(values, b, k, nullptr, opt);
}

template <class T>
std::vector<T> segmented_select(const T* values, std::int64_t n, const segments& segs,
                                std::span<const std::int64_t> ks, const options& opt) {
  KSELECT_NVTX_RANGE("kselect::segmented_select");
  const batch b(values, n, segs, opt);
  check_ks(b, ks);
  return run_select(values, b, 0, ks.data(), opt);
}

template <class T>
matrix<T> segmented_multiselect(const T* values, std::int64_t n, const segments& segs,
                                std::span<const std::int64_t> ranks, const options& opt) {
  KSELECT_NVTX_RANGE("kselect::segmented_multiselect");
  const batch b(values, n, segs, opt);
  check_ranks_in_every_segment(b, ranks, "ranks", true);
  const detail::backend where = detail::choose_backend(values, opt);
  const auto r = static_cast<std::int64_t>(ranks.size());
  matrix<T> out = result_matrix<T>(b.count(), r);
  if (r == 0) return out;
#ifdef KSELECT_WITH_CUDA
  if (where == detail::backend::cuda) {
    cuda_backend::segmented_multiselect(values, b.shape(), ranks.data(), r, out.data.data(), opt);
    return out;
  }
#else
  (void)where;
#endif
  detail::cpu_call(
      [&] { cpu::segmented_multiselect(values, b.on_host(), ranks.data(), r, out.data.data(), opt.cpu_threads); });
  return out;
}

template <class T>
matrix<quantile_value_t<T>> segmented_quantile(const T* values, std::int64_t n, const segments& segs,
                                               std::span<const double> qs, quantile_method m, const options& opt) {
  KSELECT_NVTX_RANGE("kselect::segmented_quantile");
  return run_quantile(values, n, segs, qs, m, false, false, opt);
}

template <class T>
matrix<quantile_value_t<T>> segmented_nanquantile(const T* values, std::int64_t n, const segments& segs,
                                                  std::span<const double> qs, quantile_method m,
                                                  const options& opt) {
  KSELECT_NVTX_RANGE("kselect::segmented_nanquantile");
  return run_quantile(values, n, segs, qs, m, true, false, opt);
}

template <class T>
std::vector<quantile_value_t<T>> segmented_median(const T* values, std::int64_t n, const segments& segs,
                                                  const options& opt) {
  KSELECT_NVTX_RANGE("kselect::segmented_median");
  const double half = 0.5;
  return run_quantile(values, n, segs, std::span<const double>(&half, 1), quantile_method::linear, false, true, opt)
      .data;
}

template <class T>
segmented_selection<T> segmented_topk(const T* values, std::int64_t n, const segments& segs, std::int64_t k,
                                      const topk_options& t, const options& opt) {
  KSELECT_NVTX_RANGE("kselect::segmented_topk");
  const batch b(values, n, segs, opt);
  if (k < 0) throw std::invalid_argument("kselect: k = " + std::to_string(k) + " is negative");
  const detail::backend where = detail::choose_backend(values, opt);
  segmented_selection<T> out;
  out.values = result_matrix<T>(b.count(), k);
  if (t.indices) out.indices = result_matrix<std::int64_t>(b.count(), k);
  if (k == 0) return out;
  std::int64_t* indices = t.indices ? out.indices.data.data() : nullptr;
#ifdef KSELECT_WITH_CUDA
  if (where == detail::backend::cuda) {
    cuda_backend::segmented_topk(values, b.shape(), k, t.largest, t.sorted, out.values.data.data(), indices, opt);
    return out;
  }
#else
  (void)where;
#endif
  // The CPU backend is always deterministic (ties go to the smaller index).
  detail::cpu_call([&] {
    cpu::segmented_topk(values, b.on_host(), k, t.largest, t.sorted, out.values.data.data(), indices,
                        opt.cpu_threads);
  });
  return out;
}

#define KSELECT_INSTANTIATE(T)                                                                                \
  template std::vector<T> segmented_select<T>(const T*, std::int64_t, const segments&, std::int64_t,         \
                                              const options&);                                               \
  template std::vector<T> segmented_select<T>(const T*, std::int64_t, const segments&,                       \
                                              std::span<const std::int64_t>, const options&);                \
  template matrix<T> segmented_multiselect<T>(const T*, std::int64_t, const segments&,                       \
                                              std::span<const std::int64_t>, const options&);                \
  template matrix<quantile_value_t<T>> segmented_quantile<T>(                                                \
      const T*, std::int64_t, const segments&, std::span<const double>, quantile_method, const options&);    \
  template matrix<quantile_value_t<T>> segmented_nanquantile<T>(                                             \
      const T*, std::int64_t, const segments&, std::span<const double>, quantile_method, const options&);    \
  template std::vector<quantile_value_t<T>> segmented_median<T>(const T*, std::int64_t, const segments&,     \
                                                                const options&);                             \
  template segmented_selection<T> segmented_topk<T>(const T*, std::int64_t, const segments&, std::int64_t,   \
                                                    const topk_options&, const options&);
KSELECT_FOR_EACH_SEGMENTED_KEY_TYPE(KSELECT_INSTANTIATE)
#undef KSELECT_INSTANTIATE

}  // namespace kselect
