// The element types the tool reads, their names and a visitor from a runtime
// dtype to the C++ type. float16 (a .npy '<f2') is read only for the segmented
// commands (input_spec::half_keys); --dtype names the other six.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <type_traits>

#include "kselect/types.hpp"

namespace kselect_cli {

enum class dtype { float32, float64, int32, uint32, int64, uint64, float16 };

/// "float32", "float64", "int32", ..., "float16" (the --dtype and JSON spelling).
std::string_view dtype_name(dtype t) noexcept;
/// NumPy's little-endian descr: "<f4", "<f8", "<i4", "<u4", "<i8", "<u8", "<f2".
std::string_view dtype_descr(dtype t) noexcept;
std::size_t dtype_size(dtype t) noexcept;
/// Parses a --dtype name; std::nullopt when unknown.
std::optional<dtype> parse_dtype_name(std::string_view name) noexcept;
/// Parses a NumPy descr of a supported type ("<f4" or "=f4"); std::nullopt otherwise.
std::optional<dtype> parse_dtype_descr(std::string_view descr) noexcept;
/// "float32, float64, int32, uint32, int64, uint64".
std::string_view dtype_names_list() noexcept;

template <class T>
struct type_tag {
  using type = T;
};

/// Calls f(type_tag<T>{}) with the C++ type T of `t` and returns its result.
template <class F>
decltype(auto) visit_dtype(dtype t, F&& f) {
  switch (t) {
    case dtype::float32: return f(type_tag<float>{});
    case dtype::float64: return f(type_tag<double>{});
    case dtype::int32: return f(type_tag<std::int32_t>{});
    case dtype::uint32: return f(type_tag<std::uint32_t>{});
    case dtype::int64: return f(type_tag<std::int64_t>{});
    case dtype::float16: return f(type_tag<kselect::float16>{});
    case dtype::uint64: break;
  }
  return f(type_tag<std::uint64_t>{});
}

template <class T>
constexpr dtype dtype_of() noexcept {
  if constexpr (std::is_same_v<T, float>) return dtype::float32;
  else if constexpr (std::is_same_v<T, double>) return dtype::float64;
  else if constexpr (std::is_same_v<T, std::int32_t>) return dtype::int32;
  else if constexpr (std::is_same_v<T, std::uint32_t>) return dtype::uint32;
  else if constexpr (std::is_same_v<T, std::int64_t>) return dtype::int64;
  else if constexpr (std::is_same_v<T, kselect::float16>) return dtype::float16;
  else {
    static_assert(std::is_same_v<T, std::uint64_t>, "dtype_of: not a kselect key type");
    return dtype::uint64;
  }
}

}  // namespace kselect_cli
