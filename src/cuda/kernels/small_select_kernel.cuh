// The stream-ordered selections of small inputs (up to core::small_select_max
// keys): one launch, a block per rank, each running the block radix descent of
// bin_finish_kernel.cuh over the whole input from the full key range. An input
// this small sits in L2 after the first read, and one launch costs less than the
// sampled fast path's and the grid descent's several.
#pragma once

#include <cstdint>

#include "cuda/kernels/bin_finish_kernel.cuh"
#include "core/key_traits.hpp"
#include "kselect/device.hpp"

namespace kselect::cuda {

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
  // Down to bin_finish_count_max keys: the pick then compares them pairwise
  // instead of sorting up to 4096.
  block_descent_pick<T, T, true>(in, n, K(0), static_cast<K>(~K(0)), rank, n, out + blockIdx.x,
                                 bin_finish_count_max);
}

}  // namespace kselect::cuda
