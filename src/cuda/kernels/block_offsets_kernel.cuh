// The reduce step between count and filter (Ribizel & Anzt, section 4): for each
// extracted bucket, an exclusive prefix sum over the count pass's per-block counts
// gives every block the offset where its keys of that bucket go.
#pragma once

#include <cub/block/block_scan.cuh>

#include <cstdint>

#include "cuda/tuning.hpp"

namespace kselect::cuda_detail {

/// One block per bucket b: block_base[g * nb + b] = extract_at[b] + sum of
/// partials[g' * nb + b] over blocks g' < g. Buckets not extracted are skipped.
// static: this header is compiled into each key type's translation unit.
static __global__ void __launch_bounds__(tuning::max_partial_blocks)
    block_offsets_kernel(const unsigned* partials, const std::int64_t* extract_at, int nb, int grid,
                         std::int64_t* block_base) {
  using scan_t = cub::BlockScan<unsigned long long, tuning::max_partial_blocks>;
  __shared__ typename scan_t::TempStorage scan;
  const int b = blockIdx.x;
  const std::int64_t start = extract_at[b];
  if (start < 0) return;
  const int g = threadIdx.x;
  const unsigned long long mine = g < grid ? partials[std::int64_t(g) * nb + b] : 0;
  unsigned long long before = 0;
  scan_t(scan).ExclusiveSum(mine, before);
  if (g < grid) block_base[std::int64_t(g) * nb + b] = start + static_cast<std::int64_t>(before);
}

}  // namespace kselect::cuda_detail
