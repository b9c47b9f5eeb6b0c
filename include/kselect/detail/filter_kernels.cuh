// The kernels of the device filters (kselect/device_filter.cuh). Header-only because
// the predicate is the caller's device functor. Shapes and workspace layout:
// kselect/detail/filter_plan.hpp. Both algorithms order a tile's selected keys the
// same way: per warp, 32 consecutive keys at a time, one __ballot_sync each (the
// ballot compaction paper's warp step), the rank of a key among the selected ones
// being the popcounts before it.
#pragma once

#include <cub/block/block_reduce.cuh>
#include <cub/agent/single_pass_scan_operators.cuh>
#include <cub/block/block_load.cuh>
#include <cub/util_ptx.cuh>
#include <cub/warp/warp_scan.cuh>
#include <cuda/ptx>
#include <cuda/std/functional>
#include <nv/target>

#include <cstdint>

#include "kselect/detail/filter_plan.hpp"

namespace kselect::detail {

/// Where a filter writes. keys may be null (indices only); values_in/values_out
/// (a payload gathered with the keys) and indices are null when not wanted.
template <class T, class V, class IndexT>
struct filter_outputs {
  T* keys = nullptr;
  const V* values_in = nullptr;
  V* values_out = nullptr;
  IndexT* indices = nullptr;
  std::int64_t* num_selected = nullptr;
  bool partition = false;  ///< also write the rejected keys after the selected ones
  /// Single pass: output positions start at *output_offset (device memory) when given
  /// (a partition's second pass, after the selected keys the first one counted).
  const std::int64_t* output_offset = nullptr;
};

/// Writes input element i (key k) to output position pos.
template <class T, class V, class IndexT>
__device__ __forceinline__ void filter_emit(const filter_outputs<T, V, IndexT>& out, std::int64_t pos,
                                            std::int64_t i, T k) {
  if (out.keys) out.keys[pos] = k;
  if (out.indices) out.indices[pos] = static_cast<IndexT>(i);
  if (out.values_out) out.values_out[pos] = out.values_in[i];
}

/// Selection by a predicate on the key.
template <class Pred>
struct predicate_selector {
  Pred pred;
  template <class T>
  __device__ __forceinline__ bool operator()(T key, std::int64_t) const {
    return static_cast<bool>(pred(key));
  }
};

/// Selection by a flag array: element i is selected when flags[i] converts to true.
template <class Flag>
struct flag_selector {
  const Flag* flags;
  template <class T>
  __device__ __forceinline__ bool operator()(T, std::int64_t i) const {
    return static_cast<bool>(flags[i]);
  }
};

/// The complement of a selection: a partition's second pass takes what the first
/// left.
template <class Selector>
struct negated_selector {
  Selector selected;
  template <class T>
  __device__ __forceinline__ bool operator()(T key, std::int64_t i) const {
    return !selected(key, i);
  }
};

// ---------------------------------------------------------------------------------
// Single pass
// ---------------------------------------------------------------------------------

// The look-back uses CUB's ScanTileState and TilePrefixCallbackOp (cub/agent/, an
// internal interface: tested with CCCL 3.0). The callback must run in warp 0: it
// publishes from threadIdx.x == 0.
using filter_tile_state = cub::ScanTileState<long long>;

/// The single pass's look-back delay, in the form TilePrefixCallbackOp takes as
/// its delay constructor (CUB documents that parameter as an implementation
/// detail; this meets what CCCL 3.0 asks of it: constructed with a seed when the
/// look-back starts, then called for the delay of each poll). A tile waits
/// WaitNs after publishing its count (on small grids a block-scope fence only),
/// then polls its predecessors without pause (Volta on: before, a fence per poll).
template <unsigned WaitNs>
struct lookback_delay {
  struct poll_delay {
    __device__ __forceinline__ void operator()() const {
      NV_IF_TARGET(NV_PROVIDES_SM_70, (), (__threadfence_block();));
    }
  };

  __device__ __forceinline__ explicit lookback_delay(unsigned /* seed */) {
    NV_IF_TARGET(NV_PROVIDES_SM_70, (
      if (WaitNs > 0) {
        if (gridDim.x < 500) __threadfence_block();
        else __nanosleep(WaitNs);
      }));
  }

  __device__ __forceinline__ poll_delay operator()() const { return {}; }
};

/// Resets the look-back states of `tiles` tiles (a template only so that the header
/// can be included by several translation units).
template <class TileState = filter_tile_state>
__global__ void single_pass_init_kernel(TileState state, int tiles) {
  state.InitializeStatus(tiles);
}

/// The single pass's write of a warp whose selected keys sit in few of its rounds
/// (busy_rounds: bit r set when round r holds one): only those rounds are visited,
/// and the keys are gathered in lane order (lane j holds pending key j) and stored
/// 32 consecutive ones at a time. Positions and payloads are stored per key.
template <class T, class V, class IndexT>
__device__ __forceinline__ void write_sparse_rounds(const filter_outputs<T, V, IndexT>& out, const T* keys,
                                                 std::int64_t base, int warp_base, std::int64_t warp_out,
                                                 unsigned busy_rounds, unsigned my_mask, int round_offset, int lane) {
  const unsigned lanes_below = (1u << lane) - 1u;
  T pending_key{};
  int pending = 0;                     // keys gathered (all lanes agree)
  std::int64_t pending_at = warp_out;  // the output position of pending key 0
  for (unsigned busy = busy_rounds; busy != 0; busy &= busy - 1) {
    const int round = __ffs(busy) - 1;
    const unsigned round_mask = __shfl_sync(0xffffffffu, my_mask, round);
    const int before_round = __shfl_sync(0xffffffffu, round_offset, round);
    const int item = warp_base + round * 32 + lane;
    const bool selected = round_mask >> lane & 1u;
    const T key = selected ? keys[item] : T{};
    if (selected) {
      const std::int64_t at = warp_out + before_round + __popc(round_mask & lanes_below);
      if (out.indices) out.indices[at] = static_cast<IndexT>(base + item);
      if (out.values_out) out.values_out[at] = out.values_in[base + item];
    }
    if (out.keys) {
      for (unsigned left = round_mask; left != 0; left &= left - 1) {
        const T next = cub::ShuffleIndex<32>(key, __ffs(left) - 1, 0xffffffffu);
        if (lane == pending) pending_key = next;
        if (++pending == 32) {
          out.keys[pending_at + lane] = pending_key;
          pending_at += 32;
          pending = 0;
        }
      }
    }
  }
  if (out.keys && lane < pending) out.keys[pending_at + lane] = pending_key;
}

/// Packs a warp's selected items to the front of its part of the tile (slots
/// [warp_base, ...)), in order: round r's (my_mask of lane r: the round's ballot) go
/// after those of the rounds before. Item i of the tile is item_of(i): its key (in
/// place over the keys: a key moves only to a lower slot, and below the slots of the
/// rounds after its own; the __syncwarp orders a round's loads before its stores) or
/// its position. Warps with at most SparseRounds busy rounds visit only those; the
/// others walk every round, unrolled.
template <int Rounds, int SparseRounds, class Slot, class ScanStorage, class ItemOf>
__device__ __forceinline__ void pack_warp(Slot* slots, int warp_base, unsigned my_mask, int lane,
                                          ScanStorage& scan_storage, ItemOf item_of) {
  int round_offset;
  cub::WarpScan<int>(scan_storage).ExclusiveSum(__popc(my_mask), round_offset);
  const unsigned busy_rounds = __ballot_sync(0xffffffffu, my_mask != 0);
  const unsigned lanes_below = (1u << lane) - 1u;
  const auto pack_round = [&](int r) {
    const unsigned round_mask = __shfl_sync(0xffffffffu, my_mask, r);
    const int r_offset = __shfl_sync(0xffffffffu, round_offset, r);
    const Slot item = item_of(warp_base + r * 32 + lane);
    __syncwarp();
    if (round_mask >> lane & 1u) slots[warp_base + r_offset + __popc(round_mask & lanes_below)] = item;
  };
  if (__popc(busy_rounds) <= SparseRounds) {
    for (unsigned busy = busy_rounds; busy != 0; busy &= busy - 1) pack_round(__ffs(busy) - 1);
  } else {
    // Idle rounds are walked too: skipping them made the kernel spill at 40 registers.
#pragma unroll 4
    for (int r = 0; r < Rounds; ++r) pack_round(r);
  }
}

/// Stores a warp's count packed items (slots [warp_base, ...)) to dst[warp_out, ...),
/// as convert(item). Lane l stores output position (warp_out & ~31) + l + 32 q, so
/// that each store fills whole lines of the output: stores that straddle two lines
/// made 99% selectivity 10-11% slower (filter_plan.hpp).
template <class Out, class Slot, class Convert>
__device__ __forceinline__ void store_packed(Out* dst, std::int64_t warp_out, const Slot* slots, int warp_base,
                                             int count, int lane, Convert convert) {
  const int skew = static_cast<int>(warp_out & 31);
#pragma unroll 4
  for (int j = lane - skew; j < count; j += 32)
    if (j >= 0) dst[warp_out + j] = convert(slots[warp_base + j]);
}

/// The single pass's steps for one tile (tile blockIdx.x), each run by the whole
/// block: load the tile, count its selected keys (a ballot per round of 32 keys),
/// the warps' offsets and the tile's (look-back), then write. Like CUB's
/// single-pass scans, this relies on blocks being dispatched in index order, so
/// that a tile's predecessors have all started and the look-back never waits on a
/// block that is not resident. Safe in place (out.keys == in): a tile writes
/// global memory only below its own end, and only after every predecessor has
/// published its count, which each does after its tile is in shared memory. A
/// partition is two passes (filter_dispatch.cuh): the selected keys, then the
/// rejected ones from the first pass's count on (out.output_offset).
///
/// The members are fixed at construction; what a step computes for a later one is
/// returned and passed on. A step that stores in a loop reads the members it uses
/// into locals first: the compiler cannot tell that the stores leave the agent
/// unchanged, and would read them again after each store (and, so, compile the
/// loop otherwise than in the kernel's body, with more registers).
template <class T, class V, class IndexT, class Selector, int Threads, int TileItems, int Chunks,
          class LookBackDelay, int SparseRounds>
struct single_pass_agent {
  static constexpr int tile_items = TileItems;
  static constexpr int warps = Threads / 32;
  static constexpr int warp_items = tile_items / warps;
  static constexpr int rounds = warp_items / 32;
  static_assert(warp_items % 32 == 0 && rounds >= 1 && rounds <= 32, "a lane keeps the ballot of one round");
  static_assert(Chunks >= 1 && warps % Chunks == 0, "a chunk is the part of one or more whole warps");
  static constexpr int chunk_items = tile_items / Chunks;
  static constexpr int warps_per_chunk = warps / Chunks;
  using prefix_op = cub::TilePrefixCallbackOp<long long, ::cuda::std::plus<>, filter_tile_state, LookBackDelay>;
  using warp_scan = cub::WarpScan<int>;

  /// The block's static shared memory (the tile is dynamic shared memory).
  struct storage {
    typename prefix_op::TempStorage prefix;
    typename warp_scan::TempStorage scan[warps];
    int warp_count[warps];         ///< the warps' selected keys, then their offsets in the tile
    long long tile_prefix;         ///< selected keys before the tile
    std::uint64_t loaded[Chunks];  ///< one mbarrier per chunk: its bulk copy has landed
  };

  /// A warp's count of its selected keys.
  struct warp_ballots {
    unsigned my_mask;  ///< lane r: round r's ballot
    int count;         ///< the warp's selected keys
  };

  const T* const in;
  const std::int64_t n;
  const filter_outputs<T, V, IndexT> out;
  mutable filter_tile_state state;  ///< (the look-back's callback takes it by reference)
  const int tiles;
  const int warp, lane;
  const int tile_index;
  const std::int64_t base;  ///< the tile's first input position
  const int items;          ///< the tile's keys
  const int warp_base;      ///< the warp's first key in the tile

  __device__ __forceinline__ single_pass_agent(const T* input, std::int64_t size,
                                               const filter_outputs<T, V, IndexT>& outputs,
                                               const filter_tile_state& tile_state, int num_tiles)
      : in(input), n(size), out(outputs), state(tile_state), tiles(num_tiles), warp(threadIdx.x / 32),
        lane(threadIdx.x % 32), tile_index(static_cast<int>(blockIdx.x)),
        base(static_cast<std::int64_t>(tile_index) * tile_items),
        items(static_cast<int>(n - base < tile_items ? n - base : tile_items)), warp_base(warp * warp_items) {}

  // The block's shared memory is reached as block-wide variables, not through
  // pointers the agent holds: the compiler then knows that a load from it may be
  // issued early (as it does when the code is written in the kernel's body);
  // through a pointer it branches around such loads instead.
  __device__ __forceinline__ static storage& shared() {
    __shared__ storage block_storage;
    return block_storage;
  }
  /// The tile (dynamic shared memory).
  __device__ __forceinline__ static T* keys() {
    extern __shared__ __align__(128) unsigned char tile_storage[];
    return reinterpret_cast<T*>(tile_storage);
  }

  /// Loads the tile to shared memory: when the input is 16-byte aligned (bulk),
  /// whole 16-byte units by Chunks bulk copies (TMA), each with its own barrier,
  /// so that a warp counts its part of the tile as soon as that part is in, while
  /// the rest is still arriving; the threads load the rest (the last tile's tail;
  /// every key when not aligned), then sync.
  __device__ __forceinline__ void load_tile(bool bulk) const {
    int bulk_items = 0;
    NV_IF_TARGET(NV_PROVIDES_SM_90, (
      if (bulk) bulk_items = ((items * static_cast<int>(sizeof(T))) & ~15) / static_cast<int>(sizeof(T));
      if (threadIdx.x == 0) {
        for (int c = 0; c < Chunks; ++c) ::cuda::ptx::mbarrier_init(&shared().loaded[c], 1);
        ::cuda::ptx::fence_mbarrier_init(::cuda::ptx::sem_release, ::cuda::ptx::scope_cluster);
        for (int c = 0; c < Chunks; ++c) {
          const int first = c * chunk_items;
          const int last = bulk_items < first + chunk_items ? bulk_items : first + chunk_items;
          const auto bytes = static_cast<std::uint32_t>(last > first ? (last - first) * sizeof(T) : 0);
          ::cuda::ptx::mbarrier_arrive_expect_tx(::cuda::ptx::sem_release, ::cuda::ptx::scope_cta,
                                                 ::cuda::ptx::space_shared, &shared().loaded[c], bytes);
          if (bytes > 0)
            ::cuda::ptx::cp_async_bulk(::cuda::ptx::space_cluster, ::cuda::ptx::space_global, keys() + first,
                                       in + base + first, bytes, &shared().loaded[c]);
        }
      }));
    if (bulk_items < items) {
      const T* const input = in;
      const std::int64_t first = base;
      T* const tile = keys();
      for (int i = bulk_items + threadIdx.x; i < items; i += blockDim.x) tile[i] = input[first + i];
    }
    __syncthreads();  // the barriers are initialised; the threads' keys are in
    NV_IF_TARGET(NV_PROVIDES_SM_90, (
      while (!::cuda::ptx::mbarrier_try_wait_parity(&shared().loaded[warp / warps_per_chunk], 0u)) {
      }));
  }

  /// Counts the warp's selected keys: lane r keeps round r's ballot.
  __device__ __forceinline__ warp_ballots count_selected(const Selector& select) const {
    unsigned my_mask = 0;
    int count = 0;
#pragma unroll
    for (int r = 0; r < rounds; ++r) {
      const int item = warp_base + r * 32 + lane;
      const bool selected = item < items && select(keys()[item], base + item);
      const unsigned round_mask = __ballot_sync(0xffffffffu, selected);
      if (lane == r) my_mask = round_mask;
      count += __popc(round_mask);
    }
    if (lane == 0) shared().warp_count[warp] = count;
    __syncthreads();
    return {my_mask, count};
  }

  /// Warp 0: the warps' offsets in the tile (warp_count, in place), and its total.
  __device__ __forceinline__ int scan_warp_counts() const {
    const int warp_total = lane < warps ? shared().warp_count[lane] : 0;
    int offset, total;
    warp_scan(shared().scan[0]).ExclusiveSum(warp_total, offset, total);
    if (lane < warps) shared().warp_count[lane] = offset;
    return total;
  }

  /// Warp 0: the tile's offset by look-back (tile 0 publishes its total as inclusive).
  __device__ __forceinline__ void look_back(int tile_total) const {
    long long prefix = 0;
    if (tile_index == 0) {
      if (lane == 0) state.SetInclusive(0, tile_total);
    } else {
      prefix_op op(state, shared().prefix, ::cuda::std::plus<>{}, tile_index);
      prefix = op(tile_total);
    }
    if (lane == 0) {
      shared().tile_prefix = prefix + (out.output_offset ? *out.output_offset : 0);
      if (tile_index == tiles - 1) *out.num_selected = prefix + tile_total;
    }
  }

  /// Staged write of keys alone (stage_keys), or positions alone: each warp packs
  /// them in shared memory while warp 0 looks back (warp 0 publishes its count and
  /// packs its own first), so that after the look-back a warp stores them in one
  /// coalesced run.
  __device__ __forceinline__ void write_staged(bool stage_keys, warp_ballots ballots) const {
    int tile_total = 0;
    if (warp == 0) {
      tile_total = scan_warp_counts();
      if (lane == 0 && tile_index != 0) state.SetPartial(tile_index, tile_total);  // the look-back publishes it again
    }
    auto* const positions = reinterpret_cast<std::uint32_t*>(keys());  // the keys are counted: free
    if (stage_keys)
      pack_warp<rounds, SparseRounds>(keys(), warp_base, ballots.my_mask, lane, shared().scan[warp],
                                      [&](int item) { return keys()[item]; });
    else
      pack_warp<rounds, SparseRounds>(positions, warp_base, ballots.my_mask, lane, shared().scan[warp],
                                      [](int item) { return static_cast<std::uint32_t>(item); });
    if (warp == 0) look_back(tile_total);
    __syncthreads();
    const std::int64_t warp_out = shared().tile_prefix + shared().warp_count[warp];
    if (stage_keys)
      store_packed(out.keys, warp_out, keys(), warp_base, ballots.count, lane, [](T key) { return key; });
    else
      store_packed(out.indices, warp_out, positions, warp_base, ballots.count, lane,
                   [base = base](std::uint32_t item) { return static_cast<IndexT>(base + item); });
  }

  /// Unstaged write, from the tile after the look-back: round r's selected keys go
  /// after those of the rounds before. A warp with at most SparseRounds busy rounds
  /// (lane r knows whether round r is; a warp-uniform choice) visits only those
  /// (write_sparse_rounds); the others walk every round (write_rounds). Shapes and
  /// measurements: filter_plan.hpp.
  __device__ __forceinline__ void write_unstaged(unsigned my_mask) const {
    if (warp == 0) look_back(scan_warp_counts());
    __syncthreads();
    const std::int64_t warp_out = shared().tile_prefix + shared().warp_count[warp];
    int round_offset;
    warp_scan(shared().scan[warp]).ExclusiveSum(__popc(my_mask), round_offset);
    const unsigned busy_rounds = __ballot_sync(0xffffffffu, my_mask != 0);
    if (__popc(busy_rounds) <= SparseRounds)
      write_sparse_rounds(out, keys(), base, warp_base, warp_out, busy_rounds, my_mask, round_offset, lane);
    else
      write_rounds(my_mask, warp_out, round_offset);
  }

  /// The unstaged write of every round, unrolled.
  __device__ __forceinline__ void write_rounds(unsigned my_mask, std::int64_t warp_out, int round_offset) const {
    const filter_outputs<T, V, IndexT> outputs = out;
    const std::int64_t first = base;
    const int warp_first = warp_base, my_lane = lane;
    const T* const tile = keys();
    const unsigned lanes_below = (1u << my_lane) - 1u;
#pragma unroll 4
    for (int r = 0; r < rounds; ++r) {
      const unsigned round_mask = __shfl_sync(0xffffffffu, my_mask, r);
      const int before_round = __shfl_sync(0xffffffffu, round_offset, r);
      const int item = warp_first + r * 32 + my_lane;
      const std::int64_t selected_before = warp_out + before_round + __popc(round_mask & lanes_below);
      if (round_mask >> my_lane & 1u) filter_emit(outputs, selected_before, first + item, tile[item]);
    }
  }
};

/// One tile per block, tile blockIdx.x (single_pass_agent). The tile comes to
/// dynamic shared memory of TileItems * sizeof(T) bytes. Threads, TileItems and
/// Chunks: the block, tile and copy shape (defaults: filter_plan.hpp).
template <class T, class V, class IndexT, class Selector, int Threads = single_pass_threads,
          int TileItems = static_cast<int>(single_pass_tile_items(sizeof(T))), int Chunks = single_pass_chunks,
          class LookBackDelay = lookback_delay<single_pass_lookback_wait_ns>,
          int MinBlocks = single_pass_min_blocks, int SparseRounds = single_pass_sparse_rounds>
__global__ void __launch_bounds__(Threads, MinBlocks)
    single_pass_kernel(const T* in, std::int64_t n, Selector select, filter_outputs<T, V, IndexT> out,
                       filter_tile_state state, int tiles, bool bulk) {
  using agent_t =
      single_pass_agent<T, V, IndexT, Selector, Threads, TileItems, Chunks, LookBackDelay, SparseRounds>;
  const agent_t agent(in, n, out, state, tiles);
  agent.load_tile(bulk);
  const typename agent_t::warp_ballots ballots = agent.count_selected(select);
  // Keys alone, or positions alone (keys of 4 bytes or more, so that a position
  // fits a key's slot), are staged. Payloads, and keys with positions, have no
  // room in shared memory: they are written from the tile after the look-back.
  // (The staged path is apart from that write: sharing it kept more registers live
  // across the pack and spilled.)
  const bool plain = !out.values_out;
  const bool stage_keys = plain && out.keys && !out.indices;
  const bool stage_positions = plain && !out.keys && out.indices && sizeof(T) >= sizeof(std::uint32_t);
  if (stage_keys || stage_positions) agent.write_staged(stage_keys, ballots);
  else agent.write_unstaged(ballots.my_mask);
}

// ---------------------------------------------------------------------------------
// Three phases
// ---------------------------------------------------------------------------------

/// VEC keys loaded as one 16-byte unit (VEC == 1: one key).
template <class T, int VEC>
struct alignas(sizeof(T) * VEC) key_vector {
  T k[VEC];
};

/// A warp's keys as VEC-wide vectors, warp-striped: lane l's vector q holds keys
/// first + (q * 32 + l) * VEC + c, c < VEC. Keys past n are loaded as `fill`.
template <class T, int VEC, int CHUNKS>
__device__ __forceinline__ void load_warp_keys(const T* in, std::int64_t first, std::int64_t n, int lane, T fill,
                                               key_vector<T, VEC> (&v)[CHUNKS]) {
  if (first + CHUNKS * 32 * VEC <= n) {
    cub::LoadDirectWarpStriped(lane, reinterpret_cast<const key_vector<T, VEC>*>(in + first), v);
  } else {
#pragma unroll
    for (int q = 0; q < CHUNKS; ++q)
#pragma unroll
      for (int c = 0; c < VEC; ++c) {
        const std::int64_t i = first + (q * 32 + lane) * VEC + c;
        v[q].k[c] = i < n ? in[i] : fill;
      }
  }
}

/// Phase 1: the predicate words of each warp's keys and each block's count. Word
/// q * VEC + c of a warp is the ballot of its lanes' key c of vector q. With
/// bits == null (count_if), the block's count is added to *total instead.
template <class T, int VEC, class Selector>
__global__ void __launch_bounds__(filter_block_threads)
    three_phase_count_kernel(const T* in, std::int64_t n, Selector select, std::uint32_t* bits,
                             std::int64_t* block_counts, std::int64_t blocks, unsigned long long* total) {
  constexpr int chunks = static_cast<int>(three_phase_warp_items / (32 * VEC));
  using block_reduce = cub::BlockReduce<int, filter_block_threads>;
  __shared__ typename block_reduce::TempStorage reduce_storage;

  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const std::int64_t first = static_cast<std::int64_t>(blockIdx.x) * three_phase_block_items +
                             static_cast<std::int64_t>(warp) * three_phase_warp_items;
  key_vector<T, VEC> v[chunks];
  load_warp_keys<T, VEC, chunks>(in, first, n, lane, T{}, v);
  unsigned my_word = 0;
  int count = 0;
#pragma unroll
  for (int q = 0; q < chunks; ++q)
#pragma unroll
    for (int c = 0; c < VEC; ++c) {
      const std::int64_t i = first + (q * 32 + lane) * VEC + c;
      const unsigned m = __ballot_sync(0xffffffffu, i < n && select(v[q].k[c], i));
      if (lane == q * VEC + c) my_word = m;
      count += __popc(m);
    }
  if (bits && lane < three_phase_warp_words)
    bits[(static_cast<std::int64_t>(blockIdx.x) * filter_warps + warp) * three_phase_warp_words + lane] = my_word;
  const int block_count = block_reduce(reduce_storage).Sum(lane == 0 ? count : 0);
  if (threadIdx.x == 0) {
    if (bits) {
      block_counts[blockIdx.x] = block_count;
      if (blockIdx.x == 0) block_counts[blocks] = 0;
    } else if (block_count) {
      atomicAdd(total, static_cast<unsigned long long>(block_count));
    }
  }
}

/// Phase 3: each block writes its selected keys from offsets[block] on, in order,
/// using the saved words; a lane loads its vector only when one of its keys is
/// selected (every vector for a partition, whose rejected keys go after all the
/// selected ones: to total + i - (selected keys before i)). offsets[blocks] is the total.
template <class T, class V, class IndexT, int VEC>
__global__ void __launch_bounds__(filter_block_threads)
    three_phase_write_kernel(const T* in, std::int64_t n, const std::uint32_t* bits, const std::int64_t* offsets,
                             std::int64_t blocks, filter_outputs<T, V, IndexT> out) {
  constexpr int chunks = static_cast<int>(three_phase_warp_items / (32 * VEC));
  using warp_scan = cub::WarpScan<int>;
  __shared__ typename warp_scan::TempStorage scan_storage[filter_warps];
  __shared__ int warp_offset[filter_warps];

  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const std::int64_t first = static_cast<std::int64_t>(blockIdx.x) * three_phase_block_items +
                             static_cast<std::int64_t>(warp) * three_phase_warp_items;
  const unsigned my_word =
      lane < three_phase_warp_words
          ? bits[(static_cast<std::int64_t>(blockIdx.x) * filter_warps + warp) * three_phase_warp_words + lane]
          : 0u;
  int word_offset, warp_total;
  warp_scan(scan_storage[warp]).ExclusiveSum(__popc(my_word), word_offset, warp_total);
  if (lane == 0) warp_offset[warp] = warp_total;
  __syncthreads();
  if (warp == 0) {
    int c = lane < filter_warps ? warp_offset[lane] : 0, offset;
    warp_scan(scan_storage[0]).ExclusiveSum(c, offset);
    __syncwarp();
    if (lane < filter_warps) warp_offset[lane] = offset;
  }
  __syncthreads();
  const std::int64_t total = offsets[blocks];
  if (blockIdx.x == 0 && threadIdx.x == 0) *out.num_selected = total;
  const std::int64_t warp_out = offsets[blockIdx.x] + warp_offset[warp];
  const unsigned lanes_below = (1u << lane) - 1u;

#pragma unroll
  for (int q = 0; q < chunks; ++q) {
    unsigned m[VEC];
    int before = 0;  // selected keys of the lanes below in this vector row
    bool any = false;
#pragma unroll
    for (int c = 0; c < VEC; ++c) {
      m[c] = __shfl_sync(0xffffffffu, my_word, q * VEC + c);
      before += __popc(m[c] & lanes_below);
      any |= (m[c] >> lane & 1u) != 0;
    }
    const int row_offset = __shfl_sync(0xffffffffu, word_offset, q * VEC);
    if (!(any || out.partition)) continue;
    const std::int64_t at = first + (q * 32 + lane) * VEC;
    key_vector<T, VEC> v;
    if (at + VEC <= n) {
      v = reinterpret_cast<const key_vector<T, VEC>*>(in + first)[q * 32 + lane];
    } else {
#pragma unroll
      for (int c = 0; c < VEC; ++c) v.k[c] = at + c < n ? in[at + c] : T{};
    }
    std::int64_t rank = warp_out + row_offset + before;  // selected keys before key c
#pragma unroll
    for (int c = 0; c < VEC; ++c) {
      const std::int64_t i = at + c;
      if (m[c] >> lane & 1u) {
        filter_emit(out, rank, i, v.k[c]);
        ++rank;
      } else if (out.partition && i < n) {
        filter_emit(out, total + (i - rank), i, v.k[c]);
      }
    }
  }
}

}  // namespace kselect::detail
