// kselect-cpu-bench: the CPU backend against the standard library and the machine's
// read bandwidth, in one run.
//   read floor      : one parallel pass (min and sum of the bits) over the input,
//                     all threads: the memory-bandwidth floor, as ms and GB/s
//   select n/2      : kselect::cpu::multiselect, one rank (all threads)
//   percentiles     : kselect::cpu::multiselect of the ranks np.percentile reads for
//                     0, 1, ..., 100 (method "linear": floor and ceil of (n-1) p / 100)
//   nth_element     : std::nth_element(n/2) on a copy (serial; the copy is not timed)
//   sort            : std::sort of a copy (serial; skipped above --sort-max-log2n)
// Each figure is the median of --runs timed runs after one untimed warm-up run;
// min and max are reported too. The input is generated (tests/common/generate.hpp,
// the test suites' distributions) and touched before any timing, so no run reads
// fresh zero pages. Results are checked against std::nth_element / std::sort.
// bench/python/cpu_numpy_bench.py runs this and times NumPy on the same data
// (--save-npy) in the same run.
//
// usage: kselect-cpu-bench [--log2n 20,24,26] [--n N,...] [--dists uniform,normal,...]
//                          [--dtypes float32,...] [--runs 10] [--threads T]
//                          [--sort-max-log2n 26] [--std-max-log2n 28] [--json FILE]
//                          [--save-npy DIR] [--no-std]
#include <omp.h>

#include <algorithm>
#include <bit>
#include <chrono>
#include <cinttypes>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <limits>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "common/generate.hpp"
#include "common/reference.hpp"
#include "cpu/cpu_select.hpp"
#include "harness/wall_timing.hpp"
#if __has_include("cpu/isa.hpp")  // absent in versions before the SIMD kernels
#include "cpu/isa.hpp"
#define KSELECT_HAS_ISA 1
#endif

namespace {

using kselect::test::dist;

using kselect::bench::timing;

// `runs` timed calls of `timed` after one untimed warm-up (caches, pages and the
// thread pool); `prepare` runs untimed before each call.
timing time_runs(int runs, const std::function<void()>& prepare, const std::function<void()>& timed) {
  return kselect::bench::time_wall(runs, 1, prepare, timed);
}

// One pass over the input's bits with all threads (min and sum, which the compiler
// vectorises): what reading the input once costs on this machine. Cloned for the
// wider vector units so that it stays memory-bound where the bandwidth is high.
#define KSELECT_READ_FLOOR(U)                                                                                          \
  __attribute__((target_clones("avx512f", "avx2", "default"))) std::uint64_t read_floor(const U* bits, std::int64_t n, \
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
KSELECT_READ_FLOOR(std::uint32_t)
KSELECT_READ_FLOOR(std::uint64_t)
#undef KSELECT_READ_FLOOR

struct row {
  std::string dtype, dist, op;
  std::int64_t n;
  timing t;
  double gbps = 0;  // read floor only
};

std::string json_escape(const std::string& s) {
  std::string out;
  for (const char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out;
}

std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("model name", 0) == 0) return line.substr(line.find(':') + 2);
  return "unknown";
}

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> v;
  std::stringstream in(s);
  std::string item;
  while (std::getline(in, item, ',')) v.push_back(item);
  return v;
}

[[noreturn]] void fail(const std::string& what) {
  std::fprintf(stderr, "kselect-cpu-bench: %s\n", what.c_str());
  std::exit(1);
}

dist dist_of(const std::string& name) {
  for (const dist d : kselect::test::all_dists())
    if (kselect::test::name(d) == name) return d;
  fail("unknown distribution '" + name + "'");
}

// The ranks np.percentile(a, range(101)) reads (method "linear").
std::vector<std::int64_t> percentile_ranks(std::int64_t n) {
  std::vector<std::int64_t> r;
  for (int p = 0; p <= 100; ++p) {
    const long double h = static_cast<long double>(n - 1) * p / 100;
    r.push_back(static_cast<std::int64_t>(std::floor(h)));
    r.push_back(static_cast<std::int64_t>(std::ceil(h)));
  }
  std::sort(r.begin(), r.end());
  r.erase(std::unique(r.begin(), r.end()), r.end());
  return r;
}

// A .npy file of the values (format 1.0, little-endian, C order).
template <class T>
void save_npy(const std::string& path, const std::vector<T>& v) {
  const char* descr = std::is_same_v<T, float>           ? "<f4"
                      : std::is_same_v<T, double>        ? "<f8"
                      : std::is_same_v<T, std::int32_t>  ? "<i4"
                      : std::is_same_v<T, std::uint32_t> ? "<u4"
                      : std::is_same_v<T, std::int64_t>  ? "<i8"
                                                         : "<u8";
  std::string header =
      std::string("{'descr': '") + descr + "', 'fortran_order': False, 'shape': (" + std::to_string(v.size()) + ",), }";
  while ((10 + header.size() + 1) % 64 != 0) header += ' ';
  header += '\n';
  std::ofstream out(path, std::ios::binary);
  out.write("\x93NUMPY\x01\x00", 8);
  const auto len = static_cast<std::uint16_t>(header.size());
  const char len_bytes[2] = {static_cast<char>(len & 0xff), static_cast<char>(len >> 8)};
  out.write(len_bytes, 2);
  out.write(header.data(), static_cast<std::streamsize>(header.size()));
  out.write(reinterpret_cast<const char*>(v.data()), static_cast<std::streamsize>(v.size() * sizeof(T)));
  if (!out) fail("cannot write " + path);
}

struct options {
  std::vector<std::int64_t> sizes;
  std::vector<std::string> dists = {"uniform", "normal", "sorted", "sixteen_values"};
  std::vector<std::string> dtypes = {"float32"};
  int runs = 10;
  int threads = 0;
  int sort_max_log2n = 26;
  int std_max_log2n = 28;
  bool run_std = true;
  std::string json, npy_dir;
};

template <class T>
void bench_case(const options& opt, const std::string& dtype, const std::string& dname, std::int64_t n,
                std::vector<row>& rows) {
  const dist d = dist_of(dname);
  const int threads = opt.threads > 0 ? opt.threads : omp_get_max_threads();
  std::vector<T> values = kselect::test::generate<T>(d, n, 2024);
  if (!opt.npy_dir.empty())
    save_npy(opt.npy_dir + "/" + dtype + "_" + dname + "_" + std::to_string(n) + ".npy", values);
  auto add = [&](const std::string& op, timing t, double gbps = 0) {
    rows.push_back({dtype, dname, op, n, t, gbps});
    std::printf("%-8s %-15s %13" PRId64 "  %-12s %10.3f %10.3f %10.3f", dtype.c_str(), dname.c_str(), n, op.c_str(),
                t.median_ms, t.min_ms, t.max_ms);
    if (gbps > 0) std::printf("  %6.1f GB/s", gbps);
    std::printf("\n");
    std::fflush(stdout);
  };
  const auto nothing = [] {};
  using U = std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>;
  volatile std::uint64_t sink = 0;
  const timing floor = time_runs(
      opt.runs, nothing, [&] { sink = sink + read_floor(reinterpret_cast<const U*>(values.data()), n, threads); });
  add("read_floor", floor, static_cast<double>(n) * sizeof(T) / (floor.median_ms * 1e6));

  const std::int64_t k = n / 2;
  T median{};
  add("select_n/2",
      time_runs(opt.runs, nothing, [&] { kselect::cpu::multiselect(values.data(), n, &k, 1, &median, threads); }));
  const std::vector<std::int64_t> ranks = percentile_ranks(n);
  std::vector<T> pct(ranks.size());
  add("percentiles", time_runs(opt.runs, nothing, [&] {
        kselect::cpu::multiselect(values.data(), n, ranks.data(), static_cast<std::int64_t>(ranks.size()), pct.data(),
                                  threads);
      }));

  const int lg = static_cast<int>(std::bit_width(static_cast<std::uint64_t>(n)) - 1);
  if (!opt.run_std || lg > opt.std_max_log2n) return;
  std::vector<T> copy(values.size());
  const auto fresh = [&] { std::copy(values.begin(), values.end(), copy.begin()); };
  const auto less = [](T a, T b) { return kselect::test::nan_last_less(a, b); };
  add("nth_element",
      time_runs(opt.runs, fresh, [&] { std::nth_element(copy.begin(), copy.begin() + k, copy.end(), less); }));
  if (!kselect::test::same_value(median, copy[static_cast<std::size_t>(k)]))
    fail("select differs from std::nth_element");
  if (lg <= opt.sort_max_log2n) {
    add("sort", time_runs(std::min(opt.runs, 5), fresh, [&] { std::sort(copy.begin(), copy.end(), less); }));
    for (std::size_t i = 0; i < ranks.size(); ++i)
      if (!kselect::test::same_value(pct[i], copy[static_cast<std::size_t>(ranks[i])]))
        fail("percentiles differ from std::sort");
  }
}

}  // namespace

int main(int argc, char** argv) {
  options opt;
  std::vector<int> log2n = {20, 24, 26};
  std::vector<std::int64_t> extra;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const bool has = i + 1 < argc;
    if (a == "--log2n" && has) {
      log2n.clear();
      for (const std::string& s : split(argv[++i])) log2n.push_back(std::atoi(s.c_str()));
    } else if (a == "--n" && has) {
      for (const std::string& s : split(argv[++i])) extra.push_back(std::atoll(s.c_str()));
    } else if (a == "--dists" && has) {
      opt.dists = split(argv[++i]);
    } else if (a == "--dtypes" && has) {
      opt.dtypes = split(argv[++i]);
    } else if (a == "--runs" && has) {
      opt.runs = std::max(1, std::atoi(argv[++i]));
    } else if (a == "--threads" && has) {
      opt.threads = std::atoi(argv[++i]);
    } else if (a == "--sort-max-log2n" && has) {
      opt.sort_max_log2n = std::atoi(argv[++i]);
    } else if (a == "--std-max-log2n" && has) {
      opt.std_max_log2n = std::atoi(argv[++i]);
    } else if (a == "--json" && has) {
      opt.json = argv[++i];
    } else if (a == "--save-npy" && has) {
      opt.npy_dir = argv[++i];
    } else if (a == "--no-std") {
      opt.run_std = false;
    } else {
      std::fprintf(stderr,
                   "usage: %s [--log2n 20,24,26] [--n N,...] [--dists uniform,normal,sorted,sixteen_values]\n"
                   "       [--dtypes float32,float64,int32,uint32,int64,uint64] [--runs 10] [--threads T]\n"
                   "       [--sort-max-log2n 26] [--std-max-log2n 28] [--json FILE] [--save-npy DIR] [--no-std]\n",
                   argv[0]);
      return 2;
    }
  }
  for (const int lg : log2n) opt.sizes.push_back(std::int64_t{1} << lg);
  opt.sizes.insert(opt.sizes.end(), extra.begin(), extra.end());
  const int threads = opt.threads > 0 ? opt.threads : omp_get_max_threads();
#ifdef KSELECT_HAS_ISA
  const char* isa = kselect::cpu::isa_name(kselect::cpu::resolve_isa(kselect::cpu::isa::best));
#else
  const char* isa = "none";
#endif
  std::printf("%s, %d threads, kernels %s; median / min / max ms of %d runs; std:: serial\n", cpu_model().c_str(),
              threads, isa, opt.runs);
  std::printf("%-8s %-15s %13s  %-12s %10s %10s %10s\n", "dtype", "dist", "n", "op", "median", "min", "max");

  std::vector<row> rows;
  for (const std::int64_t n : opt.sizes)
    for (const std::string& dt : opt.dtypes)
      for (const std::string& dn : opt.dists) {
        if (dt == "float32")
          bench_case<float>(opt, dt, dn, n, rows);
        else if (dt == "float64")
          bench_case<double>(opt, dt, dn, n, rows);
        else if (dt == "int32")
          bench_case<std::int32_t>(opt, dt, dn, n, rows);
        else if (dt == "uint32")
          bench_case<std::uint32_t>(opt, dt, dn, n, rows);
        else if (dt == "int64")
          bench_case<std::int64_t>(opt, dt, dn, n, rows);
        else if (dt == "uint64")
          bench_case<std::uint64_t>(opt, dt, dn, n, rows);
        else
          fail("unknown dtype '" + dt + "'");
      }

  if (!opt.json.empty()) {
    std::ofstream out(opt.json);
    out << "{\n  \"tool\": \"kselect-cpu-bench\",\n  \"cpu\": \"" << json_escape(cpu_model())
        << "\",\n  \"threads\": " << threads << ",\n  \"kernels\": \"" << isa << "\",\n  \"runs\": " << opt.runs
        << ",\n  \"results\": [\n";
    for (std::size_t i = 0; i < rows.size(); ++i) {
      const row& r = rows[i];
      char buf[512];
      std::snprintf(buf, sizeof buf,
                    "    {\"impl\": \"%s\", \"op\": \"%s\", \"dtype\": \"%s\", \"dist\": \"%s\", \"n\": %" PRId64
                    ", \"median_ms\": %.4f, \"min_ms\": %.4f, \"max_ms\": %.4f, \"runs\": %d%s}",
                    r.op == "nth_element" || r.op == "sort" ? "std"
                    : r.op == "read_floor"                  ? "floor"
                                                            : "kselect",
                    r.op.c_str(), r.dtype.c_str(), r.dist.c_str(), r.n, r.t.median_ms, r.t.min_ms, r.t.max_ms, r.t.runs,
                    r.gbps > 0 ? (", \"gb_per_s\": " + std::to_string(r.gbps)).c_str() : "");
      out << buf << (i + 1 < rows.size() ? ",\n" : "\n");
    }
    out << "  ]\n}\n";
    if (!out) fail("cannot write " + opt.json);
  }
  return 0;
}
