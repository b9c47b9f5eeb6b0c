// The tool's error type: a caller mistake (bad input file, bad argument) that
// main() reports as one "kselect: error: ..." line on stderr with exit code 2.
#pragma once

#include <cstdio>
#include <exception>
#include <new>
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

/// A failure as the tool reports it: its message and exit code.
struct failure_report {
  std::string message;
  int code = exit_failure;
};

/// The report of the exception being handled (call inside a catch block):
/// input_error and the library's std::invalid_argument are caller mistakes
/// (exit_usage); anything else is a runtime failure (exit_failure).
inline failure_report describe_current_exception() {
  try {
    throw;
  } catch (const input_error& e) {
    return {e.what(), exit_usage};
  } catch (const std::invalid_argument& e) {  // the library's caller mistakes
    return {library_words(e), exit_usage};
  } catch (const std::bad_alloc&) {
    return {"out of memory", exit_failure};
  } catch (const std::exception& e) {
    return {e.what(), exit_failure};
  } catch (...) {
    return {"unknown failure", exit_failure};
  }
}

/// Prints "kselect: error: MESSAGE" as one line on stderr.
inline void report_error(const std::string& message) {
  std::string line = message;
  for (auto& c : line)
    if (c == '\n' || c == '\r') c = ' ';
  std::fprintf(stderr, "kselect: error: %s\n", line.c_str());
}

}  // namespace kselect_cli
