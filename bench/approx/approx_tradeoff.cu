// Approximate selection: the error/throughput trade-off of
// device::approx_multiselect (the paper's figure 10, for this implementation),
// against the one-read floor (cub::DeviceReduce::Sum over the input) and exact
// selection (device::select for one rank, device::multiselect for 101
// percentiles), in one run on the same inputs.
//
// For 2^28 floats (uniform in [0, 1), normal), ranks {n/2} and 101 percentiles,
// buckets 128 .. 4096:
//   - max_rank_error = n: one counting pass, never the exact fallback; the time,
//     and the largest |r - r'| / n observed;
//   - max_rank_error = 0.1% of n: the time with the verdicts read back and any
//     rank left too far selected exactly.
// Both in the histogram mode (splitters over the whole sample: approx_config
// window = false). For the single rank also the narrow-window mode (window =
// true, the default; docs/algorithms.md), at bounds n, 0.1% and 0.01% of n:
// its splitters are packed around the rank, buckets - 1 at most (the
// "candidates" column: how many the plan takes), and keys outside the window
// are only counted.
// Every answer is checked against a CUB radix sort of the input: the value is
// what the sorted array holds at the reported rank, within the bound.
// CUDA events, 3 warm-ups, median of --reps (15) runs.
//
// Usage: kselect-approx-bench [--json FILE] [--reps N] [--log2n K] [--quick]
//   --quick: buckets 1024 and 4096 only.
// The command line, the timing, the floor and the JSON file: bench/harness.
#include <cub/device/device_radix_sort.cuh>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "common/device_data.cuh"
#include "harness/harness.hpp"
#include "kselect/device.hpp"
#include "core/approx.hpp"

using kselect::bench::check_call;
using kselect::bench::time_median;
using kselect::test::cuda_check;
using kselect::test::device_buffer;
using kselect::test::device_dist;

namespace {

/// kselect-approx-bench's options: the harness's and its own.
struct bench_options : kselect::bench::run_options {
  int log2n = 28;
};

struct row {
  std::string dist, ranks, method;
  int buckets;               ///< 0 for the floor and exact selection
  int candidates;            ///< splitter candidates the plan takes (0: not approximate)
  std::int64_t bound;        ///< max_rank_error (-1: not approximate)
  double ms, floor_ms;
  double max_error_fraction; ///< largest |r - r'| / n observed (0 for exact)
  bool correct;
};

/// Checks answers against the sorted input (device) and returns the largest |r - r'|.
template <class T>
bool check_answers(const device_buffer<T>& sorted, const std::vector<std::int64_t>& ranks, const std::vector<T>& got,
                   const std::vector<std::int64_t>& got_ranks, std::int64_t bound, std::int64_t& max_error) {
  bool ok = true;
  max_error = 0;
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    const std::int64_t at = got_ranks[i];
    if (at < 0 || at >= static_cast<std::int64_t>(sorted.size())) return false;
    T want;
    cuda_check(cudaMemcpy(&want, sorted.data() + at, sizeof(T), cudaMemcpyDeviceToHost), "read sorted");
    const std::int64_t err = std::llabs(ranks[i] - at);
    max_error = std::max(max_error, err);
    ok = ok && err <= bound && (want == got[i] || (want != want && got[i] != got[i]));
  }
  return ok;
}

void bench_dist(device_dist d, const bench_options& o, cudaStream_t stream, std::vector<row>& rows) {
  using T = float;
  const std::int64_t n = std::int64_t(1) << o.log2n;
  device_buffer<T> data(static_cast<std::size_t>(n));
  kselect::test::generate_on_device<T>(data.data(), n, d, 1000, stream);
  cuda_check(cudaStreamSynchronize(stream), "generate");
  const std::string dist = kselect::test::device_dist_name(d);

  // Floor: one read of the input.
  const double floor_ms = kselect::bench::read_floor_ms<T>(stream, 1, o, n, [&](int) { return data.data(); });

  // The sorted input, to check every answer (not timed).
  device_buffer<T> sorted(static_cast<std::size_t>(n));
  {
    std::size_t sort_bytes = 0;
    cuda_check(cub::DeviceRadixSort::SortKeys(nullptr, sort_bytes, data.data(), sorted.data(), n, 0, 32, stream),
               "sort query");
    device_buffer<char> sort_ws(sort_bytes);
    cuda_check(cub::DeviceRadixSort::SortKeys(sort_ws.data(), sort_bytes, data.data(), sorted.data(), n, 0, 32, stream),
               "sort");
    cuda_check(cudaStreamSynchronize(stream), "sort");
  }

  auto print = [](const row& r) {
    std::printf("%-7s %-16s %-30s %7d %10d %12lld %9.3f %8.2f %12.6f  %s\n", r.dist.c_str(), r.ranks.c_str(),
                r.method.c_str(), r.buckets, r.candidates, static_cast<long long>(r.bound), r.ms, r.ms / r.floor_ms,
                r.max_error_fraction, r.correct ? "ok" : "WRONG");
    std::fflush(stdout);
  };
  rows.push_back({dist, "-", "floor (DeviceReduce)", 0, 0, -1, floor_ms, floor_ms, 0.0, true});
  print(rows.back());

  std::vector<int> bucket_counts = {128, 256, 512, 1024, 2048, 4096};
  if (o.quick) bucket_counts = {1024, 4096};
  for (const bool percentiles : {false, true}) {
    std::vector<std::int64_t> ranks;
    if (percentiles) {
      for (int p = 0; p <= 100; ++p) ranks.push_back((n - 1) * p / 100);
    } else {
      ranks.push_back(n / 2);
    }
    const auto nr = static_cast<std::int64_t>(ranks.size());
    const std::string rank_name = percentiles ? "101 percentiles" : "k = n/2";
    device_buffer<T> out(ranks.size());
    device_buffer<std::int64_t> out_ranks(ranks.size());

    // Exact selection.
    {
      std::size_t ws_bytes = 0;
      check_call(kselect::device::multiselect<T>(nullptr, ws_bytes, data.data(), nullptr, n, ranks.data(), nr, stream),
                 "exact query");
      device_buffer<char> ws(ws_bytes);
      const double ms = time_median(stream, o, [&] {
        if (percentiles)
          check_call(kselect::device::multiselect<T>(ws.data(), ws_bytes, data.data(), out.data(), n, ranks.data(),
                                                     nr, stream),
                     "exact multiselect");
        else
          check_call(kselect::device::select<T>(ws.data(), ws_bytes, data.data(), out.data(), n, ranks[0], stream),
                     "exact select");
      });
      cuda_check(cudaStreamSynchronize(stream), "sync");
      std::int64_t max_error = 0;
      const bool ok = check_answers(sorted, ranks, out.to_host(), ranks, 0, max_error);
      rows.push_back({dist, rank_name, percentiles ? "exact multiselect" : "exact select", 0, 0, 0, ms, floor_ms,
                      0.0, ok});
      print(rows.back());
    }

    // Approximate: one pass (bound n), then the bound at 0.1% of n, in the
    // histogram mode; for the single rank also the window mode (and 0.01% of n).
    struct variant {
      bool window;
      std::int64_t bound;
      const char* method;
    };
    std::vector<variant> variants = {{false, n, "approx histogram, one pass"},
                                     {false, n / 1000, "approx histogram, err <= 0.1% n"}};
    if (!percentiles) {
      variants.push_back({true, n, "approx window, one pass"});
      variants.push_back({true, n / 1000, "approx window, err <= 0.1% n"});
      variants.push_back({true, n / 10000, "approx window, err <= 0.01% n"});
    }
    for (const int buckets : bucket_counts) {
      for (const variant& v : variants) {
        const std::int64_t bound = v.bound;
        kselect::device::approx_config cfg;
        cfg.buckets = buckets;
        cfg.window = v.window;
        const kselect::core::approx_candidates cand =
            kselect::core::approx_choose_candidates(n, ranks, bound, buckets, v.window);
        std::size_t ws_bytes = 0;
        check_call(kselect::device::approx_multiselect<T>(nullptr, ws_bytes, data.data(), nullptr, nullptr, n,
                                                          ranks.data(), nr, bound, stream, cfg),
                   "approx query");
        device_buffer<char> ws(ws_bytes);
        const double ms = time_median(stream, o, [&] {
          check_call(kselect::device::approx_multiselect<T>(ws.data(), ws_bytes, data.data(), out.data(),
                                                            out_ranks.data(), n, ranks.data(), nr, bound, stream,
                                                            cfg),
                     "approx_multiselect");
        });
        cuda_check(cudaStreamSynchronize(stream), "sync");
        std::int64_t max_error = 0;
        const bool ok = check_answers(sorted, ranks, out.to_host(), out_ranks.to_host(), bound, max_error);
        rows.push_back({dist, rank_name, v.method, buckets, cand.count, bound, ms, floor_ms,
                        static_cast<double>(max_error) / static_cast<double>(n), ok && cand.window == v.window});
        print(rows.back());
      }
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  bench_options o;
  kselect::bench::arguments args("kselect-approx-bench");
  args.value("--log2n", "K", &o.log2n, 10, 32);
  if (!args.parse(argc, argv, o)) return 2;
  const kselect::bench::bench_device device("kselect-approx-bench");
  if (!device.ok()) return 2;
  const cudaDeviceProp& prop = device.prop();
  const cudaStream_t stream = device.stream();
  std::printf("device: %s, %d SMs; float 2^%d; median of %d runs after %d warm-ups\n", prop.name,
              prop.multiProcessorCount, o.log2n, o.reps, o.warmup);
  std::printf("%-7s %-16s %-30s %7s %10s %12s %9s %8s %12s  %s\n", "dist", "ranks", "method", "buckets",
              "candidates", "bound", "ms", "x floor", "max err / n", "check");
  std::vector<row> rows;
  for (device_dist d : {device_dist::uniform, device_dist::normal}) bench_dist(d, o, stream, rows);

  bool all_ok = true;
  for (const row& r : rows) all_ok = all_ok && r.correct;
  if (!o.json_path.empty()) {
    nlohmann::json j;
    j["device"] = prop.name;
    j["sms"] = prop.multiProcessorCount;
    j["type"] = "float";
    j["n"] = std::int64_t(1) << o.log2n;
    j["reps"] = o.reps;
    j["warmup"] = o.warmup;
    j["rows"] = nlohmann::json::array();
    for (const row& r : rows)
      j["rows"].push_back({{"dist", r.dist},
                           {"ranks", r.ranks},
                           {"method", r.method},
                           {"buckets", r.buckets},
                           {"candidates", r.candidates},
                           {"max_rank_error", r.bound},
                           {"ms", r.ms},
                           {"floor_ms", r.floor_ms},
                           {"max_error_fraction", r.max_error_fraction},
                           {"correct", r.correct}});
    if (!kselect::bench::write_json(o.json_path, j)) return 1;
  }
  std::printf("%s\n", all_ok ? "all answers checked" : "WRONG ANSWERS");
  return all_ok ? 0 : 1;
}
