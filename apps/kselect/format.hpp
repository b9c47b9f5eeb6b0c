// Formatting of results: plain text (one value per line) and JSON.
//
// Numbers are written in the shortest form that reads back to the same value
// (std::to_chars), so a float32 result reads back exactly with strtof and a
// float64 result with strtod; integers are exact. NaN and infinities are written
// nan, inf, -inf in text and as the JSON strings "nan", "inf", "-inf"; a NaN whose
// sign bit is set (NumPy's np.float64('-nan'), 0 * -inf on x86) is written -nan, so
// the sign NumPy's result carries is visible (NumPy's own repr prints both as nan).
#pragma once

#include <charconv>
#include <cmath>
#include <concepts>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kselect_cli {

template <class T>
std::string format_value(T v) {
  if constexpr (std::floating_point<T>) {
    if (std::isnan(v)) return std::signbit(v) ? "-nan" : "nan";
    if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  }
  char buf[64];
  const auto res = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, res.ptr);
}

/// As format_value, with NaN and infinities as JSON strings.
template <class T>
std::string json_number(T v) {
  if constexpr (std::floating_point<T>) {
    if (!std::isfinite(v)) return '"' + format_value(v) + '"';
  }
  return format_value(v);
}

/// A JSON string literal (invalid UTF-8 replaced by U+FFFD).
std::string json_string(std::string_view s);

/// Milliseconds with microsecond resolution, e.g. 12.345.
std::string json_ms(double ms);

inline std::string json_bool(bool b) { return b ? "true" : "false"; }

template <class T>
std::string json_array(const std::vector<T>& values) {
  std::string out = "[";
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (i) out += ',';
    out += json_number(values[i]);
  }
  return out + ']';
}

/// Builds one JSON object from fields whose values are already JSON text.
class json_object {
 public:
  json_object& add(std::string_view key, std::string json_value);
  std::string str() const;
  /// The text without the closing brace, for a caller that streams more fields after
  /// it (a ',' before each) and then writes the '}'. The object must not be empty.
  std::string open_str() const;

 private:
  std::vector<std::pair<std::string, std::string>> fields_;
};

}  // namespace kselect_cli
