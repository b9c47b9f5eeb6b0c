// Approximate multiselection, step 2 of 3: the one counting pass. Every key's
// bucket among the splitters (plan::approx_classifier: the coarse word, the fine
// word, compares; plan/approx_lookup.hpp says why this and not a search) into a
// 32-bit shared-memory histogram per block, flushed once with 64-bit atomics.
//
// The walk is the pre-pass count's (stream_tiles.cuh: 4096-key tiles dealt
// round-robin, 16-byte loads, all issued before any key is used), and so is the
// counting: each thread adds runs of equal buckets among its own keys, one
// shared atomic per run (sorted input and runs of equal keys: one per tile); a
// warp vote measured slower there (its shuffle costs a shared-memory wavefront
// per key, the resource these passes are bound by, docs/algorithms.md).
//
// Shared memory (dynamic): the table's parameters and coarse words, its fine
// words (up to 64 KiB) and the histogram (up to 32 KiB). The boundaries stay in
// global memory: only keys in `search` slots read them, through L1.
#pragma once

#include <cstddef>
#include <cstdint>

#include "cuda/kernels/stream_tiles.cuh"
#include "cuda/tuning.hpp"
#include "plan/approx_lookup.hpp"
#include "plan/key_traits.hpp"

namespace kselect::cuda_detail {

namespace approx_count_detail {
/// Where the fine words start in the dynamic shared memory (after the parameters).
template <class K>
constexpr std::size_t fine_offset = (sizeof(plan::approx_lookup<K>) + 15) / 16 * 16;

/// Dynamic shared memory for `fine_capacity` fine words and `buckets` (splitters + 1).
template <class K>
constexpr std::size_t shared_bytes(int fine_capacity, int buckets) {
  return fine_offset<K> + static_cast<std::size_t>(fine_capacity) * 4 + static_cast<std::size_t>(2 * buckets - 1) * 4;
}
}  // namespace approx_count_detail

/// Adds each key's bucket count to hist (2m + 1 counters, plan/buckets.hpp layout).
/// `fine_capacity`: the fine words the dynamic shared memory has room for (the
/// histogram follows them).
template <class T>
__global__ void __launch_bounds__(tuning::stream_threads, tuning::stream_min_blocks)
    approx_count_kernel(const T* __restrict__ in, std::int64_t n, const plan::approx_lookup<plan::key_t<T>>* lookup,
                        const std::uint32_t* __restrict__ fine, const plan::key_t<T>* __restrict__ boundaries,
                        int fine_capacity, unsigned long long* hist) {
  using K = plan::key_t<T>;
  using namespace approx_count_detail;
  extern __shared__ __align__(16) unsigned char approx_dynamic_shared[];
  auto& t = *reinterpret_cast<plan::approx_lookup<K>*>(approx_dynamic_shared);
  auto* sm_fine = reinterpret_cast<std::uint32_t*>(approx_dynamic_shared + fine_offset<K>);
  unsigned* counts = sm_fine + fine_capacity;

  // The parameters and the coarse words in use, the fine words in use; zero counts.
  constexpr int header_words = static_cast<int>(offsetof(plan::approx_lookup<K>, coarse) / 4);
  const int coarse_used = static_cast<int>(lookup->coarse_used);
  const int fine_used = static_cast<int>(lookup->fine_used);
  const int buckets = static_cast<int>(lookup->num_boundaries) + 1;  // 2m + 1 or 2m (no bucket above NaN)
  {
    const auto* src = reinterpret_cast<const std::uint32_t*>(lookup);
    auto* dst = reinterpret_cast<std::uint32_t*>(&t);
    for (int w = threadIdx.x; w < header_words + coarse_used; w += blockDim.x) dst[w] = src[w];
  }
  for (int f = threadIdx.x; f < fine_used; f += blockDim.x) sm_fine[f] = fine[f];
  for (int b = threadIdx.x; b < buckets; b += blockDim.x) counts[b] = 0;
  __syncthreads();

  // 32-bit counters: the host sizes the grid so that no block counts 2^32 keys.
  const plan::approx_classifier<K> classify = plan::approx_classifier_of<K>(t, sm_fine, boundaries);
  unsigned run_bucket = 0, run = 0;
  // The table's mode is fixed per call: one loop for each, no test per key.
  auto count_all = [&]<bool Wrap>() {
    stream_tiles(
        in, n,
        [&](T x, bool valid) {
          if (!valid) return;
          const unsigned b = classify.template bucket<Wrap>(plan::key_traits<T>::pre_key(x));
          if (b != run_bucket) {
            if (run != 0) atomicAdd(&counts[run_bucket], run);
            run_bucket = b;
            run = 0;
          }
          ++run;
        },
        [] {});
  };
  if (classify.wrap) count_all.template operator()<true>();
  else count_all.template operator()<false>();
  if (run != 0) atomicAdd(&counts[run_bucket], run);
  __syncthreads();
  for (int b = threadIdx.x; b < buckets; b += blockDim.x)
    if (counts[b] != 0) atomicAdd(hist + b, static_cast<unsigned long long>(counts[b]));
}

}  // namespace kselect::cuda_detail
