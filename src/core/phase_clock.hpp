// Where a call's host time goes, for finding it: with KSELECT_PROFILE=1 a phase_clock
// marks the end of each phase and prints one line when asked: every phase's wall-clock
// milliseconds. The distributed engine (src/mpi/engine.hpp) marks a call's phases on
// each process (argument agreement, the sample, each round's count, all-reduce and
// plan, the final gather); the CUDA shard marks its own host steps inside them (the
// table's copy, the launch, the wait for the counts). Off (the default), a mark costs
// one branch. The passes' GPU times come from src/cuda/dispatch/profiler.hpp, same
// variable (profiling_requested()).
#pragma once

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

namespace kselect::core {

/// KSELECT_PROFILE is set and not "0".
inline bool profiling_requested() {
  const char* env = std::getenv("KSELECT_PROFILE");
  return env != nullptr && *env != '\0' && *env != '0';
}

class phase_clock {
 public:
  phase_clock() : enabled_(profiling_requested()) {
    if (enabled_) last_ = start_ = clock::now();
  }
  phase_clock(const phase_clock&) = delete;
  phase_clock& operator=(const phase_clock&) = delete;

  bool enabled() const { return enabled_; }

  /// Ends the phase called `what` (a string literal) now.
  void mark(const char* what) {
    if (!enabled_) return;
    const clock::time_point now = clock::now();
    phases_.emplace_back(what, std::chrono::duration<double, std::milli>(now - last_).count());
    last_ = now;
  }

  /// Starts the next phase now, the time since the last mark not counted (another
  /// component's, which marks its own).
  void resume() {
    if (enabled_) last_ = clock::now();
  }

  /// One line: "kselect-profile: WHO: T ms: phase a | phase b ..." (T: the first
  /// construction-to-last-mark span), when phases were marked.
  void report(const std::string& who) const {
    if (!enabled_ || phases_.empty()) return;
    std::string line;
    char item[96];
    for (const auto& [what, ms] : phases_) {
      std::snprintf(item, sizeof item, "%s%s %.3f", line.empty() ? "" : " | ", what, ms);
      line += item;
    }
    const double total = std::chrono::duration<double, std::milli>(last_ - start_).count();
    std::fprintf(stderr, "kselect-profile: %s: %.3f ms: %s\n", who.c_str(), total, line.c_str());
  }

 private:
  using clock = std::chrono::steady_clock;
  bool enabled_ = false;
  clock::time_point start_, last_;
  std::vector<std::pair<const char*, double>> phases_;
};

}  // namespace kselect::core
