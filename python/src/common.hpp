// What the package's extensions share (kselect._kselect, python/src/module.cpp, and
// kselect._kselect_mpi, python/src/mpi_module.cpp): arrays in (any framework, any
// device, through DLPack or the buffer protocol), the key type of an array, options
// for its backend and NumPy arrays out.
#pragma once

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "kselect/kselect.hpp"

namespace nb = nanobind;

namespace kselect_python {

/// Any contiguous array on any device; the library reads it in place.
using input_array = nb::ndarray<nb::ro, nb::c_contig>;
/// A host array of int64 or float64 parameters (ranks, ks, qs).
using host_int64s = nb::ndarray<const std::int64_t, nb::ndim<1>, nb::c_contig, nb::device::cpu>;

/// What the calls return, as the generated stub (kselect/_kselect.pyi, nanobind's
/// stubgen) names it: NumPy arrays, alone or in pairs (filter's second one None
/// without indices). The objects are the same; the names only inform type checkers.
using numpy_array = nb::typed<nb::object, nb::ndarray<nb::numpy>>;
using numpy_pair = nb::typed<nb::tuple, nb::ndarray<nb::numpy>, nb::ndarray<nb::numpy>>;
using numpy_filtered = nb::typed<nb::tuple, nb::ndarray<nb::numpy>, std::optional<nb::ndarray<nb::numpy>>>;

/// A NumPy array that owns `values` (moved to the heap), of the given shape.
template <class T>
nb::object to_numpy(std::vector<T>&& values, std::vector<std::size_t> shape) {
  auto* owner = new std::vector<T>(std::move(values));
  nb::capsule free_owner(owner, [](void* p) noexcept { delete static_cast<std::vector<T>*>(p); });
  if constexpr (std::is_same_v<T, kselect::float16> || std::is_same_v<T, kselect::bfloat16>) {
    // NumPy has float16 but no bfloat16: both come back as their bits (uint16),
    // and the Python half views or converts them.
    return nb::cast(nb::ndarray<nb::numpy, std::uint16_t>(reinterpret_cast<std::uint16_t*>(owner->data()),
                                                          shape.size(), shape.data(), free_owner));
  } else {
    return nb::cast(nb::ndarray<nb::numpy, T>(owner->data(), shape.size(), shape.data(), free_owner));
  }
}

template <class T>
nb::object to_numpy(std::vector<T>&& values) {
  const std::size_t n = values.size();
  return to_numpy(std::move(values), {n});
}

/// Options for a call on `a`: the CUDA backend for device arrays (on `stream`, the
/// caller's current stream as an integer handle), the CPU backend for host arrays.
inline kselect::options options_for(const input_array& a, std::uintptr_t stream, int cpu_threads) {
  kselect::options opt;
  opt.cpu_threads = cpu_threads;
  if (a.device_type() == nb::device::cuda::value) {
    opt.device = kselect::device_kind::cuda;
    opt.stream = reinterpret_cast<void*>(stream);
  } else if (a.device_type() == nb::device::cpu::value) {
    opt.device = kselect::device_kind::cpu;
  } else {
    throw nb::type_error("kselect: arrays must be in host memory or on a CUDA device");
  }
  return opt;
}

inline std::string dtype_name(nb::dlpack::dtype t) {
  using code = nb::dlpack::dtype_code;
  const auto c = static_cast<code>(t.code);
  if (c == code::Int) return "int" + std::to_string(t.bits);
  if (c == code::UInt) return "uint" + std::to_string(t.bits);
  if (c == code::Float) return "float" + std::to_string(t.bits);
  if (c == code::Bfloat) return "bfloat" + std::to_string(t.bits);
  if (c == code::Complex) return "complex" + std::to_string(t.bits);
  if (c == code::Bool) return "bool";
  return "DLPack type code " + std::to_string(t.code) + " of " + std::to_string(t.bits) + " bits";
}

inline constexpr const char* six_types = "float32, float64, int32, int64, uint32, uint64";

/// Calls f(T{}) with T the key type of a's dtype; 16-bit floats only when `Halves`
/// (the calls that take them: the batched ones).
template <bool Halves, class F>
decltype(auto) visit_key_type(const input_array& a, F&& f) {
  constexpr bool halves = Halves;
  const nb::dlpack::dtype t = a.dtype();
  if (t.lanes == 1) {
    switch (static_cast<nb::dlpack::dtype_code>(t.code)) {
      case nb::dlpack::dtype_code::Float:
        if (t.bits == 32) return f(float{});
        if (t.bits == 64) return f(double{});
        if constexpr (Halves)
          if (t.bits == 16) return f(kselect::float16{});
        break;
      case nb::dlpack::dtype_code::Bfloat:
        if constexpr (Halves)
          if (t.bits == 16) return f(kselect::bfloat16{});
        break;
      case nb::dlpack::dtype_code::Int:
        if (t.bits == 32) return f(std::int32_t{});
        if (t.bits == 64) return f(std::int64_t{});
        break;
      case nb::dlpack::dtype_code::UInt:
        if (t.bits == 32) return f(std::uint32_t{});
        if (t.bits == 64) return f(std::uint64_t{});
        break;
      default: break;
    }
  }
  throw nb::type_error(("kselect: unsupported dtype " + dtype_name(t) + "; supported: " + six_types +
                        (halves ? ", float16, bfloat16" : " (float16 and bfloat16 only with axis=)"))
                           .c_str());
}

}  // namespace kselect_python
