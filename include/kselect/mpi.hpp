// kselect::mpi: exact selection over data spread across the processes of an MPI job.
//
// Every process passes its own shard (a host or device pointer; the local backend
// follows the pointer as in the owning API, kselect/kselect.hpp) and the same
// arguments otherwise. Ranks and k are global: rank r is the element at position r of
// the ascending sort of the concatenation of all shards in process-rank order (NaN
// last, -0.0 equal to +0.0). Shards may be uneven; a process may hold no data (n = 0,
// values may then be null). All processes of `comm` must call, collectively.
//
// A device shard must be on the process's current CUDA device; the work runs on
// options.local.stream. Bind one GPU per process where there are enough (the tool and
// the benchmark take the process's rank on its host modulo the device count).
// Processes that share one GPU take turns on it unless the MPS daemon runs
// (nvidia-cuda-mps-control -d); docs/performance.md, "Issue 23", says what it costs.
//
// The default algorithm is DIBMS (Blanchard, Fu & Knoth, "Fast distributed selection
// with graphics processing units", 2024): sample and min/max build pivot intervals,
// keys are counted into buckets by a linear projection, one all-reduce of the counts
// per round finds the buckets holding the ranks, and only those are bucketed again.
// Only counts and a few keys travel: each round's traffic is O(buckets), whatever n.
// Two baselines are selectable: DistributedBMS (one round, then the candidates are
// gathered and sorted) and Sort&Choose (every key gathered to one process, sorted).
//
// Errors: caller mistakes (processes disagreeing on the key type or the ranks, a rank
// outside the global size, a bad pointer on one process) throw std::invalid_argument
// with the same message on every process, never a hang: each call agrees on its
// arguments and on local failures through collectives before it goes on. MPI and
// CUDA failures throw kselect::error; an MPI failure can leave the other processes
// inside a collective, so a program should then call MPI_Abort (the CLI does).
//
// Answers are elements of the input, bit for bit, as in the owning API: the element
// the ascending stable sort of the concatenation (ties by global index) holds at the
// rank, so -0.0 and +0.0, and NaNs of different sign or payload, come back as the
// input holds them; quantiles are numpy.quantile's bits on the concatenation.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <span>
#include <vector>

#include "kselect/kselect.hpp"

namespace kselect::mpi {

/// The distributed algorithm.
///  - dibms: DIBMS, iterating on the active buckets until every rank is exact (the
///    default; rounds grow with log(n) / log(buckets / ranks), traffic does not grow with n).
///  - distributed_bms: DistributedBucketMultiSelect: one counting round, then every
///    key of the active buckets is gathered and sorted (traffic ~ n * ranks / buckets).
///  - sort_and_choose: every key gathered to the root process and sorted (traffic ~ n).
enum class algorithm { dibms, distributed_bms, sort_and_choose };

/// How each round's bucket counts travel between the processes (DIBMS, DistributedBMS).
///  - mpi: copied to the host and all-reduced there over MPI (the default: any MPI,
///    CPU or GPU shards, several processes on one GPU).
///  - nccl: all-reduced on the GPUs through NCCL on options.local.stream, then copied
///    to the host once. Needs a build with NCCL (KSELECT_WITH_NCCL) and one distinct
///    GPU per process, current when the call is made (use_local_gpu); a process with
///    no data takes part through its GPU too. The first call with a communicator makes
///    its NCCL communicator (collective, slow: hundreds of milliseconds), kept until
///    the MPI communicator is freed. docs/performance.md compares the two.
enum class transport { mpi, nccl };

/// Options of the distributed calls.
struct options {
  /// The local backend's options (device, cpu_threads, stream), as in the owning API.
  /// With several CPU processes on one host, give each a share of the cores
  /// (cpu_threads, or OMP_NUM_THREADS): 0 lets every process use all of them.
  kselect::options local{};
  algorithm algo = algorithm::dibms;
  transport counts = transport::mpi;
  /// -1: every process gets the results. r >= 0: only process r does; the others get
  /// empty vectors (select returns the value on every process either way).
  int root = -1;
  /// Buckets per round (B of the paper). More buckets: fewer rounds, more bytes per round.
  int buckets = 8192;
  /// Keys sampled over all processes for the first round's table (the paper's 1024).
  int sample_size = 1024;
  /// Pivot intervals of the first round (the paper's P = 16), where its table is not
  /// radix slots: usually the first table is slots, which the sample shapes without
  /// pivots, and the pivot intervals serve the samples slots do not spread
  /// (docs/algorithms.md, "Distributed selection").
  int pivot_intervals = 16;
  /// DIBMS stops iterating once the active buckets hold at most this many keys in
  /// all, and gathers them (0: iterate until every rank's bucket holds one value).
  std::int64_t gather_keys = 16384;
  /// Seed of the sample (the answers never depend on it).
  std::uint64_t seed = 0x6b73656c656374ull;
};

/// What a distributed call did, on this process.
struct report {
  /// Counting rounds: passes over the local keys, each ending in one all-reduce of the
  /// bucket counts (DIBMS: its phase 1 and each phase-2 iteration).
  int rounds = 0;
  /// MPI collectives this process took part in (argument agreement, sample, counts,
  /// min/max, the final gather).
  int collectives = 0;
  /// Bytes this process handed to MPI as send buffers over the whole call.
  std::int64_t bytes_sent = 0;
  /// Global number of keys (the sum of the shards).
  std::int64_t global_size = 0;
  /// Keys still in contention (over all processes) after each round.
  std::vector<std::int64_t> candidates_after_round;
  /// Keys gathered at the end (DIBMS's last step, DistributedBMS's candidates,
  /// Sort&Choose's whole data), over all processes.
  std::int64_t gathered_keys = 0;
};

/// The key of global rank k (0 <= k < global size), on every process.
template <class T>
T select(MPI_Comm comm, const T* values, std::int64_t n, std::int64_t k, const options& opt = {},
         report* rep = nullptr);

/// Values at several global ranks, in one call: result[i] answers ranks[i]; ranks in
/// any order, repeats allowed, each in [0, global size). Every process passes the
/// same ranks.
template <class T>
std::vector<T> multiselect(MPI_Comm comm, const T* values, std::int64_t n,
                           std::span<const std::int64_t> ranks, const options& opt = {},
                           report* rep = nullptr);

/// numpy.quantile of the concatenated shards, each q in [0, 1] (the same on every process).
template <class T>
std::vector<quantile_value_t<T>> quantile(MPI_Comm comm, const T* values, std::int64_t n,
                                          std::span<const double> qs,
                                          quantile_method m = quantile_method::linear,
                                          const options& opt = {}, report* rep = nullptr);

/// numpy.nanquantile of the concatenated shards.
template <class T>
std::vector<quantile_value_t<T>> nanquantile(MPI_Comm comm, const T* values, std::int64_t n,
                                             std::span<const double> qs,
                                             quantile_method m = quantile_method::linear,
                                             const options& opt = {}, report* rep = nullptr);

/// Global top-k (0 <= k <= global size). With opt.root = -1, each process gets its own
/// part of the answer: its elements among the global k, values bit for bit, indices
/// global (the local index plus the sizes of the shards of lower process ranks), in
/// local index order (t.sorted: in the answer's order). With opt.root = r, process r
/// gets the whole answer (every part, in process-rank order, or sorted with t.sorted)
/// and the others empty selections. Ties at the k-th value go to the lowest global
/// indices, so the answer is the same from run to run (t.deterministic is implied).
template <class T>
selection<T> topk(MPI_Comm comm, const T* values, std::int64_t n, std::int64_t k,
                  const topk_options& t = {}, const options& opt = {}, report* rep = nullptr);

/// Makes GPU (this process's rank among the processes of its host) modulo (the GPUs
/// it sees) the current device, one GPU per process where there are enough, and
/// returns it; -1 when kselect has no CUDA backend or no GPU is visible. Collective
/// over comm (it asks MPI which processes share a host).
int use_local_gpu(MPI_Comm comm);

/// Whether this kselect was built with NCCL (transport::nccl).
bool nccl_available() noexcept;

const char* to_string(algorithm a) noexcept;
const char* to_string(transport t) noexcept;
/// "mpi", "nccl"; throws std::invalid_argument naming them otherwise.
transport parse_transport(const char* name);
/// "dibms", "distributed_bms" (or "dbms"), "sort_and_choose" (or "sort"); throws
/// std::invalid_argument naming them otherwise.
algorithm parse_algorithm(const char* name);

#define KSELECT_DECLARE_MPI_API(T)                                                             \
  extern template T select<T>(MPI_Comm, const T*, std::int64_t, std::int64_t, const options&,  \
                              report*);                                                        \
  extern template std::vector<T> multiselect<T>(MPI_Comm, const T*, std::int64_t,              \
                                                std::span<const std::int64_t>, const options&, \
                                                report*);                                      \
  extern template std::vector<quantile_value_t<T>> quantile<T>(                                \
      MPI_Comm, const T*, std::int64_t, std::span<const double>, quantile_method,              \
      const options&, report*);                                                                \
  extern template std::vector<quantile_value_t<T>> nanquantile<T>(                             \
      MPI_Comm, const T*, std::int64_t, std::span<const double>, quantile_method,              \
      const options&, report*);                                                                \
  extern template selection<T> topk<T>(MPI_Comm, const T*, std::int64_t, std::int64_t,         \
                                       const topk_options&, const options&, report*);
KSELECT_FOR_EACH_KEY_TYPE(KSELECT_DECLARE_MPI_API)
#undef KSELECT_DECLARE_MPI_API

}  // namespace kselect::mpi
