// The CPU SampleSelect (Ribizel & Anzt's algorithm, shaped for a multicore CPU):
//   1. sample the level's keys, sort the sample, take evenly spaced distinct splitters;
//   2. classify every key into plan/buckets.hpp's layout (range and equality buckets;
//      cpu::tree_classifier computes plan::classify branch-free) and count per input
//      chunk, each chunk with its own counters, then sum;
//   3. plan::locate_ranks: ranks in equality buckets are answered by their splitter;
//   4. copy only the range buckets holding ranks into one buffer (chunk-private write
//      cursors from the per-chunk counts, so no atomics and a deterministic layout);
//      one bucket is found with a range test, several by classifying against their
//      boundaries only; no per-key bucket index (oracle) is stored, which saves
//      2 bytes per key of memory for a second, cheaper, classification;
//   5. recurse on each copied bucket; at most tuning::base_case keys are sorted.
// Level 0 reads the caller's values and maps them to keys on the fly
// (plan::key_traits), so the input is never copied whole. Large sub-problems use all
// threads inside; small ones run one per thread.
#pragma once

#include <cstdint>

namespace kselect::cpu {

/// Knobs of the CPU SampleSelect; every setting gives exact results. The defaults
/// come from sweeps on a 2-core AMD EPYC (Zen 3) VM (2^22 uniform floats, one rank and
/// 101 percentiles): 127..1023 single-rank splitters, 1023..4095 max_splitters,
/// buckets_per_rank 8..32 and oversampling 4..16 all landed within the run-to-run
/// noise (about 10%), because classifying costs a fixed ~3 ns per key plus only
/// ~0.3 ns per tree level. See bench/cpu/cpu_bench.cpp for the end-to-end figures.
struct tuning {
  /// Sub-problems of at most this many keys are sorted.
  std::int64_t base_case = 4096;
  /// Splitters per level for a single rank: 8 comparisons per key, and the kept
  /// bucket is about 1/256 of the level.
  int single_rank_splitters = 255;
  /// With r ranks, aim for r * buckets_per_rank range buckets (rounded up to a power
  /// of two), so the copied buckets hold about 1/buckets_per_rank of the input ...
  int buckets_per_rank = 16;
  /// ... but never more splitters than this (splitters and counters stay in L1/L2).
  int max_splitters = 2047;
  /// Sample size = oversampling * (splitters + 1).
  int oversampling = 16;
  /// Levels smaller than this run on one thread.
  std::int64_t parallel_min = std::int64_t{1} << 16;
  /// A parallel level is cut into up to this many chunks per thread (at least
  /// parallel_min / 4 keys each).
  int chunks_per_thread = 4;
  /// Deeper levels sort instead (a guard against hopeless samples; never reached
  /// with random sampling, as each level shrinks its input by about the bucket count).
  int max_depth = 40;
  /// Seed of the sampling.
  std::uint64_t seed = 0x9e3779b97f4a7c15ull;
};

/// out[i] = value of rank ranks[i] in values[0..n). ranks ascending, unique, each in
/// [0, n). num_threads 0 = OpenMP default.
template <class T>
void sample_select(const T* values, std::int64_t n, const std::int64_t* ranks,
                   std::int64_t num_ranks, T* out, int num_threads, const tuning& cfg);

}  // namespace kselect::cpu
