// Where a distributed call's time goes on one process, for finding it: with
// KSELECT_PROFILE=1 the engine marks the end of each phase (argument agreement, the
// sample, each round's count, all-reduce and plan, the final gather) and prints one
// line per call to stderr: every phase's wall-clock milliseconds on this process.
// Off (the default), a mark costs one branch. The passes' own GPU times come from
// the CUDA shard's launch profiler (src/cuda/dispatch/profiler.hpp), same variable.
#pragma once

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

namespace kselect::mpi::detail {

class phase_clock {
 public:
  phase_clock() {
    const char* env = std::getenv("KSELECT_PROFILE");
    enabled_ = env != nullptr && *env != '\0' && *env != '0';
    if (enabled_) last_ = start_ = clock::now();
  }
  phase_clock(const phase_clock&) = delete;
  phase_clock& operator=(const phase_clock&) = delete;

  /// Ends the phase called `what` (a string literal) now.
  void mark(const char* what) {
    if (!enabled_) return;
    const clock::time_point now = clock::now();
    phases_.emplace_back(what, std::chrono::duration<double, std::milli>(now - last_).count());
    last_ = now;
  }

  /// One line: "kselect-profile: process R: total T ms = phase a + phase b ...".
  void report(int process) const {
    if (!enabled_) return;
    std::string line;
    char item[96];
    for (const auto& [what, ms] : phases_) {
      std::snprintf(item, sizeof item, "%s%s %.3f", line.empty() ? "" : " | ", what, ms);
      line += item;
    }
    const double total = std::chrono::duration<double, std::milli>(last_ - start_).count();
    std::fprintf(stderr, "kselect-profile: process %d: %.3f ms: %s\n", process, total, line.c_str());
  }

 private:
  using clock = std::chrono::steady_clock;
  bool enabled_ = false;
  clock::time_point start_, last_;
  std::vector<std::pair<const char*, double>> phases_;
};

}  // namespace kselect::mpi::detail
