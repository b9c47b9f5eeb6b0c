// Runs the device API the way a user would (workspace query, poisoned workspace and
// output, a non-default stream) and returns the answers on the host.
#pragma once

#include <gtest/gtest.h>

#include <span>
#include <vector>

#include "common/device_data.cuh"
#include "kselect/device.hpp"

namespace kselect::test {

template <class T>
std::vector<T> gpu_multiselect(const T* d_in, std::int64_t n, std::span<const std::int64_t> ranks,
                               algorithm algo, std::size_t* workspace_used = nullptr) {
  cudaStream_t stream;
  cuda_check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "stream");
  device::select_config cfg;
  cfg.algo = algo;
  std::size_t bytes = 0;
  cudaError_t st = device::multiselect<T>(nullptr, bytes, d_in, nullptr, n, ranks.data(),
                                          static_cast<std::int64_t>(ranks.size()), stream, cfg);
  EXPECT_EQ(st, cudaSuccess) << device::last_error_message();
  if (workspace_used) *workspace_used = bytes;
  device_buffer<char> ws(bytes);
  device_buffer<T> out(ranks.size());
  cuda_check(cudaMemsetAsync(ws.data(), 0xA5, bytes, stream), "poison workspace");
  cuda_check(cudaMemsetAsync(out.data(), 0x5A, ranks.size() * sizeof(T), stream), "poison output");
  st = device::multiselect<T>(ws.data(), bytes, d_in, out.data(), n, ranks.data(),
                              static_cast<std::int64_t>(ranks.size()), stream, cfg);
  EXPECT_EQ(st, cudaSuccess) << device::last_error_message();
  cuda_check(cudaStreamSynchronize(stream), "sync");
  cuda_check(cudaStreamDestroy(stream), "stream destroy");
  return out.to_host();
}

}  // namespace kselect::test
