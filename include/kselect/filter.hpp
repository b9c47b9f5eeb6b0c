// kselect: order-preserving filtering (stream compaction) in the owning API.
//
// The elements of values[0..n) that satisfy a predicate (or whose flag is set),
// densely, in their input order, bit for bit; optionally with their input
// positions (filter_options::indices) or with a paired payload array gathered
// alongside. partition() puts the rest after them, also in input order.
//
// Predicates compare each element with constants of the key type, as NumPy's
// boolean masks do (`a < c`, `(lo <= a) & (a < hi)`): IEEE comparisons, so a NaN
// element satisfies only ne, and -0.0 == +0.0. A NaN constant makes lt, le, gt,
// ge and eq select nothing and ne everything; a range's bounds may not be NaN.
//
// Arguments as elsewhere in the owning API (kselect/kselect.hpp): caller mistakes
// throw std::invalid_argument naming the argument, other failures kselect::error.
// Unlike selection, an empty input (n == 0) is valid here and gives an empty result
// (no backend is involved then).
//
// Backends: the CPU (OpenMP) for host memory, the GPU for device memory (the device
// filters of kselect/device_filter.cuh; the results come back to host vectors).
// options::device == cuda with host memory, or in a build without CUDA, is a caller
// mistake as elsewhere.
//
// Key types: float, double, int32_t, uint32_t, int64_t, uint64_t; the payload of
// the *_pairs functions: any trivially copyable, default-constructible type.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "kselect/types.hpp"

namespace kselect {

// The predicates are device functors too when nvcc compiles this header (the
// device filters of kselect/device_filter.cuh take them).
#if defined(__CUDACC__)
#define KSELECT_PREDICATE_HD __host__ __device__
#else
#define KSELECT_PREDICATE_HD
#endif

/// The comparison a predicate makes: element < c, <= c, > c, >= c, == c, != c, or
/// lo <= element < hi (range).
enum class filter_op { lt, le, gt, ge, eq, ne, range };

/// A filter predicate over keys of type T. Make one with lt(c), le(c), gt(c),
/// ge(c), eq(c), ne(c) or in_range(lo, hi); the constants have the key type
/// (lt(0.5f) for float keys, lt<std::int64_t>(5) for int64_t keys).
template <class T>
struct predicate {
  filter_op op = filter_op::lt;
  T value{};  ///< the constant; for range, lo
  T hi{};     ///< for range only: the exclusive upper bound

  /// Whether x satisfies the predicate (IEEE comparisons: NaN compares false).
  KSELECT_PREDICATE_HD constexpr bool operator()(T x) const noexcept {
    switch (op) {
      case filter_op::lt: return x < value;
      case filter_op::le: return x <= value;
      case filter_op::gt: return x > value;
      case filter_op::ge: return x >= value;
      case filter_op::eq: return x == value;
      case filter_op::ne: return x != value;
      case filter_op::range: return value <= x && x < hi;
    }
    return false;
  }
};

template <class T>
constexpr predicate<T> lt(T c) noexcept { return {filter_op::lt, c, T{}}; }
template <class T>
constexpr predicate<T> le(T c) noexcept { return {filter_op::le, c, T{}}; }
template <class T>
constexpr predicate<T> gt(T c) noexcept { return {filter_op::gt, c, T{}}; }
template <class T>
constexpr predicate<T> ge(T c) noexcept { return {filter_op::ge, c, T{}}; }
template <class T>
constexpr predicate<T> eq(T c) noexcept { return {filter_op::eq, c, T{}}; }
template <class T>
constexpr predicate<T> ne(T c) noexcept { return {filter_op::ne, c, T{}}; }
/// lo <= x < hi. The filters throw std::invalid_argument when lo > hi or a bound
/// is NaN; lo == hi selects nothing.
template <class T>
constexpr predicate<T> in_range(T lo, T hi) noexcept { return {filter_op::range, lo, hi}; }

/// Options of the filters.
///  - indices: also return the input position of every output element.
struct filter_options {
  bool indices = false;
};

/// Result of filter_if, filter_range and filter_flagged: the selected elements in
/// input order and, with filter_options::indices, their positions (else empty).
template <class T>
struct filtered {
  std::vector<T> values;
  std::vector<std::int64_t> indices;
};

/// Result of partition: all n elements, the `selected` ones first, then the others,
/// each part in input order; with filter_options::indices, their positions.
template <class T>
struct partitioned {
  std::vector<T> values;
  std::vector<std::int64_t> indices;
  std::int64_t selected = 0;
};

/// filtered, with the paired payload's elements at the same positions.
template <class T, class V>
struct filtered_pairs {
  std::vector<T> values;
  std::vector<V> payload;
  std::vector<std::int64_t> indices;
};

/// partitioned, with the paired payload's elements at the same positions.
template <class T, class V>
struct partitioned_pairs {
  std::vector<T> values;
  std::vector<V> payload;
  std::vector<std::int64_t> indices;
  std::int64_t selected = 0;
};

namespace detail {

/// Output storage of a filter call, asked for by the backend once it knows how
/// many elements it writes (the count, or n for a partition); null: not wanted.
struct filter_buffers {
  void* values = nullptr;
  std::int64_t* indices = nullptr;
  void* payload = nullptr;
};

/// Where a filter call puts its results: the public functions below size their
/// vectors through it, so a payload of any type goes through one compiled entry point.
class filter_target {
 public:
  virtual filter_buffers allocate(std::int64_t size) = 0;

 protected:
  ~filter_target() = default;
};

/// What a filter call selects by: flags[i] != 0 when `flagged`, else pred(values[i]).
template <class T>
struct filter_condition {
  predicate<T> pred{};
  bool flagged = false;
  const std::uint8_t* flags = nullptr;
};

/// The one entry point of the filters: validates, picks the backend, fills `target`
/// and returns the number of selected elements. `payload` (payload_bytes per element)
/// may be null when payload_bytes == 0.
template <class T>
std::int64_t filter(const T* values, std::int64_t n, const filter_condition<T>& cond, const void* payload,
                    std::size_t payload_bytes, bool partition, bool with_indices, filter_target& target,
                    const options& opt);

/// The vectors of one result: values, payload (null: none) and indices (null: none).
template <class T, class V>
class vector_target final : public filter_target {
 public:
  vector_target(std::vector<T>& values, std::vector<V>* payload, std::vector<std::int64_t>* indices)
      : values_(values), payload_(payload), indices_(indices) {}
  filter_buffers allocate(std::int64_t size) override {
    const auto m = static_cast<std::size_t>(size);
    filter_buffers b;
    values_.resize(m);
    b.values = values_.data();
    if (payload_) {
      payload_->resize(m);
      b.payload = payload_->data();
    }
    if (indices_) {
      indices_->resize(m);
      b.indices = indices_->data();
    }
    return b;
  }

 private:
  std::vector<T>& values_;
  std::vector<V>* payload_;
  std::vector<std::int64_t>* indices_;
};

template <class T>
constexpr void check_filter_key() {
  static_assert(is_supported_key_v<T>,
                "kselect filters take float, double, int32_t, uint32_t, int64_t or uint64_t keys");
}

template <class V>
constexpr void check_filter_payload() {
  static_assert(std::is_trivially_copyable_v<V> && std::is_default_constructible_v<V>,
                "kselect: the payload of a *_pairs filter must be trivially copyable and default-constructible");
}

/// detail::filter into a result's vectors (payload_out null: no payload; V unused).
template <class T, class V>
std::int64_t filter_into(std::vector<T>& values_out, std::vector<V>* payload_out,
                         std::vector<std::int64_t>& indices_out, const T* values, std::int64_t n,
                         const filter_condition<T>& cond, const V* payload, bool partition, const filter_options& f,
                         const options& opt) {
  check_filter_key<T>();
  vector_target<T, V> target(values_out, payload_out, f.indices ? &indices_out : nullptr);
  return filter(values, n, cond, payload, payload_out ? sizeof(V) : 0, partition, f.indices, target, opt);
}

}  // namespace detail

/// The elements of values[0..n) satisfying `pred`, in input order (n >= 0;
/// values may be null when n == 0).
template <class T>
filtered<T> filter_if(const T* values, std::int64_t n, const predicate<T>& pred, const filter_options& f = {},
                      const options& opt = {}) {
  filtered<T> out;
  detail::filter_into<T, T>(out.values, nullptr, out.indices, values, n, {pred}, nullptr, false, f, opt);
  return out;
}

/// filter_if with in_range(lo, hi): the elements with lo <= x < hi.
template <class T>
filtered<T> filter_range(const T* values, std::int64_t n, T lo, T hi, const filter_options& f = {},
                         const options& opt = {}) {
  return filter_if(values, n, in_range(lo, hi), f, opt);
}

/// The elements values[i] with flags[i] != 0, in input order.
template <class T>
filtered<T> filter_flagged(const T* values, std::int64_t n, const std::uint8_t* flags,
                           const filter_options& f = {}, const options& opt = {}) {
  filtered<T> out;
  detail::filter_into<T, T>(out.values, nullptr, out.indices, values, n, {predicate<T>{}, true, flags}, nullptr,
                            false, f, opt);
  return out;
}

/// All n elements: those satisfying `pred` first, then the others, each in input order.
template <class T>
partitioned<T> partition(const T* values, std::int64_t n, const predicate<T>& pred, const filter_options& f = {},
                         const options& opt = {}) {
  partitioned<T> out;
  out.selected =
      detail::filter_into<T, T>(out.values, nullptr, out.indices, values, n, {pred}, nullptr, true, f, opt);
  return out;
}

/// The number of elements of values[0..n) satisfying `pred`.
template <class T>
std::int64_t count_if(const T* values, std::int64_t n, const predicate<T>& pred, const options& opt = {});

/// Filters values[0..n) in place: the selected elements move, in input order, to
/// values[0..count); returns count. values[count..n) is left unspecified (it holds
/// input elements). Needs no memory beyond a few counters per thread.
template <class T>
std::int64_t filter_if_inplace(T* values, std::int64_t n, const predicate<T>& pred, const options& opt = {});

template <class T>
std::int64_t filter_if_inplace(std::span<T> values, const predicate<T>& pred, const options& opt = {}) {
  return filter_if_inplace(values.data(), static_cast<std::int64_t>(values.size()), pred, opt);
}

/// filter_if on keys[0..n), gathering payload[i] with every selected keys[i].
template <class T, class V>
filtered_pairs<T, V> filter_if_pairs(const T* keys, const V* payload, std::int64_t n, const predicate<T>& pred,
                                     const filter_options& f = {}, const options& opt = {}) {
  detail::check_filter_payload<V>();
  filtered_pairs<T, V> out;
  detail::filter_into<T, V>(out.values, &out.payload, out.indices, keys, n, {pred}, payload, false, f, opt);
  return out;
}

/// filter_flagged on keys[0..n), gathering payload[i] with every selected keys[i].
template <class T, class V>
filtered_pairs<T, V> filter_flagged_pairs(const T* keys, const V* payload, std::int64_t n,
                                          const std::uint8_t* flags, const filter_options& f = {},
                                          const options& opt = {}) {
  detail::check_filter_payload<V>();
  filtered_pairs<T, V> out;
  detail::filter_into<T, V>(out.values, &out.payload, out.indices, keys, n, {predicate<T>{}, true, flags}, payload,
                            false, f, opt);
  return out;
}

/// partition of keys[0..n), moving payload[i] with every keys[i].
template <class T, class V>
partitioned_pairs<T, V> partition_pairs(const T* keys, const V* payload, std::int64_t n, const predicate<T>& pred,
                                        const filter_options& f = {}, const options& opt = {}) {
  detail::check_filter_payload<V>();
  partitioned_pairs<T, V> out;
  out.selected =
      detail::filter_into<T, V>(out.values, &out.payload, out.indices, keys, n, {pred}, payload, true, f, opt);
  return out;
}

// Conveniences on host containers.
template <class T>
filtered<T> filter_if(const std::vector<T>& values, const predicate<T>& pred, const filter_options& f = {},
                      const options& opt = {}) {
  return filter_if(values.data(), static_cast<std::int64_t>(values.size()), pred, f, opt);
}
template <class T>
filtered<T> filter_range(const std::vector<T>& values, T lo, T hi, const filter_options& f = {},
                         const options& opt = {}) {
  return filter_range(values.data(), static_cast<std::int64_t>(values.size()), lo, hi, f, opt);
}
/// flags.size() must equal values.size().
template <class T>
filtered<T> filter_flagged(const std::vector<T>& values, const std::vector<std::uint8_t>& flags,
                           const filter_options& f = {}, const options& opt = {}) {
  if (flags.size() != values.size())
    throw std::invalid_argument("kselect: flags.size() = " + std::to_string(flags.size()) +
                                " differs from values.size() = " + std::to_string(values.size()));
  return filter_flagged(values.data(), static_cast<std::int64_t>(values.size()), flags.data(), f, opt);
}
template <class T>
partitioned<T> partition(const std::vector<T>& values, const predicate<T>& pred, const filter_options& f = {},
                         const options& opt = {}) {
  return partition(values.data(), static_cast<std::int64_t>(values.size()), pred, f, opt);
}
template <class T>
std::int64_t count_if(const std::vector<T>& values, const predicate<T>& pred, const options& opt = {}) {
  return count_if(values.data(), static_cast<std::int64_t>(values.size()), pred, opt);
}

#define KSELECT_DECLARE_FILTER_API(T)                                                                     \
  extern template std::int64_t detail::filter<T>(const T*, std::int64_t, const detail::filter_condition<T>&, \
                                                 const void*, std::size_t, bool, bool, detail::filter_target&, \
                                                 const options&);                                         \
  extern template std::int64_t count_if<T>(const T*, std::int64_t, const predicate<T>&, const options&);  \
  extern template std::int64_t filter_if_inplace<T>(T*, std::int64_t, const predicate<T>&, const options&);
KSELECT_FOR_EACH_KEY_TYPE(KSELECT_DECLARE_FILTER_API)
#undef KSELECT_DECLARE_FILTER_API

}  // namespace kselect
