// Removing filter's temporary output file when the process is ended by SIGINT,
// SIGTERM or SIGHUP, so an interrupted run leaves the directory as it was.
// The handler only unlinks (async-signal-safe) and then ends the process by the
// same signal with its default action, so the caller sees the usual status.
#pragma once

#include <string>

namespace kselect_cli {

/// Arms the cleanup of `path` for its lifetime. One at a time per process.
/// Signals that are ignored when it is armed (nohup's SIGHUP) stay ignored.
class unlink_on_signal {
 public:
  explicit unlink_on_signal(const std::string& path);
  ~unlink_on_signal();
  unlink_on_signal(const unlink_on_signal&) = delete;
  unlink_on_signal& operator=(const unlink_on_signal&) = delete;
};

}  // namespace kselect_cli
