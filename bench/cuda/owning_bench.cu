// The C++ calls the Python package makes, timed on their own (issue 22: "the
// package's time for 2^28 float32 within 5% of the C++ call"). For each size
// (default 1000 and 2^28) and uniform float32 keys on the device, this times the
// owning API exactly as python/src/module.cpp calls it for
//   kselect.select(x, n // 2)                     multiselect(d_ptr, n, {n/2}, opt)
//   kselect.median(x)                             multiselect(d_ptr, n, ranks, opt): the middle
//                                                 rank(s) and n-1 (the NaN check), as _api.median
//   kselect.percentile(x, np.linspace(0, 100, 101))
//                                                 multiselect(d_ptr, n, ranks, opt): both neighbours
//                                                 of each (n-1)*q and n-1, unique and sorted, as
//                                                 _quantile.quantile_of_slices and _Slices.fetch_same
//   kselect.topk(x, 1024)                         topk(d_ptr, n, 1024, {largest, sorted, indices}, opt)
// with opt = options{device = cuda, stream}. CUDA events around the whole owning
// call (it allocates its workspace stream-ordered, copies the answers to the host
// and synchronises, so the time includes all of that), warm-up, median of --reps
// runs; in the same run the read floor (cub::DeviceReduce over the same input,
// bench/harness). Inputs under 200 MB rotate among copies (at most 64) as in
// kselect-gpu-bench. bench/python/package_bench.py runs this program and divides
// the package's times by these.
//
// Usage: kselect-owning-bench [--json FILE] [--reps N] [--quick] [--sizes N,N,...]
// (--quick: 1000 and 2^24). The JSON holds one row per case ("results": case, n,
// ranks, ours_ms, floor_ms, correct) and the rank lists the calls asked for
// ("requests"), which package_bench.py compares with the package's own.
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include "common/device_data.cuh"
#include "harness/harness.hpp"
#include "kselect/device.hpp"
#include "kselect/kselect.hpp"

using kselect::test::cuda_check;
using kselect::test::device_buffer;

namespace {

using kselect::bench::read_floor_ms;
using kselect::bench::run_options;
using kselect::bench::time_median;

/// The ranks kselect.percentile(x, np.linspace(0, 100, 101)) asks multiselect for
/// (method "linear", float32 keys): q = i / 100 in double (np.true_divide of the
/// exact integers linspace gives), virtual index (n - 1) * q, its floor and floor + 1
/// (both n - 1 where the index reaches n - 1), and n - 1 for the NaN check; unique,
/// ascending (np.unique). The same IEEE double operations as NumPy's, so the same ranks.
std::vector<std::int64_t> percentile_ranks(std::int64_t n) {
  std::vector<std::int64_t> ranks;
  const double last = static_cast<double>(n) - 1;
  for (int i = 0; i <= 100; ++i) {
    const double virtual_index = last * (static_cast<double>(i) / 100.0);
    if (virtual_index >= last) {
      ranks.push_back(n - 1);
      continue;
    }
    const auto previous = static_cast<std::int64_t>(std::floor(virtual_index));
    ranks.push_back(previous);
    ranks.push_back(previous + 1);
  }
  ranks.push_back(n - 1);
  std::sort(ranks.begin(), ranks.end());
  ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
  return ranks;
}

/// kselect.median's ranks: the middle one (odd n) or two (even n), and n - 1.
std::vector<std::int64_t> median_ranks(std::int64_t n) {
  std::vector<std::int64_t> ranks{n / 2, n - 1};
  if (n % 2 == 0) ranks.push_back(n / 2 - 1);
  std::sort(ranks.begin(), ranks.end());
  ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
  return ranks;
}

struct request {
  std::string name;  ///< the package call it stands for
  std::vector<std::int64_t> ranks;  ///< multiselect's ranks (empty: top-k)
  std::int64_t k = 0;               ///< top-k's k
};

struct row {
  std::string name, call;
  std::int64_t n, ranks;
  double ms, floor_ms;
  bool correct;
};

/// "device" for a device-API row, "owning" for an owning call.
const char* api_of(const row& r) { return r.call.rfind("kselect::device::", 0) == 0 ? "device" : "owning"; }

void print_row(const row& r) {
  std::printf("%-16s %-6s %10lld %6lld %10.4f %10.4f %8.2f  %s\n", r.name.c_str(), api_of(r), static_cast<long long>(r.n),
              static_cast<long long>(r.ranks), r.ms, r.floor_ms, r.ms / r.floor_ms, r.correct ? "ok" : "WRONG");
  std::fflush(stdout);
}

/// The same request through the device API, as the package now makes it for CUDA
/// arrays: the workspace and the outputs allocated once before the timing (the
/// framework's caching allocator holds them between calls), then per call the
/// device API, and for multiselect the answers copied to the host and the stream
/// synchronised (the package's quantiles need them there; its select keeps them on
/// the GPU, so this is an upper bound for select). Checked against the owning call.
row time_device_call(const request& r, std::int64_t n, int copies, const std::vector<device_buffer<float>>& data,
                     double floor_ms, const run_options& o, cudaStream_t stream) {
  std::size_t bytes = 0;
  const auto count = static_cast<std::int64_t>(r.k ? r.k : r.ranks.size());
  device_buffer<float> out(static_cast<std::size_t>(count));
  device_buffer<std::int64_t> indices(static_cast<std::size_t>(r.k ? r.k : 1));
  std::vector<float> host(static_cast<std::size_t>(count));
  const kselect::device::topk_config cfg{.largest = true, .sorted = true};
  auto call = [&](void* ws, const float* in) {
    if (r.k == 0) {
      cuda_check(kselect::device::multiselect(ws, bytes, in, out.data(), n, r.ranks.data(), count, stream),
                 "device::multiselect");
      if (ws) {
        cuda_check(cudaMemcpyAsync(host.data(), out.data(), count * sizeof(float), cudaMemcpyDeviceToHost, stream),
                   "copy");
        cuda_check(cudaStreamSynchronize(stream), "sync");
      }
    } else {
      cuda_check(kselect::device::topk(ws, bytes, in, out.data(), indices.data(), n, r.k, stream, cfg),
                 "device::topk");
    }
  };
  call(nullptr, data[0].data());
  device_buffer<unsigned char> workspace(std::max<std::size_t>(bytes, 1));
  const double ms = time_median(stream, copies, o, [&](int c) { call(workspace.data(), data[c].data()); });
  // The same answers as the owning call (values; top-k's values in order). Top-k's
  // timed call leaves its values on the device: copy them here.
  call(workspace.data(), data[0].data());
  if (r.k != 0) {
    cuda_check(cudaMemcpyAsync(host.data(), out.data(), count * sizeof(float), cudaMemcpyDeviceToHost, stream),
               "copy");
    cuda_check(cudaStreamSynchronize(stream), "sync");
  }
  kselect::options opt;
  opt.device = kselect::device_kind::cuda;
  opt.stream = stream;
  std::vector<float> want;
  if (r.k == 0) {
    want = kselect::multiselect(data[0].data(), n, r.ranks, opt);
  } else {
    const kselect::topk_options t{.largest = true, .sorted = true, .deterministic = false, .indices = false};
    want = kselect::topk(data[0].data(), n, r.k, t, opt).values;
  }
  const std::string name = r.k == 0 ? "kselect::device::multiselect(ws, bytes, d_ptr, d_out, n, ranks, stream) + copy"
                                    : "kselect::device::topk(ws, bytes, d_ptr, d_values, d_indices, n, 1024, stream)";
  return {r.name, name, n, count, ms, floor_ms, host == want};
}

std::vector<std::int64_t> parse_sizes(const std::string& s) {
  std::vector<std::int64_t> sizes;
  std::stringstream in(s);
  std::string item;
  while (std::getline(in, item, ','))
    if (!item.empty()) sizes.push_back(std::atoll(item.c_str()));
  return sizes;
}

void run_size(std::int64_t n, const run_options& o, cudaStream_t stream, std::vector<row>& rows,
              nlohmann::json& requests) {
  const std::size_t bytes = static_cast<std::size_t>(n) * sizeof(float);
  const int copies = static_cast<int>(std::clamp<std::size_t>((std::size_t(200) << 20) / bytes, 1, 64));
  std::vector<device_buffer<float>> data;
  for (int c = 0; c < copies; ++c) {
    data.emplace_back(n);
    kselect::test::generate_on_device<float>(data.back().data(), n, kselect::test::device_dist::uniform, 3000 + c,
                                             stream);
  }
  cuda_check(cudaStreamSynchronize(stream), "generate");
  const double floor_ms = read_floor_ms<float>(stream, copies, o, n, [&](int c) { return data[c].data(); });

  kselect::options opt;
  opt.device = kselect::device_kind::cuda;
  opt.stream = stream;

  std::vector<request> reqs{{"select k=n/2", {n / 2}},
                            {"median", median_ranks(n)},
                            {"101 percentiles", percentile_ranks(n)}};
  if (n >= 1024) reqs.push_back({"topk k=1024", {}, 1024});

  // Checks of the answers, without a sort: the selected values ascend with their
  // ranks and lie in [0, 1] (uniform doubles in [0, 1) rounded to float can give
  // 1.0f); top-k's values descend, each index holds its value and the last one is
  // the value at rank n - 1024.
  for (const request& r : reqs) {
    bool ok = true;
    double ms = 0;
    std::string call;
    if (r.k == 0) {
      call = "kselect::multiselect(d_ptr, n, ranks, {device=cuda, stream})";
      ms = time_median(stream, copies, o, [&](int c) {
        (void)kselect::multiselect(data[c].data(), n, r.ranks, opt);  // its vector is freed in the timing, too
      });
      const std::vector<float> v = kselect::multiselect(data[0].data(), n, r.ranks, opt);
      for (std::size_t i = 0; i < v.size(); ++i)
        ok = ok && v[i] >= 0.0f && v[i] <= 1.0f && (i == 0 || v[i - 1] <= v[i]);
    } else {
      call = "kselect::topk(d_ptr, n, 1024, {largest, sorted, indices}, {device=cuda, stream})";
      const kselect::topk_options t{.largest = true, .sorted = true, .deterministic = false, .indices = true};
      ms = time_median(stream, copies, o, [&](int c) { (void)kselect::topk(data[c].data(), n, r.k, t, opt); });
      const kselect::selection<float> s = kselect::topk(data[0].data(), n, r.k, t, opt);
      const std::int64_t rank = n - r.k;
      const float kth = kselect::multiselect(data[0].data(), n, std::vector<std::int64_t>{rank}, opt)[0];
      ok = s.values.size() == static_cast<std::size_t>(r.k) && s.indices.size() == s.values.size() &&
           s.values.back() == kth;
      for (std::size_t i = 0; ok && i < s.values.size(); ++i) {
        float at = 0;
        cuda_check(cudaMemcpy(&at, data[0].data() + s.indices[i], sizeof at, cudaMemcpyDeviceToHost), "read");
        ok = at == s.values[i] && (i == 0 || s.values[i - 1] >= s.values[i]);
      }
    }
    rows.push_back({r.name, call, n, static_cast<std::int64_t>(r.k ? r.k : r.ranks.size()), ms, floor_ms, ok});
    requests.push_back({{"case", r.name}, {"n", n}, {"ranks", r.ranks}, {"k", r.k}});
    print_row(rows.back());
    rows.push_back(time_device_call(r, n, copies, data, floor_ms, o, stream));
    print_row(rows.back());
  }
}

}  // namespace

int main(int argc, char** argv) {
  run_options o;
  std::string sizes_arg = "1000,268435456";
  kselect::bench::arguments args("kselect-owning-bench");
  args.value("--sizes", "N,N,...", &sizes_arg);
  if (!args.parse(argc, argv, o)) return 2;
  if (o.quick) sizes_arg = "1000,16777216";
  const std::vector<std::int64_t> sizes = parse_sizes(sizes_arg);
  for (const std::int64_t n : sizes)
    if (n < 1) {
      std::fprintf(stderr, "%s\n", args.usage().c_str());
      return 2;
    }
  const kselect::bench::bench_device device("kselect-owning-bench");
  if (!device.ok()) return 2;
  const cudaDeviceProp& prop = device.prop();

  std::printf("device: %s, %d SMs, L2 %d MB; median of %d runs after %d warm-up; uniform float32\n", prop.name,
              prop.multiProcessorCount, prop.l2CacheSize >> 20, o.reps, o.warmup);
  std::printf("%-16s %-6s %10s %6s %10s %10s %8s  %s\n", "call", "API", "n", "ranks", "ours_ms", "floor_ms",
              "ours/flr", "check");
  std::vector<row> rows;
  nlohmann::json requests = nlohmann::json::array();
  for (const std::int64_t n : sizes) run_size(n, o, device.stream(), rows, requests);

  if (!o.json_path.empty()) {
    nlohmann::json j;
    j["program"] = "kselect-owning-bench";
    j["device"] = prop.name;
    j["date"] = kselect::bench::utc_date();
    j["reps"] = o.reps;
    j["timing"] =
        "CUDA events around each owning call (allocation, device API, copy to the host, synchronisation) on one "
        "stream, median after warm-up";
    j["requests"] = requests;
    j["results"] = nlohmann::json::array();
    for (const row& r : rows)
      j["results"].push_back({{"case", r.name}, {"call", r.call},
                              {"api", api_of(r)},
                              {"type", "float"}, {"dist", "uniform"},
                              {"n", r.n}, {"ranks", r.ranks}, {"ours_ms", r.ms}, {"floor_ms", r.floor_ms},
                              {"correct", r.correct}});
    if (!kselect::bench::write_json(o.json_path, j)) return 1;
  }
  for (const row& r : rows)
    if (!r.correct) return 1;
  return 0;
}
