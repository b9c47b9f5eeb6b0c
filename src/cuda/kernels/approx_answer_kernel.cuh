// Approximate multiselection, step 3 of 3: one block turns the histogram into
// each splitter's rank interval (a block scan) and answers every rank with its
// nearest splitter (core::nearest_splitter, the CPU backend's rule), writing the
// value, its exact rank and a verdict: whether the rank needs the exact
// fallback (core::approx_needs_exact). The fallback's answers are put in place
// by approx_scatter_kernel.
#pragma once

#include <cub/block/block_scan.cuh>

#include <cstdint>

#include "cuda/tuning.hpp"
#include "core/approx.hpp"
#include "core/approx_lookup.hpp"
#include "core/key_traits.hpp"

namespace kselect::cuda {

/// 512 threads: 1024 would leave 64 registers per thread, and this kernel spilled there.
constexpr int approx_answer_threads = tuning::compiled.approx.answer.threads;
/// Buckets per thread: 2 * 4095 + 1 <= 16 * 512.
constexpr int approx_answer_buckets_per_thread =
    (2 * core::approx_max_splitters + 1 + approx_answer_threads - 1) / approx_answer_threads;

template <class T>
__global__ void __launch_bounds__(approx_answer_threads)
    approx_answer_kernel(const unsigned long long* hist, const core::approx_lookup<core::key_t<T>>* lookup,
                         const T* splitters, const std::int64_t* ranks, std::int64_t num_ranks,
                         std::int64_t max_rank_error, T* out, std::int64_t* out_ranks, std::uint8_t* needs_exact,
                         std::int32_t* all_within = nullptr) {
  constexpr int threads = approx_answer_threads, buckets_per_thread = approx_answer_buckets_per_thread;
  using scan = cub::BlockScan<unsigned long long, threads>;
  __shared__ typename scan::TempStorage tmp;
  __shared__ long long below[core::approx_max_splitters];  // keys below each splitter
  const int nb = static_cast<int>(lookup->num_boundaries);
  const int m = (nb + 1) / 2;
  const int num_buckets = nb + 1;
  // Thread t's buckets: a sum, the block scan, then a walk re-reading them (L1)
  // rather than keeping its 64-bit counts live through the scan.
  const int first = static_cast<int>(threadIdx.x) * buckets_per_thread;
  const int last = first + buckets_per_thread < num_buckets ? first + buckets_per_thread : num_buckets;
  unsigned long long sum = 0;
  for (int b = first; b < last; ++b) sum += hist[b];
  unsigned long long at = 0;
  scan(tmp).ExclusiveSum(sum, at);
  for (int b = first; b < last; ++b) {
    if (b % 2 == 1) below[b / 2] = static_cast<long long>(at);  // bucket 2j + 1: keys == s_j
    at += hist[b];
  }
  __syncthreads();
  bool any_exact = false;
  for (std::int64_t i = threadIdx.x; i < num_ranks; i += threads) {
    const core::approx_choice c = core::nearest_splitter(
        ranks[i], m, [&](std::int64_t j) { return static_cast<std::int64_t>(below[j]); },
        [&](std::int64_t j) { return static_cast<std::int64_t>(hist[2 * j + 1]); });
    const bool exact = core::approx_needs_exact(c, max_rank_error);
    needs_exact[i] = exact ? 1 : 0;
    any_exact |= exact;
    // Written even when the fallback will replace it: the call may not wait.
    if (c.splitter >= 0) {
      out[i] = splitters[c.splitter];
      out_ranks[i] = c.rank;
    }
  }
  // The stream-ordered call's verdict over all ranks (1: none needs the exact selection).
  const int any = __syncthreads_or(any_exact ? 1 : 0);
  if (all_within != nullptr && threadIdx.x == 0) *all_within = any ? 0 : 1;
}

/// After the stream-ordered call's exact descent answered every rank (all_within
/// 0): each reported rank is the rank itself. A template: defined in every
/// translation unit that includes it.
template <int = 0>
__global__ void approx_exact_ranks_kernel(const std::int32_t* all_within, const std::int64_t* ranks,
                                          std::int64_t num_ranks, std::int64_t* out_ranks) {
  if (*all_within != 0) return;
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < num_ranks;
       i += std::int64_t(gridDim.x) * blockDim.x)
    out_ranks[i] = ranks[i];
}

/// out[index[i]] = exact[i] and out_ranks[index[i]] = ranks[index[i]] for the
/// ranks the exact fallback answered.
template <class T>
__global__ void approx_scatter_kernel(const T* exact, const std::int64_t* index, std::int64_t count,
                                      const std::int64_t* ranks, T* out, std::int64_t* out_ranks) {
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < count;
       i += std::int64_t(gridDim.x) * blockDim.x) {
    const std::int64_t j = index[i];
    out[j] = exact[i];
    out_ranks[j] = ranks[j];
  }
}

}  // namespace kselect::cuda
