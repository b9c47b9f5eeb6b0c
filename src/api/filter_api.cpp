// The filters of the owning API (include/kselect/filter.hpp): argument checks and
// backend choice; the work is in api/dispatch.cpp's run_filter and src/cpu/filter.cpp.
#include <charconv>
#include <cmath>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "api/dispatch.hpp"
#include "kselect/detail/nvtx.hpp"
#include "kselect/filter.hpp"
#include "kselect/kselect.hpp"

namespace kselect {
namespace {

/// A key as its shortest exact text (std::to_chars), for messages.
template <class T>
std::string text_of(T x) {
  char buf[64];
  const auto res = std::to_chars(buf, buf + sizeof buf, x);
  return std::string(buf, res.ptr);
}

/// A known op; a range's bounds not NaN and lo <= hi.
template <class T>
void check_predicate(const predicate<T>& pred) {
  switch (pred.op) {
    case filter_op::lt:
    case filter_op::le:
    case filter_op::gt:
    case filter_op::ge:
    case filter_op::eq:
    case filter_op::ne:
      return;
    case filter_op::range:
      if constexpr (std::is_floating_point_v<T>) {
        if (std::isnan(pred.value)) throw std::invalid_argument("kselect: in_range: lo is NaN");
        if (std::isnan(pred.hi)) throw std::invalid_argument("kselect: in_range: hi is NaN");
      }
      if (pred.value > pred.hi)
        throw std::invalid_argument("kselect: in_range: lo = " + text_of(pred.value) + " is greater than hi = " +
                                    text_of(pred.hi) + " (the range is lo <= x < hi)");
      return;
  }
  throw std::invalid_argument("kselect: predicate.op = " + std::to_string(static_cast<int>(pred.op)) +
                              " is not a filter_op");
}

/// An array the CPU backend would read next to `values` must live where values does.
void check_same_memory(const void* values, const void* other, const char* other_name) {
  if (other == nullptr || values == nullptr) return;
  if (pointer_location(other) != pointer_location(values))
    throw std::invalid_argument(std::string("kselect: ") + other_name + " points to " +
                                (pointer_location(other) == device_kind::cuda ? "device" : "host") +
                                " memory but values does not");
}

}  // namespace

namespace detail {

template <class T>
std::int64_t filter(const T* values, std::int64_t n, const filter_condition<T>& cond, const void* payload,
                    std::size_t payload_bytes, bool partition, bool with_indices, filter_target& target,
                    const options& opt) {
  KSELECT_NVTX_RANGE("kselect::filter");
  check_array(values, n, opt);
  if (cond.flagged) {
    check_array(cond.flags, n, opt, "flags");
    check_same_memory(values, cond.flags, "flags");
  } else {
    check_predicate(cond.pred);
  }
  if (payload_bytes > 0) {
    check_array(payload, n, opt, "payload");
    check_same_memory(values, payload, "payload");
  }
  if (n == 0) {
    target.allocate(0);
    return 0;
  }
  return run_filter(choose_backend(values, opt), values, n, cond, payload, payload_bytes, partition, with_indices,
                    target, opt);
}

}  // namespace detail

template <class T>
std::int64_t count_if(const T* values, std::int64_t n, const predicate<T>& pred, const options& opt) {
  KSELECT_NVTX_RANGE("kselect::count_if");
  detail::check_array(values, n, opt);
  check_predicate(pred);
  if (n == 0) return 0;
  return detail::run_count_if(detail::choose_backend(values, opt), values, n, pred, opt);
}

template <class T>
std::int64_t filter_if_inplace(T* values, std::int64_t n, const predicate<T>& pred, const options& opt) {
  KSELECT_NVTX_RANGE("kselect::filter_if_inplace");
  detail::check_array(values, n, opt);
  check_predicate(pred);
  if (n == 0) return 0;
  return detail::run_filter_inplace(detail::choose_backend(values, opt), values, n, pred, opt);
}

#define KSELECT_INSTANTIATE(T)                                                                                  \
  template std::int64_t detail::filter<T>(const T*, std::int64_t, const detail::filter_condition<T>&,           \
                                          const void*, std::size_t, bool, bool, detail::filter_target&,         \
                                          const options&);                                                      \
  template std::int64_t count_if<T>(const T*, std::int64_t, const predicate<T>&, const options&);               \
  template std::int64_t filter_if_inplace<T>(T*, std::int64_t, const predicate<T>&, const options&);
KSELECT_FOR_EACH_KEY_TYPE(KSELECT_INSTANTIATE)
#undef KSELECT_INSTANTIATE

}  // namespace kselect
