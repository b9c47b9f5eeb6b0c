// The tool's error type: a caller mistake (bad input file, bad argument) that
// main() reports as one "kselect: error: ..." line on stderr with exit code 2.
#pragma once

#include <stdexcept>
#include <string>

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

/// A library message without its "kselect: " prefix: the tool's lines already
/// start "kselect: error: ".
inline std::string library_words(const std::exception& e) {
  const std::string what = e.what();
  return what.starts_with("kselect: ") ? what.substr(9) : what;
}

}  // namespace kselect_cli
