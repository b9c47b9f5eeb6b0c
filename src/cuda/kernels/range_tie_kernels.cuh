// Deterministic ties of a rank-range selection's last candidates. The
// candidates are sorted by key alone, as for the unordered output; positions
// [first, last) of that order are the range's, except where the run of
// candidates equal to an end's key straddles the end: which of the run's
// elements the range takes is then decided by index, the smaller first (the
// stable sort's ties; core::plan_tie_takes). range_pick_kernel leaves such runs
// out, and range_tie_pick_kernel, one block, finds them, selects the index
// ranks that bound the elements taken (a radix selection over the run's
// indices) and writes those elements.
//
// Sorting by key alone and settling the ties here is cheaper than a radix sort
// of (key, index) composites (key bits above index bits: ~48 bits at k = 2^20 of
// 2^28 where the key alone spans ~20): continuous keys rarely tie at an end, and
// then this kernel only reads four keys.
#pragma once

#include <cub/warp/warp_scan.cuh>

#include <cstdint>

#include "cuda/kernels/load_tile.cuh"
#include "cuda/kernels/range_finish_kernels.cuh"
#include "cuda/tuning.hpp"
#include "core/key_traits.hpp"
#include "core/range_plan.hpp"

namespace kselect::cuda {

inline constexpr int range_tie_threads = tuning::compiled.range.tie_pick.threads;

/// The run of sorted keys[0, count) equal to keys[at].
template <class K>
__device__ core::sorted_run equal_run(const K* keys, std::int64_t count, std::int64_t at) {
  const K key = keys[at];
  std::int64_t lo = 0, hi = at;  // the first position whose key is not below `key`
  while (lo < hi) {
    const std::int64_t mid = lo + (hi - lo) / 2;
    if (keys[mid] < key) lo = mid + 1;
    else hi = mid;
  }
  core::sorted_run run{lo, 0};
  lo = at + 1;
  hi = count;  // the first position whose key is above `key`
  while (lo < hi) {
    const std::int64_t mid = lo + (hi - lo) / 2;
    if (keys[mid] <= key) lo = mid + 1;
    else hi = mid;
  }
  run.last = lo;
  return run;
}

/// Shared memory of block_select_index.
struct tie_select_storage {
  unsigned long long hist[256];
  cub::WarpScan<unsigned long long>::TempStorage scan;
  std::uint64_t digit;
  unsigned long long below;
  unsigned long long taken;
};

/// The index of ascending rank `rank` among idx[run] (unique, below
/// 2^index_bits): a radix selection by the whole block, 8 bits a round.
__device__ inline std::uint64_t block_select_index(const std::uint64_t* idx, core::sorted_run run,
                                                   unsigned long long rank, int index_bits, tie_select_storage& s) {
  const unsigned lane = threadIdx.x % 32;
  std::uint64_t prefix = 0, mask = 0;
  for (int shift = (index_bits + 7) / 8 * 8 - 8; shift >= 0; shift -= 8) {
    for (unsigned b = threadIdx.x; b < 256; b += blockDim.x) s.hist[b] = 0;
    __syncthreads();
    for (std::int64_t j = run.first + threadIdx.x; j < run.last; j += blockDim.x) {
      const std::uint64_t v = idx[j];
      if ((v & mask) == prefix) atomicAdd(&s.hist[(v >> shift) & 0xff], 1ull);
    }
    __syncthreads();
    if (threadIdx.x < 32) {  // lane l holds digits [8 l, 8 l + 8)
      unsigned long long own = 0;
      for (int b = 0; b < 8; ++b) own += s.hist[8 * lane + b];
      unsigned long long before = 0;
      cub::WarpScan<unsigned long long>(s.scan).ExclusiveSum(own, before);
      if (rank >= before && rank < before + own) {
        for (int b = 0; b < 8; ++b) {
          const unsigned long long c = s.hist[8 * lane + b];
          if (rank < before + c) {
            s.digit = 8 * lane + b;
            s.below = before;
            break;
          }
          before += c;
        }
      }
    }
    __syncthreads();
    prefix |= s.digit << shift;
    mask |= std::uint64_t(0xff) << shift;
    rank -= s.below;
    __syncthreads();  // s.digit and s.below read before the next round writes them
  }
  return prefix;
}

/// The ties' part of a deterministic pick: for each run of the sorted
/// candidates (keys, idx: sorted by key alone) that straddles `first` or `last`,
/// the elements of the index ranks core::plan_tie_takes gives, from the input,
/// to out_at + the take's offset (in no order: the output is ordered later).
template <class T>
__global__ void __launch_bounds__(range_tie_threads)
    range_tie_pick_kernel(const T* input, const core::key_t<T>* keys, const std::uint64_t* idx, std::int64_t count,
                          std::int64_t first, std::int64_t last, int index_bits, T* out_keys, void* out_indices,
                          int index_bytes, std::int64_t out_at) {
  const bool lo_straddles = run_straddles(keys, count, first);
  const bool hi_straddles = run_straddles(keys, count, last);
  if (!lo_straddles && !hi_straddles) return;  // the same for every thread
  __shared__ tie_select_storage s;
  const core::sorted_run lo_run = lo_straddles ? equal_run(keys, count, first) : core::sorted_run{};
  const core::sorted_run hi_run = hi_straddles ? equal_run(keys, count, last) : core::sorted_run{};
  const core::tie_takes takes = core::plan_tie_takes(first, last, lo_run, hi_run);
  for (int t = 0; t < takes.count; ++t) {
    const core::tie_take& take = takes.take[t];
    const std::int64_t length = take.run.last - take.run.first;
    const std::uint64_t low =
        take.rank_first > 0 ? block_select_index(idx, take.run, take.rank_first, index_bits, s) : 0;
    const std::uint64_t high = take.rank_last < length
                                   ? block_select_index(idx, take.run, take.rank_last - 1, index_bits, s)
                                   : ~std::uint64_t(0);
    if (threadIdx.x == 0) s.taken = 0;
    __syncthreads();
    for (std::int64_t j = take.run.first + threadIdx.x; j < take.run.last; j += blockDim.x) {
      const std::uint64_t pos = idx[j];
      if (pos < low || pos > high) continue;
      const std::int64_t at = out_at + take.out_offset + static_cast<std::int64_t>(atomicAdd(&s.taken, 1ull));
      out_keys[at] = load_readonly(input + pos);
      if (out_indices) store_index(out_indices, index_bytes, at, static_cast<std::int64_t>(pos));
    }
    __syncthreads();  // s.taken and the selection's storage are reused by the next take
  }
}

}  // namespace kselect::cuda
