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

 private:
  std::vector<std::pair<std::string, std::string>> fields_;
};

/// One value per line.
template <class T>
std::string text_lines(const std::vector<T>& values) {
  std::string out;
  for (const auto& v : values) out += format_value(v) + '\n';
  return out;
}

/// Two columns, "a[i] b[i]" per line (a and b of the same length).
template <class A, class B>
std::string two_column_lines(const std::vector<A>& a, const std::vector<B>& b) {
  std::string out;
  for (std::size_t i = 0; i < a.size() && i < b.size(); ++i)
    out += format_value(a[i]) + ' ' + format_value(b[i]) + '\n';
  return out;
}

}  // namespace kselect_cli
