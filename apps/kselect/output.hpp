// Writing a command's complete output to stdout in one piece, its report to
// stderr when stdout carries data, and arrays as .npy to an -o file.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "dtype.hpp"
#include "output_file.hpp"

namespace kselect_cli {

/// Writes `text` to stdout. A write error (e.g. stdout is /dev/full) throws
/// kselect::error "standard output: write error: ..."; a reader that has gone
/// (EPIPE) ends the process quietly with exit code 1.
void write_stdout(std::string_view text);

/// Writes `text` to stderr (the report when stdout carries filter's .npy bytes).
/// A failure is ignored: there is nowhere left to report it.
void write_stderr(std::string_view text);

/// Writes data[0..count) of type t to `out` as a one-dimensional .npy file
/// (format 1.0) and commits it, with a progress line for large arrays.
void write_npy(output_file& out, dtype t, const void* data, std::int64_t count);

/// The same for an array of `shape` (C order; {} is one element, a 0-d array).
void write_npy(output_file& out, dtype t, const void* data, const std::vector<std::int64_t>& shape);

}  // namespace kselect_cli
