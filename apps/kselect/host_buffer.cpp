#include "host_buffer.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <new>

namespace kselect_cli {
namespace {

constexpr std::size_t huge_page = std::size_t{2} << 20;

/// Asks for huge pages on [p, p + bytes): advice only, where THP is off or the
/// call fails the memory works the same with small pages. The range is widened
/// to whole pages, not narrowed to whole 2 MiB extents: advice on part of a
/// mapping splits it, and realloc's mremap then fails on the split mapping and
/// copies instead (the kernel uses huge pages on the aligned extents anyway).
void advise_huge_pages(void* p, std::size_t bytes) {
  if (bytes < huge_page) return;
#ifdef MADV_HUGEPAGE
  static const auto page = static_cast<std::uintptr_t>(::sysconf(_SC_PAGESIZE));
  const auto begin = reinterpret_cast<std::uintptr_t>(p) & ~(page - 1);
  const auto end = (reinterpret_cast<std::uintptr_t>(p) + bytes + page - 1) & ~(page - 1);
  ::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
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
