// Timing shared by the GPU benchmarks: CUDA events around each call on one
// stream, warm-up, median of the runs.
#pragma once

#include <cuda_runtime_api.h>

#include <algorithm>
#include <functional>
#include <string>
#include <vector>

#include "common/device_data.cuh"

namespace kselect::bench {

struct bench_options {
  int reps = 15;
  int warmup = 3;
  bool quick = false;
  std::string json_path;
  std::string only;  ///< "TYPE:LOG2N:DIST" runs that case alone
  bool topk_only = false;
};

/// Median time in ms of fn(copy) over `reps` runs after `warmup` ones, the copy
/// rotating over [0, copies) (so that inputs smaller than L2 are not timed warm).
inline double time_median_ms(cudaStream_t stream, int reps, int warmup, const std::function<void(int)>& fn,
                             int copies = 1) {
  using kselect::test::cuda_check;
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

/// time_median_ms with kselect-gpu-bench's options.
inline double time_median(cudaStream_t stream, int copies, const bench_options& o,
                          const std::function<void(int)>& fn) {
  return time_median_ms(stream, o.reps, o.warmup, fn, copies);
}

}  // namespace kselect::bench
