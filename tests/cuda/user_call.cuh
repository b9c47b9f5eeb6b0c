// How the GPU tests call the device API as a user does: the two-phase workspace
// protocol, on a non-blocking stream (nothing may rely on the legacy default
// stream), with the workspace and the outputs filled with poison bytes first, and
// `guard` elements after each output that no call may write. Shared by the filter
// tests and the segmented tests.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "common/device_data.cuh"

namespace kselect::test {

inline constexpr unsigned char output_poison = 0x5A;
inline constexpr unsigned char workspace_poison = 0xA5;
/// Elements after every output array that no call may write.
inline constexpr std::int64_t guard = 16;

/// A non-blocking stream: the calls must not rely on the legacy default stream.
class test_stream {
 public:
  test_stream() { cuda_check(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "stream"); }
  ~test_stream() { cudaStreamDestroy(stream_); }
  test_stream(const test_stream&) = delete;
  test_stream& operator=(const test_stream&) = delete;
  cudaStream_t get() const { return stream_; }

 private:
  cudaStream_t stream_ = nullptr;
};

/// A device output: `size` elements a call may write, then `guard` more that it may
/// not; poisoned with 0x5A before each call.
template <class V>
class device_output {
 public:
  explicit device_output(std::int64_t size) : buf_(static_cast<std::size_t>(size + guard)) {}
  V* data() const { return buf_.data(); }
  void poison(cudaStream_t stream) const {
    cuda_check(cudaMemsetAsync(buf_.data(), output_poison, buf_.size() * sizeof(V), stream), "poison output");
  }
  /// Every element, the guard included.
  std::vector<V> host() const { return buf_.to_host(); }

 private:
  device_buffer<V> buf_;
};

/// Whether `count` bytes at p all hold the output poison.
inline bool all_poison(const void* p, std::size_t count) {
  const auto* b = static_cast<const unsigned char*>(p);
  return std::all_of(b, b + count, [](unsigned char x) { return x == output_poison; });
}

/// The two-phase protocol: the size query (null workspace), then call(workspace,
/// bytes) with a workspace of exactly that size filled with 0xA5; waits for
/// `stream`. Returns the query's status if it fails, else the call's.
template <class Call>
cudaError_t two_phase(cudaStream_t stream, Call&& call) {
  // The inputs were copied by cudaMemcpy from pageable memory, which may return
  // before the copy lands; `stream` does not wait for the legacy default stream.
  cuda_check(cudaDeviceSynchronize(), "the inputs' copies");
  std::size_t bytes = 0;
  cudaError_t st = call(static_cast<void*>(nullptr), bytes);
  if (st != cudaSuccess) return st;
  if (bytes == 0) {
    ADD_FAILURE() << "the size query answered 0 bytes (a null workspace would be a query again)";
    return cudaErrorInvalidValue;
  }
  device_buffer<char> ws(bytes);
  cuda_check(cudaMemsetAsync(ws.data(), workspace_poison, bytes, stream), "poison workspace");
  st = call(static_cast<void*>(ws.data()), bytes);
  cuda_check(cudaStreamSynchronize(stream), "the call's kernels");
  return st;
}

}  // namespace kselect::test
