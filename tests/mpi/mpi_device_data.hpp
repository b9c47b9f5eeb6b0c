// Device memory for the distributed GPU tests (mpi_gpu_test.cpp: processes sharing one
// GPU; mpi_multidevice_test.cpp: one GPU per process): a process's slice copied to its
// current device, and bit-for-bit comparison of answers.
#pragma once

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>

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

}  // namespace kselect::mpi_test
