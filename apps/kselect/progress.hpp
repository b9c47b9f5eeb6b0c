// A progress line on stderr for work that lasts: shown only when stderr is a
// terminal and the work has lasted longer than a delay (2 s, or the environment
// variable KSELECT_PROGRESS_DELAY in seconds), rewritten in place with '\r'
// about every 200 ms by a background thread, and erased when the work ends.
// Erasing happens in the destructor, so an exception that ends the work erases
// the line before main() prints the error.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

namespace kselect_cli {

class progress {
 public:
  enum class kind {
    bytes,    // "kselect: reading big.npy: 1.2 of 4.0 GiB (30%)"
    elapsed,  // "kselect: filtering on the cpu: 14 s"
  };

  /// `what` names the work ("reading big.npy"); `total_bytes` 0 means not
  /// known (yet): only the bytes done are shown.
  explicit progress(std::string what, kind k = kind::elapsed, std::uint64_t total_bytes = 0);
  ~progress();
  progress(const progress&) = delete;
  progress& operator=(const progress&) = delete;

  /// Cheap (one atomic store): meant to be called after every chunk of work.
  void set_done(std::uint64_t bytes) noexcept;
  /// set_done(done + bytes), for work split between threads.
  void add_done(std::uint64_t bytes) noexcept;
  void set_total(std::uint64_t bytes) noexcept;

  /// Whether progress can be shown at all (stderr is a terminal).
  static bool enabled();

  /// Shows nothing from now on: the processes of a distributed job other than the
  /// first, so that a shared terminal gets one progress line, not one per process.
  static void silence() noexcept;

 private:
  struct state;
  std::unique_ptr<state> state_;  // null when disabled: no thread, nothing printed
};

}  // namespace kselect_cli
