// Approximate multiselection, step 2 of 3: the one counting pass. Every key's
// bucket among the splitters (core::approx_classifier: the coarse word, the fine
// word, compares; core/approx_lookup.hpp says why this and not a search) into a
// 32-bit shared-memory histogram per block, flushed once with 64-bit atomics.
//
// The walk is the pre-pass count's (stream_tiles.cuh: 4096-key tiles dealt
// round-robin, 16-byte loads, all issued before any key is used), and so is the
// counting: each thread adds runs of equal buckets among its own keys, one
// shared atomic per run (sorted input and runs of equal keys: one per tile); a
// warp vote measured slower there (its shuffle costs a shared-memory wavefront
// per key, the resource these passes are bound by, docs/algorithms.md).
//
// Shared memory (dynamic): the table's parameters and coarse words, (window
// mode) the warps' key rings, its fine words (up to 64 KiB) and the histogram
// (up to 32 KiB). The boundaries stay in global memory: only keys in `search`
// slots read them, through L1.
//
// Window mode (core::approx_candidates::window; Window = true): the splitters
// lie in a narrow window of the key span, and most keys lie outside it, below
// the first boundary (bucket 0) or at or above the last (bucket nb, the number
// of boundaries). Such a key costs its pre-key and two compares: it is counted
// in a per-thread register, the counts summed once per block (cub::BlockReduce)
// and added to hist[0] and hist[nb]. A key inside the window is put in its
// warp's ring of 64 pre-keys in shared memory (position from a ballot, no
// atomic); whenever 32 are waiting the warp classifies them, one per lane with
// every lane busy, and counts them as above. Classifying in place would run the
// table lookup in every warp that has one window key among its 32 (about 60% of
// them at 3% window keys) with most lanes idle.
#pragma once

#include <cub/block/block_reduce.cuh>

#include <cstddef>
#include <cstdint>

#include "cuda/kernels/stream_tiles.cuh"
#include "cuda/tuning.hpp"
#include "core/approx_lookup.hpp"
#include "core/key_traits.hpp"

namespace kselect::cuda {

constexpr int approx_count_warps = tuning::stream_threads / 32;
/// Window mode: pre-keys a warp's ring holds (a power of two, at least 63: at
/// most 31 wait when a ballot adds up to 32).
constexpr unsigned approx_ring_keys = 64;

/// Bytes of the window mode's rings (0 in histogram mode).
template <class K, bool Window>
constexpr std::size_t approx_ring_bytes = Window ? approx_count_warps * approx_ring_keys * sizeof(K) : 0;

/// Where the rings start in the dynamic shared memory (after the parameters).
template <class K>
constexpr std::size_t approx_ring_offset = (sizeof(core::approx_lookup<K>) + 15) / 16 * 16;

/// Where the fine words start (after the parameters and the rings).
template <class K, bool Window>
constexpr std::size_t approx_fine_offset = approx_ring_offset<K> + approx_ring_bytes<K, Window>;

/// Dynamic shared memory for `fine_capacity` fine words and `buckets` (splitters + 1).
template <class K, bool Window>
constexpr std::size_t approx_count_shared_bytes(int fine_capacity, int buckets) {
  return approx_fine_offset<K, Window> + static_cast<std::size_t>(fine_capacity) * 4 +
         static_cast<std::size_t>(2 * buckets - 1) * 4;
}

/// A thread's count of runs of equal buckets among the keys it classifies: one
/// shared atomic per run.
struct approx_bucket_runs {
  unsigned* counts;  ///< the block's histogram, in shared memory
  unsigned run_bucket = 0, run = 0;

  __device__ __forceinline__ void add(unsigned bucket) {
    if (bucket != run_bucket) {
      if (run != 0) atomicAdd(&counts[run_bucket], run);
      run_bucket = bucket;
      run = 0;
    }
    ++run;
  }
  __device__ __forceinline__ void flush() {
    if (run != 0) atomicAdd(&counts[run_bucket], run);
  }
};

/// Histogram mode: every key classified. The table's mode is fixed per call: one
/// loop for each, no test per key.
template <class T>
__device__ __forceinline__ void approx_count_all(const T* __restrict__ in, std::int64_t n,
                                                 const core::approx_classifier<core::key_t<T>>& classify,
                                                 approx_bucket_runs& runs) {
  auto count_all = [&]<bool Wrap>() {
    stream_tiles(
        in, n,
        [&](T x, bool valid) {
          if (!valid) return;
          runs.add(classify.template bucket<Wrap>(core::key_traits<T>::pre_key(x)));
        },
        [] {});
  };
  if (classify.wrap) count_all.template operator()<true>();
  else count_all.template operator()<false>();
}

/// Window mode (see above): keys outside the window counted per thread and
/// added to hist[0] and hist[num_boundaries] once per block; keys inside it
/// classified from the warp's ring, 32 at a time.
template <class T>
__device__ __forceinline__ void approx_count_window(const T* __restrict__ in, std::int64_t n,
                                                    const core::approx_classifier<core::key_t<T>>& classify,
                                                    const core::key_t<T>* __restrict__ boundaries,
                                                    unsigned num_boundaries, core::key_t<T>* ring,
                                                    approx_bucket_runs& runs, unsigned long long* hist) {
  using K = core::key_t<T>;
  // The window: pre-keys [first boundary, last boundary). With one boundary
  // (one splitter, the largest key) it is empty: keys count as 0 or 1.
  const K window_lo = boundaries[0];
  const K window_width = static_cast<K>(boundaries[num_boundaries - 1] - window_lo);
  const unsigned lane = threadIdx.x & 31u;
  unsigned head = 0, tail = 0;  // warp-uniform: ring keys [head, tail) wait
  unsigned below = 0, above = 0;  // per thread: < 2^31 / 256 keys (see above)
  auto count_all = [&]<bool Wrap>() {
    stream_tiles(
        in, n,
        [&](T x, bool valid) {
          const K pre_key = core::key_traits<T>::pre_key(x);
          const bool low = pre_key < window_lo;
          const bool inside = valid && static_cast<K>(pre_key - window_lo) < window_width;
          below += valid && low;
          above += valid && !low && !inside;
          const unsigned mask = __ballot_sync(0xffffffffu, inside);
          if (mask != 0) {  // warp-uniform
            if (inside) ring[(tail + __popc(mask & ((1u << lane) - 1u))) & (approx_ring_keys - 1)] = pre_key;
            tail += __popc(mask);
            if (tail - head >= 32) {
              __syncwarp();
              runs.add(classify.template bucket<Wrap>(ring[(head + lane) & (approx_ring_keys - 1)]));
              head += 32;
              __syncwarp();  // read before the next keys may overwrite
            }
          }
        },
        [] {});
    __syncwarp();
    if (lane < tail - head) runs.add(classify.template bucket<Wrap>(ring[(head + lane) & (approx_ring_keys - 1)]));
  };
  if (classify.wrap) count_all.template operator()<true>();
  else count_all.template operator()<false>();
  using reduce = cub::BlockReduce<unsigned long long, tuning::stream_threads>;
  __shared__ typename reduce::TempStorage reduce_tmp;
  const unsigned long long block_below = reduce(reduce_tmp).Sum(static_cast<unsigned long long>(below));
  __syncthreads();  // reduce_tmp reused
  const unsigned long long block_above = reduce(reduce_tmp).Sum(static_cast<unsigned long long>(above));
  if (threadIdx.x == 0) {
    if (block_below != 0) atomicAdd(hist, block_below);
    if (block_above != 0) atomicAdd(hist + num_boundaries, block_above);
  }
}

/// Adds each key's bucket count to hist (2m + 1 counters, core/buckets.hpp layout).
/// `fine_capacity`: the fine words the dynamic shared memory has room for (the
/// histogram follows them). Window: the window mode (see above).
template <class T, bool Window>
__global__ void __launch_bounds__(tuning::stream_threads, tuning::stream_min_blocks)
    approx_count_kernel(const T* __restrict__ in, std::int64_t n, const core::approx_lookup<core::key_t<T>>* lookup,
                        const std::uint32_t* __restrict__ fine, const core::key_t<T>* __restrict__ boundaries,
                        int fine_capacity, unsigned long long* hist) {
  using K = core::key_t<T>;
  extern __shared__ __align__(16) unsigned char approx_dynamic_shared[];
  auto& table = *reinterpret_cast<core::approx_lookup<K>*>(approx_dynamic_shared);
  auto* fine_words = reinterpret_cast<std::uint32_t*>(approx_dynamic_shared + approx_fine_offset<K, Window>);
  unsigned* counts = fine_words + fine_capacity;

  // The parameters and the coarse words in use, the fine words in use; zero counts.
  constexpr int header_words = static_cast<int>(offsetof(core::approx_lookup<K>, coarse) / 4);
  const int coarse_used = static_cast<int>(lookup->coarse_used);
  const int fine_used = static_cast<int>(lookup->fine_used);
  const int buckets = static_cast<int>(lookup->num_boundaries) + 1;  // 2m + 1 or 2m (no bucket above NaN)
  {
    const auto* src = reinterpret_cast<const std::uint32_t*>(lookup);
    auto* dst = reinterpret_cast<std::uint32_t*>(&table);
    for (int w = threadIdx.x; w < header_words + coarse_used; w += blockDim.x) dst[w] = src[w];
  }
  for (int f = threadIdx.x; f < fine_used; f += blockDim.x) fine_words[f] = fine[f];
  for (int b = threadIdx.x; b < buckets; b += blockDim.x) counts[b] = 0;
  __syncthreads();

  // 32-bit counters: the host sizes the grid so that no block counts 2^32 keys.
  const core::approx_classifier<K> classify = core::approx_classifier_of<K>(table, fine_words, boundaries);
  approx_bucket_runs runs{counts};
  if constexpr (!Window) {
    approx_count_all(in, n, classify, runs);
  } else {
    K* ring = reinterpret_cast<K*>(approx_dynamic_shared + approx_ring_offset<K>) +
              (threadIdx.x / 32) * approx_ring_keys;
    approx_count_window(in, n, classify, boundaries, static_cast<unsigned>(lookup->num_boundaries), ring, runs,
                        hist);
  }
  runs.flush();
  __syncthreads();
  for (int b = threadIdx.x; b < buckets; b += blockDim.x)
    if (counts[b] != 0) atomicAdd(hist + b, static_cast<unsigned long long>(counts[b]));
}

}  // namespace kselect::cuda
