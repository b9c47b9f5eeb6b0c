// Ranks by counting within one warp: for at most 32 * N keys held in striped order
// (key h * 32 + lane is lane `lane`'s item h), each lane learns the rank of each of
// its keys in (key, index) order. One shuffle per key and no synchronisation, so any
// number of ranks costs one sweep; the tiny tier selects with it and the warp row
// sort of top-k orders with it.
#pragma once

namespace kselect::cuda::segmented {

/// rank[h]: how many of the warp's first `count` keys come before keys[h] in (key,
/// index) order. Items at or past `count` get meaningless ranks.
template <int N, class U>
__device__ __forceinline__ void rank_by_counting(const U (&keys)[N], int count, int (&rank)[N]) {
  const int lane = threadIdx.x & 31;
#pragma unroll
  for (int h = 0; h < N; ++h) rank[h] = 0;
#pragma unroll
  for (int held = 0; held < N; ++held) {  // the keys lane `from` holds as its item `held`
    for (int from = 0; from < 32 && held * 32 + from < count; ++from) {
      const int j = held * 32 + from;
      const U other = __shfl_sync(0xffffffffu, keys[held], from);
#pragma unroll
      for (int h = 0; h < N; ++h) rank[h] += other < keys[h] || (other == keys[h] && j < h * 32 + lane);
    }
  }
}

}  // namespace kselect::cuda::segmented
