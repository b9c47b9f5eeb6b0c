// kselect::topk, kselect::rank_range, kselect::approx_multiselect and
// kselect::approx_select (include/kselect/kselect.hpp): argument checks, backend
// choice, and results in the caller's order.
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "api/dispatch.hpp"
#include "kselect/detail/nvtx.hpp"
#include "kselect/kselect.hpp"
#include "core/ranks.hpp"

namespace kselect {
namespace {

std::string for_n(std::int64_t n) { return " for n = " + std::to_string(n); }

/// 0 <= lo <= hi <= n, each violation named by its argument.
void check_range(std::int64_t lo, std::int64_t hi, std::int64_t n) {
  if (lo < 0) throw std::invalid_argument("kselect: lo = " + std::to_string(lo) + " is negative");
  if (hi < 0) throw std::invalid_argument("kselect: hi = " + std::to_string(hi) + " is negative");
  if (hi > n) throw std::invalid_argument("kselect: hi = " + std::to_string(hi) + " is greater than n" + for_n(n));
  if (lo > hi)
    throw std::invalid_argument("kselect: lo = " + std::to_string(lo) + " is greater than hi = " +
                                std::to_string(hi) + " (need 0 <= lo <= hi <= n)");
}

void check_max_rank_error(std::int64_t max_rank_error) {
  if (max_rank_error < 0)
    throw std::invalid_argument("kselect: max_rank_error = " + std::to_string(max_rank_error) +
                                " is negative (0 means exact)");
}

/// The selection of stable-sort positions [lo, hi), validated by the caller.
template <class T>
selection<T> run_range(const T* values, std::int64_t n, std::int64_t lo, std::int64_t hi, bool descending,
                       bool sorted, bool deterministic, bool with_indices, const options& opt) {
  const detail::backend b = detail::choose_backend(values, opt, detail::host_input::stream);
  selection<T> out;
  out.values.resize(static_cast<std::size_t>(hi - lo));
  if (with_indices) out.indices.resize(static_cast<std::size_t>(hi - lo));
  detail::run_range_select(b, values, n, lo, hi, descending, sorted, deterministic, out.values.data(),
                           with_indices ? out.indices.data() : nullptr, opt);
  return out;
}

}  // namespace

// An empty input is an error here too, even for k = 0 (or lo = hi = 0): every
// owning-API call rejects it the same way (detail::check_input).
template <class T>
selection<T> topk(const T* values, std::int64_t n, std::int64_t k, const topk_options& t, const options& opt) {
  KSELECT_NVTX_RANGE("kselect::topk");
  detail::check_input(values, n, opt);
  if (k < 0 || k > n)
    throw std::invalid_argument("kselect: k = " + std::to_string(k) + " is outside [0, n]" + for_n(n));
  return run_range(values, n, 0, k, t.largest, t.sorted, t.deterministic, t.indices, opt);
}

template <class T>
selection<T> rank_range(const T* values, std::int64_t n, std::int64_t lo, std::int64_t hi, const range_options& r,
                        const options& opt) {
  KSELECT_NVTX_RANGE("kselect::rank_range");
  detail::check_input(values, n, opt);
  check_range(lo, hi, n);
  return run_range(values, n, lo, hi, false, r.sorted, r.deterministic, r.indices, opt);
}

template <class T>
std::vector<ranked_value<T>> approx_multiselect(const T* values, std::int64_t n,
                                                std::span<const std::int64_t> ranks,
                                                std::int64_t max_rank_error, const options& opt) {
  KSELECT_NVTX_RANGE("kselect::approx_multiselect");
  detail::check_input(values, n, opt);
  check_max_rank_error(max_rank_error);
  const core::rank_set set = core::normalize_ranks(ranks, n);
  const detail::backend b = detail::choose_backend(values, opt);
  const std::size_t r = set.sorted.size();
  std::vector<T> out(r);
  std::vector<std::int64_t> out_ranks(r);
  detail::run_approx_multiselect(b, values, n, set.sorted.data(), static_cast<std::int64_t>(r),
                                 max_rank_error, out.data(), out_ranks.data(), opt);
  std::vector<ranked_value<T>> by_rank(r);
  for (std::size_t i = 0; i < r; ++i) by_rank[i] = {out[i], out_ranks[i]};
  return core::in_caller_order(set, std::span<const ranked_value<T>>(by_rank));
}

template <class T>
ranked_value<T> approx_select(const T* values, std::int64_t n, std::int64_t k, std::int64_t max_rank_error,
                              const options& opt) {
  KSELECT_NVTX_RANGE("kselect::approx_select");
  detail::check_input(values, n, opt);
  core::check_rank(k, 0, n);
  return approx_multiselect(values, n, std::span<const std::int64_t>(&k, 1), max_rank_error, opt).front();
}

#define KSELECT_INSTANTIATE(T)                                                                           \
  template selection<T> topk<T>(const T*, std::int64_t, std::int64_t, const topk_options&, const options&); \
  template selection<T> rank_range<T>(const T*, std::int64_t, std::int64_t, std::int64_t,                 \
                                      const range_options&, const options&);                             \
  template std::vector<ranked_value<T>> approx_multiselect<T>(                                           \
      const T*, std::int64_t, std::span<const std::int64_t>, std::int64_t, const options&);              \
  template ranked_value<T> approx_select<T>(const T*, std::int64_t, std::int64_t, std::int64_t, const options&);
KSELECT_FOR_EACH_KEY_TYPE(KSELECT_INSTANTIATE)
#undef KSELECT_INSTANTIATE

}  // namespace kselect
