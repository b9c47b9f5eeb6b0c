#include "signal_cleanup.hpp"

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cstring>

namespace kselect_cli {
namespace {

constexpr int signals[] = {SIGINT, SIGTERM, SIGHUP};
constexpr int signal_count = sizeof signals / sizeof signals[0];

// Read by the handler, which may run on any thread: the path is written before
// `armed` is set (release) and read after it is seen (acquire).
char armed_path[4096];
std::atomic<bool> armed{false};
static_assert(std::atomic<bool>::is_always_lock_free, "the handler needs a lock-free flag");

struct sigaction previous[signal_count];
bool installed[signal_count];

extern "C" void unlink_and_reraise(int sig) {
  if (armed.load(std::memory_order_acquire)) ::unlink(armed_path);
  // SA_RESETHAND has restored the default action; the signal is blocked until
  // the handler returns, then it ends the process.
  ::raise(sig);
}

}  // namespace

unlink_on_signal::unlink_on_signal(const std::string& path) {
  for (bool& b : installed) b = false;
  if (path.size() >= sizeof armed_path) return;  // cannot happen for mkstemp's names below PATH_MAX
  std::memcpy(armed_path, path.c_str(), path.size() + 1);
  armed.store(true, std::memory_order_release);
  for (int i = 0; i < signal_count; ++i) {
    struct sigaction old {};
    if (::sigaction(signals[i], nullptr, &old) != 0 || old.sa_handler == SIG_IGN) continue;
    struct sigaction sa {};
    sa.sa_handler = unlink_and_reraise;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESETHAND;
    if (::sigaction(signals[i], &sa, &previous[i]) == 0) installed[i] = true;
  }
}

unlink_on_signal::~unlink_on_signal() {
  for (int i = 0; i < signal_count; ++i)
    if (installed[i]) ::sigaction(signals[i], &previous[i], nullptr);
  armed.store(false, std::memory_order_release);
}

}  // namespace kselect_cli
