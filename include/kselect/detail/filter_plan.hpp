// Host-side planning of the device filters (kselect/device_filter.cuh): their tuning
// policy, the workspace layout of each algorithm and the choice between them. Plain
// C++ (no CUDA), so the CPU test suite checks it.
//
// A value chosen by a measurement carries a tag `sweep: <binary> -> <output>` (the
// experiment binaries were not kept; outputs named h100-<date>-<commit>-* are in the
// history, `git show 6915357:bench/results/<name>`, and docs/performance.md tells
// what each showed).
#pragma once

#include <cstddef>
#include <cstdint>

#include "kselect/detail/launch_shape.hpp"
#include "kselect/detail/workspace_carver.hpp"

namespace kselect::device {

/// Which device filter algorithm runs (filter_config::algo).
///  - single_pass: reads the input once; each tile's output offset comes from its
///    predecessors by decoupled look-back. A partition runs it twice, the selected
///    keys and then the rejected ones after them.
///  - three_phase: the ballot method (bench/results, docs/algorithms.md): predicate
///    bits and per-block counts saved, a scan of the counts, then a pass that writes
///    using the saved bits (it reads again only the 32-byte sectors holding selected
///    keys, all of them for a partition).
///  - automatic: single_pass.
enum class filter_algorithm { automatic, single_pass, three_phase };

}  // namespace kselect::device

namespace kselect::detail {

using device::filter_algorithm;

/// The device filters' tuning. Their kernels are templates in the public headers,
/// compiled into the caller's build once for all its architectures, and every
/// member is compiled into them or their launches: so the policies of all
/// architectures are equal (static_assert below).
struct filter_policy {
  /// Single pass: a block takes one tile of at most single_pass_tile_bytes (and at
  /// most 32 keys a thread: 32 rounds of 32 keys per warp, a lane keeping one
  /// round's ballot) in dynamic shared memory; three such blocks fit an SM, so the
  /// launch bounds keep the kernel at 40 registers a thread.
  /// sweep: experiment binary sweep.cu (seven shapes) -> h100-2026-11-22-ef78f56-sweep.txt
  /// sweep: experiment binaries (launch bounds, block M3) -> h100-2026-11-23-8fa1c06-filter-experiments.txt
  launch_shape single_pass{512, 32, 3};
  std::int64_t single_pass_tile_bytes = 65536;
  /// Single pass: bulk copies (TMA) per tile, each with its barrier, so that a warp
  /// counts its part as soon as its copy lands.
  /// sweep: experiment binaries (1 to 16 copies) -> h100-2026-11-23-7fc0886-filter-experiments.txt
  int single_pass_chunks = 4;
  /// Single pass: a warp whose rounds of 32 keys hold a selected key in at most this
  /// many rounds visits only those rounds when it packs or writes its keys, else all
  /// of them (at low selectivity the empty rounds' instructions are the cost; larger
  /// values made the dense loop compile slower).
  /// sweep: experiment binaries (thresholds, write loops) -> h100-2026-11-23-d95142a-filter-experiments.txt
  int single_pass_sparse_rounds = 4;
  /// Single pass: how long a tile waits (ns) after publishing its count before it
  /// looks back at its predecessors, then none between retries (lookback_delay,
  /// filter_kernels.cuh).
  /// sweep: experiment binaries delay.cu (five look-back policies) -> h100-2026-11-22-3a078e6-delay.txt
  unsigned single_pass_lookback_wait_ns = 1130;
  /// Three phases and count_if: 16 keys a thread (loaded 16 bytes at a time when the
  /// input is 16-byte aligned), one predicate bit saved per key. Also the block of
  /// the single pass's init kernel.
  launch_shape three_phase{256, 16};

  constexpr bool operator==(const filter_policy&) const = default;
};

/// Hopper (compute capability 9.x): the initializers above, measured there.
inline constexpr filter_policy filter_hopper{};
/// Other architectures: Hopper's values, untested elsewhere.
inline constexpr filter_policy filter_generic{};

/// The policy of a device of compute capability `compute_capability` (10 * major + minor).
constexpr const filter_policy& filter_policy_for(int compute_capability) {
  return compute_capability / 10 == 9 ? filter_hopper : filter_generic;
}

// The kernels are compiled once for all the architectures of the caller's build.
static_assert(filter_hopper == filter_generic, "the filter kernels are compiled with one policy");

/// The policy the kernels and their launches are compiled with (any architecture's).
inline constexpr const filter_policy& filter_compiled = filter_hopper;

// Staging (not a setting): with keys alone (no positions, payload or partition), or
// positions alone (keys of 4 bytes or more), the single pass's warps pack their
// selected keys (positions) to the front of their part of the tile in shared memory
// while warp 0 looks back, then store them in whole lines of the output; keys with
// positions, and payloads, have no room there and write after the look-back.
// sweep: experiment binaries (staging) -> h100-2026-11-23-b21d41f-filter-experiments.txt

// The compiled members under the names the kernels use.
inline constexpr int filter_block_threads = filter_compiled.three_phase.threads;
inline constexpr int filter_warps = filter_block_threads / 32;
inline constexpr int single_pass_threads = filter_compiled.single_pass.threads;
inline constexpr std::int64_t single_pass_tile_bytes = filter_compiled.single_pass_tile_bytes;
inline constexpr int single_pass_chunks = filter_compiled.single_pass_chunks;
inline constexpr int single_pass_min_blocks = filter_compiled.single_pass.min_blocks_per_sm;
inline constexpr int single_pass_sparse_rounds = filter_compiled.single_pass_sparse_rounds;
inline constexpr unsigned single_pass_lookback_wait_ns = filter_compiled.single_pass_lookback_wait_ns;

/// Keys per single-pass tile: single_pass_tile_bytes of them, at most
/// items_per_thread a thread (16384 4-byte keys for 512 threads).
constexpr std::int64_t single_pass_tile_items(std::size_t key_bytes) {
  const std::int64_t by_bytes = single_pass_tile_bytes / static_cast<std::int64_t>(key_bytes);
  constexpr std::int64_t by_rounds = filter_compiled.single_pass.tile_items();
  return by_bytes < by_rounds ? by_bytes : by_rounds;
}

/// Three phases: keys per block, and per warp (a warp's keys are contiguous).
inline constexpr std::int64_t three_phase_block_items = filter_compiled.three_phase.tile_items();
inline constexpr std::int64_t three_phase_warp_items = three_phase_block_items / filter_warps;
/// 32-bit predicate words per block and per warp.
inline constexpr std::int64_t three_phase_block_words = three_phase_block_items / 32;
inline constexpr std::int64_t three_phase_warp_words = three_phase_warp_items / 32;

constexpr std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

/// The algorithm that runs for a request (automatic resolved): the single pass, for
/// filters (faster at every selectivity measured) and for partitions (two of them).
/// sweep: kselect-filter-bench -> bench/results/h100-filter.txt (filters),
/// h200-filter.txt (partitions)
constexpr filter_algorithm choose_filter_algorithm(filter_algorithm asked) {
  return asked == filter_algorithm::automatic ? filter_algorithm::single_pass : asked;
}

/// Workspace of the single pass: the look-back tile states (their size comes from
/// cub::ScanTileState::AllocationSize, which the caller passes), and for a partition
/// the count its second pass writes (the rejected keys).
struct single_pass_layout {
  std::int64_t tiles = 0;
  std::size_t tile_state = 0, tile_state_bytes = 0;
  std::size_t rejected_count = 0;
  std::size_t bytes = 0;
};

constexpr single_pass_layout plan_single_pass(std::int64_t n, std::size_t key_bytes,
                                              std::size_t tile_state_bytes, bool partition = false) {
  single_pass_layout l;
  l.tiles = ceil_div(n, single_pass_tile_items(key_bytes));
  kselect::detail::workspace_carver c;
  l.tile_state = c.take(tile_state_bytes);
  l.tile_state_bytes = tile_state_bytes;
  if (partition) l.rejected_count = c.take(sizeof(std::int64_t));
  l.bytes = c.end;
  return l;
}

/// Workspace of the three phases: the predicate bits (one 32-bit word per 32 keys,
/// whole blocks), the per-block counts with one extra zero at the end, their
/// exclusive scan (whose last entry is the total) and the scan's temporary storage
/// (its size from cub::DeviceScan, passed by the caller).
struct three_phase_layout {
  std::int64_t blocks = 0;
  std::size_t bits = 0, bits_bytes = 0;
  std::size_t counts = 0, offsets = 0, counts_bytes = 0;
  std::size_t scan_temp = 0, scan_temp_bytes = 0;
  std::size_t bytes = 0;
};

constexpr three_phase_layout plan_three_phase(std::int64_t n, std::size_t scan_temp_bytes) {
  three_phase_layout l;
  l.blocks = ceil_div(n, three_phase_block_items);
  kselect::detail::workspace_carver c;
  l.bits_bytes = static_cast<std::size_t>(l.blocks * three_phase_block_words) * sizeof(std::uint32_t);
  l.bits = c.take(l.bits_bytes);
  l.counts_bytes = static_cast<std::size_t>(l.blocks + 1) * sizeof(std::int64_t);
  l.counts = c.take(l.counts_bytes);
  l.offsets = c.take(l.counts_bytes);
  l.scan_temp_bytes = scan_temp_bytes;
  l.scan_temp = c.take(scan_temp_bytes);
  l.bytes = c.end;
  return l;
}

/// Blocks of count_if (each counts three_phase_block_items keys), and its workspace:
/// none is needed, but CUB's protocol reads a null workspace as a size query, so a
/// size of 0 would make the second call a query again; it asks for one region.
inline constexpr std::size_t count_if_workspace_bytes = workspace_alignment;

}  // namespace kselect::detail
