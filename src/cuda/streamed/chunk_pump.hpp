// The copying half of streamed selection (src/cuda/streamed/streamed_select.cpp): a
// pass over an array in host memory, chunk by chunk, each chunk copied to one of two
// device buffers and handed to a kernel, so that a chunk's copy runs while the
// previous chunk is counted. Host threads copy each chunk into one of two pinned
// staging buffers while the previous one is in flight, unless the array is pinned
// itself (then the copy engine reads it directly). Copies run on a stream of the
// pump's own, the kernels on the caller's; events order the two.
#pragma once

#include <cuda_runtime_api.h>
#include <omp.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#include "cuda/distributed/pinned_staging.hpp"
#include "cuda/owning_support.hpp"
#include "kselect/detail/cuda_support.hpp"

namespace kselect::cuda_backend {

/// memcpy over the host threads (one thread copies less than a PCIe 5 link carries).
inline void parallel_copy(void* dst, const void* src, std::size_t bytes, int threads) {
  constexpr std::size_t piece = std::size_t{1} << 20;
  const auto pieces = static_cast<std::int64_t>((bytes + piece - 1) / piece);
#pragma omp parallel for num_threads(threads) schedule(static) if (pieces > 1)
  for (std::int64_t p = 0; p < pieces; ++p) {
    const std::size_t at = static_cast<std::size_t>(p) * piece;
    std::memcpy(static_cast<char*>(dst) + at, static_cast<const char*>(src) + at, std::min(piece, bytes - at));
  }
}

class event {
 public:
  event() { check(cudaEventCreateWithFlags(&e_, cudaEventDisableTiming), "cudaEventCreate"); }
  ~event() { cudaEventDestroy(e_); }
  event(const event&) = delete;
  event& operator=(const event&) = delete;
  cudaEvent_t get() const { return e_; }

 private:
  cudaEvent_t e_{};
};

class cuda_stream {
 public:
  cuda_stream() { check(cudaStreamCreateWithFlags(&s_, cudaStreamNonBlocking), "cudaStreamCreate"); }
  ~cuda_stream() { cudaStreamDestroy(s_); }
  cuda_stream(const cuda_stream&) = delete;
  cuda_stream& operator=(const cuda_stream&) = delete;
  cudaStream_t get() const { return s_; }

 private:
  cudaStream_t s_{};
};

/// Copies `bytes` of device memory to pageable host memory through two pinned staging
/// buffers, the copy engine filling one while the host threads empty the other: a
/// copy from the device straight into pageable memory is staged by the driver at a
/// fraction of the link's bandwidth. Waits on `stream` (its work so far included).
inline void download(void* host, const void* device, std::size_t bytes, cudaStream_t stream, int threads) {
  if (bytes == 0) return;
  constexpr std::size_t piece = std::size_t{32} << 20;
  std::array<cuda::distributed::pinned_staging, 2> staging;
  std::array<event, 2> copied;
  const std::size_t pieces = (bytes + piece - 1) / piece;
  // Piece p goes into staging[p % 2]; the host empties piece p - 1 while p is copied.
  for (std::size_t p = 0; p <= pieces; ++p) {
    if (p < pieces) {
      const std::size_t at = p * piece, size = std::min(piece, bytes - at);
      check(cudaMemcpyAsync(staging[p % 2].reserve(size), static_cast<const char*>(device) + at, size,
                            cudaMemcpyDeviceToHost, stream),
            "copying to the host");
      check(cudaEventRecord(copied[p % 2].get(), stream), "cudaEventRecord");
    }
    if (p > 0) {
      const std::size_t at = (p - 1) * piece, size = std::min(piece, bytes - at);
      check(cudaEventSynchronize(copied[(p - 1) % 2].get()), "copying to the host");
      parallel_copy(static_cast<char*>(host) + at, staging[(p - 1) % 2].data(), size, threads);
    }
  }
}

class chunk_pump {
 public:
  /// Chunks of chunk_keys elements of type `element_bytes`; the device buffers are
  /// taken on `stream` (the caller's), where the kernels run.
  chunk_pump(const void* host, std::int64_t n, std::size_t element_bytes, std::int64_t chunk_keys,
             cudaStream_t stream, int threads)
      : host_(static_cast<const char*>(host)),
        n_(n),
        element_bytes_(element_bytes),
        chunk_keys_(chunk_keys),
        stream_(stream),
        threads_(threads),
        pinned_input_(kselect::detail::memory_kind_of(host) == kselect::detail::memory_kind::pinned_host) {
    const std::size_t bytes = static_cast<std::size_t>(chunk_keys) * element_bytes;
    for (int j = 0; j < 2; ++j) {
      device_[j] = std::make_unique<stream_buffer>(bytes, stream);
      if (!pinned_input_) staging_[j].reserve(bytes);
    }
    // The copy stream may use the device buffers once their allocation is done.
    check(cudaEventRecord(consumed_[0].get(), stream), "cudaEventRecord");
    check(cudaEventRecord(consumed_[1].get(), stream), "cudaEventRecord");
  }

  /// Waits for the copies still in flight (after a failure, the caller's stream may
  /// not have been synchronised), so the staging buffers go back unused.
  ~chunk_pump() { cudaStreamSynchronize(copy_.get()); }
  chunk_pump(const chunk_pump&) = delete;
  chunk_pump& operator=(const chunk_pump&) = delete;

  bool pinned_input() const { return pinned_input_; }

  /// One pass: for each chunk, count(device pointer, first element, elements) is
  /// called to enqueue its work on the caller's stream. Returns once every copy is
  /// enqueued (the caller synchronises its stream).
  template <class Count>
  void pass(Count&& count) {
    const std::int64_t chunks = (n_ + chunk_keys_ - 1) / chunk_keys_;
    for (std::int64_t c = 0; c < chunks; ++c) {
      const int j = static_cast<int>(c % 2);
      const std::int64_t first = c * chunk_keys_, keys = std::min(chunk_keys_, n_ - first);
      const std::size_t bytes = static_cast<std::size_t>(keys) * element_bytes_;
      const char* source = host_ + static_cast<std::size_t>(first) * element_bytes_;
      if (!pinned_input_) {
        // The staging buffer's previous copy to the device must be done.
        check(cudaEventSynchronize(staged_[j].get()), "waiting for a staging buffer");
        parallel_copy(staging_[j].data(), source, bytes, threads_);
        source = reinterpret_cast<const char*>(staging_[j].data());
      }
      // The device buffer's previous kernel must be done.
      check(cudaStreamWaitEvent(copy_.get(), consumed_[j].get(), 0), "cudaStreamWaitEvent");
      check(cudaMemcpyAsync(device_[j]->get(), source, bytes, cudaMemcpyHostToDevice, copy_.get()), "copying a chunk");
      check(cudaEventRecord(staged_[j].get(), copy_.get()), "cudaEventRecord");
      check(cudaStreamWaitEvent(stream_, staged_[j].get(), 0), "cudaStreamWaitEvent");
      count(device_[j]->get(), first, keys);
      check(cudaEventRecord(consumed_[j].get(), stream_), "cudaEventRecord");
    }
  }

 private:
  const char* host_;
  std::int64_t n_;
  std::size_t element_bytes_;
  std::int64_t chunk_keys_;
  cudaStream_t stream_;
  int threads_;
  bool pinned_input_;
  cuda_stream copy_;
  std::array<std::unique_ptr<stream_buffer>, 2> device_;
  /// Pinned memory is slow to allocate: these come from (and go back to) a list kept
  /// between calls.
  std::array<cuda::distributed::pinned_staging, 2> staging_;
  std::array<event, 2> staged_;    ///< a chunk's copy from staging_[j] to device_[j] is done
  std::array<event, 2> consumed_;  ///< the kernel reading device_[j] is done
};

}  // namespace kselect::cuda_backend
