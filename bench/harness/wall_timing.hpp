// Wall-clock timing shared by the benchmarks timed on the host (kselect-cpu-bench,
// kselect-host-stream-bench, kselect-mpi-bench): a set of timed runs summarised as
// median, min and max (ms), and the loop that times them. (The GPU benchmarks time
// on the stream with CUDA events: harness.hpp.)
#pragma once

#include <algorithm>
#include <chrono>
#include <vector>

namespace kselect::bench {

/// Median, min and max of timed runs, in ms.
struct timing {
  double median_ms = 0, min_ms = 0, max_ms = 0;
  int runs = 0;
};

/// The median (the mean of the middle two for an even count), min and max of `ms`.
inline timing summarize(std::vector<double> ms) {
  timing t;
  if (ms.empty()) return t;
  std::sort(ms.begin(), ms.end());
  const std::size_t h = ms.size() / 2;
  t.median_ms = ms.size() % 2 ? ms[h] : 0.5 * (ms[h - 1] + ms[h]);
  t.min_ms = ms.front();
  t.max_ms = ms.back();
  t.runs = static_cast<int>(ms.size());
  return t;
}

/// `runs` timed calls of timed() after `warmup` untimed ones (which warm caches,
/// pages and thread pools); prepare() runs untimed before every call.
template <class Prepare, class Timed>
timing time_wall(int runs, int warmup, Prepare prepare, Timed timed) {
  using clock_type = std::chrono::steady_clock;
  std::vector<double> ms;
  for (int r = 0; r < warmup + runs; ++r) {
    prepare();
    const auto start = clock_type::now();
    timed();
    const double t = std::chrono::duration<double, std::milli>(clock_type::now() - start).count();
    if (r >= warmup) ms.push_back(t);
  }
  return summarize(std::move(ms));
}

}  // namespace kselect::bench
