#include "segments.hpp"

#include <stdexcept>
#include <string>

namespace kselect::core {
namespace {

std::string offset_at(std::size_t i, std::int64_t value) {
  return "offsets[" + std::to_string(i) + "] = " + std::to_string(value);
}

}  // namespace

void check_offsets(std::span<const std::int64_t> offsets, std::int64_t n) {
  if (offsets.empty()) throw std::invalid_argument("kselect: offsets is empty (it needs m + 1 entries)");
  if (offsets[0] != 0)
    throw std::invalid_argument("kselect: " + offset_at(0, offsets[0]) + " but the first offset must be 0");
  for (std::size_t i = 1; i < offsets.size(); ++i)
    if (offsets[i] < offsets[i - 1])
      throw std::invalid_argument("kselect: " + offset_at(i, offsets[i]) + " is less than " +
                                  offset_at(i - 1, offsets[i - 1]) + " (offsets must not decrease)");
  const std::size_t last = offsets.size() - 1;
  if (offsets[last] != n)
    throw std::invalid_argument("kselect: " + offset_at(last, offsets[last]) + " but n = " + std::to_string(n) +
                                " (the last offset must equal the number of values)");
}

void check_segments(std::int64_t m, std::int64_t row_length, const std::int64_t* host_offsets, std::int64_t n) {
  if (m < 1)
    throw std::invalid_argument("kselect: the number of segments is " + std::to_string(m) +
                                " (need at least 1)");
  if (n < 0) throw std::invalid_argument("kselect: n = " + std::to_string(n) + " is negative");
  if (host_offsets) {
    check_offsets(std::span<const std::int64_t>(host_offsets, static_cast<std::size_t>(m) + 1), n);
    return;
  }
  if (row_length < 0)
    throw std::invalid_argument("kselect: the row length is " + std::to_string(row_length) + " (negative)");
  if (row_length != 0 && m > n / row_length)
    throw std::invalid_argument("kselect: " + std::to_string(m) + " rows of " + std::to_string(row_length) +
                                " values need more than the n = " + std::to_string(n) + " given");
  if (m * row_length != n)
    throw std::invalid_argument("kselect: " + std::to_string(m) + " rows of " + std::to_string(row_length) +
                                " values are " + std::to_string(m * row_length) + " values, but n = " +
                                std::to_string(n));
}

void check_rank_in_segment(std::int64_t k, std::int64_t segment, std::int64_t length, const char* what) {
  if (k >= 0 && k < length) return;
  throw std::invalid_argument("kselect: " + std::string(what) + " = " + std::to_string(k) + " is outside [0, " +
                              std::to_string(length) + ") for segment " + std::to_string(segment) + " (length " +
                              std::to_string(length) + ")");
}

}  // namespace kselect::core
