// GPU benchmark: kselect against the one-pass read floor (cub::DeviceReduce over the
// input) and against what a user would do instead (CUB radix sort, then index), all
// in the same run on the same inputs. CUDA events, warm-up, median of --reps runs;
// inputs smaller than ~200 MB rotate among copies so that L2 (50 MB) cannot hold them.
//
// Usage: kselect-gpu-bench [--json FILE] [--reps N] [--quick] [--only TYPE:LOG2N:DIST] [--topk] [--large]
// (--topk: only the top-k / rank-range benchmark, topk_bench.cu; --quick: floats at
// 2^28 only, doubles and top-k on uniform keys only; --large: also select k = n/2 of
// 2^31 + 12345 and 2^32 + 12345 uniform floats, without and with 1000 NaNs, which
// takes about 60 GB of device memory at 2^32). The command line, the timing, the
// floor and the JSON file: bench/harness.
#include <cub/device/device_radix_sort.cuh>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <type_traits>
#include <string>
#include <vector>

#include "common/device_data.cuh"
#include "harness/harness.hpp"
#include "topk_bench.hpp"
#include "kselect/device.hpp"

using kselect::test::cuda_check;
using kselect::test::device_buffer;
using kselect::test::device_dist;

namespace {

using kselect::bench::bench_options;
using kselect::bench::read_floor_ms;
using kselect::bench::time_median;

struct row {
  std::string type, dist, method;
  std::int64_t n, ranks;
  double ms, floor_ms, sort_ms;
  bool correct;
};

/// `count` NaNs spread evenly over v[0..n).
template <class T>
__global__ void plant_nans(T* v, std::int64_t n, std::int64_t count) {
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < count) v[i * (n / count)] = std::numeric_limits<T>::quiet_NaN();
}

/// One input's rows: `nans` NaNs planted in it (floating point only); select_only: the
/// first method alone (the inputs above 2^31 keys).
template <class T>
void bench_case(std::int64_t n, device_dist d, const bench_options& o, cudaStream_t stream, std::vector<row>& rows,
                const char* type_name, std::int64_t nans = 0, bool select_only = false) {
  if (!o.only.empty() && o.only != std::string(type_name) + ":" +
                                       std::to_string(static_cast<int>(std::log2(static_cast<double>(n)))) + ":" +
                                       kselect::test::device_dist_name(d))
    return;
  const std::string dist_name =
      std::string(kselect::test::device_dist_name(d)) + (nans > 0 ? "+" + std::to_string(nans) + "nan" : "");
  const std::size_t bytes = n * sizeof(T);
  const int copies = static_cast<int>(std::max<std::size_t>(1, (200u << 20) / bytes));
  std::vector<device_buffer<T>> data;
  for (int c = 0; c < copies; ++c) {
    data.emplace_back(n);
    kselect::test::generate_on_device<T>(data.back().data(), n, d, 1000 + c, stream);
    if constexpr (std::is_floating_point_v<T>) {
      if (nans > 0) {
        plant_nans<<<static_cast<unsigned>((nans + 255) / 256), 256, 0, stream>>>(data.back().data(), n, nans);
        cuda_check(cudaGetLastError(), "plant_nans");
      }
    }
  }
  cuda_check(cudaStreamSynchronize(stream), "generate");

  // Floor: one read of the input.
  const double floor_ms = read_floor_ms<T>(stream, copies, o, n, [&](int c) { return data[c].data(); });

  // Baseline: CUB radix sort of the keys, then the answer is sorted[k].
  device_buffer<T> sorted(n);
  std::size_t sort_bytes = 0;
  cuda_check(cub::DeviceRadixSort::SortKeys(nullptr, sort_bytes, data[0].data(), sorted.data(), n, 0,
                                            int(sizeof(T) * 8), stream),
             "sort query");
  device_buffer<char> sort_ws(sort_bytes);
  const double sort_ms = time_median(stream, copies, o, [&](int c) {
    std::size_t b = sort_bytes;
    cuda_check(cub::DeviceRadixSort::SortKeys(sort_ws.data(), b, data[c].data(), sorted.data(), n, 0,
                                              int(sizeof(T) * 8), stream),
               "sort");
  });
  // Sort copy 0 last so `sorted` checks our answers on copy 0.
  {
    std::size_t b = sort_bytes;
    cuda_check(cub::DeviceRadixSort::SortKeys(sort_ws.data(), b, data[0].data(), sorted.data(), n, 0,
                                              int(sizeof(T) * 8), stream),
               "sort");
  }

  struct method {
    const char* name;
    kselect::algorithm algo;
    bool percentiles;
  };
  const method methods[] = {{"select k=n/2", kselect::algorithm::automatic, false},
                            {"101 percentiles", kselect::algorithm::automatic, true},
                            {"sampleselect k=n/2", kselect::algorithm::sample_select, false},
                            {"sampleselect 101 pct", kselect::algorithm::sample_select, true}};
  for (const method& m : methods) {
    if (select_only && &m != &methods[0]) break;
    std::vector<std::int64_t> ranks;
    if (m.percentiles) {
      for (int p = 0; p <= 100; ++p) ranks.push_back(static_cast<std::int64_t>(p / 100.0 * (n - 1)));
      ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
    } else {
      ranks.push_back(n / 2);
    }
    kselect::device::select_config cfg;
    cfg.algo = m.algo;
    std::size_t ws_bytes = 0;
    const auto nr = static_cast<std::int64_t>(ranks.size());
    cuda_check(kselect::device::multiselect<T>(nullptr, ws_bytes, data[0].data(), nullptr, n, ranks.data(), nr,
                                               stream, cfg),
               "workspace query");
    device_buffer<char> ws(ws_bytes);
    device_buffer<T> out(ranks.size());
    const double ms = time_median(stream, copies, o, [&](int c) {
      cudaError_t st = kselect::device::multiselect<T>(ws.data(), ws_bytes, data[c].data(), out.data(), n,
                                                       ranks.data(), nr, stream, cfg);
      if (st != cudaSuccess) {
        std::fprintf(stderr, "kselect failed: %s %s\n", cudaGetErrorString(st), kselect::device::last_error_message());
        std::exit(1);
      }
    });
    cuda_check(kselect::device::multiselect<T>(ws.data(), ws_bytes, data[0].data(), out.data(), n, ranks.data(), nr,
                                               stream, cfg),
               "check run");
    cuda_check(cudaStreamSynchronize(stream), "sync");
    const std::vector<T> got = out.to_host();
    bool ok = true;
    for (std::size_t i = 0; i < ranks.size(); ++i) {
      T want;
      cuda_check(cudaMemcpy(&want, sorted.data() + ranks[i], sizeof(T), cudaMemcpyDeviceToHost), "read");
      ok = ok && (want == got[i] || (want != want && got[i] != got[i]));
    }
    rows.push_back({type_name, dist_name, m.name, n, nr, ms, floor_ms, sort_ms, ok});
    const row& r = rows.back();
    const int lg = static_cast<int>(std::log2(static_cast<double>(n)));
    std::printf("%-6s 2^%-3s %-15s %-21s %9.3f %9.3f %9.3f %8.2f %8.2f  %s\n", r.type.c_str(),
                (std::to_string(lg) + (n == std::int64_t(1) << lg ? "" : "+")).c_str(), r.dist.c_str(), r.method.c_str(), r.ms,
                r.floor_ms, r.sort_ms, r.ms / r.floor_ms, r.sort_ms / r.ms, r.correct ? "ok" : "WRONG");
    std::fflush(stdout);
  }
}

}  // namespace

int main(int argc, char** argv) {
  bench_options o;
  kselect::bench::arguments args("kselect-gpu-bench");
  args.value("--only", "TYPE:LOG2N:DIST", &o.only);
  args.flag("--topk", &o.topk_only);
  args.value("--topk-case", "DIST:CASE", &o.topk_case);
  bool large = false;
  args.flag("--large", &large);
  if (!args.parse(argc, argv, o)) return 2;
  if (!o.topk_case.empty()) o.topk_only = true;
  const kselect::bench::bench_device device("kselect-gpu-bench");
  if (!device.ok()) return 2;
  const cudaDeviceProp& prop = device.prop();
  const cudaStream_t stream = device.stream();

  std::printf("device: %s, %d SMs, L2 %d MB; median of %d runs after %d warm-up\n", prop.name,
              prop.multiProcessorCount, prop.l2CacheSize >> 20, o.reps, o.warmup);
  std::printf("%-6s %-5s %-15s %-21s %9s %9s %9s %8s %8s  %s\n", "type", "n", "dist", "method", "ours_ms",
              "floor_ms", "sort_ms", "ours/flr", "sort/ours", "check");
  std::vector<row> rows;
  const device_dist adversarial[] = {device_dist::all_equal, device_dist::sixteen_values, device_dist::sorted,
                                     device_dist::clustered};
  for (int lg : {24, 26, 28}) {
    if (o.quick && lg != 28) continue;
    if (o.topk_only) break;
    bench_case<float>(std::int64_t(1) << lg, device_dist::uniform, o, stream, rows, "float");
    if (lg == 28 || !o.quick)
      for (device_dist d : adversarial) bench_case<float>(std::int64_t(1) << lg, d, o, stream, rows, "float");
  }
  if (!o.topk_only) bench_case<double>(std::int64_t(1) << 27, device_dist::uniform, o, stream, rows, "double");
  if (!o.quick && !o.topk_only)
    for (device_dist d : adversarial) bench_case<double>(std::int64_t(1) << 27, d, o, stream, rows, "double");
  // Above 2^31 and 2^32 keys (64-bit sizes and positions), the tool's row of issue 25.
  if (large && !o.topk_only)
    for (int lg : {31, 32})
      for (std::int64_t nans : {0, 1000})
        bench_case<float>((std::int64_t(1) << lg) + 12345, device_dist::uniform, o, stream, rows, "float", nans,
                          /*select_only=*/true);

  std::printf("\n");
  nlohmann::json topk_rows = nlohmann::json::array();
  const bool topk_ok = kselect::bench::run_topk_benchmarks(o, stream, topk_rows);
  if (!o.json_path.empty()) {
    nlohmann::json j;
    j["topk"] = topk_rows;
    j["device"] = prop.name;
    j["date"] = kselect::bench::utc_date();
    j["reps"] = o.reps;
    j["timing"] = "CUDA events around each call on one stream, median after warm-up";
    for (const row& r : rows)
      j["results"].push_back({{"type", r.type}, {"dist", r.dist}, {"method", r.method}, {"n", r.n},
                              {"ranks", r.ranks}, {"ours_ms", r.ms}, {"floor_ms", r.floor_ms},
                              {"cub_sort_ms", r.sort_ms}, {"correct", r.correct}});
    if (!kselect::bench::write_json(o.json_path, j)) return 1;
  }
  bool all_ok = topk_ok;
  for (const row& r : rows) all_ok = all_ok && r.correct;
  return all_ok ? 0 : 1;
}
