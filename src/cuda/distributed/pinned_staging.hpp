// Page-locked host memory for the CUDA shard's per-round copies (the table up, the
// counts and extremes back) and the streamed selection's chunks
// (src/cuda/streamed/chunk_pump.hpp), kept between calls. From pageable memory each copy was
// staged by the driver and waited for; page-locked, a round's copies are plain DMA.
// Allocating page-locked memory is slow (it maps and pins pages), so freed blocks go to
// a process-wide list instead of back to the system: a call takes one (the smallest that
// fits) and returns it when its shard goes. The list holds at most as many blocks as
// shards have lived at once.
#pragma once

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstddef>
#include <mutex>
#include <vector>

#include "cuda/owning_support.hpp"

namespace kselect::cuda::distributed {

class pinned_staging {
 public:
  pinned_staging() = default;
  pinned_staging(const pinned_staging&) = delete;
  pinned_staging& operator=(const pinned_staging&) = delete;
  ~pinned_staging() { give_back(); }

  /// At least `bytes` of page-locked memory (the contents are not kept when it grows).
  unsigned char* reserve(std::size_t bytes) {
    if (bytes <= block_.bytes) return data();
    give_back();
    {
      const std::lock_guard<std::mutex> lock(mutex());
      std::vector<block>& blocks = free_blocks();
      auto best = blocks.end();
      for (auto it = blocks.begin(); it != blocks.end(); ++it)
        if (it->bytes >= bytes && (best == blocks.end() || it->bytes < best->bytes)) best = it;
      if (best != blocks.end()) {
        block_ = *best;
        blocks.erase(best);
        return data();
      }
    }
    std::size_t size = std::size_t{1} << 18;  // 256 KiB: a round of 8192 buckets and its table fit
    while (size < bytes) size *= 2;
    cuda_backend::check(cudaHostAlloc(&block_.pointer, size, cudaHostAllocPortable), "cudaHostAlloc (round staging)");
    block_.bytes = size;
    return data();
  }

  unsigned char* data() const { return static_cast<unsigned char*>(block_.pointer); }

 private:
  struct block {
    void* pointer = nullptr;
    std::size_t bytes = 0;
  };
  static std::mutex& mutex() {
    static std::mutex m;
    return m;
  }
  static std::vector<block>& free_blocks() {
    static std::vector<block> blocks;
    return blocks;
  }
  void give_back() {
    if (!block_.pointer) return;
    const std::lock_guard<std::mutex> lock(mutex());
    free_blocks().push_back(block_);
    block_ = {};
  }
  block block_;
};

/// A page-locked host image and its device copy, kept and grown together (contents are
/// not kept when they grow): the CUDA shard's per-round tables go up through one, and a
/// round's outputs come back through the same. The caller rewrites the host image only
/// after the copies that read it have finished (every round waits for its counts).
class staged_buffer {
 public:
  /// Room for `bytes` on both sides; returns the host image.
  unsigned char* reserve(std::size_t bytes, cudaStream_t stream, cudaMemPool_t pool) {
    if (bytes > capacity_) {
      device_ = cuda_backend::stream_buffer(0, stream);  // the old one is freed before the new one is taken
      device_ = cuda_backend::stream_buffer(bytes, stream, pool);
      capacity_ = bytes;
    }
    return host_.reserve(bytes);
  }
  unsigned char* host() const { return host_.data(); }
  unsigned char* device() const { return static_cast<unsigned char*>(device_.get()); }

 private:
  pinned_staging host_;
  cuda_backend::stream_buffer device_{0, nullptr};
  std::size_t capacity_ = 0;
};

}  // namespace kselect::cuda::distributed
