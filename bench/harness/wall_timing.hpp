// kselect-mpi-bench: a set of timed runs summarised as median, min and max (ms).
#pragma once

#include <algorithm>
#include <vector>

namespace kselect::mpi_bench {

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

}  // namespace kselect::mpi_bench
