#include "host_buffer.hpp"

#include <sys/mman.h>

#include <cstdint>
#include <new>

namespace kselect_cli {
namespace {

constexpr std::size_t huge_page = std::size_t{2} << 20;

/// Asks for huge pages on the whole 2 MiB extents of [p, p + bytes). Advice only:
/// where THP is off or the call fails, the memory works the same with small pages.
void advise_huge_pages(void* p, std::size_t bytes) {
  if (bytes < huge_page) return;
#ifdef MADV_HUGEPAGE
  const auto begin = reinterpret_cast<std::uintptr_t>(p);
  const auto first = (begin + huge_page - 1) & ~(huge_page - 1);
  const auto last = (begin + bytes) & ~(huge_page - 1);
  if (last > first) ::madvise(reinterpret_cast<void*>(first), last - first, MADV_HUGEPAGE);
#endif
}

}  // namespace

host_buffer::host_buffer(std::size_t bytes) {
  if (bytes == 0) return;
  void* p = nullptr;
  if (bytes >= huge_page) {
    // aligned_alloc needs a size that is a multiple of the alignment.
    const std::size_t rounded = (bytes + huge_page - 1) & ~(huge_page - 1);
    if (rounded < bytes) throw std::bad_alloc();
    p = std::aligned_alloc(huge_page, rounded);
  } else {
    p = std::malloc(bytes);
  }
  if (!p) throw std::bad_alloc();
  advise_huge_pages(p, bytes);
  data_.reset(p);
  size_ = bytes;
}

void host_buffer::resize(std::size_t bytes) {
  if (bytes == size_) return;
  if (bytes == 0) {
    data_.reset();
    size_ = 0;
    return;
  }
  void* p = std::realloc(data_.get(), bytes);
  if (!p) throw std::bad_alloc();
  (void)data_.release();
  data_.reset(p);
  size_ = bytes;
  advise_huge_pages(p, bytes);
}

}  // namespace kselect_cli
