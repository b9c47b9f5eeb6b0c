// Reading an input (.npy or raw binary; a file, standard input, a pipe or a
// device) into a host array.
#pragma once

#include <sys/stat.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "dtype.hpp"
#include "host_array.hpp"

namespace kselect_cli {

struct input_spec {
  std::string path;  // "-" and "/dev/stdin": standard input
  /// --dtype: required for raw files; for .npy files it must match the header.
  std::optional<dtype> requested;
  /// --raw: read as raw binary whatever the extension or first bytes.
  bool force_raw = false;
  /// Whether float16 data (a .npy '<f2') is taken: only the segmented commands
  /// (kselect/segmented.hpp) select among 16-bit keys.
  bool half_keys = false;
};

/// True for the names of standard input: "-" and "/dev/stdin".
bool is_stdin_path(const std::string& path);

/// True when the name ends in .npy (any case): such a file is read as .npy.
bool has_npy_extension(const std::string& path);

/// The input as error messages and progress name it: the path as typed, or
/// "standard input" for "-".
std::string input_display_name(const std::string& path);

/// A contiguous part of an input's elements (input_source::read_part).
struct input_part {
  any_array values;        // elements [begin, begin + size) of the whole input
  std::int64_t begin = 0;  // index of the first in the whole input
  std::int64_t total = 0;  // elements of the whole input
};

/// Where a regular file's array lies: its element type, count and shape (the
/// .npy header's, or a raw file's size over the --dtype item size) and the bytes
/// before it.
struct file_layout {
  dtype type{};
  std::int64_t count = 0;
  std::uint64_t data_offset = 0;
  std::vector<std::int64_t> shape;
};

class progress;

/// An input opened but not read yet, so that what it is can be checked before
/// any work (filter refuses to write over its input).
class input_source {
 public:
  /// Opens spec.path (standard input is used as it is, not reopened). Throws
  /// input_error "NAME: cannot open: ..." or "NAME: is a directory".
  explicit input_source(input_spec spec);
  ~input_source();
  input_source(const input_source&) = delete;
  input_source& operator=(const input_source&) = delete;

  /// The opened file's status (fstat).
  const struct stat& status() const noexcept { return st_; }

  /// Reads the whole input into a host array of its element type.
  ///
  /// Format: --raw means raw; standard input is .npy when it starts with the
  /// \x93NUMPY magic string, else raw; any other path is .npy when its name ends
  /// in .npy (any case), else raw. Raw data needs --dtype. Regular files are read
  /// knowing their size; pipes, FIFOs and devices are read to their end.
  ///
  /// Throws input_error (message starts with the display name) for malformed or
  /// truncated data, unsupported dtypes and --dtype mismatches. An empty array is
  /// returned as such; the commands decide that it is an error.
  any_array read();

  /// Reads part `index` of `parts` (0 <= index < parts) of a regular file's
  /// elements: [n * index / parts, n * (index + 1) / parts), n the number the
  /// file holds (a .npy's shape, or a raw file's size over the --dtype item
  /// size), so that `parts` processes read one file between them, each its own
  /// slice, possibly empty. After the header, only the slice's bytes are read
  /// (positioned reads). The checks are read()'s (header, dtype, the file's size
  /// against the shape): every part of a bad file fails alike. A stream
  /// (standard input, a pipe, a FIFO, a device) cannot be read in parts: throws
  /// input_error.
  input_part read_part(std::int64_t index, std::int64_t parts);

  /// For a regular file opened by name (not standard input, a pipe, a FIFO or a
  /// device): where its array lies, after read()'s checks of the header, the
  /// dtype and the file's size against the shape (the same errors); nullopt for
  /// anything else. Reads the header only: read_data_at() reads the data.
  std::optional<file_layout> positioned_layout();

  /// Reads bytes [offset, offset + len) of the array that `l` (from
  /// positioned_layout()) describes into dst, adding them to `shown`. Several
  /// threads may call it at once. Throws input_error when the file ends first
  /// (it shrank while it was read) or on a read error.
  void read_data_at(const file_layout& l, void* dst, std::size_t len, std::uint64_t offset, progress& shown) const;

  /// After read(), read_part() or positioned_layout(): the array's shape as the .npy header gives it ({n} for raw
  /// data), for the commands that select along its last axis (--axis).
  const std::vector<std::int64_t>& shape() const noexcept { return shape_; }

 private:
  input_spec spec_;
  std::vector<std::int64_t> shape_;
  int fd_ = -1;
  bool owns_fd_ = false;
  struct stat st_ {};
};

/// Opens and reads in one go.
any_array load_input(const input_spec& spec);

}  // namespace kselect_cli
