// The count pass of streamed selection (src/cuda/streamed/streamed_select.cpp): one
// chunk of the host array, on the device, counted into a pass's table
// (core/stream_plan.hpp) and its kept intervals' elements appended to the kept buffer.
// Plain C++ declarations; the kernel is in stream_count.cu.
#pragma once

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "core/key_traits.hpp"
#include "core/stream_plan.hpp"
#include "cuda/owning_support.hpp"

namespace kselect::cuda_backend {

/// Counts d_chunk[0..count) into d_counts (table's buckets; atomically added to) and
/// appends the elements of kept intervals to d_kept: d_kept_keys counts every such
/// element, those at positions below `capacity` are stored, and where
/// d_kept_indices is not null their input positions (first_index + position in the
/// chunk) beside them. d_noncanonical counts the
/// elements whose bits are not their key's value's (-0.0, NaNs other than the
/// canonical one): where there are none, every answer is the input's element as it
/// is. `blocks` blocks of stream_count_threads threads; enqueued on `stream`, returns
/// the launch's status.
template <class T>
cudaError_t launch_stream_count(const T* d_chunk, std::int64_t count,
                                const core::stream_interval<core::key_t<T>>* d_table, int intervals,
                                std::uint32_t buckets, unsigned long long* d_counts, T* d_kept,
                                std::int64_t* d_kept_indices, std::int64_t first_index,
                                unsigned long long* d_kept_keys, unsigned long long* d_noncanonical,
                                std::int64_t capacity, int blocks, cudaStream_t stream);

inline constexpr int stream_count_threads = 256;

/// A pass's table and its counters on the device, in one allocation: the table
/// (copied up on construction), then `words` 64-bit counters set to zero, which the
/// count kernel adds to (its buckets, then its kept and non-canonical counts).
template <class U>
class pass_table {
 public:
  pass_table(std::span<const core::stream_interval<U>> table, std::size_t words, cudaStream_t stream)
      : intervals_(static_cast<int>(table.size())),
        counters_at_((table.size_bytes() + 15) / 16 * 16),
        words_(words),
        buffer_(counters_at_ + words * 8, stream) {
    check(cudaMemcpyAsync(buffer_.get(), table.data(), table.size_bytes(), cudaMemcpyHostToDevice, stream),
          "copying the table");
    check(cudaMemsetAsync(counters(), 0, words * 8, stream), "cudaMemsetAsync");
  }
  const core::stream_interval<U>* table() const { return static_cast<const core::stream_interval<U>*>(buffer_.get()); }
  int intervals() const { return intervals_; }
  unsigned long long* counters() const {
    return reinterpret_cast<unsigned long long*>(static_cast<char*>(buffer_.get()) + counters_at_);
  }
  /// The counters, once the pass enqueued on `stream` is done.
  std::vector<std::uint64_t> read(cudaStream_t stream) const {
    std::vector<std::uint64_t> words(words_);
    check(cudaMemcpyAsync(words.data(), counters(), words_ * 8, cudaMemcpyDeviceToHost, stream), "copying the counts");
    check(cudaStreamSynchronize(stream), "a streamed pass");
    return words;
  }

 private:
  int intervals_;
  std::size_t counters_at_, words_;
  stream_buffer buffer_;
};

/// Multiprocessors of the current device.
inline int current_device_sms() {
  int device = 0, sms = 0;
  check(cudaGetDevice(&device), "cudaGetDevice");
  check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device), "cudaDeviceGetAttribute");
  return sms;
}

/// Blocks of the count kernel for `count` elements on `sms` multiprocessors: a grid
/// stride over at most 8 blocks per multiprocessor.
inline int stream_count_blocks(std::int64_t count, int sms) {
  return static_cast<int>(std::min<std::int64_t>((count + stream_count_threads - 1) / stream_count_threads,
                                                 static_cast<std::int64_t>(sms) * 8));
}

}  // namespace kselect::cuda_backend
