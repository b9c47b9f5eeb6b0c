// The CPU selection (exact multiselect), Ribizel & Anzt's SampleSelect shaped for a
// multicore CPU with SIMD, in two forms that share one recursion:
//
//   window path (few ranks): a sample gives, for each rank, two keys that bracket it
//     with high probability (cpu/window_plan.hpp); ONE streaming pass counts the
//     keys below each window and copies the keys inside it (a few percent of the
//     level); the rank is then selected inside its window's copy. The input is read
//     once. A window that missed its rank (rare) leaves that rank to the bucket path.
//   bucket path (many ranks, or where windows would copy too much): a sorted sample
//     gives up to 63 coarse boundaries; a count pass finds every key's coarse
//     bucket (a SIMD search tree held in registers) and its cell inside it (up to
//     64 equal key spans), and counts per cell; a copy pass copies only the cells
//     that hold ranks. Cells of one key value (a boundary repeated in the sample
//     gets a bucket of its own) answer their ranks without a copy, so runs of
//     equal keys never recurse.
//
// Then each copy is the next level (mostly in cache), until a level is at most
// base_case keys, which are selected with nth_element. Level 0 reads the caller's
// values and maps them to pre-keys on the fly (cpu/kernels.hpp); the input is never
// copied whole. All levels classify with the kernels of one instruction set
// (cpu/isa.hpp), chosen at run time.
#pragma once

#include <cstdint>

#include "cpu/isa.hpp"
#include "kselect/detail/arguments.hpp"

namespace kselect::cpu {

/// Knobs of the CPU selection; every setting gives exact results. The defaults come
/// from sweeps with kselect-cpu-bench on the 2-core development VM, 2^20 to 2^26
/// uniform and normal floats, one rank and 101 percentiles; their figures are in
/// docs/performance.md, "CPU tuning".
struct tuning {
  /// Kernels' instruction set; best: the best the CPU has (tests force each).
  isa kernels = isa::best;
  /// Levels of at most this many keys are solved by nth_element: below it a window
  /// level (a sample, a pass and a smaller nth_element) costs more than it saves.
  /// Swept from 1024 to 16384 (docs/performance.md, "CPU tuning": base_case).
  std::int64_t base_case = 4096;

  // ---- window path ----
  /// At most this many windows (ranks whose windows do not merge) in one pass.
  int max_windows = 8;
  /// The window path runs when its windows are expected to hold at most this share
  /// of the level; otherwise the bucket path (two passes) copies less.
  double max_window_fraction = 0.25;
  /// Sample keys: sample_scale * n^(2/3), within [sample_min, sample_max] and at most
  /// n / 8. A larger sample narrows the windows (~ 1/sqrt(s)) but costs its own
  /// selection (~ s); n^(2/3) balances the two. Swept from 0.125 to 1
  /// (docs/performance.md, "CPU tuning": sample_scale).
  double sample_scale = 0.25;
  std::int64_t sample_min = 1024;
  std::int64_t sample_max = std::int64_t{1} << 17;
  /// Window half-width in standard deviations of a sample rank (plus margin sample
  /// positions): a window misses with probability ~1e-4 at 4.
  double window_sigmas = 4.0;
  double window_margin = 2.0;
  /// A window's buffer starts at window_capacity times the keys the sample
  /// predicts, plus window_capacity_min, and doubles when full (the sample's share
  /// has a relative spread of ~1/sqrt(its keys inside, >= 64 at 4 sigmas)).
  double window_capacity = 1.25;
  std::int64_t window_capacity_min = 1024;
  /// Levels of at least this many keys sample runs of a cache line's keys (one miss
  /// per 64 bytes) instead of single keys.
  std::int64_t run_sampling_min = std::int64_t{1} << 16;

  // ---- bucket path ----
  /// Sample keys for the coarse boundaries (at most 63 for 32-bit keys, 31 for
  /// 64-bit; cpu/kernels.hpp), at most n / 4: 64 keys a coarse bucket.
  std::int64_t bucket_sample = 4096;

  // ---- threads ----
  /// Levels smaller than this run on one thread.
  std::int64_t parallel_min = std::int64_t{1} << 18;
  /// A parallel pass is cut into this many chunks per thread, handed out
  /// dynamically: a thread the OS preempts delays the pass by one chunk, not by its
  /// whole share.
  int chunks_per_thread = 4;
  /// Deeper levels sort instead (a guard; each level shrinks its input).
  int max_depth = 24;
  /// Seed of the sampling.
  std::uint64_t seed = kselect::detail::default_seed;
};

/// out[i] = value of rank ranks[i] in values[0..n) (key order, core/key_traits.hpp;
/// as from_key(to_key(element)): -0.0 comes back as +0.0, a NaN as the canonical
/// NaN). ranks ascending, unique, each in [0, n). num_threads 0 = OpenMP default.
template <class T>
void sample_select(const T* values, std::int64_t n, const std::int64_t* ranks, std::int64_t num_ranks, T* out,
                   int num_threads, const tuning& cfg);

}  // namespace kselect::cpu
