#include "output.hpp"

#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "errors.hpp"
#include "kselect/types.hpp"
#include "npy.hpp"
#include "progress.hpp"

namespace kselect_cli {
namespace {

/// Writes all of `text` to fd; returns 0 or the errno of the failure.
int write_all(int fd, std::string_view text) {
  while (!text.empty()) {
    const ssize_t w = ::write(fd, text.data(), text.size());
    if (w < 0 && errno == EINTR) continue;
    if (w < 0) return errno;
    if (w == 0) return EIO;
    text.remove_prefix(static_cast<std::size_t>(w));
  }
  return 0;
}

}  // namespace

void write_stdout(std::string_view text) {
  std::fflush(stdout);  // what went through stdio first stays first
  // EPIPE instead of death by SIGPIPE, so that the end is ours to choose.
  std::signal(SIGPIPE, SIG_IGN);
  const int err = write_all(STDOUT_FILENO, text);
  if (err == 0) return;
  // `kselect ... | head -1`: the reader has what it wanted; no message. Every
  // result is complete and every file committed when a command prints, so
  // leaving from here loses nothing.
  if (err == EPIPE) std::exit(exit_failure);
  throw kselect::error(std::string("standard output: write error: ") + std::strerror(err));
}

void write_stderr(std::string_view text) { (void)write_all(STDERR_FILENO, text); }

void write_npy(output_file& out, dtype t, const void* data, std::int64_t count) {
  write_npy(out, t, data, std::vector<std::int64_t>{count});
}

void write_npy(output_file& out, dtype t, const void* data, const std::vector<std::int64_t>& shape) {
  const std::string prefix = npy::array_prefix(t, shape);
  std::size_t bytes = dtype_size(t);
  for (const std::int64_t d : shape) bytes *= static_cast<std::size_t>(d);
  progress shown("writing " + out.name(), progress::kind::bytes, prefix.size() + bytes);
  out.write(prefix.data(), prefix.size(), &shown);
  out.write(data, bytes, &shown);
  out.commit();
}

}  // namespace kselect_cli
