// Shared-memory counting without same-address serialisation: lanes of a warp that
// hit the same counter are grouped (match.any), and one lane adds for the group.
// Sorted input, few distinct values and equality buckets otherwise make all 32
// lanes of a warp hit one counter, which serialises the atomics 32-fold.
#pragma once

namespace kselect::cuda_detail {

/// Adds 1 to counters[key] for every lane with key >= 0 and returns the position of
/// the lane's increment among all increments of that counter (as atomicAdd would).
/// All 32 lanes of the warp must call it.
__device__ __forceinline__ unsigned aggregated_increment(unsigned* counters, int key) {
  const unsigned peers = __match_any_sync(0xffffffffu, key);
  const int lane = threadIdx.x & 31;
  const int leader = __ffs(peers) - 1;
  unsigned base = 0;
  if (key >= 0 && lane == leader) base = atomicAdd(counters + key, static_cast<unsigned>(__popc(peers)));
  base = __shfl_sync(peers, base, leader);
  return base + __popc(peers & ((1u << lane) - 1u));
}

}  // namespace kselect::cuda_detail
