// Parsing and checking the values of command-line options beyond what CLI11
// checks (comma lists of ranks and quantiles). Errors throw input_error with a
// message that names the option.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace kselect_cli {

/// -k values: each entry an integer (entries may themselves be comma lists).
std::vector<std::int64_t> parse_ranks(const std::vector<std::string>& items);

/// Throws unless every rank lies in [0, n).
void check_ranks(const std::vector<std::int64_t>& ranks, std::int64_t n);

/// -q values: each a number in [0, 1] (NaN rejected).
std::vector<double> parse_quantiles(const std::vector<std::string>& items);

/// 0, 0.01, ..., 1 (q = i / 100, as numpy.percentile(a, range(101)) uses).
std::vector<double> percentile_quantiles();

}  // namespace kselect_cli
