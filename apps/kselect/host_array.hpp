// Host arrays of the supported key types, allocated without zero-filling (and
// with huge pages when large, see host_buffer) so a file can be read straight
// into them.
#pragma once

#include <cstdint>
#include <span>
#include <utility>
#include <variant>

#include "dtype.hpp"
#include "host_buffer.hpp"

namespace kselect_cli {

template <class T>
class host_array {
 public:
  host_array() = default;
  explicit host_array(std::int64_t n) : buffer_(static_cast<std::size_t>(n) * sizeof(T)), size_(n) {}
  /// Takes over `bytes`, which holds n values (at least n * sizeof(T) bytes).
  host_array(host_buffer bytes, std::int64_t n) : buffer_(std::move(bytes)), size_(n) {}

  T* data() noexcept { return static_cast<T*>(buffer_.data()); }
  const T* data() const noexcept { return static_cast<const T*>(buffer_.data()); }
  std::int64_t size() const noexcept { return size_; }
  std::span<const T> span() const noexcept { return {data(), static_cast<std::size_t>(size_)}; }

 private:
  host_buffer buffer_;
  std::int64_t size_ = 0;
};

/// The values of an input file, in its element type.
using any_array = std::variant<host_array<float>, host_array<double>, host_array<std::int32_t>,
                               host_array<std::uint32_t>, host_array<std::int64_t>,
                               host_array<std::uint64_t>>;

inline std::int64_t size_of(const any_array& a) noexcept {
  return std::visit([](const auto& arr) { return arr.size(); }, a);
}

inline dtype dtype_of(const any_array& a) noexcept {
  return std::visit(
      [](const auto& arr) { return kselect_cli::dtype_of<std::remove_cvref_t<decltype(*arr.data())>>(); },
      a);
}

}  // namespace kselect_cli
