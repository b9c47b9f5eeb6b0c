// Writing a command's complete output to stdout in one piece, and arrays to .npy files.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "dtype.hpp"

namespace kselect_cli {

/// Writes `text` to stdout and flushes; throws kselect::error when that fails.
void write_stdout(std::string_view text);

/// Writes data[0..count) of type t to `path` as a one-dimensional .npy file (format
/// 1.0), replacing the file. Throws input_error when the file cannot be created
/// (e.g. a missing directory) and kselect::error when writing fails (the partial
/// file is removed then). Messages start with the path.
void write_npy_file(const std::string& path, dtype t, const void* data, std::int64_t count);

}  // namespace kselect_cli
