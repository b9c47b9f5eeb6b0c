// The GPU benchmarks' shared harness (harness.hpp).
#include "harness/harness.hpp"

#include <cub/device/device_reduce.cuh>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>

#include "common/device_data.cuh"
#include "kselect/device.hpp"

namespace kselect::bench {

using test::cuda_check;
using test::device_buffer;

void arguments::flag(const std::string& name, bool* target) {
  options_.push_back({name, "", [target](const char*) { *target = true; }});
}

void arguments::value(const std::string& name, const std::string& metavar, std::string* target) {
  options_.push_back({name, metavar, [target](const char* v) { *target = v; }});
}

void arguments::value(const std::string& name, const std::string& metavar, int* target, int lo, int hi) {
  options_.push_back({name, metavar, [target, lo, hi](const char* v) { *target = std::clamp(std::atoi(v), lo, hi); }});
}

std::string arguments::usage() const {
  std::string u = "usage: " + program_ + " [--json FILE] [--reps N>=" + std::to_string(min_reps) + "] [--quick]";
  for (const option& opt : options_) u += " [" + opt.name + (opt.metavar.empty() ? "" : " " + opt.metavar) + "]";
  return u;
}

bool arguments::parse(int argc, char** argv, run_options& o) const {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const bool has_value = i + 1 < argc;
    if (a == "--json" && has_value) {
      o.json_path = argv[++i];
      continue;
    }
    if (a == "--reps" && has_value) {
      o.reps = std::max(min_reps, std::atoi(argv[++i]));
      continue;
    }
    if (a == "--quick") {
      o.quick = true;
      continue;
    }
    const auto opt = std::find_if(options_.begin(), options_.end(), [&](const option& x) { return x.name == a; });
    if (opt != options_.end() && (opt->metavar.empty() || has_value)) {
      opt->set(opt->metavar.empty() ? "" : argv[++i]);
      continue;
    }
    std::fprintf(stderr, "%s\n", usage().c_str());
    return false;
  }
  return true;
}

bench_device::bench_device(const std::string& program) {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
    std::fprintf(stderr, "%s: no CUDA device\n", program.c_str());
    return;
  }
  cuda_check(cudaGetDeviceProperties(&prop_, 0), "properties");
  cuda_check(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "stream");
}

bench_device::~bench_device() {
  if (stream_) cudaStreamDestroy(stream_);
}

double time_median_ms(cudaStream_t stream, int reps, int warmup, const std::function<void(int)>& fn, int copies) {
  cudaEvent_t start, stop;
  cuda_check(cudaEventCreate(&start), "event");
  cuda_check(cudaEventCreate(&stop), "event");
  for (int i = 0; i < warmup; ++i) fn(i % copies);
  std::vector<double> ms;
  for (int i = 0; i < reps; ++i) {
    cuda_check(cudaEventRecord(start, stream), "record");
    fn(i % copies);
    cuda_check(cudaEventRecord(stop, stream), "record");
    cuda_check(cudaEventSynchronize(stop), "sync");
    float t = 0;
    cuda_check(cudaEventElapsedTime(&t, start, stop), "elapsed");
    ms.push_back(t);
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

double time_median(cudaStream_t stream, int copies, const run_options& o, const std::function<void(int)>& fn) {
  return time_median_ms(stream, o.reps, o.warmup, fn, copies);
}

double time_median(cudaStream_t stream, const run_options& o, const std::function<void()>& fn) {
  return time_median_ms(stream, o.reps, o.warmup, [&](int) { fn(); });
}

template <class T>
double read_floor_ms(cudaStream_t stream, int copies, const run_options& o, std::int64_t n,
                     const std::function<const T*(int)>& input) {
  device_buffer<T> sum(1);
  std::size_t reduce_bytes = 0;
  cuda_check(cub::DeviceReduce::Sum(nullptr, reduce_bytes, input(0), sum.data(), n, stream), "reduce query");
  device_buffer<char> reduce_ws(reduce_bytes);
  return time_median(stream, copies, o, [&](int c) {
    std::size_t b = reduce_bytes;
    cuda_check(cub::DeviceReduce::Sum(reduce_ws.data(), b, input(c), sum.data(), n, stream), "reduce");
  });
}

template double read_floor_ms<float>(cudaStream_t, int, const run_options&, std::int64_t,
                                     const std::function<const float*(int)>&);
template double read_floor_ms<double>(cudaStream_t, int, const run_options&, std::int64_t,
                                      const std::function<const double*(int)>&);

void check_call(cudaError_t st, const char* what) {
  if (st == cudaSuccess) return;
  std::fprintf(stderr, "%s failed: %s %s\n", what, cudaGetErrorString(st), device::last_error_message());
  std::exit(1);
}

std::string utc_date() {
  char date[32];
  const std::time_t now = std::time(nullptr);
  std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  return date;
}

bool write_json(const std::string& path, const nlohmann::json& j) {
  std::ofstream out(path);
  out << j.dump(2) << "\n";
  if (out.flush()) return true;
  std::fprintf(stderr, "cannot write %s\n", path.c_str());
  return false;
}

}  // namespace kselect::bench
