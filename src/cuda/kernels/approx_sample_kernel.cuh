// Approximate multiselection, step 1 of 3, first part (dispatch/approx_dispatch.cuh):
// the core::approx_sample_size keys at core::sample_position, as pre-keys, into a
// workspace array, one key per thread, for approx_plan_kernel to sort.
//
// Its own kernel because one block gathers slowly: inside the one-block plan
// kernel the 16384 scattered loads would all come from one SM; here 64 blocks
// have them in flight at once. The sort stays in the plan kernel's block:
// cub::DeviceRadixSort of so few keys takes longer than the block sort.
#pragma once

#include <cstdint>

#include "cuda/kernels/load_tile.cuh"
#include "cuda/tuning.hpp"
#include "core/approx.hpp"
#include "core/key_traits.hpp"
#include "core/sampling.hpp"

namespace kselect::cuda {

constexpr int approx_sample_threads = tuning::compiled.approx.sample.threads;
constexpr int approx_sample_blocks = core::approx_sample_size / approx_sample_threads;
static_assert(approx_sample_blocks * approx_sample_threads == core::approx_sample_size, "one thread per sample slot");

/// Sample slot j (thread j of the grid) to sample[j]: the same keys the CPU
/// backend draws (src/cpu/approx_select.cpp), in slot order.
template <class T>
__global__ void __launch_bounds__(approx_sample_threads)
    approx_sample_kernel(const T* in, std::int64_t n, std::uint64_t seed, core::key_t<T>* sample) {
  const int j = static_cast<int>(blockIdx.x) * approx_sample_threads + static_cast<int>(threadIdx.x);
  const std::int64_t pos = core::sample_position(j, core::approx_sample_size, n, seed);
  sample[j] = core::key_traits<T>::pre_key(load_readonly(in + pos));
}

}  // namespace kselect::cuda
