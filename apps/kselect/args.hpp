// The values of numeric command-line options, in one syntax for every option:
// decimal only. Integers: an optional '-' then digits ('-' is read only so that a
// negative count can be called negative). Reals: an optional '-', digits with an
// optional fraction (".5" and "5." too), an optional exponent (e-3, e+3); nan, inf
// and -inf only where a float value is wanted. No '+', no hexadecimal, no spaces.
// Errors throw input_error with a message that starts with the option's name.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace kselect_cli {

/// -k values of select: each entry an integer >= 0 (entries may themselves be comma
/// lists). `option` is the name the user typed (-k or --rank).
std::vector<std::int64_t> parse_ranks(const std::vector<std::string>& items, std::string_view option = "-k");

/// Throws unless every rank lies in [0, n).
void check_ranks(const std::vector<std::int64_t>& ranks, std::int64_t n, std::string_view option = "-k");

/// Throws unless count <= n: "OPTION: COUNT is more than the number of values (N)"
/// (topk's -k, range's --hi).
void check_at_most_n(std::string_view option, std::int64_t count, std::int64_t n);

/// A count option's value (-k of topk, --lo and --hi of range, demo --n): an
/// integer in [0, 2^63).
std::int64_t parse_count(std::string_view option, std::string_view text);

/// A signed option value (--axis): an integer in [-2^63, 2^63).
std::int64_t parse_signed(std::string_view option, std::string_view text);

/// An unsigned option value (demo --seed): an integer in [0, 2^64).
std::uint64_t parse_unsigned(std::string_view option, std::string_view text);

/// --max-rank-error as given: an integer count, or a decimal number of percent of
/// n followed by '%' ("0.1%"), kept exact (digits and decimal places) so that the
/// count rounds down correctly once n is known.
struct rank_error_spec {
  std::int64_t count = 0;  ///< the count, or the percent's digits without the point
  int decimals = -1;       ///< digits after the point of a percent; -1: a plain count
};

/// Parses --max-rank-error: a count >= 0, or a percent in [0, 100] ("0.1%", "5%").
rank_error_spec parse_max_rank_error(const std::string& text);

/// The count a spec means for n values: the count itself, or floor(percent / 100 * n).
std::int64_t resolve_max_rank_error(const rank_error_spec& spec, std::int64_t n);

/// A filter constant (--lt X, --range A B, ...) as a value of the input's type T:
/// integer types take integers in their range (no decimal point: "2.5" is not an
/// int32); float types take reals, nan, inf and -inf, rounded to the nearest T; a
/// finite number beyond T's range is an error.
template <class T>
T parse_constant(std::string_view option, const std::string& text);

/// -q values: each a real in [0, 1] (nan and inf rejected). `option` is the name
/// the user typed (-q or --quantile).
std::vector<double> parse_quantiles(const std::vector<std::string>& items, std::string_view option = "-q");

/// 0, 0.01, ..., 1 (q = i / 100, as numpy.percentile(a, range(101)) uses).
std::vector<double> percentile_quantiles();

}  // namespace kselect_cli
