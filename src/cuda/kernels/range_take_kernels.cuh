// A top-k's writes when ties may be taken in any order (not deterministic),
// instead of the exact path's count, scans and write (range_exact_kernels.cuh):
//
//   stream-ordered one-pass path (dispatch/choose.hpp's choose_async_take):
//   the synchronous call's plan and pass, then
//     range_candidate_take_kernel  one block: the candidates' key at the
//                             output's last position (block_radix_select), the
//                             keys below it and the ties the output still needs;
//                             *answered says whether it could (else the exact
//                             path runs, its kernels skipped when it did)
//   stream-ordered grid path (more candidates than a block holds, few against n):
//   the same plan and pass, then
//     range_grid_take_plan_kernel  one thread: did the windows hold position
//                             k - 1 and the candidates fit? (*answered) The
//                             candidate rank to select, the candidates' count
//     the exact descent over the candidates (queue_sized_descent)
//     range_grid_take_write_kernel the candidates below the selected key to the
//                             output, the ties to a buffer
//     range_take_finish_kernel the ties the output still needs
//   either finish, where the pass overflowed with one key (heavy ties):
//     start_tied_take         (in the finish) that key as the take's boundary
//     range_pass_kernel       the take's read of the input
//     range_tied_take_finish_kernel the counts confirm the boundary (fewer than
//                             k keys below it, k or more with its ties): the
//                             ties the output still needs, *answered set
//   exact path, after the boundary key (position k - 1's) is selected:
//     range_take_tests_kernel the pass's tests: keys below the boundary inside
//                             (to the output), keys equal to it candidates
//     range_pass_kernel       one read (range_pass_kernel.cuh)
//     range_take_finish_kernel the ties the output still needs (k minus the keys
//                             below), from the candidates
//   range_take_all_kernel     k = n, unsorted: the input as it is (no selection)
//
// The keys below the boundary number at most k - 1 and the ties at least the
// rest, so both fit; which ties are taken depends on the blocks' timing.
#pragma once

#include <cub/block/block_scan.cuh>

#include <cstdint>

#include "cuda/kernels/block_select.cuh"
#include "cuda/kernels/load_tile.cuh"
#include "cuda/kernels/range_pass_kernel.cuh"
#include "cuda/kernels/range_state.cuh"
#include "cuda/tuning.hpp"
#include "core/key_traits.hpp"
#include "core/range_plan.hpp"

namespace kselect::cuda {

/// One thread: the take's tests with `key` (flipped) as the boundary (keys below
/// it inside, keys equal to it candidates), the counters cleared.
template <class T>
__device__ void set_take_boundary(range_state<core::key_t<T>>* st, core::key_t<T> key, core::key_t<T> flip) {
  core::range_windows<core::key_t<T>> w;
  w.has_hi = true;
  w.hi0 = w.hi1 = key;
  st->tests = core::make_range_tests<T>(w, flip);
  st->below = st->lo_cand = st->cand = st->inside = 0;
}

/// One thread: the exact take's tests from the selected boundary key.
template <class T>
__global__ void range_take_tests_kernel(range_state<core::key_t<T>>* st, const T* boundary, core::key_t<T> flip,
                                        const std::int32_t* skip) {
  if (skipped(skip)) return;
  set_take_boundary<T>(st, core::range_key(*boundary, flip), flip);
}

/// The grid: output [below, k) from the first k - below ties the pass kept
/// (their values and positions).
template <class T>
__device__ void copy_ties(std::int64_t below, std::int64_t k, const T* tie_vals, const std::uint64_t* tie_positions,
                          T* out_keys, void* out_indices, int index_bytes) {
  for (std::int64_t j = below + blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; j < k;
       j += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    out_keys[j] = tie_vals[j - below];
    if (out_indices) store_index(out_indices, index_bytes, j, static_cast<std::int64_t>(tie_positions[j - below]));
  }
}

/// Output [inside, k): the first k - inside ties the pass left as candidates.
template <class T>
__global__ void range_take_finish_kernel(const range_state<core::key_t<T>>* st, const T* tie_vals,
                                         const std::uint64_t* tie_positions, std::int64_t k, T* out_keys,
                                         void* out_indices, int index_bytes, const std::int32_t* skip) {
  if (skipped(skip)) return;
  copy_ties(static_cast<std::int64_t>(st->inside), k, tie_vals, tie_positions, out_keys, out_indices, index_bytes);
}

/// The one-pass path's second word (spec_skip): what follows a finish that could
/// not answer. take_spec_run: the tied take's pass, then its finish; take_spec_skip:
/// neither (the exact path runs, or the finish answered); take_spec_kept: no pass,
/// the finish takes the ties the first pass kept.
inline constexpr std::int32_t take_spec_run = 0, take_spec_skip = 1, take_spec_kept = 2;

/// Whether the first pass's candidates complete a top-k of k: its window was one
/// key (core::tie_window: every candidate is that key), fewer than k keys lay
/// below it, and the ties it copied (up to `capacity`) cover the rest.
template <class K>
__host__ __device__ inline bool kept_ties_complete(const range_state<K>& st, std::int64_t k, std::int64_t capacity) {
  const core::range_windows<K>& w = st.windows;
  if (w.has_lo || !w.has_hi || w.hi0 != w.hi1) return false;
  const auto below = static_cast<std::int64_t>(st.inside), ties = static_cast<std::int64_t>(st.cand);
  return below < k && below + ties >= k && k - below <= capacity;
}

/// Where a one-pass finish found position k - 1 outside what the pass kept
/// (one thread): if the kept ties complete the output (kept_ties_complete),
/// *spec_skip take_spec_kept; else if the candidates overflowed their buffer and
/// its first, middle and last keys are one key (heavy ties: all equal keys, few
/// distinct values), that key becomes the take's boundary (its tests set, the
/// counters cleared) and *spec_skip take_spec_run, so that the take's pass runs
/// and its counts decide; else take_spec_skip (a missed window: the exact path's
/// selection finds the boundary).
template <class T>
__device__ void start_tied_take(range_state<core::key_t<T>>* st, std::int64_t k, const T* cand_vals,
                                std::int64_t capacity, core::key_t<T> flip, std::int32_t* spec_skip) {
  using K = core::key_t<T>;
  *spec_skip = take_spec_skip;
  if (st->cand <= static_cast<unsigned long long>(capacity)) return;  // every slot written only past capacity
  if (kept_ties_complete(*st, k, capacity)) {
    *spec_skip = take_spec_kept;
    return;
  }
  const K key = core::range_key(cand_vals[0], flip);
  if (core::range_key(cand_vals[capacity / 2], flip) != key || core::range_key(cand_vals[capacity - 1], flip) != key)
    return;
  set_take_boundary<T>(st, key, flip);
  *spec_skip = take_spec_run;
}

/// The speculated boundary's take (start_tied_take) after its pass, or the ties
/// the first pass kept (take_spec_kept): confirmed when fewer than k keys lie
/// below the boundary and k or more with its ties, which makes it the key at
/// position k - 1; then output [inside, k) is the first ties the pass kept, and
/// *answered 1 (the exact path returns at once). Else nothing: the exact path
/// selects the boundary and takes again. Skipped when *spec_skip is take_spec_skip.
template <class T>
__global__ void range_tied_take_finish_kernel(const range_state<core::key_t<T>>* st, const T* tie_vals,
                                              const std::uint64_t* tie_positions, std::int64_t k, T* out_keys,
                                              void* out_indices, int index_bytes, const std::int32_t* spec_skip,
                                              std::int32_t* answered) {
  if (*spec_skip == take_spec_skip) return;
  const auto below = static_cast<std::int64_t>(st->inside), ties = static_cast<std::int64_t>(st->cand);
  if (below >= k || below + ties < k) return;
  if (blockIdx.x == 0 && threadIdx.x == 0) *answered = 1;
  copy_ties(below, k, tie_vals, tie_positions, out_keys, out_indices, index_bytes);
}

/// range_candidate_take_kernel's block (tuning::range_policy): 16384 keys.
template <class K>
constexpr tuning::launch_shape candidate_take_shape =
    sizeof(K) == 4 ? tuning::compiled.range.candidate_take_k32 : tuning::compiled.range.candidate_take_k64;
template <class K>
constexpr std::int64_t candidate_take_capacity = candidate_take_shape<K>.tile_items();

template <class K>
union candidate_take_shared {
  typename block_radix_select<K, candidate_take_shape<K>.threads, candidate_take_shape<K>.items_per_thread>::storage
      select;
  typename cub::BlockScan<unsigned long long, candidate_take_shape<K>.threads>::TempStorage scan;
};

/// The one-pass path's finish: the pass copied `inside` keys to the output and
/// left `cand` candidates (its high window's keys, values and positions); the
/// output's other k - inside keys are the candidates' smallest. The candidates
/// in registers, the key at candidate position k - inside - 1 selected, the
/// keys below it written and as many equal to it as the output still needs.
/// *answered: 1, or 0 when the windows missed position k - 1 or the pass left
/// more candidates than the block holds (then start_tied_take, over the
/// `copied_capacity` slots the pass could fill).
template <class T>
__global__ void __launch_bounds__(candidate_take_shape<core::key_t<T>>.threads)
    range_candidate_take_kernel(range_state<core::key_t<T>>* st, std::int64_t k, const T* cand_vals,
                                const std::uint64_t* cand_idx, std::int64_t copied_capacity, core::key_t<T> flip,
                                T* out_keys, void* out_indices, int index_bytes, std::int32_t* answered,
                                std::int32_t* spec_skip) {
  using K = core::key_t<T>;
  constexpr int threads = candidate_take_shape<K>.threads, items = candidate_take_shape<K>.items_per_thread;
  using select_t = block_radix_select<K, threads, items>;
  using scan_t = cub::BlockScan<unsigned long long, threads>;
  extern __shared__ __align__(16) unsigned char candidate_take_dynamic_shared[];
  auto& smem = *reinterpret_cast<candidate_take_shared<K>*>(candidate_take_dynamic_shared);
  const core::range_counts counts{st->below, st->lo_cand, st->cand, st->inside};
  const core::range_pick pick = core::locate_range(0, k, counts, candidate_take_capacity<K>);
  if (!pick.ok) {  // uniform
    __syncthreads();  // every thread has read the counters start_tied_take clears
    if (threadIdx.x == 0) {
      *answered = 0;
      start_tied_take(st, k, cand_vals, copied_capacity, flip, spec_skip);
    }
    return;
  }
  if (threadIdx.x == 0) *spec_skip = take_spec_skip;
  // At most the block's 16384 keys: positions among them in 32 bits.
  const auto count = static_cast<int>(counts.cand);
  const auto out_at = static_cast<std::int64_t>(counts.inside);
  if (pick.last > 0) {  // uniform; else the pass wrote all k
    K keys[items];
#pragma unroll
    for (int i = 0; i < items; ++i) {
      const int j = static_cast<int>(threadIdx.x) * items + i;
      keys[i] = j < count ? core::range_key(cand_vals[j], flip) : static_cast<K>(~K(0));  // padding: last
    }
    const auto last = static_cast<std::uint32_t>(pick.last - 1);
    typename select_t::result at[2];
    select_t::select(keys, {last, last}, at, smem.select);
    const K boundary = at[0].key;
    const std::uint32_t below = at[0].below, ties_needed = last + 1 - below;
    // Per thread: keys below in the low 32 bits, ties in the high.
    unsigned long long packed = 0;
#pragma unroll
    for (int i = 0; i < items; ++i) {
      const int j = static_cast<int>(threadIdx.x) * items + i;
      if (j < count) packed += keys[i] < boundary ? 1ull : (keys[i] == boundary ? 1ull << 32 : 0ull);
    }
    __syncthreads();  // the selection's storage becomes the scan's
    unsigned long long offsets = 0;
    scan_t(smem.scan).ExclusiveSum(packed, offsets);
    auto below_at = static_cast<std::uint32_t>(offsets), tie = static_cast<std::uint32_t>(offsets >> 32);
#pragma unroll
    for (int i = 0; i < items; ++i) {
      const int j = static_cast<int>(threadIdx.x) * items + i;
      if (j >= count || keys[i] > boundary) continue;
      std::uint32_t to = below_at;  // the output position after out_at
      if (keys[i] < boundary) {
        ++below_at;
      } else {
        to = below + tie;
        if (tie++ >= ties_needed) continue;
      }
      out_keys[out_at + to] = cand_vals[j];
      if (out_indices) store_index(out_indices, index_bytes, out_at + to, static_cast<std::int64_t>(cand_idx[j]));
    }
  }
  if (threadIdx.x == 0) *answered = 1;
}

/// What the grid path's kernels pass on, in the workspace (range_grid_take_plan_kernel).
struct grid_take_state {
  std::int64_t size;        ///< candidates the pass left
  std::int64_t rank;        ///< the boundary's rank among them, ascending by key
  unsigned long long key_range[2];  ///< their keys' range (key_traits keys): the high window's
  unsigned long long ties;  ///< the write's ties so far
  std::int32_t skip;        ///< 1: nothing more for the grid path to do (missed, or the pass wrote all k)
};

/// One thread: locates position k - 1 among the pass's `capacity` candidate
/// slots (as range_candidate_take_kernel does). *answered: 1 when the windows
/// held it and the candidates fit, else 0 (then start_tied_take, over the
/// `copied_capacity` slots the pass could fill). The rank to
/// select among the candidates counts up in key order, the opposite of the
/// output's for the largest (flip not 0).
template <class T>
__global__ void range_grid_take_plan_kernel(range_state<core::key_t<T>>* st, std::int64_t k, std::int64_t capacity,
                                            const T* cand_vals, std::int64_t copied_capacity, core::key_t<T> flip,
                                            grid_take_state* gs, std::int32_t* answered, std::int32_t* spec_skip) {
  const bool descending = flip != 0;
  const core::range_counts counts{st->below, st->lo_cand, st->cand, st->inside};
  const core::range_pick pick = core::locate_range(0, k, counts, capacity);
  const auto cand = static_cast<std::int64_t>(counts.cand);
  gs->ties = 0;
  gs->size = pick.ok ? cand : 0;
  gs->rank = pick.ok && pick.last > 0 ? (descending ? cand - pick.last : pick.last - 1) : 0;
  gs->skip = pick.ok && pick.last > 0 ? 0 : 1;
  // The candidates are the keys of the high window [hi0, hi1] (flipped keys).
  const core::range_windows<core::key_t<T>> w = st->windows;
  gs->key_range[0] = descending ? static_cast<core::key_t<T>>(w.hi1 ^ flip) : w.hi0;
  gs->key_range[1] = descending ? static_cast<core::key_t<T>>(w.hi0 ^ flip) : w.hi1;
  *answered = pick.ok ? 1 : 0;
  if (pick.ok) *spec_skip = take_spec_skip;
  else start_tied_take(st, k, cand_vals, copied_capacity, flip, spec_skip);
}

/// The grid path's write: of the gs->size candidates, those below the selected
/// key `*boundary` go to the output from position st->inside on (the pass's
/// count, which the write advances), those equal to it to the tie buffer; a
/// warp's lanes share one atomic per class. Skipped when gs->skip is 1.
template <class T>
__global__ void range_grid_take_write_kernel(range_state<core::key_t<T>>* st, grid_take_state* gs,
                                             const T* cand_vals, const std::uint64_t* cand_idx, const T* boundary,
                                             core::key_t<T> flip, T* out_keys, void* out_indices, int index_bytes,
                                             T* tie_vals, std::uint64_t* tie_idx) {
  using K = core::key_t<T>;
  if (gs->skip == 1) return;
  const K bound = core::range_key(*boundary, flip);
  const std::int64_t count = gs->size;
  const unsigned lane = threadIdx.x % 32, lanes_before = (1u << lane) - 1u;
  // Warp-aligned starts: every lane of a warp takes the same trips (the ballots).
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t base = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + (threadIdx.x - lane); base < count;
       base += stride) {
    const std::int64_t j = base + lane;
    const bool valid = j < count;
    const T v = valid ? cand_vals[j] : T{};
    const K key = core::range_key(v, flip);
    const bool below = valid && key < bound, tie = valid && key == bound;
    const unsigned below_mask = __ballot_sync(0xffffffffu, below), tie_mask = __ballot_sync(0xffffffffu, tie);
    unsigned long long below_at = 0, tie_at = 0;
    if (lane == 0) {
      if (below_mask) below_at = atomicAdd(&st->inside, static_cast<unsigned long long>(__popc(below_mask)));
      if (tie_mask) tie_at = atomicAdd(&gs->ties, static_cast<unsigned long long>(__popc(tie_mask)));
    }
    below_at = __shfl_sync(0xffffffffu, below_at, 0);
    tie_at = __shfl_sync(0xffffffffu, tie_at, 0);
    if (below) {
      const auto to = static_cast<std::int64_t>(below_at + __popc(below_mask & lanes_before));
      out_keys[to] = v;
      if (out_indices) store_index(out_indices, index_bytes, to, static_cast<std::int64_t>(cand_idx[j]));
    } else if (tie) {
      const auto to = static_cast<std::int64_t>(tie_at + __popc(tie_mask & lanes_before));
      tie_vals[to] = v;
      tie_idx[to] = cand_idx[j];
    }
  }
}

/// An unsorted top-k of every key (k = n): the input in its own order, which is
/// also the deterministic order. Keys and positions (either may be null).
template <class T>
__global__ void range_take_all_kernel(const T* src, std::int64_t n, T* out_keys, void* out_indices, int index_bytes) {
  for (std::int64_t j = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; j < n;
       j += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    if (out_keys) out_keys[j] = load_readonly(src + j);
    if (out_indices) store_index(out_indices, index_bytes, j, j);
  }
}

}  // namespace kselect::cuda
