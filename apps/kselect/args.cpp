#include "args.hpp"

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <string_view>

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
