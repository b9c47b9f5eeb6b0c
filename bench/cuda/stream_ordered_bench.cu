// The stream-ordered mode (device::select_async, multiselect_async, topk_async)
// against the synchronous calls, in the same run on the same inputs: for each
// size, distribution and operation, the synchronous call, the stream-ordered call
// queued on a stream, and the same call captured once in a CUDA graph and
// replayed; with the read floor (cub::DeviceReduce) and CUB's radix sort.
//
// Timing: CUDA events, warm-up, median of --reps runs. Inputs of 50 MB and more
// rotate among copies (so that L2 cannot hold them) and are timed one call per
// event pair; smaller ones are timed as `batch` calls back to back per event pair
// (the time per call is the pair's time / batch), the way a loop or a graph of
// many small selections runs.
//
// Usage: kselect-stream-ordered-bench [--json FILE] [--reps N] [--quick]
// (--quick: 2^16 and 2^28 only). bench/python/compare_graph_torch.py times
// torch.kthvalue and torch.topk the same way.
#include <cub/device/device_radix_sort.cuh>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "common/device_data.cuh"
#include "harness/harness.hpp"
#include "kselect/device.hpp"

using kselect::test::cuda_check;
using kselect::test::device_buffer;
using kselect::test::device_dist;

namespace {

using kselect::bench::check_call;
using kselect::bench::run_options;
using kselect::bench::time_median;

/// Calls per event pair for inputs that fit in L2.
constexpr int batch = 100;

struct row {
  std::string dist, op;
  std::int64_t n, ranks;  ///< ranks selected, or a top-k's k
  double sync_ms, async_ms, graph_ms, floor_ms, sort_ms;
  bool correct;
  int status;
};

/// The time of one call: one call per event pair over rotating copies (large
/// inputs), or `batch` calls per pair divided by batch (small ones).
double time_call(cudaStream_t stream, int copies, bool batched, const run_options& o,
                 const std::function<void(int)>& call) {
  if (!batched) return time_median(stream, copies, o, call);
  return time_median(stream, o, [&] {
           for (int i = 0; i < batch; ++i) call(0);
         }) /
         batch;
}

/// What a case times: one rank (n/2), the 101 percentiles, or the k smallest
/// keys (unsorted, as torch.topk(sorted=False) in compare_graph_torch.py).
struct operation {
  enum kind_t { select, percentiles, topk } kind;
  std::int64_t k = 0;  ///< topk: k; select: the rank (0: n/2)
  std::string name() const {
    if (kind == select) return k == 0 ? "select k=n/2" : "select k=" + std::to_string(k);
    if (kind == percentiles) return "101 percentiles";
    const int lg = static_cast<int>(std::log2(static_cast<double>(k)));
    return "top-k k=" + (k == (std::int64_t(1) << lg) && lg > 10 ? "2^" + std::to_string(lg) : std::to_string(k));
  }
};

void bench_case(std::int64_t n, device_dist d, const operation& op, const run_options& o, cudaStream_t stream,
                std::vector<row>& rows) {
  using T = float;
  namespace dev = kselect::device;
  const std::size_t bytes = n * sizeof(T);
  const bool batched = bytes < (50u << 20);
  const int copies = batched ? 1 : static_cast<int>(std::max<std::size_t>(1, (200u << 20) / bytes));
  std::vector<device_buffer<T>> data;
  for (int c = 0; c < copies; ++c) {
    data.emplace_back(n);
    kselect::test::generate_on_device<T>(data.back().data(), n, d, 1000 + c, stream);
  }
  cuda_check(cudaStreamSynchronize(stream), "generate");
  const auto input = [&](int c) { return static_cast<const T*>(data[c].data()); };

  // One read per event pair at every size (below 50 MB it includes the pair's own ~µs).
  const double floor_ms = kselect::bench::read_floor_ms<T>(stream, copies, o, n, input);

  device_buffer<T> sorted(n);
  std::size_t sort_bytes = 0;
  cuda_check(cub::DeviceRadixSort::SortKeys(nullptr, sort_bytes, input(0), sorted.data(), n, 0, 32, stream), "sort");
  device_buffer<char> sort_ws(sort_bytes);
  const auto sort = [&](int c) {
    std::size_t b = sort_bytes;
    cuda_check(cub::DeviceRadixSort::SortKeys(sort_ws.data(), b, input(c), sorted.data(), n, 0, 32, stream), "sort");
  };
  const double sort_ms = time_call(stream, copies, batched, o, sort);
  sort(0);  // `sorted` holds copy 0, to check the answers

  std::vector<std::int64_t> ranks;
  if (op.kind == operation::percentiles) {
    for (int p = 0; p <= 100; ++p) ranks.push_back((n - 1) * p / 100);
    ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
  } else if (op.kind == operation::select) {
    ranks.push_back(op.k == 0 ? n / 2 : op.k);
  }
  const auto nr = static_cast<std::int64_t>(ranks.size());
  const std::int64_t outputs = op.kind == operation::topk ? op.k : nr;
  device_buffer<std::int64_t> d_ranks(ranks);
  device_buffer<T> out(static_cast<std::size_t>(outputs));
  device_buffer<std::int32_t> status(1);

  const auto sync_call = [&](void* ws, std::size_t& b, int c) {
    return op.kind == operation::topk ? dev::topk<T>(ws, b, input(c), out.data(), n, op.k, stream)
                                      : dev::multiselect<T>(ws, b, input(c), out.data(), n, ranks.data(), nr, stream);
  };
  const auto async_call = [&](void* ws, std::size_t& b, int c) {
    switch (op.kind) {
      case operation::select:
        return dev::select_async<T>(ws, b, input(c), out.data(), status.data(), n, ranks[0], stream);
      case operation::percentiles:
        return dev::multiselect_async<T>(ws, b, input(c), out.data(), status.data(), n, d_ranks.data(), nr, stream);
      default:
        return dev::topk_async<T>(ws, b, input(c), out.data(), status.data(), n, op.k, stream);
    }
  };
  std::size_t sync_bytes = 0, async_bytes = 0;
  check_call(sync_call(nullptr, sync_bytes, 0), "sync query");
  check_call(async_call(nullptr, async_bytes, 0), "async query");
  device_buffer<char> sync_ws(sync_bytes), async_ws(async_bytes);

  const double sync_ms = time_call(stream, copies, batched, o, [&](int c) {
    std::size_t b = sync_bytes;
    check_call(sync_call(sync_ws.data(), b, c), "sync");
  });
  const double async_ms = time_call(stream, copies, batched, o, [&](int c) {
    std::size_t b = async_bytes;
    check_call(async_call(async_ws.data(), b, c), "async");
  });
  // One graph per copy: a graph replays on the buffers it was captured with.
  std::vector<cudaGraphExec_t> graphs(copies);
  for (int c = 0; c < copies; ++c) {
    cudaGraph_t g;
    cuda_check(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal), "begin capture");
    std::size_t b = async_bytes;
    check_call(async_call(async_ws.data(), b, c), "async (capture)");
    cuda_check(cudaStreamEndCapture(stream, &g), "end capture");
    cuda_check(cudaGraphInstantiate(&graphs[c], g, 0), "instantiate");
    cuda_check(cudaGraphDestroy(g), "graph destroy");
  }
  const double graph_ms = time_call(stream, copies, batched, o, [&](int c) {
    cuda_check(cudaGraphLaunch(graphs[c], stream), "graph launch");
  });

  // Check the graph's answers on copy 0 against the sort: the ranks' keys, or
  // the top-k's keys (sorted here) against the sort's first k.
  cuda_check(cudaGraphLaunch(graphs[0], stream), "graph launch");
  cuda_check(cudaStreamSynchronize(stream), "sync");
  for (cudaGraphExec_t g : graphs) cudaGraphExecDestroy(g);
  std::vector<T> got = out.to_host();
  bool ok = true;
  if (op.kind == operation::topk) {
    std::sort(got.begin(), got.end());
    std::vector<T> want(static_cast<std::size_t>(op.k));
    cuda_check(cudaMemcpy(want.data(), sorted.data(), op.k * sizeof(T), cudaMemcpyDeviceToHost), "read");
    ok = got == want;
  }
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    T want;
    cuda_check(cudaMemcpy(&want, sorted.data() + ranks[i], sizeof(T), cudaMemcpyDeviceToHost), "read");
    ok = ok && want == got[i];
  }
  const int st = status.to_host()[0];
  rows.push_back({kselect::test::device_dist_name(d), op.name(), n, outputs, sync_ms, async_ms, graph_ms, floor_ms,
                  sort_ms, ok, st});
  const row& r = rows.back();
  std::printf("2^%-3d %-15s %-16s %9.4f %9.4f %9.4f %9.4f %9.4f %7.3f %6d  %s\n",
              static_cast<int>(std::log2(static_cast<double>(n))), r.dist.c_str(), r.op.c_str(), r.sync_ms, r.async_ms,
              r.graph_ms, r.floor_ms, r.sort_ms, r.async_ms / r.sync_ms, r.status, r.correct ? "ok" : "WRONG");
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  run_options o;
  kselect::bench::arguments args("kselect-stream-ordered-bench");
  if (!args.parse(argc, argv, o)) return 2;
  const kselect::bench::bench_device device("kselect-stream-ordered-bench");
  if (!device.ok()) return 2;
  const cudaDeviceProp& prop = device.prop();
  const cudaStream_t stream = device.stream();
  std::printf("device: %s; float32; median of %d runs after %d warm-up; below 50 MB: %d calls per event pair\n",
              prop.name, o.reps, o.warmup, batch);
  std::printf("%-5s %-15s %-16s %9s %9s %9s %9s %9s %7s %6s  %s\n", "n", "dist", "op", "sync_ms", "async_ms",
              "graph_ms", "floor_ms", "sort_ms", "as/sy", "status", "check");
  std::vector<row> rows;
  const device_dist dists[] = {device_dist::uniform, device_dist::normal, device_dist::all_equal,
                               device_dist::sixteen_values, device_dist::clustered, device_dist::sorted};
  for (int lg : {10, 12, 14, 16, 18, 20, 22, 24, 26, 28}) {
    if (o.quick && lg != 16 && lg != 28) continue;
    const bool full = lg == 16 || lg == 20 || lg == 28;
    for (const device_dist d : dists) {
      if (!full && d != device_dist::uniform) continue;
      const std::int64_t n = std::int64_t(1) << lg;
      // top-k of 1024 at every size (all 1024 keys at 2^10, as torch.topk in
      // compare_graph_torch.py); at 2^28 uniform, select at the top-k's
      // boundary ranks too: topk_async is that selection plus its write.
      std::vector<operation> ops{{operation::select},
                                 {operation::percentiles},
                                 {operation::topk, std::min<std::int64_t>(1024, n)},
                                 {operation::topk, std::int64_t(1) << 20}};
      if (lg == 28 && d == device_dist::uniform)
        ops.insert(ops.end(), {{operation::select, 1023}, {operation::select, (std::int64_t(1) << 20) - 1}});
      for (const operation& op : ops)
        if (op.kind != operation::topk || op.k < n || op.k == 1024) bench_case(n, d, op, o, stream, rows);
    }
  }
  if (!o.json_path.empty()) {
    nlohmann::json j;
    j["device"] = prop.name;
    j["date"] = kselect::bench::utc_date();
    j["reps"] = o.reps;
    j["batch_below_50MB"] = batch;
    j["timing"] = "CUDA events, median after warm-up; below 50 MB, 100 calls per event pair";
    for (const row& r : rows)
      j["results"].push_back({{"dist", r.dist}, {"op", r.op}, {"n", r.n}, {"ranks", r.ranks},
                              {"sync_ms", r.sync_ms}, {"async_ms", r.async_ms}, {"graph_ms", r.graph_ms},
                              {"floor_ms", r.floor_ms}, {"cub_sort_ms", r.sort_ms}, {"status", r.status},
                              {"correct", r.correct}});
    if (!kselect::bench::write_json(o.json_path, j)) return 1;
  }
  bool all_ok = true;
  for (const row& r : rows) all_ok = all_ok && r.correct;
  return all_ok ? 0 : 1;
}
