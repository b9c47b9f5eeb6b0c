#include "output_file.hpp"

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <climits>
#include <csignal>
#include <cstring>

#include "errors.hpp"
#include "kselect/types.hpp"

namespace kselect_cli {
namespace {

// Write in pieces so the progress line moves, also into a pipe or FIFO whose
// reader is slow (a write() to them returns only once all of it is taken).
constexpr std::size_t chunk = std::size_t{1} << 20;

bool same_file(const struct stat& a, const struct stat& b) { return a.st_dev == b.st_dev && a.st_ino == b.st_ino; }

mode_t current_umask() {
  const mode_t m = ::umask(0);
  ::umask(m);
  return m;
}

/// The name a write through `path` finally creates or replaces: `path` with its
/// chain of symbolic links followed (relative links from the link's directory),
/// so that the link is kept and the file it points to is replaced.
std::string resolve_symlinks(std::string path, const std::string& name) {
  for (int hops = 0; hops < 40; ++hops) {
    struct stat st {};
    if (::lstat(path.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) return path;
    char buf[PATH_MAX];
    const ssize_t n = ::readlink(path.c_str(), buf, sizeof buf);
    if (n < 0 || static_cast<std::size_t>(n) == sizeof buf)
      throw input_error(name + ": cannot follow the symbolic link " + path + ": " +
                        std::strerror(n < 0 ? errno : ENAMETOOLONG));
    std::string target(buf, static_cast<std::size_t>(n));
    if (target.front() != '/') {
      const auto slash = path.rfind('/');
      if (slash != std::string::npos) target = path.substr(0, slash + 1) + target;
    }
    path = std::move(target);
  }
  throw input_error(name + ": cannot create: " + std::strerror(ELOOP));
}

void ignore_sigpipe() {
  // A reader that has gone then shows as EPIPE from write(), which the tool
  // handles, rather than killing the process by SIGPIPE.
  std::signal(SIGPIPE, SIG_IGN);
}

}  // namespace

output_file::output_file(const std::string& path, const struct stat& input, const std::string& input_name)
    : output_file(path, std::span<const guarded_input>(std::array{guarded_input{input, input_name}})) {}

output_file::output_file(const std::string& path, std::span<const guarded_input> inputs, std::string_view option)
    : name_(path == "-" ? "standard output" : path) {
  const std::string give(option);
  auto refuse_input = [&](const struct stat& st) {
    // A terminal or /dev/null may be both input and output; a file may not.
    if (S_ISCHR(st.st_mode)) return;
    for (const guarded_input& in : inputs)
      if (same_file(st, in.status))
        throw input_error(name_ + ": is the same file as the input " + in.name + " (give " + give +
                          " another file)");
  };
  struct stat out {};
  const bool have_stdout = ::fstat(STDOUT_FILENO, &out) == 0;
  const int stdout_errno = errno;
  auto use_stdout = [&] {
    fd_ = STDOUT_FILENO;
    ignore_sigpipe();
  };
  if (path == "-") {
    if (!have_stdout) throw input_error(name_ + ": cannot write: " + std::strerror(stdout_errno));
    refuse_input(out);
    use_stdout();
    return;
  }
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    if (errno != ENOENT) throw input_error(name_ + ": cannot create: " + std::strerror(errno));
    open_replacement(path, nullptr);  // a new file (maybe through a dangling symbolic link)
    return;
  }
  refuse_input(st);
  if (have_stdout && same_file(st, out)) {
    use_stdout();  // /dev/stdout, or the file the shell redirected stdout to
    return;
  }
  if (S_ISREG(st.st_mode)) {
    open_replacement(path, &st);
    return;
  }
  if (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode)) {
    open_stream(path);
    return;
  }
  if (S_ISDIR(st.st_mode)) throw input_error(name_ + ": is a directory (give " + give + " a file name)");
  const std::string what = S_ISBLK(st.st_mode) ? "is a block device" : "is not a regular file";
  throw input_error(name_ + ": " + what +
                    " (kselect writes regular files, character devices, FIFOs and sockets)");
}

void output_file::open_stream(const std::string& path) {
  ignore_sigpipe();
  // No O_CREAT, no O_TRUNC: the file exists, and a device or FIFO is only written to.
  fd_ = ::open(path.c_str(), O_WRONLY | O_CLOEXEC | O_NOCTTY);
  if (fd_ < 0) throw input_error(name_ + ": cannot open for writing: " + std::strerror(errno));
  owns_fd_ = true;
}

void output_file::open_replacement(const std::string& path, const struct stat* existing) {
  if (path.back() == '/') throw input_error(name_ + ": cannot create: " + std::strerror(EISDIR));
  target_ = resolve_symlinks(path, name_);
  const auto slash = target_.rfind('/');
  const std::string dir = slash == std::string::npos ? "" : target_.substr(0, slash + 1);
  const std::string base = slash == std::string::npos ? target_ : target_.substr(slash + 1);
  // Hidden, named after the target so that a leftover (after SIGKILL) explains itself.
  std::string temp = dir + "." + base.substr(0, 200) + ".kselect-XXXXXX";
  fd_ = ::mkostemp(temp.data(), O_CLOEXEC);
  if (fd_ < 0) {
    const int e = errno;
    std::string message = name_ + ": cannot create: " + std::strerror(e);
    if (e == EACCES || e == EPERM || e == EROFS)
      message += " (the new file is written in " + (dir.empty() ? std::string(".") : dir) +
                 " first, then renamed over " + name_ + ")";
    throw input_error(message);
  }
  owns_fd_ = true;
  temp_ = std::move(temp);
  cleanup_ = std::make_unique<unlink_on_signal>(temp_);
  // The replacement keeps the target's owner (where allowed) and mode; mkstemp's
  // 0600 stays where fchmod fails, which is never wider than intended.
  if (existing) {
    if (existing->st_uid != ::geteuid() || existing->st_gid != ::getegid())
      (void)::fchown(fd_, existing->st_uid, existing->st_gid);
    (void)::fchmod(fd_, existing->st_mode & 07777);
  } else {
    (void)::fchmod(fd_, 0666 & ~current_umask());
  }
  // Past RLIMIT_FSIZE, write() then fails with EFBIG (reported, temporary file
  // removed) instead of SIGXFSZ killing the process with the file left behind.
  std::signal(SIGXFSZ, SIG_IGN);
}

output_file::~output_file() {
  if (owns_fd_) ::close(fd_);
  if (!temp_.empty() && !committed_) ::unlink(temp_.c_str());
}

void output_file::write_error(int err) const {
  throw kselect::error(name_ + ": write error: " + std::strerror(err));
}

void output_file::write(const void* data, std::size_t bytes, progress* shown) {
  const char* p = static_cast<const char*>(data);
  while (bytes > 0) {
    const ssize_t w = ::write(fd_, p, std::min(bytes, chunk));
    if (w < 0) {
      if (errno == EINTR) continue;
      if (errno == EAGAIN || errno == EWOULDBLOCK) {  // an inherited non-blocking pipe
        pollfd pfd{fd_, POLLOUT, 0};
        ::poll(&pfd, 1, -1);
        continue;
      }
      if (errno == EPIPE && to_stdout()) throw broken_pipe();
      write_error(errno);
    }
    if (w == 0) write_error(EIO);
    p += w;
    bytes -= static_cast<std::size_t>(w);
    written_ += static_cast<std::size_t>(w);
    if (shown) shown->set_done(written_);
  }
}

void output_file::commit() {
  if (!owns_fd_) return;  // standard output: nothing to close
  const int fd = fd_;
  owns_fd_ = false;
  if (temp_.empty()) {
    if (::close(fd) != 0) write_error(errno);
    return;
  }
  // EINVAL: a file system without sync; the data is as safe as it can be made.
  if (::fdatasync(fd) != 0 && errno != EINVAL) {
    const int e = errno;
    ::close(fd);
    write_error(e);
  }
  if (::close(fd) != 0) write_error(errno);
  if (::rename(temp_.c_str(), target_.c_str()) != 0)
    throw kselect::error(name_ + ": cannot replace it: " + std::strerror(errno));
  committed_ = true;
  cleanup_.reset();
}

}  // namespace kselect_cli
