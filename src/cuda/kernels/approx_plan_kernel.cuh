// Approximate multiselection, step 1 of 3 (dispatch/approx_dispatch.cuh): one
// block draws and sorts the sample, chooses the splitters and builds the
// counting pass's lookup table, by the rules of core/approx.hpp and
// core/approx_lookup.hpp (the CPU backend builds the same table on the host with
// core::build_approx_lookup; tests/cpu/approx_plan_test.cpp checks that one).
//
//   1. core::approx_sample_size keys at core::sample_position, as pre-keys (a
//      bijection of the bit patterns: each splitter's value is recovered bit for
//      bit), gathered by approx_sample_kernel. The histogram mode sorts them
//      here (cub::BlockRadixSort in dynamic shared memory). The window mode
//      needs only the sorted positions from its first candidate to its last:
//      the keys at those two positions by radix selection
//      (block_select.cuh), then the at most approx_window_max_width - 1 keys
//      strictly between them, sorted over the bits in which the two differ;
//   2. candidates at core::approx_candidate_at (the histogram mode's spread over
//      the sample, or the window mode's packed around the ranks' predicted
//      sample positions: core::approx_choose_candidates, on the host), one
//      splitter per distinct key
//      (block scan of the kept flags): values to `splitters`, pre-key boundaries
//      (core::approx_splitter_bounds) to shared memory and `boundaries`;
//   3. the table: range, boundaries per coarse slot, the share scale that fits
//      the budget, coarse words (block scan of the fine slots per coarse slot),
//      boundaries per fine slot, fine words (block scan of those counts).
// It also zeroes the count pass's histogram (one launch fewer).
#pragma once

#include <cub/block/block_radix_sort.cuh>
#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>

#include <cstdint>

#include "cuda/kernels/block_select.cuh"
#include "cuda/tuning.hpp"
#include "core/approx.hpp"
#include "core/approx_lookup.hpp"
#include "core/int_math.hpp"
#include "core/key_traits.hpp"

namespace kselect::cuda {

/// Where the plan kernel leaves its results (workspace regions).
template <class T>
struct approx_tables {
  core::approx_lookup<core::key_t<T>>* lookup;  ///< parameters and coarse words (num_boundaries: 2m or 2m - 1)
  std::uint32_t* fine;                          ///< core::approx_max_fine_slots words
  core::key_t<T>* boundaries;                   ///< core::approx_max_boundaries pre-keys
  T* splitters;                                 ///< core::approx_max_splitters values, as read
  unsigned long long* hist;                     ///< 2 * core::approx_max_splitters + 1 counters
};

namespace approx_plan_detail {

/// The policy's block for the key width (tuning::approx_policy: plan_k32, plan_k64).
template <class K>
constexpr int threads =
    sizeof(K) == 4 ? tuning::compiled.approx.plan_k32.threads : tuning::compiled.approx.plan_k64.threads;
template <class K>
constexpr int items = core::approx_sample_size / threads<K>;
/// Window mode: the keys between the window's ends, per thread (blocked).
template <class K>
constexpr int window_items = static_cast<int>(core::approx_window_max_width) / threads<K>;
static_assert(items<std::uint32_t> <= 32 && items<std::uint64_t> <= 32, "a thread's window flags fit 32 bits");
/// Per thread: splitter candidates, coarse slots and fine slots (blocked, for the scans).
template <class K>
constexpr int candidates = (core::approx_max_splitters + threads<K> - 1) / threads<K>;
template <class K>
constexpr int coarse = (static_cast<int>(core::approx_max_coarse<K>) + threads<K> - 1) / threads<K>;
template <class K>
constexpr int fines = core::approx_max_fine_slots / threads<K>;

/// Sums of the five candidate share scales' fine slot totals (one block reduction).
struct scale_totals {
  std::uint32_t v[core::approx_share_scales];
  __device__ scale_totals operator+(const scale_totals& o) const {
    scale_totals r;
#pragma unroll
    for (int k = 0; k < core::approx_share_scales; ++k) r.v[k] = v[k] + o.v[k];
    return r;
  }
};

template <class T>
struct plan_shared {
  using K = core::key_t<T>;
  using sort_t = cub::BlockRadixSort<K, threads<K>, items<K>>;
  using select_t = block_radix_select<K, threads<K>, items<K>>;
  using window_sort_t = cub::BlockRadixSort<K, threads<K>, window_items<K>>;
  union {
    typename sort_t::TempStorage sort;
    K sorted[core::approx_sample_size];
    struct {
      typename select_t::storage select;
      typename window_sort_t::TempStorage sort;
      K keys[core::approx_window_max_width];  ///< sorted: the keys strictly between the window's ends
    } window;
    struct {
      K boundaries[core::approx_max_boundaries];
      std::uint32_t fine_count[core::approx_max_fine_slots];
    } table;
  } u;
  union {
    typename cub::BlockScan<int, threads<K>>::TempStorage scan_int;
    typename cub::BlockScan<std::uint32_t, threads<K>>::TempStorage scan_u32;
    typename cub::BlockReduce<std::uint32_t, threads<K>>::TempStorage reduce;
    typename cub::BlockReduce<scale_totals, threads<K>>::TempStorage reduce_scales;
  } tmp;
  core::approx_lookup<K> lookup;
  std::uint32_t in_coarse[core::approx_max_coarse<K>];   ///< boundaries per coarse slot
  std::uint32_t coarse_end[core::approx_max_coarse<K>];  ///< end of each coarse slot's fine slots
  std::uint32_t num_boundaries;
  std::uint32_t reserve;
  std::uint32_t shared_slots;
  std::uint32_t zero_slot;  ///< wrap mode: the fine slot of the pre-keys below lo
};

/// Bytes of dynamic shared memory the kernel takes (more than the static 48 KiB).
template <class T>
constexpr std::size_t shared_bytes = sizeof(plan_shared<T>);

}  // namespace approx_plan_detail

template <class T>
__global__ void __launch_bounds__(approx_plan_detail::threads<core::key_t<T>>)
    approx_plan_kernel(const core::key_t<T>* sample, core::approx_candidates cand, int budget,
                       approx_tables<T> out) {
  using K = core::key_t<T>;
  using traits = core::key_traits<T>;
  using namespace approx_plan_detail;
  constexpr int nt = threads<K>, ni = items<K>, nc = candidates<K>, ncs = coarse<K>, nf = fines<K>;
  extern __shared__ __align__(16) unsigned char approx_dynamic_shared[];
  auto& sm = *reinterpret_cast<plan_shared<T>*>(approx_dynamic_shared);
  const int tid = static_cast<int>(threadIdx.x);

  // 1. The sample (approx_sample_kernel gathered it), coalesced.
  K keys[ni];
#pragma unroll
  for (int i = 0; i < ni; ++i) keys[i] = sample[i * nt + tid];
  for (int b = tid; b < 2 * core::approx_max_splitters + 1; b += nt) out.hist[b] = 0;
  for (int c = tid; c < static_cast<int>(core::approx_max_coarse<K>); c += nt) {
    sm.lookup.coarse[c] = 0;
    sm.in_coarse[c] = 0;
  }
  // The sorted sample's key at position s: sample_at(s) below. Window mode:
  // positions below low_end hold low's key, from high_begin on high's.
  K low = 0, high = 0;
  std::int64_t low_end = 0, high_begin = 0;
  if (cand.window) {
    using select_t = typename plan_shared<T>::select_t;
    const auto first = static_cast<std::uint32_t>(core::approx_candidate_at(cand, 0));
    const auto last = static_cast<std::uint32_t>(core::approx_candidate_at(cand, cand.count - 1));
    typename select_t::result ends[2];
    select_t::select(keys, {first, last}, ends, sm.u.window.select);
    const typename select_t::result& lo = ends[0];
    const typename select_t::result& hi = ends[1];
    low = lo.key;
    high = hi.key;
    low_end = lo.below + lo.equal;
    high_begin = hi.below;
    // The keys strictly between: sorted positions [low_end, high_begin), inside
    // (first, last), so fewer than approx_window_max_width.
    std::uint32_t between = 0;
#pragma unroll
    for (int i = 0; i < ni; ++i) between |= (keys[i] > low && keys[i] < high ? 1u : 0u) << i;
    int at = 0, total = 0;
    cub::BlockScan<int, nt>(sm.tmp.scan_int).ExclusiveSum(__popc(between), at, total);
#pragma unroll
    for (int i = 0; i < ni; ++i)
      if (between >> i & 1u) sm.u.window.keys[at++] = keys[i];
    __syncthreads();
    if (total > 1) {
      constexpr int nw = window_items<K>;
      K w[nw];
#pragma unroll
      for (int i = 0; i < nw; ++i) {
        const int j = tid * nw + i;
        // Padding sorts last: in the bits sorted, its all ones are above every
        // key below `high`.
        w[i] = j < total ? sm.u.window.keys[j] : static_cast<K>(~K(0));
      }
      // The keys between share the bits above the highest one where low and high differ.
      typename plan_shared<T>::window_sort_t(sm.u.window.sort).Sort(w, 0, core::bit_width_of(low ^ high));
#pragma unroll
      for (int i = 0; i < nw; ++i) sm.u.window.keys[tid * nw + i] = w[i];
      __syncthreads();
    }
  } else {
    typename plan_shared<T>::sort_t(sm.u.sort).Sort(keys);
    __syncthreads();
#pragma unroll
    for (int i = 0; i < ni; ++i) sm.u.sorted[tid * ni + i] = keys[i];  // blocked: thread t holds t*ni ..
    __syncthreads();
  }
  auto sample_at = [&](std::int64_t s) -> K {
    if (!cand.window) return sm.u.sorted[s];
    if (s < low_end) return low;
    if (s >= high_begin) return high;
    return sm.u.window.keys[s - low_end];
  };

  // 2. Splitters: candidate j at approx_candidate_at, kept if its key is new.
  const int num_candidates = cand.count;
  int keep[nc], at[nc];
  T value[nc] = {};
  K key[nc] = {};
#pragma unroll
  for (int i = 0; i < nc; ++i) {
    const int j = tid * nc + i;
    keep[i] = 0;
    if (j < num_candidates) {
      value[i] = core::value_of_pre_key<T>(sample_at(core::approx_candidate_at(cand, j)));
      key[i] = traits::to_key(value[i]);
      const K previous =
          j > 0 ? traits::to_key(core::value_of_pre_key<T>(sample_at(core::approx_candidate_at(cand, j - 1))))
                : K(0);
      keep[i] = core::approx_keeps_candidate<K>(j, key[i], previous) ? 1 : 0;
    }
  }
  int m = 0;
  cub::BlockScan<int, nt>(sm.tmp.scan_int).ExclusiveSum(keep, at, m);
  __syncthreads();  // the sorted sample is read: its memory now holds the boundaries
#pragma unroll
  for (int i = 0; i < nc; ++i) {
    if (!keep[i]) continue;
    out.splitters[at[i]] = value[i];
    const core::splitter_bounds<T> b = core::approx_splitter_bounds<T>(key[i]);
    sm.u.table.boundaries[2 * at[i]] = b.first;
    // Only the largest key has no end (core::approx_splitter_bounds), and it is last.
    if (b.has_end) sm.u.table.boundaries[2 * at[i] + 1] = b.end;
    if (at[i] == m - 1) sm.num_boundaries = static_cast<std::uint32_t>(b.has_end ? 2 * m : 2 * m - 1);
  }
  __syncthreads();
  const std::uint32_t nb = sm.num_boundaries;
  const K* bounds = sm.u.table.boundaries;
  for (std::uint32_t i = tid; i < nb; i += nt) out.boundaries[i] = bounds[i];

  // 3. The table. Range, mode and coarse shift.
  if (tid == 0) {
    core::approx_set_range<K>(sm.lookup, bounds[0], bounds[nb - 1]);
    sm.lookup.num_boundaries = nb;
  }
  __syncthreads();
  const core::approx_lookup<K>& t = sm.lookup;
  const std::uint32_t used = t.coarse_used, forward = t.forward;
  const bool wrapped = used > forward;  // wrap mode: slots past `forward` hold the pre-keys below lo
  const K range = core::approx_range(t);
  for (std::uint32_t i = tid; i < nb; i += nt) atomicAdd(&sm.in_coarse[core::approx_coarse_of(t, core::approx_offset(t, bounds[i]))], 1u);
  __syncthreads();
  // The reserve: a slot per forward coarse slot with boundaries, one per run
  // without, one for the wrapped slots.
  std::uint32_t reserve_part = 0;
#pragma unroll
  for (int i = 0; i < ncs; ++i) {
    const std::uint32_t c = tid * ncs + i;
    if (c >= forward) continue;
    reserve_part += sm.in_coarse[c] > 0 || c == 0 || sm.in_coarse[c - 1] > 0 ? 1u : 0u;
  }
  const std::uint32_t reserve = cub::BlockReduce<std::uint32_t, nt>(sm.tmp.reduce).Sum(reserve_part);
  if (tid == 0) sm.reserve = reserve + (wrapped ? 1u : 0u);
  __syncthreads();
  // The largest share scale whose fine slots fit the budget (scale 1 always does).
  const std::uint32_t base_share = static_cast<std::uint32_t>(budget) - sm.reserve;
  scale_totals part{};
#pragma unroll
  for (int i = 0; i < ncs; ++i) {
    const std::uint32_t c = tid * ncs + i;
    if (c >= forward || sm.in_coarse[c] == 0) continue;
#pragma unroll
    for (int k = 0; k < core::approx_share_scales; ++k) {
      const std::uint32_t bits = static_cast<std::uint32_t>(
          core::approx_fine_bits(sm.in_coarse[c], nb, core::approx_scaled_share(base_share, k), t.coarse_shift));
      part.v[k] += core::approx_fine_used<K>(range, c, t.coarse_shift, t.coarse_shift - bits) - 1;
    }
  }
  const scale_totals totals = cub::BlockReduce<scale_totals, nt>(sm.tmp.reduce_scales).Sum(part);
  if (tid == 0) {
    int chosen = 0;
    for (int k = core::approx_share_scales - 1; k > 0 && chosen == 0; --k)
      if (sm.reserve + totals.v[k] <= static_cast<std::uint32_t>(budget)) chosen = k;
    sm.shared_slots = core::approx_scaled_share(base_share, chosen);
  }
  __syncthreads();
  // Fine slots per coarse slot, their starts (block scan), the coarse words. A
  // run of empty forward slots shares one fine slot, and so do the wrapped ones.
  std::uint32_t fine_slots[ncs], fine_shift[ncs], start[ncs];
#pragma unroll
  for (int i = 0; i < ncs; ++i) {
    const std::uint32_t c = tid * ncs + i;
    fine_slots[i] = 0;
    fine_shift[i] = t.coarse_shift;
    if (c >= used) continue;
    if (c >= forward) {
      fine_slots[i] = c == forward ? 1u : 0u;
    } else if (sm.in_coarse[c] == 0) {
      fine_slots[i] = c == 0 || sm.in_coarse[c - 1] > 0 ? 1u : 0u;
    } else {
      fine_shift[i] = t.coarse_shift - static_cast<std::uint32_t>(core::approx_fine_bits(
                                           sm.in_coarse[c], nb, sm.shared_slots, t.coarse_shift));
      fine_slots[i] = core::approx_fine_used<K>(range, c, t.coarse_shift, fine_shift[i]);
    }
  }
  std::uint32_t fine_used = 0;
  cub::BlockScan<std::uint32_t, nt>(sm.tmp.scan_u32).ExclusiveSum(fine_slots, start, fine_used);
#pragma unroll
  for (int i = 0; i < ncs; ++i) {
    const std::uint32_t c = tid * ncs + i;
    if (c >= used) continue;
    // The later slots of a shared run use the run's slot, the one before their start.
    const bool shares = fine_slots[i] == 0 && (c >= forward || sm.in_coarse[c] == 0);
    sm.lookup.coarse[c] = core::approx_coarse_word(shares ? start[i] - 1 : start[i], fine_shift[i], c, t.coarse_shift);
    sm.coarse_end[c] = start[i] + fine_slots[i];
    if (c == forward) sm.zero_slot = start[i];  // the wrapped slots' fine slot: bucket 0
  }
  if (tid == 0) {
    sm.lookup.fine_used = fine_used;
    if (!wrapped) sm.zero_slot = fine_used;  // none
  }
  for (std::uint32_t f = tid; f < fine_used; f += nt) sm.u.table.fine_count[f] = 0;
  __syncthreads();
  // Boundaries per fine slot, then each slot's word from its count and the
  // boundaries below it (block scan).
  for (std::uint32_t i = tid; i < nb; i += nt) {
    const K d = core::approx_offset(t, bounds[i]);
    atomicAdd(&sm.u.table.fine_count[core::approx_fine_index(t.coarse[core::approx_coarse_of(t, d)], d)], 1u);
  }
  __syncthreads();
  std::uint32_t count[nf], below[nf];
#pragma unroll
  for (int i = 0; i < nf; ++i) {
    const std::uint32_t f = tid * nf + i;
    count[i] = f < fine_used ? sm.u.table.fine_count[f] : 0u;
  }
  cub::BlockScan<std::uint32_t, nt>(sm.tmp.scan_u32).ExclusiveSum(count, below);
  std::uint32_t c = 0;
#pragma unroll
  for (int i = 0; i < nf; ++i) {
    const std::uint32_t f = tid * nf + i;
    if (f >= fine_used) continue;
    // The coarse slot whose fine slots hold f: the first ending after it. A
    // thread's slots are consecutive: one binary search, then steps forward
    // (H100, window mode, 66 candidates: this loop and the scan before it
    // took 20.0 thousand cycles with a search per slot, 16.4 with the steps;
    // the kernel 49 -> 46 us).
    if (i == 0)
      c = static_cast<std::uint32_t>(
          core::partition_point(used, [&](std::int64_t x) { return sm.coarse_end[x] <= f; }));
    while (c < used && sm.coarse_end[c] <= f) ++c;  // coarse_end never decreases
    const K b0 = count[i] >= 1 ? bounds[below[i]] : K(0);
    const K b1 = count[i] >= 2 ? bounds[below[i] + 1] : K(0);
    out.fine[f] = core::approx_fine_word<K>(f == sm.zero_slot ? 0u : below[i], count[i], b0, b1, t.coarse[c] & 63u,
                                            t.lo);
  }
  // The parameters and the coarse words in use, as 32-bit words.
  static_assert(sizeof(core::approx_lookup<K>) % 4 == 0, "copied as 32-bit words");
  const auto* src = reinterpret_cast<const std::uint32_t*>(&sm.lookup);
  auto* dst = reinterpret_cast<std::uint32_t*>(out.lookup);
  for (int w = tid; w < static_cast<int>(sizeof(core::approx_lookup<K>) / 4); w += nt) dst[w] = src[w];
}

}  // namespace kselect::cuda
