// What the host chooses for a task of the SampleSelect levels (dispatch/choose.hpp)
// and the kernels read from its descriptor (task.cuh). Plain C++.
#pragma once

#include <cstdint>

namespace kselect::cuda {

/// How a task chooses its splitters and what its count pass does.
enum class task_mode : std::int32_t {
  /// One rank: splitters bound a window predicted from the sample; the count pass
  /// extracts the window (the range bucket between them) into its region.
  window = 0,
  /// Splitters equally spaced in the sorted sample; a filter pass follows the count.
  sample_buckets = 1,
  /// Splitters divide the task's key interval [lo, hi] into equal parts: for tasks
  /// whose keys are not compact (an interval of the original input), which cannot
  /// be sampled. Each level narrows the interval 128-fold, so this always ends.
  range_buckets = 2,
};

/// How a task's keys are classified (kernels/classifier.cuh).
enum class classifier_kind : std::int32_t { small = 0, tree = 1, slots = 2 };

}  // namespace kselect::cuda
