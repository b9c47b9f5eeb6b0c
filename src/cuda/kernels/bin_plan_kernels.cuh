// The multiselection pre-pass's planning, on the device (one block each, so the
// host waits once per call, at the end): bin_map_kernel shapes the bins from a
// sorted sample and predicts whether the copy will be small; bin_reduce_kernel
// turns the count pass's histogram into the bins to copy, a region of the copy
// for each, and each rank's place in its region. core/bin_map.hpp and
// core/bin_reduction.hpp hold the rules and their host versions.
#pragma once

#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>

#include <cstdint>

#include "cuda/kernels/bin_prepass_types.cuh"
#include "cuda/kernels/block_sort.cuh"
#include "cuda/kernels/gather_sample.cuh"
#include "cuda/tuning.hpp"
#include "core/bin_intervals.hpp"
#include "core/bin_map.hpp"
#include "core/int_math.hpp"
#include "core/key_traits.hpp"
#include "core/prepass_speculation.hpp"

namespace kselect::cuda {

constexpr int bin_map_threads = tuning::sample_threads;  // 256 x 16 keys (1024 x 4: the block sort needs > 48 KiB)
constexpr int bin_map_items = tuning::sample_size / bin_map_threads;
constexpr int bin_map_slots_per_thread = core::bin_map_slots / bin_map_threads;
constexpr int bin_reduce_threads = tuning::compiled.prepass.reduce.threads;  // 8 bins each
constexpr int bin_reduce_bins_per_thread = core::bin_map_max_bins / bin_reduce_threads;
/// Words of the selected bins' bitmap.
constexpr int bin_selected_words = core::bin_map_max_bins / 32;

/// Copies a map between shared and global memory, all threads of the block (as
/// 32-bit words: it is trivially copyable).
template <class K>
__device__ __forceinline__ void copy_bin_map(core::bin_map<K>* dst, const core::bin_map<K>* src) {
  static_assert(sizeof(core::bin_map<K>) % 4 == 0, "copied as 32-bit words");
  auto* d = reinterpret_cast<std::uint32_t*>(dst);
  const auto* s = reinterpret_cast<const std::uint32_t*>(src);
  for (int i = threadIdx.x; i < int(sizeof(core::bin_map<K>) / 4); i += blockDim.x) d[i] = s[i];
}

/// bin_map_kernel: the slots of m (its range set) for at most `target` slot
/// bins, the whole block: each thread's slots get the bins before each and before
/// the next, capped, then the first bin of each by a block scan.
template <class K, class ScanStorage>
__device__ __forceinline__ void fill_bin_map_slots_block(core::bin_map<K>& m, const K* sorted, int count,
                                                         std::uint32_t target, ScanStorage& scan_storage) {
  constexpr int slots_per_thread = bin_map_slots_per_thread;
  const int first_slot = threadIdx.x * slots_per_thread;
  std::uint32_t bins[slots_per_thread], first[slots_per_thread];
  std::uint64_t before = core::bins_before_slot(m, sorted, count, first_slot, target);
#pragma unroll
  for (int i = 0; i < slots_per_thread; ++i) {
    const std::uint64_t next = core::bins_before_slot(m, sorted, count, first_slot + i + 1, target);
    bins[i] = core::slot_bin_count(before, next, m.shift);
    before = next;
  }
  std::uint32_t total = 0;
  cub::BlockScan<std::uint32_t, bin_map_threads>(scan_storage).ExclusiveSum(bins, first, total);
#pragma unroll
  for (int i = 0; i < slots_per_thread; ++i) m.slot[first_slot + i] = core::slot_word(first[i], bins[i]);
  if (threadIdx.x == 0) m.num_bins = total + 1;
  __syncthreads();
}

/// bin_map_kernel: core::plan_dense_ranges, a thread per range, the sums by
/// block scans (the same map, bit for bit). Returns the bins the ranges add, in
/// every thread.
template <class T, class ScanStorage>
__device__ __forceinline__ std::uint32_t plan_dense_ranges_block(core::bin_map<core::key_t<T>>& m,
                                                                 const core::key_t<T>* sorted,
                                                                 const core::dense_candidate* c, int count,
                                                                 ScanStorage& scan_storage) {
  static_assert(core::bin_map_max_dense < bin_map_threads, "a thread per range");
  __shared__ int ranges_planned;
  __shared__ std::uint32_t total;
  const int j = threadIdx.x;
  const int candidates = count < core::bin_map_max_dense ? count : core::bin_map_max_dense;
  // The candidates before the first one out of order.
  if (j == 0) ranges_planned = candidates;
  __syncthreads();
  if (j < candidates && !core::dense_candidate_in_order(c, j)) atomicMin(&ranges_planned, j);
  __syncthreads();
  const int ranges = ranges_planned;
  if (j < ranges) core::set_dense_range_bounds<T>(m, sorted, c, j);
  __syncthreads();
  // The most bins per sample key that keeps the ranges within the budget: the
  // ranges whose inclusive sum of costs fits (costs are positive: a prefix).
  int per_key = core::dense_bins_per_sample_key, used = 0;
  std::uint32_t after = 0;
  for (;; per_key /= 2) {
    const std::uint32_t cost = j < ranges ? core::dense_range_cost(m, c, j, per_key) : 0u;
    cub::BlockScan<std::uint32_t, bin_map_threads>(scan_storage).InclusiveSum(cost, after);
    used = __syncthreads_count(j < ranges && after <= core::dense_bins_budget);  // also frees the scan storage
    if (used == ranges || per_key == 1) break;
  }
  if (j == 0) m.num_dense = static_cast<std::uint32_t>(used);
  if (j < used)
    core::set_dense_range_bins<T>(m, c, j, per_key, after);
  else if (j < core::bin_map_max_dense)
    core::pad_dense_range(m, j, ranges);
  if (used == 0 ? j == 0 : j == used - 1) total = used == 0 ? 0u : after;
  __syncthreads();
  return total;
}

/// bin_map_kernel: core::place_dense_ranges, a thread per range.
template <class K>
__device__ __forceinline__ void place_dense_ranges_block(core::bin_map<K>& m) {
  if (threadIdx.x < m.num_dense) core::place_dense_range(m, threadIdx.x);
  __syncthreads();
  if (threadIdx.x == 0 && m.num_dense > 0) m.num_bins += m.dense_after[m.num_dense - 1];
  __syncthreads();
}

/// One block: draws and sorts a 4096-key sample, builds the bin map from it
/// (core::build_bin_map_for_ranks's rules, bit for bit: the slots, then dense
/// ranges where the ranks' expected bins hold many sample keys), writes the map,
/// and sets state->proceed when the bins at the ranks' expected sample positions
/// hold at most `max_predicted_keys` sample keys (core::predict_kept_fraction's
/// rule; a bin of one key predicts nothing), and the run of bins the count pass
/// copies (core::plan_speculation's rule, state->spec_*). Where the workspace has
/// room for bin tags (`tags_room`), some rank needs a copy and the count pass
/// copies none, sets state->tagged: the count pass tags every key with its bin.
/// Also zeroes `hist` (core::bin_map_max_bins counters) and *copy_cursor.
template <class T>
__global__ void __launch_bounds__(bin_map_threads)
    bin_map_kernel(const T* in, std::int64_t n, std::uint64_t seed, const std::int64_t* ranks,
                   std::int64_t num_ranks, std::int64_t max_predicted_keys, bool tags_room,
                   core::bin_map<core::key_t<T>>* map_out, bin_prepass_state* state, unsigned long long* hist,
                   unsigned long long* copy_cursor) {
  using K = core::key_t<T>;
  constexpr int threads = bin_map_threads, items = bin_map_items;
  using sorter = block_sorter<K, threads, items>;
  using scan = cub::BlockScan<std::uint32_t, threads>;
  using scan_int = cub::BlockScan<int, threads>;
  using reduce = cub::BlockReduce<std::int64_t, threads>;
  __shared__ typename sorter::storage smem;
  __shared__ core::bin_map<K> m;
  __shared__ union {
    typename scan::TempStorage scan;
    typename scan_int::TempStorage scan_int;
    typename reduce::TempStorage reduce;
  } tmp;
  __shared__ core::dense_candidate candidates[core::bin_map_max_dense];

  K keys[items];
  gather_sample<items, threads, tuning::sample_size>(in, n, seed, keys);
  // The count pass's histogram and the filter's cursor start at zero (here
  // rather than in two memset launches before this kernel).
  for (int b = threadIdx.x; b < int(core::bin_map_max_bins); b += threads) hist[b] = 0;
  if (threadIdx.x == 0) *copy_cursor = 0;
  sorter::sort(keys, smem);
  // The sample as pre-keys, in place (pre_key_first is increasing in the key:
  // still sorted); thread t holds sample positions t * items .. t * items + items - 1.
  K pre[items];
#pragma unroll
  for (int i = 0; i < items; ++i) pre[i] = core::key_traits<T>::pre_key_first(smem.sorted[threadIdx.x * items + i]);
  __syncthreads();
#pragma unroll
  for (int i = 0; i < items; ++i) smem.sorted[threadIdx.x * items + i] = pre[i];
  __syncthreads();
  constexpr int count = sorter::size;
  const K* sorted = smem.sorted;
  // The dense ranges' fields start as the host's (zero), so that the maps compare bytewise.
  static_assert(core::bin_map_max_dense < threads, "a thread per range");
  if (threadIdx.x <= core::bin_map_max_dense) {
    const int j = threadIdx.x;
    m.dense_first[j] = m.dense_last[j] = 0;
    m.dense_base[j] = m.dense_after[j] = 0;
    m.dense_shift[j] = m.dense_one_key[j] = 0;
  }
  for (int i = threadIdx.x; i < int(sizeof m.dense_hint); i += threads) m.dense_hint[i] = 0;
  if (threadIdx.x == 0) {
    m.num_dense = m.hint_steps = 0;
    core::set_bin_map_range<K>(m, sorted[0], sorted[count - 1]);
  }
  __syncthreads();
  fill_bin_map_slots_block(m, sorted, count, tuning::bin_target, tmp.scan);

  // Dense ranges: each rank's candidate (core::dense_candidate_of_rank), the first
  // bin_map_max_dense in rank order. A thread takes a run of adjacent ranks, so a
  // block scan of the threads' counts keeps that order.
  const auto slot_bin_at = [&](std::int64_t i) { return core::slot_bin_of(m, sorted[i]); };
  const std::int64_t per_thread = (num_ranks + threads - 1) / threads;
  const std::int64_t my_first = threadIdx.x * per_thread;
  const std::int64_t my_end = my_first + per_thread < num_ranks ? my_first + per_thread : num_ranks;
  int mine = 0;
  for (std::int64_t k = my_first; k < my_end; ++k) {
    const core::dense_candidate c = core::dense_candidate_of_rank(slot_bin_at, count, ranks, k, n);
    mine += c.hi > c.lo;
  }
  int at = 0, found = 0;
  scan_int(tmp.scan_int).ExclusiveSum(mine, at, found);
  for (std::int64_t k = my_first; k < my_end && mine > 0 && at < core::bin_map_max_dense; ++k) {
    const core::dense_candidate c = core::dense_candidate_of_rank(slot_bin_at, count, ranks, k, n);
    if (c.hi > c.lo) candidates[at++] = c;
  }
  __syncthreads();
  if (found > 0) {
    const std::uint32_t dense_bins = plan_dense_ranges_block<T>(m, sorted, candidates, found, tmp.scan);
    fill_bin_map_slots_block(m, sorted, count, tuning::bin_target - dense_bins, tmp.scan);
    place_dense_ranges_block(m);
    constexpr int slots_per_thread = bin_map_slots_per_thread;
    const int most =
        core::set_dense_hints(m, threadIdx.x * slots_per_thread, (threadIdx.x + 1) * slots_per_thread);
    // dense_hint_steps needs only whether the most starts in a slot are 1, 2 to 7, or more.
    const bool over_one = __syncthreads_or(most > 1) != 0;
    const bool over_seven = __syncthreads_or(most > 7) != 0;
    if (threadIdx.x == 0) m.hint_steps = core::dense_hint_steps(over_seven ? 8 : over_one ? 7 : 1, m.num_dense);
    __syncthreads();
  }
  copy_bin_map(map_out, &m);
  // The sample's bins, in place of its keys (non-decreasing: the map is monotone).
#pragma unroll
  for (int i = 0; i < items; ++i) smem.sorted[threadIdx.x * items + i] = static_cast<K>(core::bin_of(m, pre[i]));
  __syncthreads();
  __shared__ std::uint32_t run_first, run_last;
  if (threadIdx.x == 0) run_first = core::no_speculation, run_last = 0;
  std::int64_t predicted = 0;
  bool needs_copy = false;
  __syncthreads();
  for (std::int64_t k = threadIdx.x; k < num_ranks; k += threads) {
    predicted += core::predicted_sample_keys(m, smem.sorted, count, ranks, k, n);
    std::uint32_t first = 0, last = 0;
    if (core::speculation_bins_of_rank(m, smem.sorted, count, ranks, k, n, &first, &last)) {
      needs_copy = true;
      atomicMin(&run_first, first);
      atomicMax(&run_last, last);
    }
  }
  predicted = reduce(tmp.reduce).Sum(predicted);
  const bool any_copy = __syncthreads_or(needs_copy) != 0;
  if (threadIdx.x == 0) {
    state->proceed = predicted <= max_predicted_keys ? 1 : 0;
    state->kept = 0;
    const std::int64_t held =
        core::speculation_run(smem.sorted, count, run_first, run_last, any_copy, &state->spec_first, &state->spec_span);
    state->spec_expected = held * n / count;
    state->spec_slice = 0;
    state->spec_slices = 0;
    state->spec_overflow = 0;
    state->spec_ok = 0;
    state->tagged = tuning::bin_tags<K> && tags_room && predicted > 0 && state->spec_span == core::no_speculation;
  }
}

/// bin_reduce_kernel: each rank's bin, marked in `selected` (shared). The last
/// thread whose bins start at or before the rank holds it (that thread's bins are
/// not all empty: the next thread starts after it). The task gets the bin's size
/// and the rank within the bin; `start` holds the bin until the regions are known.
/// A bin of one key (a dense range's) is not marked: its task is answered
/// (region bin_task_answered, `start` the bin's first pre-key).
template <class K>
__device__ __forceinline__ void bin_reduce_locate_ranks(const unsigned long long* hist, const core::bin_map<K>& map,
                                                        const std::int64_t* ranks, std::int64_t num_ranks,
                                                        const unsigned long long* keys_before,
                                                        std::uint32_t* selected, bin_rank_task* tasks) {
  constexpr int threads = bin_reduce_threads, items = bin_reduce_bins_per_thread;
  for (std::int64_t k = threadIdx.x; k < num_ranks; k += threads) {
    const auto r = static_cast<unsigned long long>(ranks[k]);
    const auto lo = static_cast<int>(
        core::partition_point(threads, [&](std::int64_t t) { return keys_before[t] <= r; }) - 1);
    unsigned long long at = keys_before[lo];
    int b = lo * items;
    unsigned long long c = hist[b];
    while (r >= at + c) {
      at += c;
      c = hist[++b];
    }
    if (core::bin_holds_one_key(map, static_cast<std::uint32_t>(b))) {
      tasks[k] = {static_cast<std::int64_t>(core::bin_first_pre_key(map, static_cast<std::uint32_t>(b))), 1, 0,
                  bin_task_answered};
      continue;
    }
    atomicOr(&selected[b / 32], 1u << (b % 32));
    tasks[k] = {b, static_cast<std::int64_t>(c), static_cast<std::int64_t>(r - at), 0};
  }
}

/// bin_reduce_kernel: each rank's task gets its bin's region and where the
/// region starts in the copy (from the thread prefixes, then the selected bins
/// before it among the thread's, re-read from the histogram).
__device__ __forceinline__ void bin_reduce_place_tasks(const unsigned long long* hist, std::int64_t num_ranks,
                                                       const unsigned long long* kept_before,
                                                       const std::uint32_t* regions_before,
                                                       const std::uint32_t* selected, bin_rank_task* tasks) {
  constexpr int threads = bin_reduce_threads, items = bin_reduce_bins_per_thread;
  for (std::int64_t k = threadIdx.x; k < num_ranks; k += threads) {
    if (tasks[k].region == bin_task_answered) continue;
    const auto b = static_cast<int>(tasks[k].start);
    unsigned long long start = kept_before[b / items];
    std::uint32_t region_of_b = regions_before[b / items];
    for (int c = b - b % items; c < b; ++c)
      if ((selected[c / 32] >> (c % 32)) & 1u) start += hist[c], ++region_of_b;
    tasks[k].start = static_cast<std::int64_t>(start);
    tasks[k].region = region_of_b;
  }
}

/// The smallest x in [lo, hi] with pred(x) (pred monotone, pred(hi) true), by a
/// warp whose lanes all pass the same bounds: each step tests 32 points at once,
/// so that a search over 32-bit pre-keys takes 7 steps of one bin_of each, not
/// the binary search's 32 (core::first_pre_key_of_bin's search).
struct warp_first_true {
  template <class K, class Pred>
  __device__ K operator()(K lo, K hi, Pred pred) const {
    const unsigned lane = threadIdx.x % 32;
    while (lo < hi) {
      // Lane i tests lo + (i + 1) * step - 1, lane 31 hi itself: 32 steps pass
      // hi - lo, and step <= 2^(bits - 5) keeps the offsets from overflowing.
      const K step = static_cast<K>((hi - lo) / 32 + 1);
      const K offset = static_cast<K>(lane * step + (step - 1));
      const K x = offset >= static_cast<K>(hi - lo) ? hi : static_cast<K>(lo + offset);
      const unsigned passed = __ballot_sync(0xffffffffu, pred(x));
      const int f = __ffs(passed) - 1;  // the first lane whose point passes (lane 31's does)
      const K before = __shfl_sync(0xffffffffu, x, f > 0 ? f - 1 : 0);
      hi = __shfl_sync(0xffffffffu, x, f);
      if (f > 0) lo = static_cast<K>(before + 1);
    }
    return lo;
  }
};

/// bin_reduce_kernel: the selected bins (`sel`, final) as pre-key intervals for
/// the filter, where the map has dense ranges and the bins form at most
/// bin_filter_max_intervals runs (core::selected_bin_intervals's rule), unless the
/// keys are `tagged` with their bins (the filter then reads a quarter as many
/// bytes, or fewer, as the intervals' read of the input); else out->count is 0.
/// A thread finds the runs that start and end among its bins; a block scan
/// numbers the runs; then a warp finds each bound (warp_first_true).
template <class K, class ScanStorage>
__device__ __forceinline__ void bin_reduce_intervals(const core::bin_map<K>& map, const std::uint32_t* sel,
                                                     int num_bins, bool tagged, ScanStorage& scan_storage,
                                                     core::bin_intervals<K>* out) {
  constexpr int items = bin_reduce_bins_per_thread;
  static_assert(bin_reduce_threads / 32 >= 2 * core::bin_filter_max_intervals, "a warp per bound");
  // Bound w: the first bin of run w / 2 (w even), or its last bin (w odd).
  __shared__ std::uint32_t bound_bin[2 * core::bin_filter_max_intervals];
  const auto is_selected = [&](int b) { return b >= 0 && b < num_bins && ((sel[b / 32] >> (b % 32)) & 1u); };
  const int first_bin = threadIdx.x * items;
  unsigned long long starts = 0;
#pragma unroll
  for (int i = 0; i < items; ++i) starts += is_selected(first_bin + i) && !is_selected(first_bin + i - 1);
  unsigned long long run = 0, runs = 0;
  cub::BlockScan<unsigned long long, bin_reduce_threads>(scan_storage).ExclusiveSum(starts, run, runs);
  const bool use =
      map.num_dense != 0 && !tagged && runs <= static_cast<unsigned long long>(core::bin_filter_max_intervals);
  if (threadIdx.x == 0) {
    out->count = use ? static_cast<std::uint32_t>(runs) : 0u;
    out->unused = 0;
  }
  if (!use) return;
  // A run that started in an earlier thread has index run - 1 here, as one that
  // started among this thread's bins.
  for (int i = 0; i < items; ++i) {
    const int b = first_bin + i;
    if (!is_selected(b)) continue;
    if (!is_selected(b - 1)) bound_bin[2 * run++] = static_cast<std::uint32_t>(b);
    if (!is_selected(b + 1)) bound_bin[2 * (run - 1) + 1] = static_cast<std::uint32_t>(b);
  }
  __syncthreads();
  const auto w = static_cast<unsigned long long>(threadIdx.x / 32);
  if (w >= 2 * runs) return;
  K bound = 0;
  if (w % 2 == 0)
    core::first_pre_key_of_bin(map, bound_bin[w], bound, warp_first_true{});  // a selected bin holds keys
  else
    bound = core::last_pre_key_of_bin(map, bound_bin[w], warp_first_true{});
  if (threadIdx.x % 32 == 0) (w % 2 == 0 ? out->first : out->last)[w / 2] = bound;
}

/// One block, after the count pass. From the histogram: the bins holding ranks
/// (core::reduce_to_bins's rule) as a bitmap, and for each word of it the
/// selected bins before it; a region of the partitioned copy for each selected
/// bin, in bin order (its cursor starts at the region's start); each rank's task.
/// The same bins as pre-key intervals where they are few (bin_reduce_intervals),
/// and whether the count pass's copy holds them all (state->spec_ok). Clears
/// state->proceed when the copy would hold more than `capacity` keys.
/// Shared memory holds one prefix per thread (8 bins); a thread's bins are re-read
/// from the histogram (L2) where a rank needs them.
template <class K>
__global__ void __launch_bounds__(bin_reduce_threads)
    bin_reduce_kernel(const unsigned long long* hist, const core::bin_map<K>* map, const std::int64_t* ranks,
                      std::int64_t num_ranks, std::int64_t capacity, std::uint32_t* selected,
                      std::uint32_t* selected_before_word, core::bin_intervals<K>* intervals,
                      bin_region<K>* region, bin_rank_task* tasks, bin_prepass_state* state) {
  constexpr int threads = bin_reduce_threads, items = bin_reduce_bins_per_thread, selected_words = bin_selected_words;
  using scan = cub::BlockScan<unsigned long long, threads>;
  __shared__ typename scan::TempStorage tmp;
  __shared__ unsigned long long keys_before[threads];  // input keys in the bins before thread t's
  __shared__ unsigned long long kept_before[threads];  // selected bins' keys before thread t's bins
  __shared__ std::uint32_t regions_before[threads];     // selected bins before thread t's bins
  __shared__ std::uint32_t sel[selected_words];
  // The map in shared memory: the intervals' searches call bin_of 32 or 64 times
  // in a row, each a chain of dependent reads.
  __shared__ core::bin_map<K> sm_map;
  if (state->proceed == 0) return;
  copy_bin_map(&sm_map, map);
  __syncthreads();
  const int num_bins = static_cast<int>(sm_map.num_bins);
  const int first_bin = threadIdx.x * items;
  unsigned long long count[items], sum = 0;
#pragma unroll
  for (int i = 0; i < items; ++i) {
    count[i] = first_bin + i < num_bins ? hist[first_bin + i] : 0;
    sum += count[i];
  }
  unsigned long long before = 0;
  scan(tmp).ExclusiveSum(sum, before);
  keys_before[threadIdx.x] = before;
  for (int w = threadIdx.x; w < selected_words; w += threads) sel[w] = 0;
  __syncthreads();
  bin_reduce_locate_ranks(hist, sm_map, ranks, num_ranks, keys_before, sel, tasks);
  __syncthreads();
  bin_reduce_intervals(sm_map, sel, num_bins, state->tagged != 0, tmp, intervals);
  __syncthreads();
  // Regions: the selected bins' keys before each selected bin, and its index.
  unsigned long long kept_sum = 0, regions = 0;
#pragma unroll
  for (int i = 0; i < items; ++i) {
    const int b = first_bin + i;
    if ((sel[b / 32] >> (b % 32)) & 1u) kept_sum += count[i], ++regions;
  }
  unsigned long long kept_at = 0, first_region = 0, kept = 0, total_regions = 0;
  scan(tmp).ExclusiveSum(kept_sum, kept_at, kept);
  __syncthreads();
  scan(tmp).ExclusiveSum(regions, first_region, total_regions);
  kept_before[threadIdx.x] = kept_at;
  regions_before[threadIdx.x] = static_cast<std::uint32_t>(first_region);
  // Each region's key bounds start empty; bin_scatter_kernel widens them.
  for (unsigned long long r = threadIdx.x; r < total_regions; r += threads) {
    region[r].min = static_cast<K>(~K(0));
    region[r].max = 0;
  }
#pragma unroll
  for (int i = 0; i < items; ++i) {
    const int b = first_bin + i;
    if (b % 32 == 0) selected_before_word[b / 32] = static_cast<std::uint32_t>(first_region);
    if ((sel[b / 32] >> (b % 32)) & 1u) {
      region[first_region++].cursor = kept_at;
      kept_at += count[i];
    }
  }
  for (int w = threadIdx.x; w < selected_words; w += threads) selected[w] = sel[w];
  __syncthreads();
  bin_reduce_place_tasks(hist, num_ranks, kept_before, regions_before, sel, tasks);
  // The count pass's copy serves the filter by intervals where it holds every
  // selected bin's keys: each selected bin in its run, and no slice overflowed.
  const std::uint32_t spec_first = state->spec_first, spec_span = state->spec_span;
  bool outside = false;
#pragma unroll
  for (int i = 0; i < items; ++i) {
    const int b = first_bin + i;
    outside |= ((sel[b / 32] >> (b % 32)) & 1u) != 0 && static_cast<std::uint32_t>(b) - spec_first > spec_span;
  }
  const bool any_outside = __syncthreads_or(outside) != 0;
  if (threadIdx.x == 0) {
    state->kept = kept;
    state->regions = static_cast<std::uint32_t>(total_regions);
    if (kept > static_cast<unsigned long long>(capacity)) state->proceed = 0;
    state->spec_ok = state->spec_slice > 0 && state->spec_overflow == 0 && !any_outside && intervals->count != 0;
  }
}

}  // namespace kselect::cuda
