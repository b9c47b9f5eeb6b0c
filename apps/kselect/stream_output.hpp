// Writing a long list of results to stdout without holding its whole text: items are
// formatted in blocks, the blocks of one round on all OpenMP threads, and written in
// order. A top-k of 2^27 floats is about 1.5 GB of text; streamed, the tool's
// memory holds a few blocks, and formatting, the slow part, runs on every core.
#pragma once

#include <omp.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <concepts>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "format.hpp"
#include "output.hpp"
#include "progress.hpp"

namespace kselect_cli {

/// Appends format_value(v) to out (no temporary string).
template <class T>
void append_value(std::string& out, T v) {
  if constexpr (std::floating_point<T>) {
    if (!std::isfinite(v)) {
      out += format_value(v);
      return;
    }
  }
  char buf[64];
  const auto res = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, res.ptr);
}

/// As append_value, with NaN and infinities as JSON strings.
template <class T>
void append_json_number(std::string& out, T v) {
  if constexpr (std::floating_point<T>) {
    if (!std::isfinite(v)) {
      out += json_number(v);
      return;
    }
  }
  append_value(out, v);
}

/// Writes the text of items [0, count) to stdout in order; piece(i, out) appends the
/// text of item i to out.
template <class Piece>
void stream_items(std::int64_t count, Piece piece) {
  constexpr std::int64_t block = std::int64_t{1} << 16;
  const std::int64_t blocks = (count + block - 1) / block;
  // One block alone is not worth a parallel region.
  const int threads = blocks > 1 ? std::max(1, omp_get_max_threads()) : 1;
  std::vector<std::string> texts(static_cast<std::size_t>(threads));
  // Writing 2^27 results takes seconds: a progress line, unless the results
  // themselves are going to the terminal, where it would mix with them.
  std::optional<progress> shown;
  if (blocks > 1 && ::isatty(STDOUT_FILENO) == 0) shown.emplace("writing " + std::to_string(count) + " results");
  for (std::int64_t first = 0; first < blocks; first += threads) {
    const std::int64_t round = std::min<std::int64_t>(threads, blocks - first);
#pragma omp parallel for num_threads(threads) schedule(static, 1) if (round > 1)
    for (std::int64_t r = 0; r < round; ++r) {
      std::string& text = texts[static_cast<std::size_t>(r)];
      text.clear();
      const std::int64_t begin = (first + r) * block, end = std::min(count, begin + block);
      for (std::int64_t i = begin; i < end; ++i) piece(i, text);
    }
    for (std::int64_t r = 0; r < round; ++r) write_stdout(texts[static_cast<std::size_t>(r)]);
  }
}

/// One value per line.
template <class T>
void write_lines(const std::vector<T>& values) {
  stream_items(static_cast<std::int64_t>(values.size()), [&](std::int64_t i, std::string& out) {
    append_value(out, values[static_cast<std::size_t>(i)]);
    out += '\n';
  });
}

/// "a[i] b[i]" per line (a and b of the same length).
template <class A, class B>
void write_two_columns(const std::vector<A>& a, const std::vector<B>& b) {
  stream_items(static_cast<std::int64_t>(std::min(a.size(), b.size())), [&](std::int64_t i, std::string& out) {
    append_value(out, a[static_cast<std::size_t>(i)]);
    out += ' ';
    append_value(out, b[static_cast<std::size_t>(i)]);
    out += '\n';
  });
}

/// A JSON array, as json_array() writes it.
template <class T>
void write_json_array(const std::vector<T>& values) {
  write_stdout("[");
  stream_items(static_cast<std::int64_t>(values.size()), [&](std::int64_t i, std::string& out) {
    if (i) out += ',';
    append_json_number(out, values[static_cast<std::size_t>(i)]);
  });
  write_stdout("]");
}

}  // namespace kselect_cli
