// Sequential reading of an input's bytes from a file descriptor (a regular file,
// a pipe, a FIFO, a terminal, a character device): read() in large chunks
// straight into the destination, retried after EINTR and short reads, with the
// bytes done shown on a progress line. Errors throw input_error without a file
// name (the caller adds it).
#pragma once

#include <cstddef>
#include <cstdint>

#include "host_buffer.hpp"
#include "progress.hpp"

namespace kselect_cli {

class byte_reader {
 public:
  /// Does not own `fd`.
  byte_reader(int fd, progress& shown) : fd_(fd), shown_(shown) {}

  /// Reads up to `n` bytes into dst; fewer only at the end of the input.
  std::size_t read_up_to(void* dst, std::size_t n);

  /// Appends up to `n` bytes to buf[have..), growing buf as the bytes arrive
  /// (so a stream that ends early never costs the whole allocation); returns
  /// the new number of bytes held, have + what was read.
  std::size_t append_up_to(host_buffer& buf, std::size_t have, std::size_t n);

  /// Reads up to `n` bytes of a regular file into dst, from the current
  /// position, in contiguous parts read in parallel (pread) when it is large:
  /// the copy from the page cache and the page faults of fresh memory then use
  /// several cores. Leaves the position after what was read. Returns the bytes
  /// read, fewer only when the file ended early.
  std::size_t read_file_up_to(void* dst, std::size_t n);

  /// Reads up to `n` bytes of a regular file into dst from byte `offset` with
  /// positioned reads (pread), as read_file_up_to does, without using or moving
  /// the position: only those bytes are read (a process of a distributed job
  /// reads its slice of a shared file so). Returns the bytes read, fewer only
  /// when the file ends before offset + n.
  std::size_t read_file_at(void* dst, std::size_t n, std::uint64_t offset);

  /// Reads and drops the rest of the input; returns how many bytes there were.
  std::uint64_t skip_to_end();

  /// Bytes read so far.
  std::uint64_t consumed() const noexcept { return consumed_; }

 private:
  int fd_;
  progress& shown_;
  std::uint64_t consumed_ = 0;
};

}  // namespace kselect_cli
