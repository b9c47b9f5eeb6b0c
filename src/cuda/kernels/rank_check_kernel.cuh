// The stream-ordered multiselection's check of ranks that live in device memory:
// the host cannot read them without waiting, so one block checks them on the
// stream (each in [0, n), strictly increasing) and hands the later kernels a copy
// they can trust. Invalid ranks are replaced by 0, 1, 2, ... (valid whenever
// num_ranks <= n, which the host checks), so no kernel reads out of bounds; the
// call's status word then says the ranks were invalid and the outputs mean nothing.
#pragma once

#include <cub/block/block_reduce.cuh>

#include <cstdint>


namespace kselect::cuda {

constexpr int rank_check_threads = 256;

template <int threads = rank_check_threads>  // a template: defined in every translation unit that includes it
__global__ void __launch_bounds__(threads)
    rank_check_kernel(const std::int64_t* ranks, std::int64_t num_ranks, std::int64_t n, std::int64_t* checked,
                      std::int32_t* valid) {
  using reduce = cub::BlockReduce<int, rank_check_threads>;
  __shared__ typename reduce::TempStorage tmp;
  __shared__ int all_valid;
  int bad = 0;
  for (std::int64_t i = threadIdx.x; i < num_ranks; i += rank_check_threads) {
    const std::int64_t r = ranks[i];
    bad |= r < 0 || r >= n || (i > 0 && ranks[i - 1] >= r);
  }
  bad = reduce(tmp).Reduce(bad, [](int x, int y) { return x | y; });
  if (threadIdx.x == 0) {
    all_valid = bad == 0;
    *valid = all_valid;
  }
  __syncthreads();
  for (std::int64_t i = threadIdx.x; i < num_ranks; i += rank_check_threads) checked[i] = all_valid ? ranks[i] : i;
}

}  // namespace kselect::cuda
