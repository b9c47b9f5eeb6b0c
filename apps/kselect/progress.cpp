#include "progress.hpp"

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <system_error>
#include <thread>

namespace kselect_cli {
namespace {

using clock_type = std::chrono::steady_clock;
constexpr auto refresh = std::chrono::milliseconds(200);

/// KSELECT_PROGRESS_DELAY (seconds, a finite number >= 0), else 2 s.
clock_type::duration delay() {
  double seconds = 2.0;
  if (const char* env = std::getenv("KSELECT_PROGRESS_DELAY"); env && *env) {
    char* end = nullptr;
    const double v = std::strtod(env, &end);
    if (*end == '\0' && std::isfinite(v) && v >= 0) seconds = v;
  }
  return std::chrono::duration_cast<clock_type::duration>(std::chrono::duration<double>(std::min(seconds, 1e6)));
}

/// Columns of the terminal on stderr; a line as wide wraps, and '\r' would then
/// rewrite only its last row.
std::size_t terminal_width() {
  winsize ws{};
  if (::ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 1) return ws.ws_col;
  return 80;
}

void write_stderr_all(const std::string& s) {
  std::size_t off = 0;
  while (off < s.size()) {
    const ssize_t w = ::write(STDERR_FILENO, s.data() + off, s.size() - off);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return;  // nowhere to report a failure to draw progress
    off += static_cast<std::size_t>(w);
  }
}

std::string one_decimal(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}

/// "1.2 of 4.0 GiB (30%)", or "1.2 GiB" when the total is not known; the unit
/// follows the larger of the two numbers.
std::string bytes_text(std::uint64_t done, std::uint64_t total) {
  const double scale_of = static_cast<double>(std::max(done, total));
  double unit = 1024.0;
  const char* name = "KiB";
  if (scale_of >= 1024.0 * 1024 * 1024) unit = 1024.0 * 1024 * 1024, name = "GiB";
  else if (scale_of >= 1024.0 * 1024) unit = 1024.0 * 1024, name = "MiB";
  const std::string d = one_decimal(static_cast<double>(done) / unit);
  if (total == 0) return d + " " + name;
  const auto percent = static_cast<unsigned>(std::min<std::uint64_t>(done, total) * 100 / total);
  return d + " of " + one_decimal(static_cast<double>(total) / unit) + " " + name + " (" +
         std::to_string(percent) + "%)";
}

}  // namespace

struct progress::state {
  std::string what;
  kind k;
  std::atomic<std::uint64_t> done{0};
  std::atomic<std::uint64_t> total{0};
  clock_type::time_point start = clock_type::now();
  clock_type::duration delay = kselect_cli::delay();
  std::size_t shown = 0;  // length of the line on the terminal; 0: none
  std::mutex m;
  std::condition_variable cv;
  bool stop = false;
  std::thread thread;

  std::string line() const {
    std::string s = "kselect: " + what + ": ";
    if (k == kind::bytes)
      return s + bytes_text(done.load(std::memory_order_relaxed), total.load(std::memory_order_relaxed));
    const auto secs = std::chrono::duration_cast<std::chrono::seconds>(clock_type::now() - start).count();
    return s + std::to_string(secs) + " s";
  }

  void draw() {
    std::string text = line();
    const std::size_t width = terminal_width() - 1;
    if (text.size() > width) text.resize(width);
    const std::size_t len = text.size();
    if (len < shown) text.append(shown - len, ' ');  // cover the end of a longer previous line
    write_stderr_all('\r' + text);
    shown = len;
  }

  void erase() {
    if (shown == 0) return;
    write_stderr_all('\r' + std::string(shown, ' ') + '\r');
    shown = 0;
  }

  void run() {
    std::unique_lock lock(m);
    auto next = shown != 0 ? clock_type::now() + refresh : start + delay;
    while (!cv.wait_until(lock, next, [&] { return stop; })) {
      draw();
      next = clock_type::now() + refresh;
    }
  }
};

namespace {
std::atomic<bool> silenced{false};
}  // namespace

bool progress::enabled() {
  static const bool tty = ::isatty(STDERR_FILENO) == 1;
  return tty && !silenced.load(std::memory_order_relaxed);
}

void progress::silence() noexcept { silenced.store(true, std::memory_order_relaxed); }

progress::progress(std::string what, kind k, std::uint64_t total_bytes) {
  if (!enabled()) return;
  state_ = std::make_unique<state>();
  // Control characters of a file name would break the line.
  for (char& c : what)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
  state_->what = std::move(what);
  state_->k = k;
  state_->total.store(total_bytes, std::memory_order_relaxed);
  // Without a delay the line appears before the work starts, however short it
  // is (what the tests rely on).
  if (state_->delay == clock_type::duration::zero()) state_->draw();
  try {
    state_->thread = std::thread([s = state_.get()] { s->run(); });
  } catch (const std::system_error&) {
    state_->erase();
    state_.reset();  // no thread, no progress: the work itself goes on
  }
}

progress::~progress() {
  if (!state_) return;
  {
    std::lock_guard lock(state_->m);
    state_->stop = true;
  }
  state_->cv.notify_one();
  state_->thread.join();
  state_->erase();  // after the join: the thread can no longer draw over it
}

void progress::set_done(std::uint64_t bytes) noexcept {
  if (state_) state_->done.store(bytes, std::memory_order_relaxed);
}

void progress::add_done(std::uint64_t bytes) noexcept {
  if (state_) state_->done.fetch_add(bytes, std::memory_order_relaxed);
}

void progress::set_total(std::uint64_t bytes) noexcept {
  if (state_) state_->total.store(bytes, std::memory_order_relaxed);
}

}  // namespace kselect_cli
