// The stream-ordered selections of small inputs (up to core::small_select_max
// keys): one launch, a block per rank, each finding the keys' span and then
// running the block radix descent of bin_finish_kernel.cuh over the whole
// input. An input this small sits in L2 after the first read, and one launch
// costs less than the sampled fast path's and the grid descent's several.
#pragma once

#include <cub/block/block_reduce.cuh>
#include <cuda/functional>

#include <cstdint>

#include "cuda/kernels/bin_finish_kernel.cuh"
#include "core/key_traits.hpp"
#include "kselect/device.hpp"

namespace kselect::cuda {

/// The descent gathers the keys once at most this many are left, and compares
/// them pairwise (count^2 / threads steps each): at bin_finish_count_max (1024)
/// the pick costs more than a histogram round that leaves far fewer
/// (docs/performance.md, "Stream-ordered selection").
constexpr int small_select_gather_max = 128;

/// Block b answers rank ranks[b] (ranks null: single_rank) of in[0, n) into
/// out[b]. Block 0 writes the status (null: none): device::async_invalid_ranks
/// when ranks_valid (may be null) says the ranks were invalid, else async_answered.
template <class T>
__global__ void __launch_bounds__(bin_finish_threads)
    small_select_kernel(const T* in, std::int64_t n, const std::int64_t* ranks, std::int64_t single_rank,
                        const std::int32_t* ranks_valid, std::int32_t* status, T* out) {
  using K = core::key_t<T>;
  if (status != nullptr && blockIdx.x == 0 && threadIdx.x == 0)
    *status = ranks_valid != nullptr && *ranks_valid == 0 ? device::async_invalid_ranks : device::async_answered;
  const std::int64_t rank = ranks != nullptr ? ranks[blockIdx.x] : single_rank;
  // The descent starts from the keys' span rather than the whole key range: a
  // first round over the whole range puts most inputs' keys into a few buckets
  // (uniform floats in [0, 1) into 8 of 4096), whose shared counters the threads
  // then queue on, and resolves few bits.
  using reduce_t = cub::BlockReduce<K, bin_finish_threads>;
  __shared__ typename reduce_t::TempStorage reduce_storage;
  __shared__ K span[2];
  K lo = static_cast<K>(~K(0)), hi = 0;
  for_each_region_key(in, n, [&](T v) {
    const K x = core::key_traits<T>::to_key(v);
    lo = x < lo ? x : lo;
    hi = x > hi ? x : hi;
  });
  lo = reduce_t(reduce_storage).Reduce(lo, ::cuda::minimum<>{});
  __syncthreads();  // reduce_storage is reused
  hi = reduce_t(reduce_storage).Reduce(hi, ::cuda::maximum<>{});
  if (threadIdx.x == 0) {
    span[0] = lo;
    span[1] = hi;
  }
  __syncthreads();
  // Down to small_select_gather_max keys: the pick then compares them pairwise.
  block_descent_pick<T, T, true>(in, n, span[0], span[1], rank, n, out + blockIdx.x, small_select_gather_max);
}

}  // namespace kselect::cuda
