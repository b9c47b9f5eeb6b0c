// Optional per-kernel timing of the driver, for finding where the time goes:
// set KSELECT_PROFILE=1 and each call prints one line per launch to stderr.
// Off (the default), it costs one branch per launch.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "core/phase_clock.hpp"

namespace kselect::cuda {

class launch_profiler {
 public:
  launch_profiler() : enabled_(core::profiling_requested()) {}
  ~launch_profiler() {
    for (auto& r : records_) {
      cudaEventDestroy(r.start);
      cudaEventDestroy(r.stop);
    }
  }
  launch_profiler(const launch_profiler&) = delete;
  launch_profiler& operator=(const launch_profiler&) = delete;

  bool enabled() const { return enabled_; }

  /// Call before a launch; the matching stop() after it.
  void start(cudaStream_t stream, std::string label) {
    if (!enabled_) return;
    record r{std::move(label), nullptr, nullptr};
    cudaEventCreate(&r.start);
    cudaEventCreate(&r.stop);
    cudaEventRecord(r.start, stream);
    records_.push_back(r);
  }
  void stop(cudaStream_t stream) {
    if (!enabled_) return;
    cudaEventRecord(records_.back().stop, stream);
  }

  /// Prints every record (waits for the stream's work to finish).
  void report() {
    if (!enabled_ || records_.empty()) return;
    cudaEventSynchronize(records_.back().stop);
    float total = 0, between = 0;
    for (std::size_t i = 0; i < records_.size(); ++i) {
      float ms = 0;
      cudaEventElapsedTime(&ms, records_[i].start, records_[i].stop);
      if (i > 0) cudaEventElapsedTime(&between, records_[i - 1].stop, records_[i].start);
      total += ms;
      std::fprintf(stderr, "kselect-profile: %-40s %8.3f ms  (gap before %.3f ms)\n", records_[i].label.c_str(), ms,
                   i > 0 ? between : 0.0f);
    }
    float span = 0;
    cudaEventElapsedTime(&span, records_.front().start, records_.back().stop);
    std::fprintf(stderr, "kselect-profile: kernels %.3f ms of %.3f ms\n", total, span);
  }

 private:
  struct record {
    std::string label;
    cudaEvent_t start, stop;
  };
  bool enabled_ = false;
  std::vector<record> records_;
};

}  // namespace kselect::cuda
