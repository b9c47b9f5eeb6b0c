#include "args.hpp"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <optional>
#include <type_traits>

#include "dtype.hpp"
#include "errors.hpp"

namespace kselect_cli {
namespace {

std::string quoted(std::string_view s) {
  std::string q(1, '\'');  // appended, not "'" + ...: GCC 12 warns falsely (-Wrestrict) on that
  q += s;
  q += '\'';
  return q;
}

[[noreturn]] void fail(std::string_view option, const std::string& what) {
  throw input_error(std::string(option) + ": " + what);
}

bool is_digit(char c) { return c >= '0' && c <= '9'; }

/// The messages every numeric option shares for text outside the syntax. '+' and
/// hexadecimal get their own words because strtod and strtol accept them: a user
/// who wrote them elsewhere should learn why they fail here.
void reject_foreign(std::string_view option, std::string_view text) {
  if (text.empty()) throw input_error(std::string(option) + " needs a value");
  if (text.front() == '+') fail(option, quoted(text) + " has a '+' sign (write numbers without one)");
  const std::string_view body = text.substr(text.front() == '-' ? 1 : 0);
  if (body.size() >= 2 && body[0] == '0' && (body[1] == 'x' || body[1] == 'X'))
    fail(option, quoted(text) + " is hexadecimal (write numbers in decimal)");
}

/// An integer as written: its sign and magnitude, read separately so that uint64
/// values above 2^63 and "is negative" can both be reported.
struct integer_text {
  bool negative = false;
  std::uint64_t magnitude = 0;
  bool overflow = false;  // the magnitude is 2^64 or more
};

/// "-?digits"; std::nullopt for anything else.
std::optional<integer_text> read_integer(std::string_view text) {
  integer_text v;
  if (!text.empty() && text.front() == '-') {
    v.negative = true;
    text.remove_prefix(1);
  }
  if (text.empty()) return std::nullopt;
  constexpr std::uint64_t max = std::numeric_limits<std::uint64_t>::max();
  for (const char c : text) {
    if (!is_digit(c)) return std::nullopt;
    const auto d = static_cast<std::uint64_t>(c - '0');
    if (v.magnitude > (max - d) / 10) v.overflow = true;
    else if (!v.overflow) v.magnitude = v.magnitude * 10 + d;
  }
  return v;
}

/// An integer in [0, max].
std::uint64_t read_nonnegative(std::string_view option, std::string_view text, std::uint64_t max) {
  reject_foreign(option, text);
  const auto v = read_integer(text);
  if (!v) fail(option, quoted(text) + " is not an integer");
  if (v->negative && (v->overflow || v->magnitude != 0)) fail(option, std::string(text) + " is negative");
  if (v->overflow || v->magnitude > max) fail(option, std::string(text) + " is out of range");
  return v->magnitude;
}

/// -?(digits[.[digits]] | .digits)([eE][+-]?digits)?
bool is_decimal_real(std::string_view t) {
  std::size_t i = 0, mantissa_digits = 0;
  const auto digits = [&] {
    std::size_t n = 0;
    while (i < t.size() && is_digit(t[i])) ++i, ++n;
    return n;
  };
  if (i < t.size() && t[i] == '-') ++i;
  mantissa_digits += digits();
  if (i < t.size() && t[i] == '.') {
    ++i;
    mantissa_digits += digits();
  }
  if (mantissa_digits == 0) return false;
  if (i < t.size() && (t[i] == 'e' || t[i] == 'E')) {
    ++i;
    if (i < t.size() && (t[i] == '+' || t[i] == '-')) ++i;
    if (digits() == 0) return false;
  }
  return i == t.size();
}

/// nan, inf, infinity, -inf, -infinity, in any case.
bool is_nonfinite(std::string_view t) {
  std::string lower;
  for (const char c : t) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (lower == "nan") return true;  // not "-nan": NaN's sign means nothing to a comparison
  if (!lower.empty() && lower.front() == '-') lower.erase(0, 1);
  return lower == "inf" || lower == "infinity";
}

/// Text of the real syntax (checked by the caller) as the nearest T. The tool never
/// calls setlocale, so strtod reads '.' as the decimal point.
template <class T>
T to_real(const std::string& text) {
  errno = 0;
  if constexpr (std::is_same_v<T, float>) return std::strtof(text.c_str(), nullptr);
  else return std::strtod(text.c_str(), nullptr);
}

/// Splits each item at commas; an empty item or entry is an error.
std::vector<std::string> split_items(const std::vector<std::string>& items, std::string_view option) {
  std::vector<std::string> out;
  for (const auto& item : items) {
    if (item.empty()) throw input_error(std::string(option) + " needs a value");
    std::size_t start = 0;
    while (true) {
      const auto comma = item.find(',', start);
      std::string entry = item.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
      if (entry.empty()) fail(option, "empty entry in " + quoted(item));
      out.push_back(std::move(entry));
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
  }
  if (out.empty()) throw input_error(std::string(option) + " needs a value");
  return out;
}

}  // namespace

std::vector<std::int64_t> parse_ranks(const std::vector<std::string>& items, std::string_view option) {
  std::vector<std::int64_t> ranks;
  for (const auto& s : split_items(items, option)) ranks.push_back(parse_count(option, s));
  return ranks;
}

void check_ranks(const std::vector<std::int64_t>& ranks, std::int64_t n, std::string_view option) {
  for (auto k : ranks)
    if (k < 0 || k >= n)
      fail(option, "rank " + std::to_string(k) + " is out of range [0, " + std::to_string(n) + ") for " +
                       std::to_string(n) + (n == 1 ? " value" : " values"));
}

void check_at_most_n(std::string_view option, std::int64_t count, std::int64_t n) {
  if (count > n)
    fail(option, std::to_string(count) + " is more than the number of values (" + std::to_string(n) + ")");
}

std::int64_t parse_count(std::string_view option, std::string_view text) {
  return static_cast<std::int64_t>(
      read_nonnegative(option, text, static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())));
}

std::int64_t parse_signed(std::string_view option, std::string_view text) {
  reject_foreign(option, text);
  const auto v = read_integer(text);
  if (!v) fail(option, quoted(text) + " is not an integer");
  // The magnitude of int64's minimum is 2^63, one more than its maximum.
  const std::uint64_t limit =
      static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()) + (v->negative ? 1 : 0);
  if (v->overflow || v->magnitude > limit) fail(option, std::string(text) + " is out of range");
  // Modular negation: exact for magnitudes up to 2^63.
  return static_cast<std::int64_t>(v->negative ? std::uint64_t{0} - v->magnitude : v->magnitude);
}

std::uint64_t parse_unsigned(std::string_view option, std::string_view text) {
  return read_nonnegative(option, text, std::numeric_limits<std::uint64_t>::max());
}

rank_error_spec parse_max_rank_error(const std::string& text) {
  constexpr std::string_view option = "--max-rank-error";
  if (text.empty() || text.back() != '%') return {parse_count(option, text), -1};
  reject_foreign(option, text);
  // A percent: digits with at most one decimal point, read exactly (a double would
  // round 0.3% of 1000 to 2.999... and then down to 2).
  std::string_view number(text);
  number.remove_suffix(1);
  const bool negative = !number.empty() && number.front() == '-';
  if (negative) number.remove_prefix(1);
  const auto malformed = [&] { fail(option, quoted(text) + " is not a count or a percent such as 0.1%"); };
  rank_error_spec spec{0, 0};
  bool point = false;
  int digits = 0;
  for (const char c : number) {
    if (c == '.' && !point) {
      point = true;
    } else if (is_digit(c)) {
      // At most 18 digits: count < 10^18 and 10^decimals <= 10^18, so the
      // arithmetic below fits in 128 bits.
      if (++digits > 18) fail(option, quoted(text) + " has too many digits");
      spec.count = spec.count * 10 + (c - '0');
      if (point) ++spec.decimals;
    } else {
      malformed();
    }
  }
  if (digits == 0) malformed();
  if (negative && spec.count != 0) fail(option, text + " is negative");
  // At most 100%: compare count / 10^decimals with 100.
  unsigned __int128 scale = 1;
  for (int i = 0; i < spec.decimals; ++i) scale *= 10;
  if (static_cast<unsigned __int128>(spec.count) > 100 * scale) fail(option, text + " is more than 100%");
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
  const std::string type(dtype_name(dtype_of<T>()));
  reject_foreign(option, text);
  if constexpr (std::is_floating_point_v<T>) {
    if (!is_decimal_real(text) && !is_nonfinite(text)) fail(option, quoted(text) + " is not a " + type + " value");
    const T v = to_real<T>(text);
    if (errno == ERANGE && std::isinf(v)) fail(option, text + " is out of range for " + type);
    return v;  // an underflow rounds to zero or a subnormal: the nearest value
  } else {
    const auto v = read_integer(text);
    if (!v) fail(option, quoted(text) + " is not an integer (the input is " + type + ")");
    const auto out_of_range = [&] { fail(option, text + " is out of range for " + type); };
    if (v->overflow) out_of_range();
    if (v->negative && v->magnitude != 0) {  // "-0" is 0, for unsigned types too
      // The magnitude of T's minimum, computed in unsigned arithmetic (-min overflows T).
      const std::uint64_t limit =
          std::is_signed_v<T> ? std::uint64_t{0} - static_cast<std::uint64_t>(std::numeric_limits<T>::min()) : 0;
      if (v->magnitude > limit) out_of_range();
      return static_cast<T>(std::uint64_t{0} - v->magnitude);  // modular: exact for magnitudes <= limit
    }
    if (v->magnitude > static_cast<std::uint64_t>(std::numeric_limits<T>::max())) out_of_range();
    return static_cast<T>(v->magnitude);
  }
}

template float parse_constant<float>(std::string_view, const std::string&);
template double parse_constant<double>(std::string_view, const std::string&);
template std::int32_t parse_constant<std::int32_t>(std::string_view, const std::string&);
template std::uint32_t parse_constant<std::uint32_t>(std::string_view, const std::string&);
template std::int64_t parse_constant<std::int64_t>(std::string_view, const std::string&);
template std::uint64_t parse_constant<std::uint64_t>(std::string_view, const std::string&);

std::vector<double> parse_quantiles(const std::vector<std::string>& items, std::string_view option) {
  std::vector<double> qs;
  for (const auto& s : split_items(items, option)) {
    reject_foreign(option, s);
    // nan and inf are read so that the message can say they are not in [0, 1].
    if (!is_decimal_real(s) && !is_nonfinite(s)) fail(option, quoted(s) + " is not a number");
    const double q = to_real<double>(s);
    if (!(q >= 0.0 && q <= 1.0)) fail(option, s + " is not in [0, 1]");
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
