// Device memory for the distributed GPU tests (mpi_gpu_test.cpp: processes sharing one
// GPU; mpi_multidevice_test.cpp: one GPU per process): a process's slice copied to its
// current device, and bit-for-bit comparison of answers.
#pragma once

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/key_traits.hpp"
#include "kselect/kselect.hpp"

namespace kselect::mpi_test {

inline void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}

template <class T>
struct device_array {
  T* p = nullptr;
  explicit device_array(const T* host, std::int64_t n) {
    check(cudaMalloc(reinterpret_cast<void**>(&p), std::max<std::int64_t>(n, 1) * sizeof(T)), "cudaMalloc");
    if (n > 0) check(cudaMemcpy(p, host, static_cast<std::size_t>(n) * sizeof(T), cudaMemcpyHostToDevice), "cudaMemcpy");
  }
  ~device_array() { cudaFree(p); }
  device_array(const device_array&) = delete;
  device_array& operator=(const device_array&) = delete;
};

// Answers are elements of the input (quantiles NumPy's bits): the same bits.
template <class T>
bool same_bits(T a, T b) {
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}

/// A process's part of a distributed top-k (largest) of k over the global array, this
/// process holding [begin, end): the parts add up to k, and each element is the input's
/// element at its global index, in this process's slice, not below the k-th largest.
template <class T>
void check_topk_part(const selection<T>& part, const std::vector<T>& global, std::int64_t begin, std::int64_t end,
                     std::int64_t k, T kth) {
  long long count = static_cast<long long>(part.values.size()), all = 0;
  MPI_Allreduce(&count, &all, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
  EXPECT_EQ(all, k);
  ASSERT_EQ(part.indices.size(), part.values.size());
  for (std::size_t i = 0; i < part.values.size(); ++i) {
    const std::int64_t g = part.indices[i];
    ASSERT_TRUE(g >= begin && g < end);
    ASSERT_EQ(std::memcmp(&part.values[i], &global[static_cast<std::size_t>(g)], sizeof(T)), 0);
    ASSERT_GE(core::key_traits<T>::to_key(part.values[i]), core::key_traits<T>::to_key(kth));
  }
}

}  // namespace kselect::mpi_test
