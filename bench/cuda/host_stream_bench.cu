// Selection over arrays in host memory, streamed through the GPU (issue 25: "data
// larger than the GPU": 2^34 float32, 64 GiB, reported against the pinned
// host-to-device bandwidth measured in the same run; target at least 70 % of it).
//
// In one run, for a host array of 2^LOG2N float32 (uniform in [0, 1), or normal):
//   - the copy engine's bandwidth from pinned memory (cudaMemcpyAsync of a 1 GiB
//     pinned buffer to the device) and from the pageable array itself (cudaMemcpy),
//     and the host threads' memcpy from the array into pinned memory: the floor of a
//     streamed pass is the array's bytes at the pinned bandwidth;
//   - kselect::select (n / 2), kselect::multiselect (101 percentiles' ranks) and
//     kselect::topk (the 2^LOG2K largest, with indices: one pass when the candidates
//     fit the device, else three) with options{device = cuda} on the pageable array:
//     the default device memory limit, and --limit-gib (a limit far below the array:
//     out of core);
//     The "ranks|k" column (the JSON's "ranks") holds k for topk.
//   - with --pinned, the same calls on a pinned copy of the array (the copy engine
//     reads it without staging); with --cpu, the CPU backend on the same array.
// Wall-clock time around each call (each synchronises and returns host results),
// warm-up, median of --reps runs. Checks: the percentiles ascend, top-k's indices
// ascend (the streamed and CPU top-k give index order) and point at their values, and
// every row of a call answers the same (pageable and pinned input, both limits, and the CPU backend
// with --cpu, which the test suites check against the sort-based reference).
//
// Usage: kselect-host-stream-bench [--json FILE] [--reps N] [--quick] [--log2n K] [--log2k LOG2K]
//                                  [--dist uniform|normal] [--limit-gib G] [--pinned] [--cpu]
// (--quick: 3 runs a row instead of --reps, a smoke test whose figures are not for
// the results.)
#include <cuda_runtime_api.h>
#include <omp.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "common/device_data.cuh"
#include "common/generate.hpp"
#include "cuda/streamed/chunk_pump.hpp"
#include "harness/harness.hpp"
#include "harness/wall_timing.hpp"
#include "kselect/kselect.hpp"

namespace {

using clock_type = std::chrono::steady_clock;

/// Median wall-clock milliseconds of fn over `reps` runs after `warmup`.
double wall_median_ms(int reps, int warmup, const std::function<void()>& fn) {
  return kselect::bench::time_wall(reps, warmup, [] {}, fn).median_ms;
}

struct row {
  std::string call, input, limit;
  std::int64_t n = 0, ranks = 0;
  double ms = 0, gbs = 0, of_pinned = 0;
  bool correct = false;
};

}  // namespace

int main(int argc, char** argv) {
  kselect::bench::run_options o;
  int log2n = 34, log2k = 20, limit_gib = 4;
  std::string dist_name = "uniform";
  bool pinned = false, cpu = false;
  kselect::bench::arguments args("kselect-host-stream-bench");
  args.value("--log2n", "K", &log2n, 10, 35);
  args.value("--log2k", "LOG2K", &log2k, 0, 34);
  args.value("--dist", "uniform|normal", &dist_name);
  args.value("--limit-gib", "G", &limit_gib, 1, 1024);
  args.flag("--pinned", &pinned);
  args.flag("--cpu", &cpu);
  if (!args.parse(argc, argv, o)) return 2;
  if (dist_name != "uniform" && dist_name != "normal") {
    std::fprintf(stderr, "%s\n", args.usage().c_str());
    return 2;
  }
  const kselect::bench::bench_device device("kselect-host-stream-bench");
  if (!device.ok()) return 2;
  const cudaDeviceProp& prop = device.prop();
  const cudaStream_t stream = device.stream();
  const std::int64_t n = std::int64_t{1} << log2n;
  const double gb = static_cast<double>(n) * sizeof(float) / 1e9;
  const int reps = o.quick ? 3 : std::max(o.reps, 3);  // each run reads the whole array from the host

  // The bandwidth anchors: 1 GiB (at most half the array) pinned -> device, pageable
  // -> device (from the array's middle half), host memcpy (from its second quarter on).
  const std::size_t probe = std::min(std::size_t{1} << 30, static_cast<std::size_t>(n) * sizeof(float) / 2);
  float* h_pinned_probe = nullptr;
  kselect::test::cuda_check(cudaMallocHost(&h_pinned_probe, probe), "cudaMallocHost");
  std::memset(h_pinned_probe, 1, probe);
  kselect::test::device_buffer<float> d_probe(probe / sizeof(float));
  const auto t0 = clock_type::now();
  const std::vector<float> values =
      kselect::test::generate<float>(dist_name == "uniform" ? kselect::test::dist::uniform : kselect::test::dist::normal,
                                     n, 2026);
  const double fill_s = std::chrono::duration<double>(clock_type::now() - t0).count();
  const auto copy_ms = [&](const void* src) {
    return wall_median_ms(10, 2, [&] {
      kselect::test::cuda_check(cudaMemcpyAsync(d_probe.data(), src, probe, cudaMemcpyHostToDevice, stream), "copy");
      kselect::test::cuda_check(cudaStreamSynchronize(stream), "copy");
    });
  };
  const double pinned_gbs = static_cast<double>(probe) / 1e6 / copy_ms(h_pinned_probe);
  const double pageable_gbs = static_cast<double>(probe) / 1e6 / copy_ms(values.data() + n / 4);
  const int threads = omp_get_max_threads();
  // The streamed pass's own staging copy (src/cuda/streamed/chunk_pump.hpp).
  const double memcpy_ms = wall_median_ms(
      10, 2, [&] { kselect::cuda_backend::parallel_copy(h_pinned_probe, values.data() + n / 4, probe, threads); });
  const double memcpy_gbs = static_cast<double>(probe) / 1e6 / memcpy_ms;
  const double floor_ms = gb * 1e3 / pinned_gbs;
  std::printf("device: %s, %d SMs; %s float32 n = 2^%d (%.1f GB) in host memory (filled in %.1f s), %d host threads\n",
              prop.name, prop.multiProcessorCount, dist_name.c_str(), log2n, gb, fill_s, threads);
  std::printf("host -> device: pinned %.1f GB/s, pageable %.1f GB/s; host memcpy into pinned %.1f GB/s\n", pinned_gbs,
              pageable_gbs, memcpy_gbs);
  std::printf("floor (the array once at the pinned bandwidth): %.1f ms; median of %d runs after 1 warm-up\n",
              floor_ms, reps);
  std::printf("%-12s %-9s %-10s %8s %10s %8s %10s  %s\n", "call", "input", "limit", "ranks|k", "ms", "GB/s",
              "of pinned", "check");

  std::vector<std::int64_t> percentile_ranks;
  for (int q = 0; q <= 100; ++q) percentile_ranks.push_back(static_cast<std::int64_t>((n - 1) * (q / 100.0)));
  percentile_ranks.erase(std::unique(percentile_ranks.begin(), percentile_ranks.end()), percentile_ranks.end());
  std::vector<row> rows;
  std::vector<std::vector<float>> answers;  // per row, to compare across rows
  const std::int64_t topk_k = std::min<std::int64_t>(n, std::int64_t{1} << log2k);
  const auto run = [&](const std::string& call, const std::string& input, const float* data, kselect::options opt,
                       const std::string& limit) {
    const std::vector<std::int64_t> ranks =
        call == "select" ? std::vector<std::int64_t>{n / 2} : percentile_ranks;
    std::vector<float> got;
    bool correct = true;
    double ms = 0;
    if (call == "topk") {
      kselect::selection<float> top;
      const kselect::topk_options largest{true, false, false, true};
      ms = wall_median_ms(reps, 1, [&] { top = kselect::topk(data, n, topk_k, largest, opt); });
      for (std::size_t i = 0; i < top.indices.size(); ++i)
        correct = correct && (i == 0 || top.indices[i - 1] < top.indices[i]) &&
                  std::memcmp(&top.values[i], &data[top.indices[i]], sizeof(float)) == 0;
      got = std::move(top.values);
    } else {
      ms = wall_median_ms(reps, 1, [&] { got = kselect::multiselect(data, n, ranks, opt); });
      for (std::size_t i = 1; i < got.size(); ++i) correct = correct && got[i - 1] <= got[i];
    }
    const std::int64_t asked = call == "topk" ? topk_k : static_cast<std::int64_t>(ranks.size());
    row r{call, input, limit, n, asked, ms, gb * 1e3 / ms, 0, correct};
    r.of_pinned = r.gbs / pinned_gbs;
    answers.push_back(got);
    rows.push_back(r);
    std::printf("%-12s %-9s %-10s %8lld %10.1f %8.1f %9.0f%%  %s\n", call.c_str(), input.c_str(), limit.c_str(),
                static_cast<long long>(r.ranks), ms, r.gbs, 100 * r.of_pinned, r.correct ? "ok" : "WRONG");
    std::fflush(stdout);
  };
  kselect::options on_gpu;
  on_gpu.device = kselect::device_kind::cuda;
  on_gpu.stream = stream;
  kselect::options limited = on_gpu;
  limited.device_memory_limit = static_cast<std::size_t>(limit_gib) << 30;
  const std::string limit_name = std::to_string(limit_gib) + " GiB";
  for (const char* call : {"select", "percentiles", "topk"}) {
    run(call, "pageable", values.data(), on_gpu, "free");
    run(call, "pageable", values.data(), limited, limit_name);
  }
  if (pinned) {
    float* h_pinned = nullptr;
    kselect::test::cuda_check(cudaMallocHost(&h_pinned, static_cast<std::size_t>(n) * sizeof(float)), "cudaMallocHost");
    std::memcpy(h_pinned, values.data(), static_cast<std::size_t>(n) * sizeof(float));
    for (const char* call : {"select", "percentiles", "topk"}) run(call, "pinned", h_pinned, limited, limit_name);
    cudaFreeHost(h_pinned);
  }
  if (cpu) {
    kselect::options on_cpu;
    on_cpu.device = kselect::device_kind::cpu;
    for (const char* call : {"select", "percentiles", "topk"}) run(call, "cpu", values.data(), on_cpu, "-");
  }
  // Every row of a call answers the same.
  bool agree = true;
  for (std::size_t i = 0; i < rows.size(); ++i)
    for (std::size_t j = 0; j < i; ++j)
      if (rows[i].call == rows[j].call && answers[i] != answers[j]) agree = false;
  std::printf("answers agree across rows: %s\n", agree ? "yes" : "NO");
  cudaFreeHost(h_pinned_probe);

  if (!o.json_path.empty()) {
    nlohmann::json j;
    j["program"] = "kselect-host-stream-bench";
    j["device"] = prop.name;
    j["date"] = kselect::bench::utc_date();
    j["n"] = n;
    j["dist"] = dist_name;
    j["host_threads"] = threads;
    j["pinned_h2d_gbs"] = pinned_gbs;
    j["pageable_h2d_gbs"] = pageable_gbs;
    j["host_memcpy_gbs"] = memcpy_gbs;
    j["floor_ms"] = floor_ms;
    j["answers_agree"] = agree;
    nlohmann::json rs = nlohmann::json::array();
    for (const row& r : rows)
      rs.push_back({{"call", r.call}, {"input", r.input}, {"limit", r.limit}, {"n", r.n}, {"ranks", r.ranks},
                    {"ms", r.ms}, {"gbs", r.gbs}, {"of_pinned", r.of_pinned}, {"correct", r.correct}});
    j["rows"] = rs;
    if (!kselect::bench::write_json(o.json_path, j)) return 1;
  }
  for (const row& r : rows)
    if (!r.correct) return 1;
  return agree ? 0 : 1;
}
