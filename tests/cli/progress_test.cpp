// The progress line on stderr: in a pseudo-terminal with KSELECT_PROGRESS_DELAY=0
// each phase (reading, the computation, writing) shows its line and erases it,
// so the screen holds only the result or the error line; nothing at all when
// stderr is not a terminal or the work ends before the delay.
#include <pty.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>

#include "cli/io_test_util.hpp"

namespace kselect_cli_test {
namespace {

struct pty_result {
  int exit_code = -1;
  std::string bytes;  // everything written to the terminal
};

/// Runs `script` with bash in `dir`, its stdin, stdout and stderr a pseudo-terminal.
pty_result run_in_pty(const fs::path& dir, const std::string& script) {
  pty_result r;
  int master = -1;
  winsize ws{};
  ws.ws_row = 24;
  ws.ws_col = 200;
  const pid_t pid = ::forkpty(&master, nullptr, nullptr, &ws);
  if (pid < 0) {
    ADD_FAILURE() << "forkpty: " << std::strerror(errno);
    return r;
  }
  if (pid == 0) {
    const std::string full =
        "cd " + shell_quote(dir.string()) + " && K=" + shell_quote(KSELECT_CLI_PATH) + "; " + script;
    ::execl("/bin/bash", "bash", "-c", full.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  char buf[4096];
  for (;;) {
    const ssize_t n = ::read(master, buf, sizeof buf);
    if (n > 0) r.bytes.append(buf, static_cast<std::size_t>(n));
    else if (n < 0 && errno == EINTR) continue;
    else break;  // EIO: every holder of the terminal has exited
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  ::close(master);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return r;
}

/// The lines a terminal shows after `bytes`: '\r' returns to the start of the
/// line and later characters overwrite, '\n' ends it; trailing spaces dropped.
std::vector<std::string> screen(const std::string& bytes) {
  std::vector<std::string> lines;
  std::string line;
  std::size_t col = 0;
  auto finish = [&] {
    while (!line.empty() && line.back() == ' ') line.pop_back();
    lines.push_back(line);
    line.clear();
    col = 0;
  };
  for (const char c : bytes) {
    if (c == '\r') {
      col = 0;
    } else if (c == '\n') {
      finish();
    } else {
      if (col < line.size()) line[col] = c;
      else line.push_back(c);
      ++col;
    }
  }
  if (!line.empty()) finish();
  while (!lines.empty() && lines.back().empty()) lines.pop_back();
  return lines;
}

class ProgressTest : public IoTest {
 protected:
  void SetUp() override {
    IoTest::SetUp();
    std::vector<float> v(1'000'000);
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(i % 1000);
    write_npy(path("x.npy"), v);  // 4000128 bytes: "3.8 MiB"
    ASSERT_EQ(::mkfifo(path("f.npy").c_str(), 0600), 0);
  }
  /// A writer that sends x.npy into the FIFO f.npy in two parts 0.5 s apart, so
  /// reading lasts; `tool` reads f.npy.
  static std::string slow_input(const std::string& tool, const std::string& rest = "tail -c +100001 x.npy") {
    return "(head -c 100000 x.npy; sleep 0.5; " + rest + ") > f.npy & w=$!; " + tool +
           "; rc=$?; kill $w 2>/dev/null; exit $rc";
  }
};

TEST_F(ProgressTest, EachPhaseShowsALineAndErasesIt) {
  const pty_result r =
      run_in_pty(dir_, slow_input("KSELECT_PROGRESS_DELAY=0 \"$K\" --device cpu filter --lt 1 f.npy -o out.npy"));
  EXPECT_EQ(r.exit_code, 0) << r.bytes;
  EXPECT_NE(r.bytes.find("\rkselect: reading f.npy: "), std::string::npos) << r.bytes;
  EXPECT_NE(r.bytes.find(" of 3.8 MiB ("), std::string::npos) << r.bytes;   // the total, once the header is read
  EXPECT_NE(r.bytes.find("\rkselect: filtering on the cpu: 0 s"), std::string::npos) << r.bytes;
  EXPECT_NE(r.bytes.find("\rkselect: writing out.npy: 0.0 of 4.0 KiB (0%)"), std::string::npos) << r.bytes;
  EXPECT_EQ(screen(r.bytes), std::vector<std::string>{"1000"}) << r.bytes;
}

// Results written to a file (here a million values of topk) show a writing line,
// erased at the end; the terminal holds nothing else. Written to the terminal
// itself they show no such line (it would mix with them).
TEST_F(ProgressTest, WritingManyResultsShowsALine) {
  pty_result r = run_in_pty(dir_, "KSELECT_PROGRESS_DELAY=0 \"$K\" --device cpu topk -k 1000000 x.npy > out.txt");
  EXPECT_EQ(r.exit_code, 0) << r.bytes;
  EXPECT_NE(r.bytes.find("\rkselect: writing 1000000 results: 0 s"), std::string::npos) << r.bytes;
  EXPECT_EQ(screen(r.bytes), std::vector<std::string>{}) << r.bytes;
  EXPECT_EQ(lines_of(read_text(path("out.txt"))).size(), 1000000u);
  r = run_in_pty(dir_, "KSELECT_PROGRESS_DELAY=0 \"$K\" --device cpu topk -k 100000 x.npy | tail -n 1");
  EXPECT_EQ(r.exit_code, 0) << r.bytes;
  EXPECT_NE(r.bytes.find("\rkselect: writing 100000 results: 0 s"), std::string::npos) << r.bytes;
  r = run_in_pty(dir_, "KSELECT_PROGRESS_DELAY=0 \"$K\" --device cpu topk -k 100000 x.npy");
  EXPECT_EQ(r.exit_code, 0) << r.bytes;
  EXPECT_EQ(r.bytes.find("writing"), std::string::npos);
}

// The error line starts on a clean line: the progress line is erased first.
TEST_F(ProgressTest, ErrorAfterProgressIsOnItsOwnLine) {
  const pty_result r = run_in_pty(
      dir_, slow_input("KSELECT_PROGRESS_DELAY=0 \"$K\" select -k 0 f.npy", "tail -c +100001 x.npy | head -c 1000"));
  EXPECT_EQ(r.exit_code, 2) << r.bytes;
  EXPECT_NE(r.bytes.find("\rkselect: reading f.npy: "), std::string::npos) << r.bytes;
  EXPECT_EQ(screen(r.bytes), std::vector<std::string>{
                                 "kselect: error: f.npy: truncated data: shape (1000000,) of float32 needs "
                                 "4000000 bytes, the input holds 100872 bytes"})
      << r.bytes;
}

// Writing to a FIFO whose reader takes 1 MiB every 0.3 s: the writing line
// shows the bytes done growing.
TEST_F(ProgressTest, SlowWritingShowsTheBytesDone) {
  ASSERT_EQ(::mkfifo(path("out.fifo").c_str(), 0600), 0);
  const pty_result r = run_in_pty(
      dir_,
      "(exec 3<out.fifo; for i in 1 2 3; do sleep 0.3; dd bs=64k count=16 iflag=fullblock <&3 >/dev/null 2>&1; done;"
      " cat <&3 >/dev/null) & "
      "KSELECT_PROGRESS_DELAY=0 \"$K\" filter --ge 0 x.npy -o out.fifo; rc=$?; wait; exit $rc");
  EXPECT_EQ(r.exit_code, 0) << r.bytes;
  EXPECT_NE(r.bytes.find("\rkselect: writing out.fifo: 0.0 of 3.8 MiB (0%)"), std::string::npos) << r.bytes;
  // Each whole MiB taken is on screen for 0.3 s, refreshed every 0.2 s: at least
  // one of them is seen even when the refresh is late.
  const bool moved = r.bytes.find("writing out.fifo: 1.0 of 3.8 MiB (26%)") != std::string::npos ||
                     r.bytes.find("writing out.fifo: 2.0 of 3.8 MiB (52%)") != std::string::npos ||
                     r.bytes.find("writing out.fifo: 3.0 of 3.8 MiB (78%)") != std::string::npos;
  EXPECT_TRUE(moved) << r.bytes;
  EXPECT_EQ(screen(r.bytes), std::vector<std::string>{"1000000"}) << r.bytes;
}

TEST_F(ProgressTest, NothingWhenStderrIsNotATerminal) {
  const pty_result r =
      run_in_pty(dir_, slow_input("KSELECT_PROGRESS_DELAY=0 \"$K\" filter --lt 1 f.npy -o out.npy 2>err.txt"));
  EXPECT_EQ(r.exit_code, 0) << r.bytes;
  EXPECT_EQ(r.bytes, "1000\r\n");
  EXPECT_EQ(read_text(path("err.txt")), "");
}

// Work shorter than the delay (here 0.5 s of reading against 30 s, and a
// regular-file run against the default 2 s) prints nothing.
TEST_F(ProgressTest, NothingBeforeTheDelay) {
  pty_result r = run_in_pty(dir_, slow_input("KSELECT_PROGRESS_DELAY=30 \"$K\" select -k 0 f.npy"));
  EXPECT_EQ(r.exit_code, 0) << r.bytes;
  EXPECT_EQ(r.bytes, "0\r\n");
  r = run_in_pty(dir_, "unset KSELECT_PROGRESS_DELAY; \"$K\" select -k 0 x.npy");
  EXPECT_EQ(r.exit_code, 0) << r.bytes;
  EXPECT_EQ(r.bytes, "0\r\n");
}

}  // namespace
}  // namespace kselect_cli_test
