// The file of an output option (filter -o OUT, select/quantile/topk -o OUT and
// topk --indices-output IDX), opened before any work so that a refused or
// impossible target costs nothing, and written so that no data is ever lost:
//
//  - "-", or a target that is the same file as standard output (/dev/stdout):
//    the bytes go to standard output as it is;
//  - a character device, FIFO or socket: opened for writing (never created,
//    truncated or removed) and the bytes streamed to it;
//  - a regular file, existing or new, through any symbolic links: the bytes go to
//    a temporary file in the target's directory (the target's mode, or 0666 less
//    the umask for a new file), synced, then renamed over the target. On any
//    failure, and on SIGINT, SIGTERM or SIGHUP, only the temporary file is
//    removed; the target is untouched;
//  - anything else (a directory, a block device): refused;
//  - an input (the values, or a side file such as --offsets; same device and
//    inode, by whatever name): refused.
#pragma once

#include <sys/stat.h>

#include <cstddef>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>

#include "progress.hpp"
#include "signal_cleanup.hpp"

namespace kselect_cli {

/// Standard output is a pipe whose reader has gone (EPIPE). The tool then ends
/// quietly with exit code 1: the reader chose to stop, nothing is worth a message.
class broken_pipe : public std::runtime_error {
 public:
  broken_pipe() : std::runtime_error("standard output: write error: Broken pipe") {}
};

/// A file an output must not replace: an opened input's status and its name in messages.
struct guarded_input {
  struct stat status;
  std::string name;
};

class output_file {
 public:
  /// Checks and opens `path`. `input` is the opened input's status, named
  /// `input_name` in messages. Throws input_error (exit code 2) when the target
  /// is the input, is a directory, a block device or another kind of file that is
  /// not written, or cannot be created or opened.
  output_file(const std::string& path, const struct stat& input, const std::string& input_name);
  /// The same against every one of `inputs`; `option` names the output option in
  /// hints ("give -o another file").
  output_file(const std::string& path, std::span<const guarded_input> inputs, std::string_view option = "-o");
  ~output_file();  // closes; removes the temporary file unless commit() succeeded
  output_file(const output_file&) = delete;
  output_file& operator=(const output_file&) = delete;

  /// True when the bytes go to standard output (the report then goes to stderr).
  bool to_stdout() const noexcept { return fd_ == 1 && !owns_fd_; }
  /// The target as messages name it ("standard output" for "-").
  const std::string& name() const noexcept { return name_; }

  /// Writes all of data[0, bytes), adding them to `shown`'s bytes done. Throws
  /// kselect::error "NAME: write error: ..." (exit code 1), or broken_pipe.
  void write(const void* data, std::size_t bytes, progress* shown = nullptr);

  /// Makes the written bytes the target's content: fdatasync, close and rename
  /// over the target for a regular file; close for anything else. Throws
  /// kselect::error.
  void commit();

 private:
  void open_stream(const std::string& path);
  void open_replacement(const std::string& path, const struct stat* existing);
  [[noreturn]] void write_error(int err) const;

  std::string name_;
  int fd_ = -1;
  bool owns_fd_ = false;
  std::size_t written_ = 0;
  // A regular file's replacement: the temporary file and the name it replaces.
  std::string temp_, target_;
  bool committed_ = false;
  std::unique_ptr<unlink_on_signal> cleanup_;
};

}  // namespace kselect_cli
