// Reading an input file (.npy or raw binary) into a host array.
#pragma once

#include <optional>
#include <string>

#include "dtype.hpp"
#include "host_array.hpp"

namespace kselect_cli {

struct input_spec {
  std::string path;
  /// --dtype: required for raw files; for .npy files it must match the header.
  std::optional<dtype> requested;
  /// --raw: read as raw binary whatever the extension.
  bool force_raw = false;
};

/// True when `spec` is read as .npy (extension .npy, any case, and no --raw).
bool is_npy_input(const input_spec& spec);

/// Reads the whole file with one read into a host array of its element type.
/// Throws input_error (message starts with the path) for missing or malformed
/// files, unsupported dtypes and --dtype mismatches. An empty array is returned
/// as such; the commands decide that it is an error.
any_array load_input(const input_spec& spec);

}  // namespace kselect_cli
