#include "dtype.hpp"

#include <array>

namespace kselect_cli {
namespace {

struct dtype_info {
  dtype type;
  std::string_view name;
  std::string_view descr;  // without the byte-order character
  std::size_t size;
};

constexpr std::array<dtype_info, 7> kTypes{{
    {dtype::float32, "float32", "f4", 4},
    {dtype::float64, "float64", "f8", 8},
    {dtype::int32, "int32", "i4", 4},
    {dtype::uint32, "uint32", "u4", 4},
    {dtype::int64, "int64", "i8", 8},
    {dtype::uint64, "uint64", "u8", 8},
    {dtype::float16, "float16", "f2", 2},
}};

constexpr const dtype_info& info(dtype t) noexcept { return kTypes[static_cast<std::size_t>(t)]; }

}  // namespace

std::string_view dtype_name(dtype t) noexcept { return info(t).name; }

std::string_view dtype_descr(dtype t) noexcept {
  static constexpr std::array<std::string_view, 7> kDescr{"<f4", "<f8", "<i4", "<u4", "<i8", "<u8", "<f2"};
  return kDescr[static_cast<std::size_t>(t)];
}

std::size_t dtype_size(dtype t) noexcept { return info(t).size; }

std::optional<dtype> parse_dtype_name(std::string_view name) noexcept {
  for (const auto& i : kTypes)
    if (i.name == name) return i.type;
  return std::nullopt;
}

std::optional<dtype> parse_dtype_descr(std::string_view descr) noexcept {
  // '<' is little-endian; '=' is native, and this tool only runs on little-endian hosts.
  if (descr.size() != 3 || (descr[0] != '<' && descr[0] != '=')) return std::nullopt;
  for (const auto& i : kTypes)
    if (i.descr == descr.substr(1)) return i.type;
  return std::nullopt;
}

std::string_view dtype_names_list() noexcept {
  return "float32, float64, int32, uint32, int64, uint64";
}

}  // namespace kselect_cli
