// The names that the documentation's device-API examples use without declaring
// them (d_in, d_out, stream, bytes, ...), as members of device_vocabulary, on top
// of host_vocabulary's (example_vocabulary.hpp): device arrays of n elements, a
// workspace larger than any example on them needs, a non-blocking stream.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "examples/example_vocabulary.hpp"
#include "kselect/device.hpp"
#include "kselect/device_filter.cuh"
#include "kselect/kselect.hpp"

namespace kselect_examples {

inline void cuda_ok(cudaError_t st, const char* what) {
  if (st != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(st));
}

/// Device memory of `count` elements, freed with the vocabulary.
template <class T>
T* device_array(std::vector<void*>& owned, std::int64_t count) {
  void* p = nullptr;
  cuda_ok(cudaMalloc(&p, static_cast<std::size_t>(count) * sizeof(T)), "cudaMalloc");
  owned.push_back(p);
  return static_cast<T*>(p);
}

/// Converts to each configuration of the device API (select_config, topk_config,
/// approx_config, filter_config), so that `cfg` fits every call that takes one.
struct any_config : kselect::device::select_config,
                    kselect::device::topk_config,
                    kselect::device::approx_config,
                    kselect::device::filter_config {};

/// The examples of the device API (kselect/device.hpp, kselect/device_filter.cuh).
struct device_vocabulary : host_vocabulary {
  std::vector<void*> owned;  // freed by the destructor
  cudaStream_t stream = nullptr;
  std::size_t bytes = std::size_t{64} << 20;
  void* d_ws = device_array<char>(owned, static_cast<std::int64_t>(bytes));

  float* d_in_data = device_array<float>(owned, n);
  const float* d_in = d_in_data;
  const float* d_keys = d_in_data;
  const float* d_keys_in = d_in_data;
  /// The owning API on device memory (the CUDA backend).
  const float* d_ptr = d_in_data;
  float* d_data = device_array<float>(owned, n);
  float* d_out = device_array<float>(owned, n);
  float* d_keys_out = device_array<float>(owned, n);
  std::int32_t* d_vals_data = device_array<std::int32_t>(owned, n);
  const std::int32_t* d_vals = d_vals_data;
  const std::int32_t* d_values_in = d_vals_data;
  std::int32_t* d_vals_out = device_array<std::int32_t>(owned, n);
  std::int32_t* d_values_out = d_vals_out;
  std::int32_t* d_idx_out = device_array<std::int32_t>(owned, n);
  std::int64_t* d_indices_out = device_array<std::int64_t>(owned, n);
  std::int64_t* d_idx = device_array<std::int64_t>(owned, n);
  std::int64_t* d_out_ranks = device_array<std::int64_t>(owned, n);
  std::int64_t* d_count = device_array<std::int64_t>(owned, 1);
  std::int64_t* d_num_selected = d_count;
  std::uint8_t* d_flags_data = device_array<std::uint8_t>(owned, n);
  const std::uint8_t* d_flags = d_flags_data;

  std::vector<std::int64_t> sorted_ranks = {0, n / 4, n / 2, n - 1};  // sorted, unique
  const std::int64_t* h_ranks = sorted_ranks.data();
  std::int64_t num_ranks = static_cast<std::int64_t>(sorted_ranks.size());
  std::int64_t max_rank_error = n / 1000;
  /// Bounds of filter_range (keys in [0, 1)); as rank_range's positions they are 0 and 0.
  float lo = 0.25f, hi = 0.5f;
  kselect::predicate<float> pred = kselect::lt(0.5f);
  any_config cfg;

  device_vocabulary() {
    cuda_ok(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "stream");
    const auto un = static_cast<std::size_t>(n);
    cuda_ok(cudaMemcpy(d_in_data, values.data(), un * sizeof(float), cudaMemcpyHostToDevice), "copy keys");
    cuda_ok(cudaMemcpy(d_data, values.data(), un * sizeof(float), cudaMemcpyHostToDevice), "copy keys");
    cuda_ok(cudaMemcpy(d_flags_data, flag_bytes.data(), un, cudaMemcpyHostToDevice), "copy flags");
    std::vector<std::int32_t> v(un);
    for (std::size_t i = 0; i < un; ++i) v[i] = static_cast<std::int32_t>(i);
    cuda_ok(cudaMemcpy(d_vals_data, v.data(), un * sizeof(std::int32_t), cudaMemcpyHostToDevice), "copy payload");
  }
  device_vocabulary(const device_vocabulary&) = delete;
  device_vocabulary& operator=(const device_vocabulary&) = delete;
  ~device_vocabulary() {
    cudaStreamSynchronize(stream);
    if (d_ws != owned.front()) cudaFree(d_ws);  // the example allocated its own
    for (void* p : owned) cudaFree(p);
    cudaStreamDestroy(stream);
  }

  /// After run(): the example's work finished without a CUDA error, and its last
  /// device-API call was accepted (a refused one leaves last_error_message()).
  void check() {
    EXPECT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
    EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    EXPECT_EQ(cudaGetLastError(), cudaSuccess);
    EXPECT_STREQ(kselect::device::last_error_message(), "");
  }
};

}  // namespace kselect_examples
