#include "byte_reader.hpp"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "errors.hpp"

namespace kselect_cli {
namespace {

// Large enough that the system call overhead vanishes, small enough that the
// progress line moves.
constexpr std::size_t chunk = std::size_t{16} << 20;

// A stream's buffer starts here and doubles (realloc remaps large blocks).
constexpr std::size_t first_capacity = std::size_t{1} << 20;

}  // namespace

std::size_t byte_reader::read_up_to(void* dst, std::size_t n) {
  auto* out = static_cast<char*>(dst);
  std::size_t got = 0;
  while (got < n) {
    const ssize_t r = ::read(fd_, out + got, std::min(n - got, chunk));
    if (r < 0) {
      if (errno == EINTR) continue;
      throw input_error(std::string("read error: ") + std::strerror(errno));
    }
    if (r == 0) break;
    got += static_cast<std::size_t>(r);
    consumed_ += static_cast<std::uint64_t>(r);
    shown_.set_done(consumed_);
  }
  return got;
}

std::size_t byte_reader::append_up_to(host_buffer& buf, std::size_t have, std::size_t n) {
  const std::size_t want = n > SIZE_MAX - have ? SIZE_MAX : have + n;
  while (have < want) {
    if (have == buf.size()) buf.resize(std::min(want, std::max(first_capacity, buf.size() * 2)));
    const std::size_t limit = std::min(buf.size(), want);
    have += read_up_to(static_cast<char*>(buf.data()) + have, limit - have);
    if (have < limit) break;  // the end of the input
  }
  return have;
}

std::uint64_t byte_reader::skip_to_end() {
  std::vector<char> scratch(std::size_t{64} << 10);
  std::uint64_t skipped = 0;
  for (std::size_t got; (got = read_up_to(scratch.data(), scratch.size())) != 0;) skipped += got;
  return skipped;
}

}  // namespace kselect_cli
