// Host-side planning of the device filters (kselect/device_filter.cuh): the tile
// shapes, the workspace layout of each algorithm and the choice between them. Plain
// C++ (no CUDA), so the CPU test suite checks it.
//
// Tuning (H100, 2026-11-22 and -23 measurements in bench/results, issue 4):
//  - single pass: one 64 KiB tile (16384 keys at most) per block of 512 threads,
//    copied into shared memory by four bulk copies (TMA) issued at once, so a block
//    has its whole tile in flight, and its warps count each quarter as it lands;
//    three such blocks fit an SM. Per warp, the tile's 1/16 is walked 32 keys at a
//    time (4-byte keys: 32 rounds, one ballot each).
//  - three phases: 4096 keys per block of 256 threads (16 per thread, loaded 16 bytes
//    at a time when the input is 16-byte aligned), one predicate bit saved per key.
#pragma once

#include <cstddef>
#include <cstdint>

#include "kselect/detail/workspace_carver.hpp"

namespace kselect::device {

/// Which device filter algorithm runs (filter_config::algo).
///  - single_pass: reads the input once; each tile's output offset comes from its
///    predecessors by decoupled look-back. A partition writes its rejected part
///    backwards from the end, then reverses it (one more read and write of it).
///  - three_phase: the ballot method (bench/results, docs/algorithms.md): predicate
///    bits and per-block counts saved, a scan of the counts, then a pass that writes
///    using the saved bits (it reads again only the 32-byte sectors holding selected
///    keys, all of them for a partition).
///  - automatic: single_pass for filters, three_phase for partitions.
enum class filter_algorithm { automatic, single_pass, three_phase };

}  // namespace kselect::device

namespace kselect::detail {

using device::filter_algorithm;

inline constexpr int filter_block_threads = 256;
inline constexpr int filter_warps = filter_block_threads / 32;

/// Single pass: threads of a block, and bytes of its tile (dynamic shared memory).
/// 512 threads and 64 KiB (3 blocks per SM) measured fastest of seven shapes on the
/// H100 from 0% to 50% selectivity (bench/results/h100-2026-11-22-ef78f56-sweep.txt:
/// 1% 0.467 ms against 0.503 for 256 threads and 32 KiB; 50% 0.648 against 0.658).
inline constexpr int single_pass_threads = 512;
inline constexpr std::int64_t single_pass_tile_bytes = 65536;
/// Single pass: bulk copies per tile, each with its barrier; a warp counts its part as
/// soon as its copy is in. 4 measured fastest of 1, 2, 4, 8 and 16 on the H100
/// (bench/results/h100-2026-11-23-7fc0886-filter-experiments.txt, kernels alone:
/// 1% 0.436-0.444 ms against 0.454-0.457 for one copy and 0.463-0.471 for the
/// previous kernel, which all 512 threads waited on through one cuda::barrier).
inline constexpr int single_pass_chunks = 4;
/// Single pass: blocks that must fit an SM at once (launch bounds): the three 64 KiB
/// tiles that fit its shared memory, so at most 40 registers a thread. In experiment
/// binaries the unbounded kernel took 48-51 registers (two blocks per SM) and was
/// 7-28% slower at 0-1% selectivity; bounded, 39-40 and no spills
/// (bench/results/h100-2026-11-23-8fa1c06-filter-experiments.txt, block M3). The
/// library's benchmark did not move (its build of the kernel may have stayed under
/// the limit): the bound guards the three blocks, whatever the predicate.
inline constexpr int single_pass_min_blocks = 3;
/// Single pass: a warp whose rounds of 32 keys hold a selected key in at most this
/// many rounds visits only those rounds when it packs its keys (staging, below) or
/// writes them, else it walks all its rounds. Measured for the write, before
/// staging existed: at 0-0.1% selectivity the instructions of the empty rounds were
/// the cost (ncu at 1%: 0.72 instructions issued a cycle per scheduler); on the
/// H100, kernels alone (bench/results/h100-2026-11-23-d95142a-filter-experiments.txt),
/// with 4 rounds and the keys stored 32 at a time, 0% 0.369 ms against 0.431 (floor
/// 0.355), 0.1% 0.383 against 0.437, 1% 0.449-0.453 against 0.455, 3% and 10%
/// unchanged. Larger thresholds, or per-round stores in the sparse path, were slower
/// at 1-10% (up to 9%, slower than CUB at 10%), the dense loop's code being compiled
/// differently. A packing warp above the threshold walks all its rounds, idle ones
/// included: skipping them made the kernel spill at 40 registers.
inline constexpr int single_pass_sparse_rounds = 4;

// Single pass, staging (not a setting): with keys alone (no positions, payload or
// partition), or positions alone (keys of 4 bytes or more), the warps pack their
// selected keys (positions) to the front of their part of the tile in shared memory
// while warp 0 looks back, then store them in whole lines of the output. Keys with
// positions, and payloads, have no room in shared memory and keep the write after
// the look-back. For keys, measured on the H100 against that write, kernels alone
// (bench/results/h100-2026-11-23-b21d41f-filter-experiments.txt): 1% 0.380-0.381 ms
// against 0.444-0.446, 10% 0.415-0.417 against 0.500-0.501, 50% 0.569-0.570 against
// 0.623-0.629, 99% 0.780-0.785 against 0.796-0.798; stores that began at the warp's
// first output position instead (straddling lines) made 99% 0.880-0.883. For int64
// positions alone, the benchmark's 1% went from 0.462-0.464 to 0.391-0.396 ms
// (bench/results/h100-2026-11-23-{b21d41f,8403270}-filter*.txt).

/// Single pass: how long a tile waits (ns) after publishing its count before it
/// looks back at its predecessors, then none between retries (CUB's
/// no_delay_constructor_t). Of five look-back policies on the H100 this was the
/// fastest (bench/results/h100-2026-11-22-3a078e6-delay.txt: 1% 0.447 ms against
/// 0.466 with CUB's default fixed_delay_constructor_t<350, 450>).
inline constexpr unsigned single_pass_lookback_wait_ns = 1130;
/// Keys per single-pass tile: 64 KiB of them, at most 32 rounds of 32 per warp (a
/// lane keeps one round's ballot): 16384 keys for 512 threads.
constexpr std::int64_t single_pass_tile_items(std::size_t key_bytes) {
  const std::int64_t by_bytes = single_pass_tile_bytes / static_cast<std::int64_t>(key_bytes);
  constexpr std::int64_t by_rounds = single_pass_threads * 32;
  return by_bytes < by_rounds ? by_bytes : by_rounds;
}

/// Three phases: keys per block, and per warp (a warp's keys are contiguous).
inline constexpr std::int64_t three_phase_block_items = 4096;
inline constexpr std::int64_t three_phase_warp_items = three_phase_block_items / filter_warps;
/// 32-bit predicate words per block and per warp.
inline constexpr std::int64_t three_phase_block_words = three_phase_block_items / 32;
inline constexpr std::int64_t three_phase_warp_words = three_phase_warp_items / 32;

constexpr std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

/// The algorithm that runs for a request (automatic resolved): the single pass for
/// filters (faster at every selectivity measured), the three phases for partitions
/// (1.87 ms against 1.92 at 50% on 2^28 floats; bench/results, issue 4).
constexpr filter_algorithm resolve_algorithm(filter_algorithm asked, bool partition) {
  if (asked != filter_algorithm::automatic) return asked;
  return partition ? filter_algorithm::three_phase : filter_algorithm::single_pass;
}

/// Workspace of the single pass: the look-back tile states (their size comes from
/// cub::ScanTileState::AllocationSize, which the caller passes).
struct single_pass_layout {
  std::int64_t tiles = 0;
  std::size_t tile_state = 0, tile_state_bytes = 0;
  std::size_t bytes = 0;
};

constexpr single_pass_layout plan_single_pass(std::int64_t n, std::size_t key_bytes,
                                              std::size_t tile_state_bytes) {
  single_pass_layout l;
  l.tiles = ceil_div(n, single_pass_tile_items(key_bytes));
  kselect::detail::workspace_carver c;
  l.tile_state = c.take(tile_state_bytes);
  l.tile_state_bytes = tile_state_bytes;
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
