// The tool's error type: a caller mistake (bad input file, bad argument) that
// main() reports as one "kselect: error: ..." line on stderr with exit code 2.
#pragma once

#include <stdexcept>

namespace kselect_cli {

/// Exit codes of the tool.
enum exit_code : int {
  exit_ok = 0,
  exit_failure = 1,  // a check of `demo` failed, or a runtime failure (CUDA error, out of memory)
  exit_usage = 2,    // bad arguments or bad input
};

class input_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace kselect_cli
