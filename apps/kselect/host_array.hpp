// Input arrays of the supported key types: in host memory, allocated without
// zero-filling (and with huge pages when large, see host_buffer) so a file can be
// read straight into them, or already in device memory (a file the CUDA backend
// reads through pinned staging buffers, see loaded_input.hpp).
#pragma once

#include <cstdint>
#include <span>
#include <stdexcept>
#include <type_traits>
#include <utility>
#include <variant>

#include "dtype.hpp"
#include "gpu.hpp"
#include "host_buffer.hpp"

namespace kselect_cli {

template <class T>
class host_array {
 public:
  host_array() = default;
  explicit host_array(std::int64_t n) : buffer_(static_cast<std::size_t>(n) * sizeof(T)), size_(n) {}
  /// Takes over `bytes`, which holds n values (at least n * sizeof(T) bytes).
  host_array(host_buffer bytes, std::int64_t n) : buffer_(std::move(bytes)), size_(n) {}

  /// Takes over device memory `on_device`, which holds n values: an array that
  /// only the CUDA backend reads (data() is then null).
  host_array(gpu::device_buffer on_device, std::int64_t n) : on_device_(std::move(on_device)), size_(n) {}

  T* data() noexcept { return static_cast<T*>(buffer_.data()); }
  const T* data() const noexcept { return static_cast<const T*>(buffer_.data()); }
  std::int64_t size() const noexcept { return size_; }
  std::span<const T> span() const noexcept { return {data(), static_cast<std::size_t>(size_)}; }

  /// The values in device memory, for an array made from a device buffer; else null.
  const T* device_data() const noexcept { return static_cast<const T*>(on_device_.get()); }

 private:
  host_buffer buffer_;
  gpu::device_buffer on_device_;
  std::int64_t size_ = 0;
};

/// The values of an input file, in its element type (float16 only where the input
/// was read with input_spec::half_keys).
using any_array = std::variant<host_array<float>, host_array<double>, host_array<std::int32_t>,
                               host_array<std::uint32_t>, host_array<std::int64_t>,
                               host_array<std::uint64_t>, host_array<kselect::float16>>;

inline std::int64_t size_of(const any_array& a) noexcept {
  return std::visit([](const auto& arr) { return arr.size(); }, a);
}

/// std::visit for the commands that take the six key types of kselect.hpp: their
/// inputs are read without half_keys, so float16 never reaches `f` (nor is `f`
/// instantiated for it).
template <class F>
void visit_six_keys(F&& f, const any_array& a) {
  std::visit(
      [&](const auto& arr) {
        if constexpr (kselect::is_supported_key_v<std::remove_cvref_t<decltype(*arr.data())>>)
          f(arr);
        else
          throw std::logic_error("float16 data reached a command that does not take it");
      },
      a);
}

inline dtype dtype_of(const any_array& a) noexcept {
  return std::visit(
      [](const auto& arr) { return kselect_cli::dtype_of<std::remove_cvref_t<decltype(*arr.data())>>(); },
      a);
}

}  // namespace kselect_cli
