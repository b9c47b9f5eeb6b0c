// Reference for large GPU inputs, independent of kselect's algorithm: sort the
// order-preserving keys with CUB's radix sort and read the ranks off. (Inputs up
// to 2^22 are checked against the std::sort reference on the host instead.)
#pragma once

#include <cub/device/device_radix_sort.cuh>

#include <span>
#include <vector>

#include "common/device_data.cuh"
#include "core/key_traits.hpp"

namespace kselect::test {

template <class T>
__global__ void to_key_kernel(const T* in, core::key_t<T>* out, std::int64_t n) {
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < n;
       i += std::int64_t(gridDim.x) * blockDim.x)
    out[i] = core::key_traits<T>::to_key(in[i]);
}

/// Values of `ranks` in d_in[0..n), computed by sorting on the device.
template <class T>
std::vector<T> device_sort_reference(const T* d_in, std::int64_t n, std::span<const std::int64_t> ranks) {
  using K = core::key_t<T>;
  device_buffer<K> keys(n), sorted(n);
  to_key_kernel<T><<<132 * 32, 256>>>(d_in, keys.data(), n);
  cuda_check(cudaPeekAtLastError(), "to_key_kernel");
  std::size_t bytes = 0;
  cuda_check(cub::DeviceRadixSort::SortKeys(nullptr, bytes, keys.data(), sorted.data(), n), "sort query");
  device_buffer<char> temp(bytes);
  cuda_check(cub::DeviceRadixSort::SortKeys(temp.data(), bytes, keys.data(), sorted.data(), n), "sort");
  std::vector<T> out;
  for (std::int64_t r : ranks) {
    K k{};
    cuda_check(cudaMemcpy(&k, sorted.data() + r, sizeof k, cudaMemcpyDeviceToHost), "read rank");
    out.push_back(core::key_traits<T>::from_key(k));
  }
  return out;
}

}  // namespace kselect::test
