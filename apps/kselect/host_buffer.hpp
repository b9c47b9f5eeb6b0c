// Uninitialised host memory for input arrays. Large buffers are 2 MiB aligned and
// advised to use transparent huge pages: reading a file into fresh memory is
// otherwise dominated by one page fault per 4 KiB (NumPy does the same).
#pragma once

#include <cstddef>
#include <cstdlib>
#include <memory>

namespace kselect_cli {

class host_buffer {
 public:
  host_buffer() = default;
  /// `bytes` bytes, not zero-filled. Throws std::bad_alloc.
  explicit host_buffer(std::size_t bytes);

  void* data() noexcept { return data_.get(); }
  const void* data() const noexcept { return data_.get(); }
  std::size_t size() const noexcept { return size_; }

  /// Grows or shrinks to `bytes`, keeping the first min(size(), bytes) bytes
  /// (realloc: a large block is moved by remapping its pages, not copied).
  void resize(std::size_t bytes);

 private:
  struct free_deleter {
    void operator()(void* p) const noexcept { std::free(p); }
  };
  std::unique_ptr<void, free_deleter> data_;
  std::size_t size_ = 0;
};

}  // namespace kselect_cli
