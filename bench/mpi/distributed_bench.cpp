// kselect-mpi-bench: distributed selection (kselect/mpi.hpp) under mpirun, against
// the alternatives a user has, in one run (issue 23's benchmark).
//
// Every process holds its own shard of n keys (--n-per-process) in its own memory:
// device memory on the GPU it is bound to (--device cuda: local rank modulo the GPUs,
// so P processes share one GPU where there is one) or host memory (--device cpu,
// each process with a share of the cores). The global array is the concatenation of
// the shards (bench_keys.hpp: key i depends only on the distribution, the global size
// and i). For each key type, distribution and question (--ops):
//   percentiles101  kselect::mpi::quantile with q = 0, 0.01, ..., 1 (method linear)
//   select          kselect::mpi::select of rank N / 2 (N: the global size)
//   topk            kselect::mpi::topk, k = 1024 largest with indices (each process
//                   gets its part; ties to the lowest global indices)
// it times, in the same run:
//   dibms, dbms, sort   the distributed call with options.algo = DIBMS,
//                       DistributedBMS, Sort&Choose (gather to rank 0 and sort);
//                       Sort&Choose is skipped above --sort-max-n global keys
//   single              rank 0 alone, the single-process kselect call on the whole
//                       data (rank 0's GPU, or the host with all cores), while the
//                       others wait (sleeping, not spinning, in a barrier)
//   floors              one read of the keys: each process over its shard alone
//                       (the others waiting), all P processes over their shards at
//                       once (what a round's counting pass competes with), and rank 0
//                       over the whole data; cub::DeviceReduce::Sum on the GPU (CUDA
//                       events alone, the wall clock for all at once), a one-pass sum
//                       and min of the key bits on the CPU; on the GPU also CUB's
//                       radix sort of the whole data on rank 0 (CUDA events)
// Timing of a distributed call: the stream synchronised (GPU), MPI_Barrier, then each
// process times the call with the wall clock (the call returns its answers on the
// host); the call's time is the maximum over the processes; warm-up calls, then the
// median (and min, max) over --repeats >= 10 calls. The single-process call: the same
// on rank 0. The call's report gives rounds, collectives, bytes sent (max and mean
// over the processes, and each process's), candidates after each round and the keys
// gathered. Every answer of every call is checked: the distributed algorithms must
// give the single-process call's answer on the whole data (gathered to rank 0 once,
// outside the timing); a mismatch ends the run with exit status 1.
//
// Output: a table on rank 0's stdout, the issue's target checks after it, and JSON
// (--json) with every row, the floors, the machine, the processes and the targets.
// bench/results/README.md describes the columns, the fields and the command lines;
// scripts/distributed-bench.sh runs the issue's configurations.
#include <mpi.h>
#include <omp.h>
#include <sched.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cinttypes>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <functional>
#include <memory>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#include "bench_keys.hpp"
#include "core/key_traits.hpp"
#include "gpu_parts.hpp"
#if KSELECT_BENCH_NCCL
#include "nccl_gather_sort.hpp"
#endif
#include "kselect/kselect.hpp"
#include "kselect/mpi.hpp"

#ifndef KSELECT_BENCH_COMMIT
#define KSELECT_BENCH_COMMIT ""
#endif

namespace {

using namespace kselect::mpi_bench;
using json = nlohmann::json;
using clock_type = std::chrono::steady_clock;
using kselect::mpi::algorithm;

constexpr const char* program = "kselect-mpi-bench";
constexpr int min_repeats = 10;

int world_rank = 0, world_size = 1;

// ---- command line ----------------------------------------------------------------

enum class op_kind { percentiles101, select, topk };

const char* name(op_kind o) {
  switch (o) {
    case op_kind::percentiles101: return "percentiles101";
    case op_kind::select: return "select";
    case op_kind::topk: return "topk";
  }
  return "?";
}

const char* short_name(algorithm a) {
  switch (a) {
    case algorithm::dibms: return "dibms";
    case algorithm::distributed_bms: return "dbms";
    case algorithm::sort_and_choose: return "sort";
  }
  return "?";
}

struct config {
  bool cuda = false;
  std::int64_t n_per_process = 0;  // 0: the device's default
  std::vector<std::string> dtypes{"float32"};
  std::vector<dist> dists{std::begin(all_dists), std::end(all_dists)};
  std::vector<op_kind> ops{op_kind::percentiles101, op_kind::select, op_kind::topk};
  std::vector<algorithm> algos{algorithm::dibms, algorithm::distributed_bms, algorithm::sort_and_choose};
  std::vector<kselect::mpi::transport> transports{kselect::mpi::transport::mpi};
  bool nccl_sort = false;  // the baseline "gather to GPU 0 over NCCL + CUB radix sort"
  int repeats = min_repeats, warmup = 2;
  std::string json_path, commit = KSELECT_BENCH_COMMIT, commit_source = "configure";
  std::int64_t sort_max_n = -1;  // -1: the device's default
  int threads = 0, single_threads = 0;  // 0: default (cores / processes on the host; all cores)
  int buckets = 0;                      // 0: the library's default
  std::int64_t gather_keys = -1;        // -1: the library's default
  std::int64_t topk_k = 1024;
  std::uint64_t seed = 2024;
  bool cub_sort = true;
};

std::string usage() {
  return std::string("usage: mpirun -np P ") + program +
         " [--device cpu|cuda] [--n-per-process N|2^K] [--dtype float32,float64]\n"
         "         [--dist uniform,normal,clustered,all_equal,sixteen_values,sorted] [--ops percentiles101,select,topk]\n"
         "         [--algos dibms,dbms,sort] [--transports mpi,nccl] [--nccl-sort] [--repeats N>=10] [--warmup N] [--json FILE] [--sort-max-n N|2^K]\n"
         "         [--threads T] [--single-threads T] [--buckets B] [--gather-keys K] [--topk-k K] [--seed S]\n"
         "         [--no-cub-sort] [--commit HASH] [--help]\n"
         "defaults: --device cuda in CUDA builds (cpu otherwise), --n-per-process 2^26 (cuda) / 2^22 (cpu), every\n"
         "distribution, op and algorithm, --repeats 10 --warmup 2, --sort-max-n 2^32 (cuda) / 2^26 (cpu) global keys,\n"
         "--threads max(1, host cores / processes on the host), --single-threads all host cores";
}

// Every process parses the same command line, so every process fails alike.
[[noreturn]] void bad_usage(const std::string& what) {
  if (world_rank == 0) std::fprintf(stderr, "%s: %s\n%s\n", program, what.c_str(), usage().c_str());
  MPI_Finalize();
  std::exit(2);
}

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> v;
  std::stringstream in(s);
  std::string item;
  while (std::getline(in, item, ','))
    if (!item.empty()) v.push_back(item);
  return v;
}

// A count: decimal digits or 2^K.
std::int64_t parse_count(const std::string& flag, const std::string& s, std::int64_t lo) {
  std::int64_t v = 0;
  const char* b = s.data();
  const char* e = s.data() + s.size();
  if (s.rfind("2^", 0) == 0) {
    int k = 0;
    const auto [p, ec] = std::from_chars(b + 2, e, k);
    if (ec != std::errc() || p != e || k < 0 || k > 62) bad_usage(flag + ": '" + s + "' is not a count (N or 2^K)");
    v = std::int64_t{1} << k;
  } else {
    const auto [p, ec] = std::from_chars(b, e, v);
    if (ec != std::errc() || p != e) bad_usage(flag + ": '" + s + "' is not a count (N or 2^K)");
  }
  if (v < lo) bad_usage(flag + " = " + s + " is below " + std::to_string(lo));
  return v;
}

int parse_int(const std::string& flag, const std::string& s, int lo) {
  const std::int64_t v = parse_count(flag, s, lo);
  if (v > std::numeric_limits<int>::max()) bad_usage(flag + " = " + s + " is too large");
  return static_cast<int>(v);
}

config parse(int argc, char** argv) {
  config c;
  bool device_given = false;
  std::string device = gpu::built() ? "cuda" : "cpu";
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--help" || a == "-h") {
      if (world_rank == 0) std::printf("%s\n", usage().c_str());
      MPI_Finalize();
      std::exit(0);
    }
    if (a == "--nccl-sort") {
#if !KSELECT_BENCH_NCCL
      bad_usage("--nccl-sort: this kselect-mpi-bench was built without NCCL");
#endif
      c.nccl_sort = true;
      continue;
    }
    if (a == "--no-cub-sort") {
      c.cub_sort = false;
      continue;
    }
    if (i + 1 >= argc) bad_usage(a.rfind("--", 0) == 0 ? a + " needs a value" : "unknown argument '" + a + "'");
    const std::string v = argv[++i];
    if (a == "--device") {
      if (v != "cpu" && v != "cuda") bad_usage("--device must be cpu or cuda, not '" + v + "'");
      device = v;
      device_given = true;
    } else if (a == "--n-per-process") {
      c.n_per_process = parse_count(a, v, 1);
    } else if (a == "--dtype" || a == "--dtypes") {
      c.dtypes = split(v);
      for (const std::string& t : c.dtypes)
        if (t != "float32" && t != "float64") bad_usage(a + ": '" + t + "' is not float32 or float64");
    } else if (a == "--dist" || a == "--dists") {
      c.dists.clear();
      for (const std::string& d : split(v)) {
        const std::string want = d == "sixteen" ? "sixteen_values" : d;
        const auto it = std::find_if(std::begin(all_dists), std::end(all_dists),
                                     [&](dist x) { return want == name(x); });
        if (it == std::end(all_dists))
          bad_usage(a + ": '" + d + "' is not one of uniform, normal, clustered, all_equal, sixteen_values, sorted");
        c.dists.push_back(*it);
      }
    } else if (a == "--ops") {
      c.ops.clear();
      for (const std::string& o : split(v)) {
        if (o == "percentiles101" || o == "percentiles") c.ops.push_back(op_kind::percentiles101);
        else if (o == "select" || o == "median") c.ops.push_back(op_kind::select);
        else if (o == "topk") c.ops.push_back(op_kind::topk);
        else bad_usage("--ops: '" + o + "' is not one of percentiles101, select, topk");
      }
    } else if (a == "--algos") {
      c.algos.clear();
      for (const std::string& x : split(v)) {
        try {
          c.algos.push_back(kselect::mpi::parse_algorithm(x.c_str()));
        } catch (const std::invalid_argument& e) {
          bad_usage(std::string("--algos: ") + e.what());
        }
      }
    } else if (a == "--transports") {
      c.transports.clear();
      for (const std::string& x : split(v)) {
        try {
          c.transports.push_back(kselect::mpi::parse_transport(x.c_str()));
        } catch (const std::invalid_argument& e) {
          bad_usage(std::string("--transports: ") + e.what());
        }
      }
    } else if (a == "--repeats" || a == "--reps") {
      c.repeats = parse_int(a, v, 0);
      if (c.repeats < min_repeats)
        bad_usage(a + " = " + v + ": every figure is a median of at least " + std::to_string(min_repeats) + " runs");
    } else if (a == "--warmup") {
      c.warmup = parse_int(a, v, 0);
    } else if (a == "--json") {
      c.json_path = v;
    } else if (a == "--sort-max-n") {
      c.sort_max_n = parse_count(a, v, 0);
    } else if (a == "--threads") {
      c.threads = parse_int(a, v, 1);
    } else if (a == "--single-threads") {
      c.single_threads = parse_int(a, v, 1);
    } else if (a == "--buckets") {
      c.buckets = parse_int(a, v, 4);
      if (c.buckets > (1 << 24)) bad_usage("--buckets = " + v + " is above 2^24 (kselect::mpi::options::buckets)");
    } else if (a == "--gather-keys") {
      c.gather_keys = parse_count(a, v, 0);
    } else if (a == "--topk-k") {
      c.topk_k = parse_count(a, v, 0);
      // The check gathers the answer's indices on rank 0 in one int-sized message.
      if (c.topk_k > (std::int64_t{1} << 27)) bad_usage("--topk-k = " + v + " is above 2^27");
    } else if (a == "--seed") {
      c.seed = static_cast<std::uint64_t>(parse_count(a, v, 0));
    } else if (a == "--commit") {
      c.commit = v;
      c.commit_source = "--commit";
    } else {
      bad_usage("unknown option '" + a + "'");
    }
  }
  if (c.dists.empty() || c.ops.empty() || c.dtypes.empty()) bad_usage("--dist, --ops and --dtype need at least one value");
  c.cuda = device == "cuda";
  if (c.cuda && !gpu::built())
    bad_usage(std::string("--device cuda") + (device_given ? "" : " (the default)") +
              ": this build has no CUDA parts (a CPU-only build); use --device cpu or a CUDA build");
  if (c.n_per_process == 0) c.n_per_process = std::int64_t{1} << (c.cuda ? 26 : 22);
  if (c.sort_max_n < 0) c.sort_max_n = std::int64_t{1} << (c.cuda ? 32 : 26);
  if (c.n_per_process > std::numeric_limits<std::int64_t>::max() / world_size)
    bad_usage("--n-per-process times the process count overflows");
  if (c.commit.empty()) c.commit = "unknown";
  return c;
}

// ---- the machine ----------------------------------------------------------------

std::string utc_date() {
  char date[32];
  const std::time_t now = std::time(nullptr);
  std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  return date;
}

std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("model name", 0) == 0) return line.substr(line.find(':') + 2);
  return "unknown";
}

std::string env_or(const char* var, const char* fallback) {
  const char* v = std::getenv(var);
  return v ? v : fallback;
}

int affinity_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) != 0) return -1;
  return CPU_COUNT(&set);
}

template <class V>
std::vector<V> gather_to_root(V mine, MPI_Datatype type) {
  std::vector<V> all(world_rank == 0 ? static_cast<std::size_t>(world_size) : 0);
  MPI_Gather(&mine, 1, type, all.data(), 1, type, 0, MPI_COMM_WORLD);
  return all;
}

std::vector<std::string> gather_strings(const std::string& s) {
  char buf[256] = {};
  std::snprintf(buf, sizeof buf, "%s", s.c_str());
  std::vector<char> all(world_rank == 0 ? sizeof buf * static_cast<std::size_t>(world_size) : 0);
  MPI_Gather(buf, sizeof buf, MPI_CHAR, all.data(), sizeof buf, MPI_CHAR, 0, MPI_COMM_WORLD);
  std::vector<std::string> out;
  for (int p = 0; world_rank == 0 && p < world_size; ++p) out.emplace_back(all.data() + p * sizeof buf);
  return out;
}

// A barrier that sleeps instead of spinning, for the processes that wait while
// others measure alone (Open MPI's blocking barrier polls and would take a core).
// Every process of a quiet phase calls it (an MPI_Ibarrier does not match an
// MPI_Barrier).
void quiet_barrier() {
  MPI_Request request;
  MPI_Ibarrier(MPI_COMM_WORLD, &request);
  int done = 0;
  while (true) {
    MPI_Test(&request, &done, MPI_STATUS_IGNORE);
    if (done) return;
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
}

// ---- the run's state -----------------------------------------------------------------

#if KSELECT_BENCH_NCCL
// One NCCL gather-sort per key type, made on first use (its NCCL set-up is collective
// and slow) and kept for the run.
struct nccl_sorters {
  MPI_Comm comm;
  std::int64_t global_n;
  void* stream;
  std::unique_ptr<gpu::nccl_gather_sort<float>> f;
  std::unique_ptr<gpu::nccl_gather_sort<double>> d;
  template <class T>
  gpu::nccl_gather_sort<T>& get() {
    auto& slot = [&]() -> auto& {
      if constexpr (std::is_same_v<T, float>) return f; else return d;
    }();
    if (!slot) slot = std::make_unique<gpu::nccl_gather_sort<T>>(comm, global_n, stream);
    return *slot;
  }
};
#endif

struct context {
  config cfg;
  bool gpu_per_process = false;  // every process on a GPU of its own (rank 0 knows)
#if KSELECT_BENCH_NCCL
  std::unique_ptr<nccl_sorters> nccl;
#endif
  int local_rank = 0, local_size = 1, nodes = 1;
  int host_cores = 1, threads = 1, single_threads = 1;
  void* stream = nullptr;
  gpu::device_info device;
  json results = json::array(), floors = json::array();
};

double ms_since(clock_type::time_point t0) {
  return std::chrono::duration<double, std::milli>(clock_type::now() - t0).count();
}

// Device memory, freed on scope exit (gpu_parts).
template <class T>
class device_array {
 public:
  device_array() = default;
  explicit device_array(std::int64_t n) : p_(static_cast<T*>(gpu::allocate(static_cast<std::size_t>(n) * sizeof(T)))) {}
  ~device_array() { gpu::release(p_); }
  device_array(device_array&& o) noexcept : p_(o.p_) { o.p_ = nullptr; }
  device_array& operator=(device_array&& o) noexcept {
    std::swap(p_, o.p_);
    return *this;
  }
  device_array(const device_array&) = delete;
  device_array& operator=(const device_array&) = delete;
  T* data() const { return p_; }

 private:
  T* p_ = nullptr;
};

// ---- the CPU read floor ------------------------------------------------------------

// One pass over the keys' bits with `threads` threads (sum and min, which the compiler
// vectorises), as kselect-cpu-bench's read floor; cloned for the wider vector units.
#define KSELECT_MPI_READ_PASS(U)                                                                                       \
  __attribute__((target_clones("avx512f", "avx2", "default"))) std::uint64_t read_pass(const U* bits, std::int64_t n, \
                                                                                        int threads) {                 \
    std::uint64_t sum = 0;                                                                                             \
    U low = std::numeric_limits<U>::max();                                                                             \
    _Pragma("omp parallel for num_threads(threads) reduction(+ : sum) reduction(min : low) schedule(static)") for (    \
        std::int64_t i = 0; i < n; ++i) {                                                                              \
      sum += bits[i];                                                                                                  \
      low = std::min(low, bits[i]);                                                                                    \
    }                                                                                                                  \
    return sum ^ low;                                                                                                  \
  }
KSELECT_MPI_READ_PASS(std::uint32_t)
KSELECT_MPI_READ_PASS(std::uint64_t)
#undef KSELECT_MPI_READ_PASS

volatile std::uint64_t read_sink = 0;

template <class T>
void read_keys(const T* keys, std::int64_t n, int threads) {
  using U = std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>;
  read_sink = read_sink ^ read_pass(reinterpret_cast<const U*>(keys), n, threads);
}

// ---- data ------------------------------------------------------------------------------

template <class T>
std::vector<T> generate_host(std::int64_t count, std::int64_t offset, std::int64_t global_n, dist d,
                             std::uint64_t seed, int threads) {
  std::vector<T> v(static_cast<std::size_t>(count));
#pragma omp parallel for num_threads(threads) schedule(static)
  for (std::int64_t j = 0; j < count; ++j) v[static_cast<std::size_t>(j)] = key_value<T>(d, offset + j, global_n, seed);
  return v;
}

// The shards (n keys each) concatenated on rank 0, in chunks of at most 1 GiB.
template <class T>
std::vector<T> gather_whole(const T* mine, std::int64_t n) {
  constexpr std::int64_t chunk_bytes = std::int64_t{1} << 30;
  const std::int64_t bytes = n * static_cast<std::int64_t>(sizeof(T));
  std::vector<T> whole;
  if (world_rank == 0) {
    whole.resize(static_cast<std::size_t>(n) * static_cast<std::size_t>(world_size));
    std::memcpy(whole.data(), mine, static_cast<std::size_t>(bytes));
    for (int p = 1; p < world_size; ++p) {
      char* dst = reinterpret_cast<char*>(whole.data() + static_cast<std::size_t>(n) * p);
      for (std::int64_t at = 0; at < bytes; at += chunk_bytes)
        MPI_Recv(dst + at, static_cast<int>(std::min(chunk_bytes, bytes - at)), MPI_BYTE, p, 7, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    }
  } else {
    const char* src = reinterpret_cast<const char*>(mine);
    for (std::int64_t at = 0; at < bytes; at += chunk_bytes)
      MPI_Send(src + at, static_cast<int>(std::min(chunk_bytes, bytes - at)), MPI_BYTE, 0, 7, MPI_COMM_WORLD);
  }
  return whole;
}

// ---- answers ---------------------------------------------------------------------------

// A call's answer: values (quantiles, the selected key, top-k's values) and top-k's
// global indices.
template <class T>
struct answer {
  std::vector<T> values;
  std::vector<std::int64_t> indices;
};

template <class T>
bool same_value(T a, T b) {
  return std::memcmp(&a, &b, sizeof(T)) == 0 || a == b || (std::isnan(a) && std::isnan(b));
}

// Top-k elements in one order whatever order a call gives them in: key descending,
// then index ascending.
template <class T>
void canonical_order(answer<T>& a) {
  std::vector<std::size_t> order(a.values.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) {
    const auto kx = kselect::core::key_traits<T>::to_key(a.values[x]);
    const auto ky = kselect::core::key_traits<T>::to_key(a.values[y]);
    if (kx != ky) return kx > ky;
    return a.indices[x] < a.indices[y];
  });
  answer<T> sorted;
  for (const std::size_t i : order) {
    sorted.values.push_back(a.values[i]);
    sorted.indices.push_back(a.indices[i]);
  }
  a = std::move(sorted);
}

// Each process's top-k part gathered on rank 0 (others: empty), in canonical order.
template <class T>
answer<T> gather_parts(const answer<T>& part) {
  const int mine = static_cast<int>(part.values.size());
  const std::vector<int> counts = gather_to_root(mine, MPI_INT);
  std::vector<int> value_bytes, index_bytes, value_at, index_at;
  answer<T> all;
  if (world_rank == 0) {
    int total = 0;
    for (const int c : counts) {
      value_at.push_back(total * static_cast<int>(sizeof(T)));
      index_at.push_back(total * static_cast<int>(sizeof(std::int64_t)));
      value_bytes.push_back(c * static_cast<int>(sizeof(T)));
      index_bytes.push_back(c * static_cast<int>(sizeof(std::int64_t)));
      total += c;
    }
    all.values.resize(static_cast<std::size_t>(total));
    all.indices.resize(static_cast<std::size_t>(total));
  }
  MPI_Gatherv(part.values.data(), mine * static_cast<int>(sizeof(T)), MPI_BYTE, all.values.data(), value_bytes.data(),
              value_at.data(), MPI_BYTE, 0, MPI_COMM_WORLD);
  MPI_Gatherv(part.indices.data(), mine * static_cast<int>(sizeof(std::int64_t)), MPI_BYTE, all.indices.data(),
              index_bytes.data(), index_at.data(), MPI_BYTE, 0, MPI_COMM_WORLD);
  if (world_rank == 0) canonical_order(all);
  return all;
}

// "" when equal, else where they first differ.
template <class T>
std::string difference(const answer<T>& got, const answer<T>& want) {
  if (got.values.size() != want.values.size() || got.indices.size() != want.indices.size())
    return "answer size " + std::to_string(got.values.size()) + " (indices " + std::to_string(got.indices.size()) +
           "), expected " + std::to_string(want.values.size()) + " (indices " + std::to_string(want.indices.size()) + ")";
  for (std::size_t i = 0; i < want.values.size(); ++i) {
    const bool index_differs = i < want.indices.size() && got.indices[i] != want.indices[i];
    if (!same_value(got.values[i], want.values[i]) || index_differs) {
      std::ostringstream s;
      s.precision(std::numeric_limits<T>::max_digits10);
      s << "element " << i << ": " << got.values[i];
      if (i < want.indices.size()) s << " (index " << got.indices[i] << ")";
      s << ", expected " << want.values[i];
      if (i < want.indices.size()) s << " (index " << want.indices[i] << ")";
      return s.str();
    }
  }
  return "";
}

template <class T>
void broadcast(answer<T>& a) {
  long long sizes[2] = {static_cast<long long>(a.values.size()), static_cast<long long>(a.indices.size())};
  MPI_Bcast(sizes, 2, MPI_LONG_LONG, 0, MPI_COMM_WORLD);
  a.values.resize(static_cast<std::size_t>(sizes[0]));
  a.indices.resize(static_cast<std::size_t>(sizes[1]));
  MPI_Bcast(a.values.data(), static_cast<int>(sizes[0] * sizeof(T)), MPI_BYTE, 0, MPI_COMM_WORLD);
  MPI_Bcast(a.indices.data(), static_cast<int>(sizes[1] * sizeof(std::int64_t)), MPI_BYTE, 0, MPI_COMM_WORLD);
}

// A wrong answer anywhere ends the run on every process with exit status 1.
// `problem`: this process's finding ("" when its answer is right).
void agree_or_fail(const std::string& problem, const std::string& what) {
  const int mine = problem.empty() ? 0 : 1;
  int any = 0;
  MPI_Allreduce(&mine, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (!any) return;
  if (mine) std::fprintf(stderr, "%s: WRONG ANSWER on process %d: %s: %s\n", program, world_rank, what.c_str(), problem.c_str());
  std::fflush(stderr);
  MPI_Barrier(MPI_COMM_WORLD);
  if (world_rank == 0)
    std::fprintf(stderr, "%s: the distributed answers differ from the single-process call on the whole data; "
                         "no results written\n", program);
  MPI_Finalize();
  std::exit(1);
}

// ---- timing ----------------------------------------------------------------------------

// The report of the last call, over every process (on rank 0).
struct report_summary {
  int rounds = 0, rounds_min = 0, collectives = 0;
  std::int64_t bytes_max = 0, global_size = 0, gathered_keys = 0;
  double bytes_mean = 0;
  std::vector<std::int64_t> bytes_per_process, candidates_after_round;
};

report_summary summarize_report(const kselect::mpi::report& r) {
  report_summary s;
  MPI_Reduce(&r.rounds, &s.rounds, 1, MPI_INT, MPI_MAX, 0, MPI_COMM_WORLD);
  MPI_Reduce(&r.rounds, &s.rounds_min, 1, MPI_INT, MPI_MIN, 0, MPI_COMM_WORLD);
  MPI_Reduce(&r.collectives, &s.collectives, 1, MPI_INT, MPI_MAX, 0, MPI_COMM_WORLD);
  const long long bytes = r.bytes_sent;
  const std::vector<long long> all = gather_to_root(bytes, MPI_LONG_LONG);
  for (const long long b : all) {
    s.bytes_per_process.push_back(b);
    s.bytes_max = std::max<std::int64_t>(s.bytes_max, b);
    s.bytes_mean += static_cast<double>(b) / world_size;
  }
  s.global_size = r.global_size;
  s.gathered_keys = r.gathered_keys;
  s.candidates_after_round = r.candidates_after_round;
  return s;
}

struct measured {
  timing t;                          // of the call's time (max over processes)
  std::vector<double> per_process;  // each process's own median (rank 0)
  report_summary report;
};

// Warm-up calls, then `repeats` timed ones: (GPU: stream synchronised) barrier,
// wall clock around call(rep) on each process, the maximum over processes.
// check(i) runs after call i, untimed (collective).
measured time_distributed(const context& ctx, const std::function<void(kselect::mpi::report&)>& call,
                          const std::function<void(int)>& check) {
  const config& c = ctx.cfg;
  measured m;
  kselect::mpi::report rep;
  std::vector<double> mine, worst;
  for (int i = 0; i < c.warmup + c.repeats; ++i) {
    if (c.cuda) gpu::synchronize(ctx.stream);
    MPI_Barrier(MPI_COMM_WORLD);
    const auto t0 = clock_type::now();
    call(rep);
    double ms = ms_since(t0), max_ms = 0;
    MPI_Allreduce(&ms, &max_ms, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    check(i);
    if (i < c.warmup) continue;
    mine.push_back(ms);
    worst.push_back(max_ms);
  }
  m.t = summarize(worst);
  m.per_process = gather_to_root(summarize(mine).median_ms, MPI_DOUBLE);
  m.report = summarize_report(rep);
  return m;
}

// Rank 0 alone: warm-up calls, then `repeats` timed ones (wall clock; GPU: the stream
// synchronised before each), the others sleeping in a barrier. check(i) after call i.
timing time_on_root(const context& ctx, int warmup, const std::function<void()>& call,
                    const std::function<void(int)>& check) {
  std::vector<double> ms;
  if (world_rank == 0) {
    for (int i = 0; i < warmup + ctx.cfg.repeats; ++i) {
      if (ctx.cfg.cuda) gpu::synchronize(ctx.stream);
      const auto t0 = clock_type::now();
      call();
      const double t = ms_since(t0);
      check(i);
      if (i >= warmup) ms.push_back(t);
    }
  }
  quiet_barrier();
  return summarize(ms);
}

// ---- output ----------------------------------------------------------------------------

std::string bytes_text(double b) {
  char s[32];
  if (b >= 1 << 20) std::snprintf(s, sizeof s, "%.2f MiB", b / (1 << 20));
  else if (b >= 1 << 10) std::snprintf(s, sizeof s, "%.1f KiB", b / (1 << 10));
  else std::snprintf(s, sizeof s, "%.0f B", b);
  return s;
}

struct floor_figures {
  double shard_alone_ms = 0, shard_all_ms = 0, whole_ms = 0, cub_sort_ms = -1;
};

void print_row(const json& r) {
  if (world_rank != 0) return;
  const std::string algo = r["algo"];
  if (r.contains("skipped")) {
    std::printf("  %-15s %-10s skipped: %s\n", r["op"].get<std::string>().c_str(), algo.c_str(),
                r["skipped"].get<std::string>().c_str());
    return;
  }
  const bool single = algo == "single";
  char rounds[16] = "-", colls[16] = "-", gathered[24] = "-", ratio[16] = "-";
  std::string bmax = "-", bmean = "-";
  if (!single) {
    const int rmax = r["rounds"], rmin = r["rounds_min"];
    if (rmax == rmin) std::snprintf(rounds, sizeof rounds, "%d", rmax);
    else std::snprintf(rounds, sizeof rounds, "%d-%d", rmin, rmax);
    std::snprintf(colls, sizeof colls, "%d", r["collectives"].get<int>());
    std::snprintf(gathered, sizeof gathered, "%" PRId64, r["gathered_keys"].get<std::int64_t>());
    bmax = bytes_text(r["bytes_sent_max"].get<double>());
    bmean = bytes_text(r["bytes_sent_mean"].get<double>());
  }
  if (r.contains("sort_over_this")) std::snprintf(ratio, sizeof ratio, "%.1f", r["sort_over_this"].get<double>());
  const double floor_ms = single ? r["floor_whole_ms"].get<double>() : r["floor_shards_together_ms"].get<double>();
  std::printf("  %-15s %-10s %10.3f %10.3f %6s %5s %12s %12s %10s %8.1f %9s\n", r["op"].get<std::string>().c_str(),
              algo.c_str(), r["ms"].get<double>(), r["min_ms"].get<double>(), rounds, colls, bmax.c_str(),
              bmean.c_str(), gathered, r["ms"].get<double>() / floor_ms, ratio);
}

// ---- one distribution ----------------------------------------------------------------------

template <class T>
floor_figures measure_floors(context& ctx, const std::string& dtype, dist d, const T* shard, std::int64_t n,
                             const T* whole, std::int64_t global_n) {
  const config& c = ctx.cfg;
  floor_figures f;
  json j = {{"dtype", dtype}, {"dist", name(d)}};
  // Each process over its shard alone, in turn.
  timing alone;
  for (int p = 0; p < world_size; ++p) {
    if (p == world_rank) {
      if (c.cuda) {
        gpu::reducer<T> r(shard, n, ctx.stream);
        alone = r.time_events(c.repeats, c.warmup);
      } else {
        std::vector<double> ms;
        for (int i = 0; i < c.warmup + c.repeats; ++i) {
          const auto t0 = clock_type::now();
          read_keys(shard, n, ctx.threads);
          if (i >= c.warmup) ms.push_back(ms_since(t0));
        }
        alone = summarize(ms);
      }
    }
    quiet_barrier();
  }
  const std::vector<double> alone_all = gather_to_root(alone.median_ms, MPI_DOUBLE);
  // All processes at once: the wall clock after a barrier, the maximum over processes.
  std::vector<double> together;
  {
    std::unique_ptr<gpu::reducer<T>> r;
    if (c.cuda) r = std::make_unique<gpu::reducer<T>>(shard, n, ctx.stream);
    for (int i = 0; i < c.warmup + c.repeats; ++i) {
      if (c.cuda) gpu::synchronize(ctx.stream);
      MPI_Barrier(MPI_COMM_WORLD);
      const auto t0 = clock_type::now();
      if (c.cuda) r->run_and_wait();
      else read_keys(shard, n, ctx.threads);
      double ms = ms_since(t0), max_ms = 0;
      MPI_Allreduce(&ms, &max_ms, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
      if (i >= c.warmup) together.push_back(max_ms);
    }
  }
  const timing all = summarize(together);
  // Rank 0 over the whole data; CUB's radix sort of it.
  timing whole_t, sort_t;
  std::string sort_error;
  if (world_rank == 0) {
    if (c.cuda) {
      gpu::reducer<T> r(whole, global_n, ctx.stream);
      whole_t = r.time_events(c.repeats, c.warmup);
      if (c.cub_sort) {
        try {
          sort_t = gpu::radix_sort_time<T>(whole, global_n, ctx.stream, c.repeats, std::min(c.warmup, 1));
        } catch (const std::exception& e) {
          sort_error = e.what();
        }
      }
    } else {
      std::vector<double> ms;
      for (int i = 0; i < c.warmup + c.repeats; ++i) {
        const auto t0 = clock_type::now();
        read_keys(whole, global_n, ctx.single_threads);
        if (i >= c.warmup) ms.push_back(ms_since(t0));
      }
      whole_t = summarize(ms);
    }
  }
  quiet_barrier();
  if (world_rank == 0) {
    f.shard_alone_ms = *std::max_element(alone_all.begin(), alone_all.end());
    f.shard_all_ms = all.median_ms;
    f.whole_ms = whole_t.median_ms;
    j["shard_alone_ms"] = f.shard_alone_ms;
    j["shard_alone_per_process_ms"] = alone_all;
    j["shards_together_ms"] = all.median_ms;
    j["shards_together_min_ms"] = all.min_ms;
    j["whole_ms"] = whole_t.median_ms;
    j["whole_min_ms"] = whole_t.min_ms;
    j["method"] = c.cuda ? "cub::DeviceReduce::Sum (alone, whole: CUDA events; together: wall clock, max over processes)"
                         : "one pass, sum and min of the key bits (wall clock; together: max over processes)";
    std::printf("  floor (one read): shard alone %.3f ms (max over processes), all %d shards at once %.3f ms, "
                "whole data on rank 0 %.3f ms",
                f.shard_alone_ms, world_size, f.shard_all_ms, f.whole_ms);
    if (c.cuda && c.cub_sort) {
      if (sort_error.empty()) {
        f.cub_sort_ms = sort_t.median_ms;
        j["cub_radix_sort_ms"] = sort_t.median_ms;
        j["cub_radix_sort_min_ms"] = sort_t.min_ms;
        std::printf("; CUB radix sort of the whole data %.3f ms", sort_t.median_ms);
      } else {
        j["cub_radix_sort_error"] = sort_error;
        std::printf("; CUB radix sort of the whole data failed: %s", sort_error.c_str());
      }
    }
    std::printf("\n");
    std::printf("  %-15s %-10s %10s %10s %6s %5s %12s %12s %10s %8s %9s\n", "op", "algo", "median_ms", "min_ms",
                "rounds", "colls", "bytes/p max", "bytes/p mean", "gathered", "x floor", "sort/this");
    std::fflush(stdout);
    ctx.floors.push_back(j);
  }
  return f;
}

template <class T>
void run_op(context& ctx, const std::string& dtype, dist d, op_kind op, const T* shard, std::int64_t n,
            const T* whole, std::int64_t global_n, const floor_figures& floors) {
  const config& c = ctx.cfg;
  const std::string where = dtype + " " + name(d) + " " + name(op);
  std::vector<double> qs(101);
  for (int i = 0; i <= 100; ++i) qs[static_cast<std::size_t>(i)] = i / 100.0;
  const std::int64_t k = std::min(c.topk_k, global_n);
  const std::int64_t rank = global_n / 2;
  kselect::topk_options t;
  t.largest = true;
  t.sorted = false;
  t.deterministic = true;  // implied by the distributed call; the single call must take the same ties
  t.indices = true;

  // The single-process call on the whole data (rank 0). Its first answer is the reference.
  kselect::options single;
  single.device = c.cuda ? kselect::device_kind::cuda : kselect::device_kind::cpu;
  single.cpu_threads = ctx.single_threads;
  single.stream = ctx.stream;
  answer<T> got, reference;
  auto single_call = [&] {
    switch (op) {
      case op_kind::percentiles101:
        got.values = kselect::quantile(whole, global_n, qs, kselect::quantile_method::linear, single);
        break;
      case op_kind::select:
        got.values = {kselect::select(whole, global_n, rank, single)};
        break;
      case op_kind::topk: {
        kselect::selection<T> s = kselect::topk(whole, global_n, k, t, single);
        got.values = std::move(s.values);
        got.indices = std::move(s.indices);
        break;
      }
    }
  };
  if (world_rank == 0) {
    single_call();
    reference = got;
    if (op == op_kind::topk) canonical_order(reference);
  }
  // Every call of the single-process call gives the same answer (rank 0).
  const timing st = time_on_root(ctx, std::max(c.warmup - 1, 0), single_call, [&](int i) {
    if (op == op_kind::topk) canonical_order(got);
    const std::string problem = difference(got, reference);
    if (!problem.empty()) {
      std::fprintf(stderr, "%s: %s: the single-process call's answer changed at call %d: %s\n", program, where.c_str(),
                   i, problem.c_str());
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
  });
  broadcast(reference);

  std::vector<json> rows;
  auto base = [&](const std::string& algo) {
    json r{{"dtype", dtype}, {"dist", name(d)}, {"op", name(op)}, {"algo", algo},
           {"processes", world_size}, {"n_per_process", n}, {"global_n", global_n}};
    if (op == op_kind::select) r["k"] = rank;
    if (op == op_kind::topk) r["k"] = k;
    return r;
  };
  {
    json r = base("single");
    r["ms"] = st.median_ms;
    r["min_ms"] = st.min_ms;
    r["max_ms"] = st.max_ms;
    r["runs"] = st.runs;
    r["call"] = std::string("kselect::") + (op == op_kind::percentiles101 ? "quantile" : op == op_kind::select ? "select" : "topk") +
                " on rank 0 over the whole data (" + (c.cuda ? "rank 0's GPU" : "host, " + std::to_string(ctx.single_threads) + " threads") + ")";
    r["floor_whole_ms"] = floors.whole_ms;
    r["floor_shards_together_ms"] = floors.shard_all_ms;
    r["correct"] = true;
    rows.push_back(r);
  }

  std::vector<std::pair<algorithm, kselect::mpi::transport>> runs;
  for (const algorithm a : c.algos)
    for (const kselect::mpi::transport via : c.transports)
      if (a != algorithm::sort_and_choose || via == c.transports.front()) runs.push_back({a, via});
  for (const auto& [a, via] : runs) {
    // Rows are named by the algorithm, "+nccl" when the counts travel through NCCL.
    json r = base(std::string(short_name(a)) + (via == kselect::mpi::transport::nccl && a != algorithm::sort_and_choose ? "+nccl" : ""));
    r["transport"] = a == algorithm::sort_and_choose ? "mpi" : kselect::mpi::to_string(via);
    if (a == algorithm::sort_and_choose && global_n > c.sort_max_n) {
      r["skipped"] = "global n = " + std::to_string(global_n) + " > --sort-max-n " + std::to_string(c.sort_max_n);
      rows.push_back(r);
      continue;
    }
    kselect::mpi::options opt;
    opt.local.device = c.cuda ? kselect::device_kind::cuda : kselect::device_kind::cpu;
    opt.local.cpu_threads = ctx.threads;
    opt.local.stream = ctx.stream;
    opt.algo = a;
    opt.counts = via;
    if (c.buckets > 0) opt.buckets = c.buckets;
    if (c.gather_keys >= 0) opt.gather_keys = c.gather_keys;
    answer<T> mine;
    auto call = [&](kselect::mpi::report& rep) {
      switch (op) {
        case op_kind::percentiles101:
          mine.values = kselect::mpi::quantile(MPI_COMM_WORLD, shard, n, qs, kselect::quantile_method::linear, opt, &rep);
          break;
        case op_kind::select:
          mine.values = {kselect::mpi::select(MPI_COMM_WORLD, shard, n, rank, opt, &rep)};
          break;
        case op_kind::topk: {
          kselect::selection<T> s = kselect::mpi::topk(MPI_COMM_WORLD, shard, n, k, t, opt, &rep);
          mine.values = std::move(s.values);
          mine.indices = std::move(s.indices);
          break;
        }
      }
    };
    auto check = [&](int i) {
      std::string problem;
      if (op == op_kind::topk) {
        const answer<T> all = gather_parts(mine);
        if (world_rank == 0) problem = difference(all, reference);
      } else {
        problem = difference(mine, reference);
      }
      agree_or_fail(problem, where + " " + kselect::mpi::to_string(a) + ", call " + std::to_string(i));
    };
    const measured m = time_distributed(ctx, call, check);
    if (world_rank != 0) continue;
    r["ms"] = m.t.median_ms;
    r["min_ms"] = m.t.min_ms;
    r["max_ms"] = m.t.max_ms;
    r["runs"] = m.t.runs;
    r["per_process_median_ms"] = m.per_process;
    r["rounds"] = m.report.rounds;
    r["rounds_min"] = m.report.rounds_min;
    r["collectives"] = m.report.collectives;
    r["bytes_sent_max"] = m.report.bytes_max;
    r["bytes_sent_mean"] = m.report.bytes_mean;
    r["bytes_sent_per_process"] = m.report.bytes_per_process;
    r["candidates_after_round"] = m.report.candidates_after_round;
    r["gathered_keys"] = m.report.gathered_keys;
    r["floor_shard_alone_ms"] = floors.shard_alone_ms;
    r["floor_shards_together_ms"] = floors.shard_all_ms;
    r["floor_whole_ms"] = floors.whole_ms;
    r["correct"] = true;
    rows.push_back(r);
  }
#if KSELECT_BENCH_NCCL
  // Sort&Choose as a user of NCCL writes it: the shards to GPU 0 over NCCL, CUB's radix
  // sort of the whole there. Checked where it yields an answer of the call's own:
  // select's value, and the 0 and 1 quantiles (the smallest and largest key).
  if (c.nccl_sort && c.cuda && op != op_kind::topk) {
    json r = base("nccl_sort");
    r["transport"] = "nccl";
    if (!ctx.nccl) ctx.nccl = std::make_unique<nccl_sorters>(nccl_sorters{MPI_COMM_WORLD, global_n, ctx.stream, {}, {}});
    std::vector<std::int64_t> at = op == op_kind::select ? std::vector<std::int64_t>{rank}
                                                         : std::vector<std::int64_t>{0, global_n - 1};
    std::vector<T> got_at;
    auto call = [&](kselect::mpi::report&) { got_at = ctx.nccl->template get<T>().run(shard, n, at); };
    auto check = [&](int i) {
      std::string problem;
      if (world_rank == 0) {
        const std::vector<T> want = op == op_kind::select ? std::vector<T>{reference.values[0]}
                                                          : std::vector<T>{reference.values.front(), reference.values.back()};
        for (std::size_t j = 0; j < want.size(); ++j)
          if (kselect::core::key_traits<T>::to_key(got_at[j]) != kselect::core::key_traits<T>::to_key(want[j]))
            problem = "value at rank " + std::to_string(at[j]) + " differs from the single call's";
      }
      agree_or_fail(problem, where + " nccl_sort, call " + std::to_string(i));
    };
    const measured m = time_distributed(ctx, call, check);
    if (world_rank == 0) {
      r["ms"] = m.t.median_ms;
      r["min_ms"] = m.t.min_ms;
      r["max_ms"] = m.t.max_ms;
      r["runs"] = m.t.runs;
      r["per_process_median_ms"] = m.per_process;
      r["rounds"] = 0;
      r["rounds_min"] = 0;
      r["collectives"] = 1;
      r["bytes_sent_max"] = static_cast<double>(n) * sizeof(T);
      r["bytes_sent_mean"] = static_cast<double>(n) * sizeof(T);
      r["gathered_keys"] = global_n;
      r["floor_shard_alone_ms"] = floors.shard_alone_ms;
      r["floor_shards_together_ms"] = floors.shard_all_ms;
      r["floor_whole_ms"] = floors.whole_ms;
      r["correct"] = true;
      r["call"] = "every shard to GPU 0 (ncclSend/ncclRecv), cub::DeviceRadixSort::SortKeys there, the ranks read back";
      rows.push_back(r);
    }
  }
#endif
  if (world_rank != 0) return;
  // Sort&Choose's time over each row's (above 1: faster than Sort&Choose).
  double sort_ms = -1;
  for (const json& r : rows)
    if (r["algo"] == "sort" && r.contains("ms")) sort_ms = r["ms"];
  for (json& r : rows) {
    if (sort_ms > 0 && r.contains("ms")) r["sort_over_this"] = sort_ms / r["ms"].get<double>();
    if (floors.cub_sort_ms > 0) r["cub_sort_whole_ms"] = floors.cub_sort_ms;
    print_row(r);
    ctx.results.push_back(r);
  }
  std::fflush(stdout);
}

template <class T>
void run_dist(context& ctx, const std::string& dtype, dist d) {
  const config& c = ctx.cfg;
  const std::int64_t n = c.n_per_process, global_n = n * world_size, offset = n * world_rank;
  if (world_rank == 0) {
    std::printf("\n== %s %s: %d processes x %" PRId64 " keys = %" PRId64 " (%s)\n", dtype.c_str(), name(d), world_size,
                n, global_n, c.cuda ? "device memory" : "host memory");
    std::fflush(stdout);
  }
  // The shard: generated where it lives; a host copy for the gather to rank 0.
  std::vector<T> host_shard;
  device_array<T> device_shard;
  if (c.cuda) {
    device_shard = device_array<T>(n);
    gpu::generate<T>(device_shard.data(), n, offset, global_n, d, c.seed, ctx.stream);
    gpu::synchronize(ctx.stream);
    host_shard.resize(static_cast<std::size_t>(n));
    gpu::copy_to_host(host_shard.data(), device_shard.data(), static_cast<std::size_t>(n) * sizeof(T));
  } else {
    host_shard = generate_host<T>(n, offset, global_n, d, c.seed, ctx.threads);
  }
  std::vector<T> whole = gather_whole(host_shard.data(), n);
  device_array<T> device_whole;
  if (c.cuda) {
    std::vector<T>().swap(host_shard);
    if (world_rank == 0) {
      device_whole = device_array<T>(global_n);
      gpu::copy_to_device(device_whole.data(), whole.data(), static_cast<std::size_t>(global_n) * sizeof(T));
      std::vector<T>().swap(whole);
    }
  }
  const T* shard = c.cuda ? device_shard.data() : host_shard.data();
  const T* whole_keys = c.cuda ? device_whole.data() : whole.data();  // rank 0 only
  const floor_figures f = measure_floors<T>(ctx, dtype, d, shard, n, whole_keys, global_n);
  for (const op_kind op : c.ops) run_op<T>(ctx, dtype, d, op, shard, n, whole_keys, global_n, f);
}

// ---- the issue's targets ----------------------------------------------------------------------

// The issue's targets, checked on the DIBMS rows. The time targets name the issue's
// configuration; `issue_config` says whether this run is it. Rounds and bytes hold
// whatever n.
json check_targets(const context& ctx) {
  const config& c = ctx.cfg;
  json targets = json::array();
  const bool issue_config = world_size == 4 && c.n_per_process == (std::int64_t{1} << (c.cuda ? 26 : 22));
  auto add = [&](const std::string& target, const json& r, double value, double limit, bool at_most,
                 bool config_bound) {
    const bool met = at_most ? value <= limit : value >= limit;
    json t = {{"target", target}, {"dtype", r["dtype"]}, {"dist", r["dist"]}, {"op", r["op"]},
              {"algo", r["algo"]},   {"value", value},     {"limit", limit},   {"met", met}};
    if (config_bound) t["issue_configuration"] = issue_config;
    targets.push_back(t);
  };
  const std::string time_target = c.cuda ? "101 percentiles <= 3 ms (issue: 4 processes x 2^26 float32 on one H100)"
                                         : "101 percentiles <= 2000 ms (issue: 4 CPU processes x 2^22 float32, 2-core CI machine)";
  const std::string sort_target = "101 percentiles >= 20x faster than Sort&Choose in the same run (GPU)";
  const std::string rounds4 = "uniform, normal, clustered: <= 4 rounds";
  const std::string rounds2 = "all-equal, 16 distinct values: <= 2 rounds";
  const std::string bytes = "bytes sent per process per call <= 1 MiB (max over processes)";
  // Issue 26: one GPU per process, 2^28 float32 each: 101 percentiles <= 1.5 ms on
  // 4 GPUs and <= 1.2 ms on 2, over either transport.
  const bool multigpu = c.cuda && ctx.gpu_per_process && world_size > 1;
  const std::string multigpu_target = world_size == 2 ? "101 percentiles <= 1.2 ms (issue 26: 2 GPUs, 2^28 float32 each)"
                                                      : "101 percentiles <= 1.5 ms (issue 26: 4 GPUs, 2^28 float32 each)";
  if (multigpu) {
    for (const json& r : ctx.results) {
      if (r.contains("skipped") || (r["algo"] != "dibms" && r["algo"] != "dibms+nccl")) continue;
      if (r["op"] != "percentiles101" || r["dtype"] != "float32") continue;
      json t = {{"target", multigpu_target}, {"dtype", r["dtype"]}, {"dist", r["dist"]}, {"op", r["op"]},
                {"algo", r["algo"]}, {"value", r["ms"]}, {"limit", world_size == 2 ? 1.2 : 1.5},
                {"met", r["ms"].get<double>() <= (world_size == 2 ? 1.2 : 1.5)},
                {"issue_configuration", (world_size == 2 || world_size == 4) && c.n_per_process == (std::int64_t{1} << 28)}};
      targets.push_back(t);
    }
  }
  for (const std::string& target : {time_target, sort_target, rounds4, rounds2, bytes}) {
    for (const json& r : ctx.results) {
      if (r.contains("skipped") || (r["algo"] != "dibms" && r["algo"] != "dibms+nccl")) continue;
      const std::string dist_name = r["dist"], op = r["op"];
      const bool percentiles32 = op == "percentiles101" && r["dtype"] == "float32";
      if (target == time_target && percentiles32 && !multigpu) add(target, r, r["ms"], c.cuda ? 3.0 : 2000.0, true, true);
      if (target == sort_target && percentiles32 && c.cuda && r.contains("sort_over_this"))
        add(target, r, r["sort_over_this"], 20.0, false, true);
      if (target == rounds4 && (dist_name == "uniform" || dist_name == "normal" || dist_name == "clustered"))
        add(target, r, r["rounds"], 4, true, false);
      if (target == rounds2 && (dist_name == "all_equal" || dist_name == "sixteen_values"))
        add(target, r, r["rounds"], 2, true, false);
      if (target == bytes) add(target, r, r["bytes_sent_max"], 1 << 20, true, false);
    }
  }
  return targets;
}

void print_targets(const context& ctx, const json& targets) {
  if (world_rank != 0 || targets.empty()) return;
  const config& c = ctx.cfg;
  std::printf("\n== issue 23 and 26 targets, on the DIBMS rows (this run: %d processes x %" PRId64 " keys on %s)\n",
              world_size, c.n_per_process, c.cuda ? ctx.device.name.c_str() : "the CPU");
  std::string last;
  for (const json& t : targets) {
    const std::string target = t["target"];
    if (target != last) {
      std::printf("%s%s\n", target.c_str(),
                  t.contains("issue_configuration") && !t["issue_configuration"].get<bool>()
                      ? "  [not the issue's configuration: for information]"
                      : "");
      last = target;
    }
    const double v = t["value"];
    char value[32];
    if (v == std::floor(v) && std::fabs(v) < 1e15) std::snprintf(value, sizeof value, "%.0f", v);
    else std::snprintf(value, sizeof value, "%.3f", v);
    std::printf("  %-8s %-15s %-15s %12s  %s\n", t["dtype"].get<std::string>().c_str(),
                t["dist"].get<std::string>().c_str(), t["op"].get<std::string>().c_str(), value,
                t["met"].get<bool>() ? "met" : "MISSED");
  }
}

int run(int argc, char** argv) {
  context ctx;
  ctx.cfg = parse(argc, argv);
  const config& c = ctx.cfg;
  // The JSON file's folder must be writable before hours of measuring, not after.
  if (!c.json_path.empty()) {
    int writable = 1;
    if (world_rank == 0) {
      const std::size_t slash = c.json_path.find_last_of('/');
      const std::string folder = slash == std::string::npos ? "." : c.json_path.substr(0, std::max<std::size_t>(slash, 1));
      writable = access(folder.c_str(), W_OK) == 0 ? 1 : 0;
    }
    MPI_Bcast(&writable, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (!writable) bad_usage("--json " + c.json_path + ": its folder does not exist or is not writable");
  }

  MPI_Comm node;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, world_rank, MPI_INFO_NULL, &node);
  MPI_Comm_rank(node, &ctx.local_rank);
  MPI_Comm_size(node, &ctx.local_size);
  MPI_Comm_free(&node);
  const int leader = ctx.local_rank == 0 ? 1 : 0;
  MPI_Allreduce(&leader, &ctx.nodes, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);

  ctx.host_cores = std::max(1u, std::thread::hardware_concurrency());
  ctx.threads = c.threads > 0 ? c.threads : std::max(1, ctx.host_cores / ctx.local_size);
  ctx.single_threads = c.single_threads > 0 ? c.single_threads : ctx.host_cores;

  // The GPU, before anything is timed (a failure here is every process's: exit 2).
  std::string bind_error;
  if (c.cuda) {
    try {
      ctx.device = gpu::bind(ctx.local_rank);
      ctx.stream = gpu::create_stream();
    } catch (const std::exception& e) {
      bind_error = e.what();
    }
  }
  {
    const int mine = bind_error.empty() ? 0 : 1;
    int any = 0;
    MPI_Allreduce(&mine, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (any) {
      if (mine) std::fprintf(stderr, "%s: process %d: %s\n", program, world_rank, bind_error.c_str());
      MPI_Finalize();
      std::exit(2);
    }
  }

  char host[256] = {};
  gethostname(host, sizeof host - 1);
  const std::vector<std::string> hosts = gather_strings(host);
  const std::vector<std::string> devices =
      gather_strings(c.cuda ? std::to_string(ctx.device.ordinal) + " " + ctx.device.pci_bus_id : "");
  if (world_rank == 0 && c.cuda) {
    std::vector<std::string> sorted_devices = devices;
    for (std::size_t p = 0; p < sorted_devices.size(); ++p) sorted_devices[p] = hosts[p] + " " + sorted_devices[p];
    std::sort(sorted_devices.begin(), sorted_devices.end());
    ctx.gpu_per_process = std::adjacent_find(sorted_devices.begin(), sorted_devices.end()) == sorted_devices.end();
  }
  const std::vector<int> affinity = gather_to_root(affinity_cpus(), MPI_INT);
  char mpi_version[MPI_MAX_LIBRARY_VERSION_STRING] = {};
  int mpi_version_len = 0;
  MPI_Get_library_version(mpi_version, &mpi_version_len);
  mpi_version[MPI_MAX_LIBRARY_VERSION_STRING - 1] = '\0';

  json meta;
  if (world_rank == 0) {
    const std::string date = utc_date();
    meta = {{"bench", program},
            {"date", date},
            {"commit", c.commit},
            {"commit_source", c.commit_source},
            {"side", c.cuda ? "cuda" : "cpu"},
            {"processes", world_size},
            {"nodes", ctx.nodes},
            {"processes_per_node", ctx.local_size},
            {"hosts", hosts},
            {"n_per_process", c.n_per_process},
            {"global_n", c.n_per_process * world_size},
            {"repeats", c.repeats},
            {"warmup", c.warmup},
            {"seed", c.seed},
            {"host_cores", ctx.host_cores},
            {"cpu", cpu_model()},
            {"threads_per_process", ctx.threads},
            {"single_process_threads", ctx.single_threads},
            {"affinity_cpus_per_process", affinity},
            {"env", {{"OMP_NUM_THREADS", env_or("OMP_NUM_THREADS", "")},
                     {"OMP_WAIT_POLICY", env_or("OMP_WAIT_POLICY", "")},
                     {"OMP_PROC_BIND", env_or("OMP_PROC_BIND", "")},
                     {"CUDA_MPS_PIPE_DIRECTORY", env_or("CUDA_MPS_PIPE_DIRECTORY", "")}}},
            {"mpi_library", std::string(mpi_version)},
            {"sort_max_n", c.sort_max_n},
            {"topk_k", c.topk_k},
            {"mpi_options", {{"buckets", c.buckets > 0 ? c.buckets : kselect::mpi::options{}.buckets},
                             {"gather_keys", c.gather_keys >= 0 ? c.gather_keys : kselect::mpi::options{}.gather_keys},
                             {"sample_size", kselect::mpi::options{}.sample_size},
                             {"pivot_intervals", kselect::mpi::options{}.pivot_intervals},
                             {"root", -1}}}};
    if (c.cuda) {
      meta["device"] = ctx.device.name;
      meta["device_count"] = ctx.device.count;
      meta["device_memory_bytes"] = ctx.device.memory_bytes;
      meta["compute_capability"] = std::to_string(ctx.device.major) + "." + std::to_string(ctx.device.minor);
      meta["cuda_runtime"] = ctx.device.runtime_version;
      meta["cuda_driver"] = ctx.device.driver_version;
      meta["process_devices"] = devices;
    } else {
      meta["device"] = "cpu";
    }
    std::printf("%s  %s  commit %s\n", program, date.c_str(), c.commit.c_str());
    if (c.cuda)
      std::printf("device: %s (%d GPU(s) visible; process -> device: local rank modulo the count)\n",
                  ctx.device.name.c_str(), ctx.device.count);
    std::printf("processes: %d on %d host(s) (%s), %d per host; host cores %d (%s)\n", world_size, ctx.nodes,
                hosts[0].c_str(), ctx.local_size, ctx.host_cores, meta["cpu"].get<std::string>().c_str());
    std::printf("CPU threads per process: %d (options.local.cpu_threads%s); single-process call: %d threads\n",
                ctx.threads, c.threads > 0 ? ", --threads" : " = max(1, host cores / processes on the host)",
                ctx.single_threads);
    for (int p = 0; p < world_size; ++p)
      if (affinity[static_cast<std::size_t>(p)] >= 0 && affinity[static_cast<std::size_t>(p)] < ctx.threads)
        std::printf("note: process %d may run on only %d CPU(s) (its affinity mask; mpirun --bind-to none frees it)\n", p,
                    affinity[static_cast<std::size_t>(p)]);
    if (!c.cuda && env_or("OMP_WAIT_POLICY", "").empty() && ctx.threads * ctx.local_size > 1)
      std::printf("note: OMP_WAIT_POLICY is unset: idle OpenMP threads spin and take cores from the other processes\n");
    std::printf("MPI: %s\n", std::string(mpi_version).substr(0, std::string(mpi_version).find('\n')).c_str());
    std::printf("timing: the call's time = max over processes of the wall clock after a barrier; median (min) of %d "
                "calls after %d warm-up; every answer checked against the single-process call on the whole data\n",
                c.repeats, c.warmup);
    std::fflush(stdout);
  }

  for (const std::string& dtype : c.dtypes)
    for (const dist d : c.dists) {
      if (dtype == "float32") run_dist<float>(ctx, dtype, d);
      else run_dist<double>(ctx, dtype, d);
    }

  const json targets = check_targets(ctx);
  print_targets(ctx, targets);
  int status = 0;
  if (world_rank == 0 && !c.json_path.empty()) {
    meta["results"] = ctx.results;
    meta["floors"] = ctx.floors;
    meta["targets"] = targets;
    std::ofstream out(c.json_path);
    out << meta.dump(2) << "\n";
    if (!out.flush()) {
      std::fprintf(stderr, "%s: cannot write %s\n", program, c.json_path.c_str());
      status = 1;
    } else {
      std::printf("\nJSON: %s\n", c.json_path.c_str());
    }
  }
  if (c.cuda) gpu::destroy_stream(ctx.stream);
  MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
  return status;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &world_size);
  int status = 1;
  try {
    status = run(argc, argv);
  } catch (const std::exception& e) {
    // A kselect::error or a CUDA failure may be one process's only: the others may be
    // inside a collective, so end the whole job.
    std::fprintf(stderr, "%s: process %d: %s\n", program, world_rank, e.what());
    std::fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  MPI_Finalize();
  return status;
}
