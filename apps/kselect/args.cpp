#include "args.hpp"

#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <string_view>
#include <type_traits>

#include "dtype.hpp"
#include "errors.hpp"

namespace kselect_cli {
namespace {

/// Splits each item at commas; an empty entry is an error.
std::vector<std::string> split_items(const std::vector<std::string>& items, std::string_view option) {
  std::vector<std::string> out;
  for (const auto& item : items) {
    std::size_t start = 0;
    while (true) {
      const auto comma = item.find(',', start);
      std::string entry = item.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
      if (entry.empty()) throw input_error(std::string(option) + ": empty entry in '" + item + "'");
      out.push_back(std::move(entry));
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
  }
  if (out.empty()) throw input_error(std::string(option) + ": no values given");
  return out;
}

}  // namespace

std::vector<std::int64_t> parse_ranks(const std::vector<std::string>& items) {
  std::vector<std::int64_t> ranks;
  for (const auto& s : split_items(items, "-k")) {
    std::int64_t k = 0;
    const char* end = s.data() + s.size();
    const char* first = s.data() + (s.front() == '+' ? 1 : 0);
    const auto [ptr, ec] = std::from_chars(first, end, k);
    if (ec == std::errc::result_out_of_range) throw input_error("-k: rank " + s + " is out of range");
    if (ec != std::errc() || ptr != end) throw input_error("-k: '" + s + "' is not an integer rank");
    ranks.push_back(k);
  }
  return ranks;
}

void check_ranks(const std::vector<std::int64_t>& ranks, std::int64_t n) {
  for (auto k : ranks)
    if (k < 0 || k >= n)
      throw input_error("-k: rank " + std::to_string(k) + " is out of range [0, " + std::to_string(n) +
                        ") for " + std::to_string(n) + (n == 1 ? " value" : " values"));
}

std::int64_t parse_count(std::string_view option, const std::string& text) {
  const std::string name(option);
  if (text.empty()) throw input_error(name + ": no value given");
  std::int64_t v = 0;
  const char* end = text.data() + text.size();
  const char* first = text.data() + (text.front() == '+' ? 1 : 0);
  const auto [ptr, ec] = std::from_chars(first, end, v);
  if (ec == std::errc::result_out_of_range) throw input_error(name + ": " + text + " is out of range");
  if (ec != std::errc() || ptr != end) throw input_error(name + ": '" + text + "' is not an integer");
  if (v < 0) throw input_error(name + ": " + text + " is negative");
  return v;
}

rank_error_spec parse_max_rank_error(const std::string& text) {
  constexpr std::string_view option = "--max-rank-error";
  if (text.empty() || text.back() != '%') return {parse_count(option, text), -1};
  // A percent: digits with at most one decimal point, read exactly (a double would
  // round 0.3% of 1000 to 2.999... and then down to 2).
  const std::string number = text.substr(0, text.size() - 1);
  rank_error_spec spec{0, 0};
  bool point = false;
  int digits = 0;
  for (const char c : number) {
    if (c == '.' && !point) {
      point = true;
    } else if (c >= '0' && c <= '9') {
      // At most 18 digits: count < 10^18 and 10^decimals <= 10^18, so the
      // arithmetic below fits in 128 bits.
      if (++digits > 18) throw input_error(std::string(option) + ": '" + text + "' has too many digits");
      spec.count = spec.count * 10 + (c - '0');
      if (point) ++spec.decimals;
    } else {
      throw input_error(std::string(option) + ": '" + text + "' is not a count or a percent such as 0.1%" +
                        (c == '-' ? " (negative)" : ""));
    }
  }
  if (digits == 0) throw input_error(std::string(option) + ": '" + text + "' is not a count or a percent such as 0.1%");
  // At most 100%: compare count / 10^decimals with 100.
  unsigned __int128 scale = 1;
  for (int i = 0; i < spec.decimals; ++i) scale *= 10;
  if (static_cast<unsigned __int128>(spec.count) > 100 * scale)
    throw input_error(std::string(option) + ": " + text + " is more than 100%");
  return spec;
}

std::int64_t resolve_max_rank_error(const rank_error_spec& spec, std::int64_t n) {
  if (spec.decimals < 0) return spec.count;
  unsigned __int128 scale = 100;  // percent
  for (int i = 0; i < spec.decimals; ++i) scale *= 10;
  // count < 10^18 and n < 2^63: the product fits in 128 bits; the result is at most n.
  return static_cast<std::int64_t>(static_cast<unsigned __int128>(spec.count) * static_cast<std::uint64_t>(n) /
                                   scale);
}

template <class T>
T parse_constant(std::string_view option, const std::string& text) {
  const std::string name(option);
  const std::string type(dtype_name(dtype_of<T>()));
  if (text.empty()) throw input_error(name + ": no value given");
  if constexpr (std::is_floating_point_v<T>) {
    // strtof / strtod: nearest value, "nan", "inf"; no leading space (they would skip it).
    if (std::isspace(static_cast<unsigned char>(text.front())))
      throw input_error(name + ": '" + text + "' is not a " + type + " value");
    errno = 0;
    char* end = nullptr;
    const T v = std::is_same_v<T, float> ? std::strtof(text.c_str(), &end) : std::strtod(text.c_str(), &end);
    if (end != text.c_str() + text.size()) throw input_error(name + ": '" + text + "' is not a " + type + " value");
    if (errno == ERANGE && std::isinf(v)) throw input_error(name + ": " + text + " is out of range for " + type);
    return v;
  } else {
    // from_chars takes no '+', and no '-' for unsigned types: a negative integer is
    // out of their range ("-0" is 0).
    if (std::is_unsigned_v<T> && text.front() == '-' && text.size() > 1 &&
        text.find_first_not_of("0123456789", 1) == std::string::npos) {
      if (text.find_first_not_of('0', 1) == std::string::npos) return 0;
      throw input_error(name + ": " + text + " is out of range for " + type);
    }
    T v = 0;
    const char* end = text.data() + text.size();
    const bool plus = text.front() == '+' && text.rfind("+-", 0) != 0;  // "+-5" stays an error
    const char* first = text.data() + (plus ? 1 : 0);
    const auto [ptr, ec] = std::from_chars(first, end, v);
    if (ec == std::errc::result_out_of_range) throw input_error(name + ": " + text + " is out of range for " + type);
    if (ec != std::errc() || ptr != end)
      throw input_error(name + ": '" + text + "' is not an integer (the input is " + type + ")");
    return v;
  }
}

template float parse_constant<float>(std::string_view, const std::string&);
template double parse_constant<double>(std::string_view, const std::string&);
template std::int32_t parse_constant<std::int32_t>(std::string_view, const std::string&);
template std::uint32_t parse_constant<std::uint32_t>(std::string_view, const std::string&);
template std::int64_t parse_constant<std::int64_t>(std::string_view, const std::string&);
template std::uint64_t parse_constant<std::uint64_t>(std::string_view, const std::string&);

std::vector<double> parse_quantiles(const std::vector<std::string>& items) {
  std::vector<double> qs;
  for (const auto& s : split_items(items, "-q")) {
    char* end = nullptr;
    const double q = std::strtod(s.c_str(), &end);
    if (end != s.c_str() + s.size() || std::isspace(static_cast<unsigned char>(s.front())))
      throw input_error("-q: '" + s + "' is not a number");
    if (!(q >= 0.0 && q <= 1.0)) throw input_error("-q: " + s + " is not in [0, 1]");
    qs.push_back(q);
  }
  return qs;
}

std::vector<double> percentile_quantiles() {
  std::vector<double> qs;
  for (int i = 0; i <= 100; ++i) qs.push_back(i / 100.0);
  return qs;
}

}  // namespace kselect_cli
