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
//
// approx_plan_agent holds the steps, approx_plan_kernel runs them in order.
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

/// The policy's block for the key width (tuning::approx_policy: plan_k32, plan_k64): 1024 threads x 16 keys for
/// 32-bit keys, 512 x 32 for 64-bit ones (a thread's 32 64-bit keys need more than the 64 registers 1024 threads
/// may have).
template <class K>
constexpr int approx_plan_threads =
    sizeof(K) == 4 ? tuning::compiled.approx.plan_k32.threads : tuning::compiled.approx.plan_k64.threads;
template <class K>
constexpr int approx_plan_items = core::approx_sample_size / approx_plan_threads<K>;
/// Window mode: the keys between the window's ends, per thread (blocked).
template <class K>
constexpr int approx_plan_window_items = static_cast<int>(core::approx_window_max_width) / approx_plan_threads<K>;
static_assert(approx_plan_items<std::uint32_t> <= 32 && approx_plan_items<std::uint64_t> <= 32,
              "a thread's window flags fit 32 bits");
/// Per thread: splitter candidates, coarse slots and fine slots (blocked, for the scans).
template <class K>
constexpr int approx_plan_candidates = (core::approx_max_splitters + approx_plan_threads<K> - 1) /
                                       approx_plan_threads<K>;
template <class K>
constexpr int approx_plan_coarse = (static_cast<int>(core::approx_max_coarse<K>) + approx_plan_threads<K> - 1) /
                                   approx_plan_threads<K>;
template <class K>
constexpr int approx_plan_fines = core::approx_max_fine_slots / approx_plan_threads<K>;

/// Sums of the five candidate share scales' fine slot totals (one block reduction).
struct approx_scale_totals {
  std::uint32_t v[core::approx_share_scales];
  __device__ approx_scale_totals operator+(const approx_scale_totals& o) const {
    approx_scale_totals r;
#pragma unroll
    for (int k = 0; k < core::approx_share_scales; ++k) r.v[k] = v[k] + o.v[k];
    return r;
  }
};

template <class T>
struct approx_plan_shared {
  using K = core::key_t<T>;
  using sort_t = cub::BlockRadixSort<K, approx_plan_threads<K>, approx_plan_items<K>>;
  using select_t = block_radix_select<K, approx_plan_threads<K>, approx_plan_items<K>>;
  using window_sort_t = cub::BlockRadixSort<K, approx_plan_threads<K>, approx_plan_window_items<K>>;
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
    typename cub::BlockScan<int, approx_plan_threads<K>>::TempStorage scan_int;
    typename cub::BlockScan<std::uint32_t, approx_plan_threads<K>>::TempStorage scan_u32;
    typename cub::BlockReduce<std::uint32_t, approx_plan_threads<K>>::TempStorage reduce;
    typename cub::BlockReduce<approx_scale_totals, approx_plan_threads<K>>::TempStorage reduce_scales;
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
constexpr std::size_t approx_plan_shared_bytes = sizeof(approx_plan_shared<T>);

/// The window mode's sorted sample (approx_plan_agent::select_window): below
/// position low_end every key is low, from high_begin on every key is high, and
/// the `between` keys in between are sorted in shared memory.
template <class K>
struct approx_window_ends {
  K low = 0, high = 0;
  std::int64_t low_end = 0, high_begin = 0;
  int between = 0;
};

/// The lookup table's shape once its range is set (approx_plan_agent::set_range).
template <class K>
struct approx_table_shape {
  std::uint32_t num_boundaries;
  std::uint32_t coarse_used;
  std::uint32_t forward;
  bool wrapped;  ///< wrap mode: slots past `forward` hold the pre-keys below lo
  K range;
};

/// The plan kernel's steps (see the top of the file), each run by the whole
/// block, in order (approx_plan_kernel). The members are fixed at construction;
/// what a step finds for a later one is returned and passed on. A step that
/// stores in a loop reads the members it uses into locals first: the compiler
/// cannot tell that the stores leave the agent unchanged.
template <class T>
struct approx_plan_agent {
  using K = core::key_t<T>;
  using traits = core::key_traits<T>;
  using storage = approx_plan_shared<T>;
  using window_ends = approx_window_ends<K>;
  using table_shape = approx_table_shape<K>;
  static constexpr int threads = approx_plan_threads<K>;
  static constexpr int items = approx_plan_items<K>;
  static constexpr int window_items = approx_plan_window_items<K>;
  static constexpr int candidates_per_thread = approx_plan_candidates<K>;
  static constexpr int coarse_per_thread = approx_plan_coarse<K>;
  static constexpr int fines_per_thread = approx_plan_fines<K>;

  const core::approx_candidates cand;
  const int budget;
  const approx_tables<T> out;
  const int tid;

  __device__ __forceinline__ approx_plan_agent(core::approx_candidates candidates, int fine_budget,
                                               approx_tables<T> tables)
      : cand(candidates), budget(fine_budget), out(tables), tid(static_cast<int>(threadIdx.x)) {}

  /// The block's dynamic shared memory (reached as a block-wide variable, not
  /// through a pointer the agent holds, so that the compiler may load from it
  /// early).
  __device__ __forceinline__ static storage& shared() {
    extern __shared__ __align__(16) unsigned char approx_dynamic_shared[];
    return *reinterpret_cast<storage*>(approx_dynamic_shared);
  }

  /// The sample (approx_sample_kernel gathered it), coalesced; zeroes the count
  /// pass's histogram and the coarse slots.
  __device__ __forceinline__ void load_sample(const K* sample, K (&keys)[items]) const {
#pragma unroll
    for (int i = 0; i < items; ++i) keys[i] = sample[i * threads + tid];
    unsigned long long* const hist = out.hist;
    for (int b = tid; b < 2 * core::approx_max_splitters + 1; b += threads) hist[b] = 0;
    for (int c = tid; c < static_cast<int>(core::approx_max_coarse<K>); c += threads) {
      shared().lookup.coarse[c] = 0;
      shared().in_coarse[c] = 0;
    }
  }

  /// Histogram mode: the whole sample sorted, blocked (thread t holds t * items ..).
  __device__ __forceinline__ void sort_sample(K (&keys)[items]) const {
    typename storage::sort_t(shared().u.sort).Sort(keys);
    __syncthreads();
#pragma unroll
    for (int i = 0; i < items; ++i) shared().u.sorted[tid * items + i] = keys[i];
    __syncthreads();
  }

  /// Window mode: the keys at the first and last candidates' positions, and the
  /// keys strictly between them (sorted positions [low_end, high_begin), inside
  /// (first, last), so fewer than approx_window_max_width), gathered unsorted.
  __device__ __forceinline__ window_ends select_window(const K (&keys)[items]) const {
    using select_t = typename storage::select_t;
    const auto first = static_cast<std::uint32_t>(core::approx_candidate_at(cand, 0));
    const auto last = static_cast<std::uint32_t>(core::approx_candidate_at(cand, cand.count - 1));
    typename select_t::result ends[2];
    select_t::select(keys, {first, last}, ends, shared().u.window.select);
    window_ends window;
    window.low = ends[0].key;
    window.high = ends[1].key;
    window.low_end = ends[0].below + ends[0].equal;
    window.high_begin = ends[1].below;
    std::uint32_t between = 0;
#pragma unroll
    for (int i = 0; i < items; ++i) between |= (keys[i] > window.low && keys[i] < window.high ? 1u : 0u) << i;
    int at = 0;
    cub::BlockScan<int, threads>(shared().tmp.scan_int).ExclusiveSum(__popc(between), at, window.between);
#pragma unroll
    for (int i = 0; i < items; ++i)
      if (between >> i & 1u) shared().u.window.keys[at++] = keys[i];
    __syncthreads();
    return window;
  }

  /// Window mode: sorts the keys select_window gathered.
  __device__ __forceinline__ void sort_window(const window_ends& window) const {
    if (window.between <= 1) return;
    K window_keys[window_items];
#pragma unroll
    for (int i = 0; i < window_items; ++i) {
      const int slot = tid * window_items + i;
      // Padding sorts last: in the bits sorted, its all ones are above every
      // key below `high`.
      window_keys[i] = slot < window.between ? shared().u.window.keys[slot] : static_cast<K>(~K(0));
    }
    // The keys between share the bits above the highest one where low and high differ.
    typename storage::window_sort_t(shared().u.window.sort)
        .Sort(window_keys, 0, core::bit_width_of(window.low ^ window.high));
#pragma unroll
    for (int i = 0; i < window_items; ++i) shared().u.window.keys[tid * window_items + i] = window_keys[i];
    __syncthreads();
  }

  /// The sorted sample's key at `position` (window: unused in histogram mode).
  __device__ __forceinline__ K sample_at(const window_ends& window, std::int64_t position) const {
    if (!cand.window) return shared().u.sorted[position];
    if (position < window.low_end) return window.low;
    if (position >= window.high_begin) return window.high;
    return shared().u.window.keys[position - window.low_end];
  }

  /// Candidate j at approx_candidate_at, kept if its key is new: this thread's
  /// candidates (blocked), their values and keys.
  __device__ __forceinline__ void mark_candidates(const window_ends& window, int (&keep)[candidates_per_thread],
                                                  T (&value)[candidates_per_thread],
                                                  K (&key)[candidates_per_thread]) const {
    const int num_candidates = cand.count;
#pragma unroll
    for (int i = 0; i < candidates_per_thread; ++i) {
      const int candidate = tid * candidates_per_thread + i;
      keep[i] = 0;
      if (candidate < num_candidates) {
        value[i] = core::value_of_pre_key<T>(sample_at(window, core::approx_candidate_at(cand, candidate)));
        key[i] = traits::to_key(value[i]);
        const K previous = candidate > 0 ? traits::to_key(core::value_of_pre_key<T>(
                                       sample_at(window, core::approx_candidate_at(cand, candidate - 1))))
                                 : K(0);
        keep[i] = core::approx_keeps_candidate<K>(candidate, key[i], previous) ? 1 : 0;
      }
    }
  }

  /// The kept candidates become the splitters: values to `splitters`, pre-key
  /// boundaries to shared memory and `boundaries`. Returns the number of
  /// boundaries.
  __device__ __forceinline__ std::uint32_t choose_splitters(const window_ends& window) const {
    int keep[candidates_per_thread], at[candidates_per_thread];
    T value[candidates_per_thread] = {};
    K key[candidates_per_thread] = {};
    mark_candidates(window, keep, value, key);
    int num_splitters = 0;
    cub::BlockScan<int, threads>(shared().tmp.scan_int).ExclusiveSum(keep, at, num_splitters);
    __syncthreads();  // the sorted sample is read: its memory now holds the boundaries
    T* const splitters = out.splitters;
#pragma unroll
    for (int i = 0; i < candidates_per_thread; ++i) {
      if (!keep[i]) continue;
      splitters[at[i]] = value[i];
      const core::splitter_bounds<T> bounds = core::approx_splitter_bounds<T>(key[i]);
      shared().u.table.boundaries[2 * at[i]] = bounds.first;
      // Only the largest key has no end (core::approx_splitter_bounds), and it is last.
      if (bounds.has_end) shared().u.table.boundaries[2 * at[i] + 1] = bounds.end;
      if (at[i] == num_splitters - 1)
        shared().num_boundaries =
            static_cast<std::uint32_t>(bounds.has_end ? 2 * num_splitters : 2 * num_splitters - 1);
    }
    __syncthreads();
    const std::uint32_t num_boundaries = shared().num_boundaries;
    const K* bounds = shared().u.table.boundaries;
    K* const boundaries_out = out.boundaries;
    for (std::uint32_t i = tid; i < num_boundaries; i += threads) boundaries_out[i] = bounds[i];
    return num_boundaries;
  }

  /// The table's range, mode and coarse shift; the boundaries per coarse slot.
  __device__ __forceinline__ table_shape set_range(std::uint32_t num_boundaries) const {
    const K* bounds = shared().u.table.boundaries;
    if (tid == 0) {
      core::approx_set_range<K>(shared().lookup, bounds[0], bounds[num_boundaries - 1]);
      shared().lookup.num_boundaries = num_boundaries;
    }
    __syncthreads();
    const core::approx_lookup<K>& lookup = shared().lookup;
    const std::uint32_t coarse_used = lookup.coarse_used, forward = lookup.forward;
    const table_shape shape{num_boundaries, coarse_used, forward, coarse_used > forward, core::approx_range(lookup)};
    for (std::uint32_t i = tid; i < num_boundaries; i += threads)
      atomicAdd(&shared().in_coarse[core::approx_coarse_of(lookup, core::approx_offset(lookup, bounds[i]))], 1u);
    __syncthreads();
    return shape;
  }

  /// The reserve: a slot per forward coarse slot with boundaries, one per run
  /// without, one for the wrapped slots.
  __device__ __forceinline__ void reserve_slots(const table_shape& shape) const {
    std::uint32_t reserve_part = 0;
#pragma unroll
    for (int i = 0; i < coarse_per_thread; ++i) {
      const std::uint32_t slot = tid * coarse_per_thread + i;
      if (slot >= shape.forward) continue;
      reserve_part += shared().in_coarse[slot] > 0 || slot == 0 || shared().in_coarse[slot - 1] > 0 ? 1u : 0u;
    }
    const std::uint32_t reserve = cub::BlockReduce<std::uint32_t, threads>(shared().tmp.reduce).Sum(reserve_part);
    if (tid == 0) shared().reserve = reserve + (shape.wrapped ? 1u : 0u);
    __syncthreads();
  }

  /// The largest share scale whose fine slots fit the budget (scale 1 always does).
  __device__ __forceinline__ void choose_share_scale(const table_shape& shape) const {
    const core::approx_lookup<K>& lookup = shared().lookup;
    const std::uint32_t base_share = static_cast<std::uint32_t>(budget) - shared().reserve;
    approx_scale_totals part{};
#pragma unroll
    for (int i = 0; i < coarse_per_thread; ++i) {
      const std::uint32_t slot = tid * coarse_per_thread + i;
      if (slot >= shape.forward || shared().in_coarse[slot] == 0) continue;
#pragma unroll
      for (int k = 0; k < core::approx_share_scales; ++k) {
        const std::uint32_t bits = static_cast<std::uint32_t>(
            core::approx_fine_bits(shared().in_coarse[slot], shape.num_boundaries,
                                   core::approx_scaled_share(base_share, k), lookup.coarse_shift));
        part.v[k] +=
            core::approx_fine_used<K>(shape.range, slot, lookup.coarse_shift, lookup.coarse_shift - bits) - 1;
      }
    }
    const approx_scale_totals totals =
        cub::BlockReduce<approx_scale_totals, threads>(shared().tmp.reduce_scales).Sum(part);
    if (tid == 0) {
      int chosen = 0;
      for (int k = core::approx_share_scales - 1; k > 0 && chosen == 0; --k)
        if (shared().reserve + totals.v[k] <= static_cast<std::uint32_t>(budget)) chosen = k;
      shared().shared_slots = core::approx_scaled_share(base_share, chosen);
    }
    __syncthreads();
  }

  /// Fine slots per coarse slot, their starts (block scan), the coarse words. A
  /// run of empty forward slots shares one fine slot, and so do the wrapped ones.
  /// Returns the fine slots in use.
  __device__ __forceinline__ std::uint32_t build_coarse_words(const table_shape& shape) const {
    const core::approx_lookup<K>& lookup = shared().lookup;
    std::uint32_t fine_slots[coarse_per_thread], fine_shift[coarse_per_thread], start[coarse_per_thread];
#pragma unroll
    for (int i = 0; i < coarse_per_thread; ++i) {
      const std::uint32_t slot = tid * coarse_per_thread + i;
      fine_slots[i] = 0;
      fine_shift[i] = lookup.coarse_shift;
      if (slot >= shape.coarse_used) continue;
      if (slot >= shape.forward) {
        fine_slots[i] = slot == shape.forward ? 1u : 0u;
      } else if (shared().in_coarse[slot] == 0) {
        fine_slots[i] = slot == 0 || shared().in_coarse[slot - 1] > 0 ? 1u : 0u;
      } else {
        const auto bits = core::approx_fine_bits(shared().in_coarse[slot], shape.num_boundaries,
                                                 shared().shared_slots, lookup.coarse_shift);
        fine_shift[i] = lookup.coarse_shift - static_cast<std::uint32_t>(bits);
        fine_slots[i] = core::approx_fine_used<K>(shape.range, slot, lookup.coarse_shift, fine_shift[i]);
      }
    }
    std::uint32_t fine_used = 0;
    cub::BlockScan<std::uint32_t, threads>(shared().tmp.scan_u32).ExclusiveSum(fine_slots, start, fine_used);
#pragma unroll
    for (int i = 0; i < coarse_per_thread; ++i) {
      const std::uint32_t slot = tid * coarse_per_thread + i;
      if (slot >= shape.coarse_used) continue;
      // The later slots of a shared run use the run's slot, the one before their start.
      const bool shares = fine_slots[i] == 0 && (slot >= shape.forward || shared().in_coarse[slot] == 0);
      shared().lookup.coarse[slot] =
          core::approx_coarse_word(shares ? start[i] - 1 : start[i], fine_shift[i], slot, lookup.coarse_shift);
      shared().coarse_end[slot] = start[i] + fine_slots[i];
      if (slot == shape.forward) shared().zero_slot = start[i];  // the wrapped slots' fine slot: bucket 0
    }
    if (tid == 0) {
      shared().lookup.fine_used = fine_used;
      if (!shape.wrapped) shared().zero_slot = fine_used;  // none
    }
    for (std::uint32_t fine_slot = tid; fine_slot < fine_used; fine_slot += threads)
      shared().u.table.fine_count[fine_slot] = 0;
    __syncthreads();
    return fine_used;
  }

  /// The boundaries per fine slot.
  __device__ __forceinline__ void count_fine_boundaries(std::uint32_t num_boundaries) const {
    const core::approx_lookup<K>& lookup = shared().lookup;
    const K* bounds = shared().u.table.boundaries;
    for (std::uint32_t i = tid; i < num_boundaries; i += threads) {
      const K offset = core::approx_offset(lookup, bounds[i]);
      const std::uint32_t coarse_word = lookup.coarse[core::approx_coarse_of(lookup, offset)];
      atomicAdd(&shared().u.table.fine_count[core::approx_fine_index(coarse_word, offset)], 1u);
    }
    __syncthreads();
  }

  /// Each fine slot's word from its count and the boundaries below it (block scan).
  __device__ __forceinline__ void write_fine_words(const table_shape& shape, std::uint32_t fine_used) const {
    const core::approx_lookup<K>& lookup = shared().lookup;
    const K* bounds = shared().u.table.boundaries;
    std::uint32_t count[fines_per_thread], below[fines_per_thread];
#pragma unroll
    for (int i = 0; i < fines_per_thread; ++i) {
      const std::uint32_t fine_slot = tid * fines_per_thread + i;
      count[i] = fine_slot < fine_used ? shared().u.table.fine_count[fine_slot] : 0u;
    }
    cub::BlockScan<std::uint32_t, threads>(shared().tmp.scan_u32).ExclusiveSum(count, below);
    std::uint32_t* const fine = out.fine;
    std::uint32_t coarse_slot = 0;
#pragma unroll
    for (int i = 0; i < fines_per_thread; ++i) {
      const std::uint32_t fine_slot = tid * fines_per_thread + i;
      if (fine_slot >= fine_used) continue;
      // The coarse slot whose fine slots hold fine_slot: the first ending after
      // it. A thread's slots are consecutive: one binary search, then steps
      // forward (coarse_end never decreases; a search per slot is slower).
      if (i == 0)
        coarse_slot = static_cast<std::uint32_t>(core::partition_point(
            shape.coarse_used, [&](std::int64_t slot) { return shared().coarse_end[slot] <= fine_slot; }));
      while (coarse_slot < shape.coarse_used && shared().coarse_end[coarse_slot] <= fine_slot) ++coarse_slot;
      const K first_bound = count[i] >= 1 ? bounds[below[i]] : K(0);
      const K second_bound = count[i] >= 2 ? bounds[below[i] + 1] : K(0);
      fine[fine_slot] = core::approx_fine_word<K>(fine_slot == shared().zero_slot ? 0u : below[i], count[i],
                                                  first_bound, second_bound, lookup.coarse[coarse_slot] & 63u,
                                                  lookup.lo);
    }
  }

  /// The parameters and the coarse words in use, as 32-bit words.
  __device__ __forceinline__ void publish_lookup() const {
    static_assert(sizeof(core::approx_lookup<K>) % 4 == 0, "copied as 32-bit words");
    const auto* src = reinterpret_cast<const std::uint32_t*>(&shared().lookup);
    auto* dst = reinterpret_cast<std::uint32_t*>(out.lookup);
    for (int w = tid; w < static_cast<int>(sizeof(core::approx_lookup<K>) / 4); w += threads) dst[w] = src[w];
  }
};

template <class T>
__global__ void __launch_bounds__(approx_plan_threads<core::key_t<T>>)
    approx_plan_kernel(const core::key_t<T>* sample, core::approx_candidates cand, int budget,
                       approx_tables<T> out) {
  using agent_t = approx_plan_agent<T>;
  const agent_t agent(cand, budget, out);
  typename agent_t::K keys[agent_t::items];
  agent.load_sample(sample, keys);
  typename agent_t::window_ends window;
  if (cand.window) {
    window = agent.select_window(keys);
    agent.sort_window(window);
  } else {
    agent.sort_sample(keys);
  }
  const std::uint32_t num_boundaries = agent.choose_splitters(window);
  const typename agent_t::table_shape shape = agent.set_range(num_boundaries);
  agent.reserve_slots(shape);
  agent.choose_share_scale(shape);
  const std::uint32_t fine_used = agent.build_coarse_words(shape);
  agent.count_fine_boundaries(num_boundaries);
  agent.write_fine_words(shape, fine_used);
  agent.publish_lookup();
}

}  // namespace kselect::cuda
