// A parallel loop over a few coarse work items (input chunks, sub-problems) that
// keeps exceptions: an exception may not leave an OpenMP region, so the first one a
// body throws is caught there and rethrown on the calling thread.
#pragma once

#include <atomic>
#include <cstdint>
#include <exception>

namespace kselect::cpu {

/// body(i) for i in [0, count) on up to `threads` OpenMP threads, one item at a time
/// (items are coarse and of uneven cost). Sequential when threads <= 1 or count <= 1.
template <class Body>
void parallel_for(std::int64_t count, int threads, Body&& body) {
  if (threads <= 1 || count <= 1) {
    for (std::int64_t i = 0; i < count; ++i) body(i);
    return;
  }
  std::exception_ptr error;
  std::atomic<bool> failed{false};
#pragma omp parallel for num_threads(threads) schedule(dynamic, 1)
  for (std::int64_t i = 0; i < count; ++i) {
    if (failed.load(std::memory_order_relaxed)) continue;
    try {
      body(i);
    } catch (...) {
#pragma omp critical(kselect_cpu_parallel_for_error)
      if (!error) error = std::current_exception();
      failed.store(true, std::memory_order_relaxed);
    }
  }
  if (error) std::rethrow_exception(error);
}

}  // namespace kselect::cpu
