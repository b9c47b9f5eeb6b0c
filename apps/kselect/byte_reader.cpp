#include "byte_reader.hpp"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <system_error>
#include <thread>
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

std::size_t byte_reader::read_file_up_to(void* dst, std::size_t n) {
  const off_t start = ::lseek(fd_, 0, SEEK_CUR);
  if (start < 0) return read_up_to(dst, n);
  const std::size_t got = read_file_at(dst, n, static_cast<std::uint64_t>(start));
  ::lseek(fd_, start + static_cast<off_t>(got), SEEK_SET);
  return got;
}

std::size_t byte_reader::read_file_at(void* dst, std::size_t n, std::uint64_t offset) {
  // Parts of at least 8 MiB, 2 MiB aligned in the destination (each thread
  // faults in its own huge pages), at most 4: past that the memory bus, not the
  // cores, is the limit.
  constexpr std::size_t min_part = std::size_t{8} << 20, align = std::size_t{2} << 20;
  const std::size_t cores = std::max(1u, std::thread::hardware_concurrency());
  const std::size_t parts = std::max<std::size_t>(1, std::min({cores, std::size_t{4}, n / min_part}));
  constexpr auto max_offset = static_cast<std::uint64_t>(std::numeric_limits<off_t>::max());
  if (n > max_offset || offset > max_offset - n)
    throw input_error("read error: offset " + std::to_string(offset) + " is beyond what this system can address");
  const auto start = static_cast<off_t>(offset);

  auto* out = static_cast<char*>(dst);
  std::atomic<std::uint64_t> done{0};
  struct part_result {
    std::size_t got = 0;
    int err = 0;
  };
  std::vector<part_result> results(parts);
  auto read_part = [&](std::size_t i, std::size_t begin, std::size_t end) {
    part_result& r = results[i];
    while (begin + r.got < end) {
      const ssize_t got = ::pread(fd_, out + begin + r.got, std::min(end - begin - r.got, chunk),
                                  start + static_cast<off_t>(begin + r.got));
      if (got < 0 && errno == EINTR) continue;
      if (got < 0) r.err = errno;
      if (got <= 0) return;
      r.got += static_cast<std::size_t>(got);
      shown_.set_done(consumed_ + done.fetch_add(static_cast<std::uint64_t>(got)) + static_cast<std::uint64_t>(got));
    }
  };
  std::vector<std::size_t> bounds(parts + 1, n);
  bounds[0] = 0;
  for (std::size_t i = 1; i < parts; ++i) {
    const auto p = reinterpret_cast<std::uintptr_t>(out) + n / parts * i;
    bounds[i] = static_cast<std::size_t>((p & ~(align - 1)) - reinterpret_cast<std::uintptr_t>(out));
  }
  std::vector<std::thread> threads;
  try {
    for (std::size_t i = 1; i < parts; ++i) threads.emplace_back(read_part, i, bounds[i], bounds[i + 1]);
  } catch (const std::system_error&) {
    // Fewer threads: the parts without one are read below, here.
  }
  read_part(0, bounds[0], bounds[1]);
  for (std::size_t i = threads.size() + 1; i < parts; ++i) read_part(i, bounds[i], bounds[i + 1]);
  for (auto& t : threads) t.join();

  // The bytes read are those up to the first short part.
  std::size_t got = 0;
  for (std::size_t i = 0; i < parts; ++i) {
    if (results[i].err != 0) throw input_error(std::string("read error: ") + std::strerror(results[i].err));
    got += results[i].got;
    if (bounds[i] + results[i].got < bounds[i + 1]) break;
  }
  consumed_ += got;
  shown_.set_done(consumed_);
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
