// What the GPU benchmarks (kselect-gpu-bench, kselect-filter-bench,
// kselect-approx-bench) share, so that each of them holds only its cases:
//   - the command line: --json FILE, --reps N (at least 10), --quick, and the
//     benchmark's own flags (arguments);
//   - the device: device 0 and a non-blocking stream, or exit status 2 without a
//     CUDA device (bench_device);
//   - timing: CUDA events around each call on the stream, warm-up runs, the median
//     of the timed runs (time_median);
//   - the floor: one read of the input by cub::DeviceReduce::Sum (read_floor_ms);
//   - a failed call ends the run (check_call);
//   - the JSON file and its date (write_json, utc_date).
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace kselect::bench {

/// Every timing is the median of at least this many runs.
inline constexpr int min_reps = 10;

/// The options every GPU benchmark takes; a benchmark derives its own from it.
struct run_options {
  int reps = 15;    ///< timed runs (--reps, at least min_reps)
  int warmup = 3;   ///< untimed runs before them
  bool quick = false;
  std::string json_path;  ///< --json: where the results go (none when empty)
};

/// The command line of one benchmark: the common flags of run_options and the
/// flags the benchmark adds. Anything else prints the usage and fails.
class arguments {
 public:
  explicit arguments(std::string program) : program_(std::move(program)) {}

  /// --name: sets *target.
  void flag(const std::string& name, bool* target);
  /// --name VALUE: the string.
  void value(const std::string& name, const std::string& metavar, std::string* target);
  /// --name N: the integer (std::atoi), clamped to [lo, hi].
  void value(const std::string& name, const std::string& metavar, int* target, int lo, int hi);

  /// Fills `o` and the targets; false (after the usage on stderr) for a bad command line.
  bool parse(int argc, char** argv, run_options& o) const;
  std::string usage() const;

 private:
  struct option {
    std::string name, metavar;  ///< metavar empty: a flag without a value
    std::function<void(const char*)> set;
  };
  std::string program_;
  std::vector<option> options_;
};

/// Device 0 and a non-blocking stream on it, for the whole run.
class bench_device {
 public:
  /// ok() is false, after "PROGRAM: no CUDA device" on stderr, without a CUDA device.
  explicit bench_device(const std::string& program);
  ~bench_device();
  bench_device(const bench_device&) = delete;
  bench_device& operator=(const bench_device&) = delete;

  bool ok() const { return stream_ != nullptr; }
  const cudaDeviceProp& prop() const { return prop_; }
  cudaStream_t stream() const { return stream_; }

 private:
  cudaDeviceProp prop_{};
  cudaStream_t stream_ = nullptr;
};

/// Median time in ms of fn(copy) over `reps` runs after `warmup` ones, the copy
/// rotating over [0, copies) (so that inputs smaller than L2 are not timed warm);
/// CUDA events around each call on `stream`.
double time_median_ms(cudaStream_t stream, int reps, int warmup, const std::function<void(int)>& fn,
                      int copies = 1);

/// time_median_ms with the options' runs.
double time_median(cudaStream_t stream, int copies, const run_options& o, const std::function<void(int)>& fn);
/// The same for one input (no copies).
double time_median(cudaStream_t stream, const run_options& o, const std::function<void()>& fn);

/// The floor of a benchmark: the median time of one read of n keys of type T
/// (cub::DeviceReduce::Sum), rotating over the same `copies` inputs as the timed
/// calls (input(c): copy c). Its workspace is allocated before any timing.
/// Instantiated for float and double.
template <class T>
double read_floor_ms(cudaStream_t stream, int copies, const run_options& o, std::int64_t n,
                     const std::function<const T*(int)>& input);

/// A device-API call's status: on failure, "WHAT failed: ERROR MESSAGE" on stderr
/// (the message: device::last_error_message()) and exit status 1.
void check_call(cudaError_t st, const char* what);

/// Now, as 2026-01-31T12:00:00Z.
std::string utc_date();

/// Writes j (indented by 2, a newline after it) to `path`; false, after a message
/// on stderr, when the file cannot be written.
bool write_json(const std::string& path, const nlohmann::json& j);

}  // namespace kselect::bench
