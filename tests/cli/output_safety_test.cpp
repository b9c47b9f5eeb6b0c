// filter -o never loses data: a failed write leaves an existing target as it was
// and no temporary file behind; devices and FIFOs are written, never removed; the
// input, a directory or a block device is refused before any work. Also standard
// output's write errors (a full device, a reader that has gone).
#include <fcntl.h>
#include <sys/mount.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <thread>

#include "cli/io_test_util.hpp"

namespace kselect_cli_test {
namespace {

/// An input whose filter output (--lt 1e30: every value) is `n` float32 values.
std::vector<float> every_value_input(std::size_t n) {
  std::vector<float> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<float>(i % 1000) - 500.0f;
  return v;
}

/// The .npy bytes kselect writes for `v` (as the filter tests check them).
template <class T>
std::string npy_bytes(const std::vector<T>& v) {
  return npy_prefix(npy_dict(npy_descr<T>(), {static_cast<std::int64_t>(v.size())})) + raw_bytes(v);
}

class OutputSafety : public IoTest {
 protected:
  void SetUp() override {
    IoTest::SetUp();
    values_ = every_value_input(100000);  // 400 KB of output
    write_npy(path("in.npy"), values_);
    write_npy(path("prev.npy"), std::vector<double>{1.5, 2.5});
    prev_ = read_text(path("prev.npy"));
  }
  std::vector<float> values_;
  std::string prev_;
};

// RLIMIT_FSIZE of 64 KiB (ulimit -f 64): write() fails with EFBIG past it. The
// existing target survives bit for bit and no temporary file remains.
TEST_F(OutputSafety, FileSizeLimitKeepsTheExistingTarget) {
  const auto before = listing(dir_);
  const tool_result r = sh("ulimit -f 64; \"$K\" filter --lt 1e30 in.npy -o prev.npy");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.out, "");
  expect_one_error_line(r, "prev.npy: write error: File too large");
  EXPECT_EQ(read_text(path("prev.npy")), prev_);
  EXPECT_EQ(listing(dir_), before);

  // A new file: nothing at all is created.
  const tool_result fresh = sh("ulimit -f 64; \"$K\" filter --lt 1e30 in.npy -o new.npy");
  EXPECT_EQ(fresh.exit_code, 1);
  expect_one_error_line(fresh, "new.npy: write error: File too large");
  EXPECT_EQ(listing(dir_), before);

  // Under the limit, the same command replaces the target.
  const tool_result ok = sh("ulimit -f 1024; \"$K\" filter --lt 1e30 in.npy -o prev.npy");
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
  EXPECT_EQ(read_text(path("prev.npy")), npy_bytes(values_));
  EXPECT_EQ(listing(dir_), before);
}

// A real full file system: a 64 KiB tmpfs, where mounting is allowed (root in a
// mount namespace that permits it).
TEST_F(OutputSafety, FullTmpfsKeepsTheExistingTarget) {
  const fs::path mnt = path("small");
  fs::create_directory(mnt);
  if (::mount("tmpfs", mnt.c_str(), "tmpfs", 0, "size=64k") != 0)
    GTEST_SKIP() << "cannot mount a tmpfs here (" << std::strerror(errno)
                 << "); FileSizeLimitKeepsTheExistingTarget covers the failure path";
  struct unmount {
    fs::path p;
    ~unmount() { ::umount2(p.c_str(), MNT_DETACH); }
  } guard{mnt};
  write_bytes(mnt / "prev.npy", prev_);
  const tool_result r = sh("\"$K\" filter --lt 1e30 in.npy -o small/prev.npy");
  EXPECT_EQ(r.exit_code, 1);
  expect_one_error_line(r, "small/prev.npy: write error: No space left on device");
  EXPECT_EQ(read_text(mnt / "prev.npy"), prev_);
  EXPECT_EQ(listing(mnt), std::set<std::string>{"prev.npy"});
}

// The full device (1, 7) as -o: ENOSPC is reported and the node is kept. Where
// device nodes can be made (root), the test makes its own, so that a regression
// deletes the test's node and not the system's /dev/full (the old tool removed
// it); elsewhere /dev/full itself, which the tool then has no right to remove.
TEST_F(OutputSafety, FullDeviceIsReportedAndKept) {
  std::string full = "full_node";
  if (::mknod(path(full).c_str(), S_IFCHR | 0666, makedev(1, 7)) != 0) full = "/dev/full";
  const tool_result r = sh("\"$K\" filter --lt 1e30 in.npy -o " + full);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.out, "");
  expect_one_error_line(r, full + ": write error: No space left on device");
  const struct stat st = lstat_of(full[0] == '/' ? fs::path(full) : path(full));
  EXPECT_TRUE(S_ISCHR(st.st_mode));
  EXPECT_EQ(st.st_rdev, makedev(1, 7));
}

// /dev/null's device (1, 3) takes the bytes: success, and the node is not replaced.
TEST_F(OutputSafety, NullDeviceIsWrittenNotReplaced) {
  if (::mknod(path("null_node").c_str(), S_IFCHR | 0666, makedev(1, 3)) != 0)
    GTEST_SKIP() << "cannot make a device node here (" << std::strerror(errno) << ")";
  const tool_result r = sh("\"$K\" filter --lt 0 in.npy -o null_node");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  const struct stat st = lstat_of(path("null_node"));
  EXPECT_TRUE(S_ISCHR(st.st_mode));
  EXPECT_EQ(st.st_rdev, makedev(1, 3));
}

// A block device node as -o is refused before anything is opened, and kept. The
// node is the test's own (a loop device's number; nothing is attached to it), made
// where device nodes can be made, never a disk of the machine.
TEST_F(OutputSafety, BlockDeviceIsRefusedAndKept) {
  if (::mknod(path("block_node").c_str(), S_IFBLK | 0600, makedev(7, 250)) != 0)
    GTEST_SKIP() << "cannot make a device node here (" << std::strerror(errno) << ")";
  const tool_result r = sh("\"$K\" filter --lt 1e30 in.npy -o block_node");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "");
  expect_one_error_line(r, "block_node: is a block device (kselect writes regular files, character devices, FIFOs and "
                           "sockets)");
  const struct stat st = lstat_of(path("block_node"));
  EXPECT_TRUE(S_ISBLK(st.st_mode));
  EXPECT_EQ(st.st_rdev, makedev(7, 250));
}

TEST_F(OutputSafety, FifoOutputIsStreamed) {
  const fs::path fifo = path("out.fifo");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::string got;
  std::thread reader([&] {
    const int fd = ::open(fifo.c_str(), O_RDONLY);
    if (fd < 0) return;
    char buf[65536];
    for (ssize_t n; (n = ::read(fd, buf, sizeof buf)) > 0;) got.append(buf, static_cast<std::size_t>(n));
    ::close(fd);
  });
  const tool_result r = sh("\"$K\" filter --lt 1e30 in.npy -o out.fifo");
  reader.join();
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "100000\n");
  EXPECT_EQ(got, npy_bytes(values_));
  EXPECT_TRUE(S_ISFIFO(lstat_of(fifo).st_mode));
}

// -o - (and a name of stdout's file): the .npy on stdout, the count or JSON on
// stderr. /dev/fd/1 rather than /dev/stdout: the same file, but a regression that
// removes its output path cannot remove a link in /proc as it could in /dev.
TEST_F(OutputSafety, DashWritesTheNpyToStdout) {
  std::vector<float> negative;
  for (const float x : values_)
    if (x < 0) negative.push_back(x);
  for (const std::string out : {"-", "/dev/fd/1"}) {
    SCOPED_TRACE("-o " + out);
    tool_result r = sh("\"$K\" filter --lt 0 in.npy -o " + out);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.err, "50000\n");
    EXPECT_EQ(r.out, npy_bytes(negative));
    r = sh("\"$K\" --json filter --lt -499 in.npy -o " + out);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.err.find("\"count\":100"), std::string::npos) << r.err;
    EXPECT_EQ(r.out, npy_bytes(std::vector<float>(100, -500.0f)));
  }
  // Through a pipe.
  const tool_result piped = sh("\"$K\" filter --lt -499 --indices in.npy -o - | cat > piped.npy");
  EXPECT_EQ(piped.exit_code, 0) << piped.err;
  EXPECT_EQ(piped.err, "100\n");
  std::vector<std::int64_t> positions;
  for (std::int64_t i = 0; i < 100000; i += 1000) positions.push_back(i);
  EXPECT_EQ(read_text(path("piped.npy")), npy_bytes(positions));
}

// The same file by every kind of name: refused (exit 2) before any work, input unchanged.
TEST_F(OutputSafety, OutputThatIsTheInputIsRefused) {
  fs::create_directory(path("sub"));
  fs::create_symlink("in.npy", path("link.npy"));
  fs::create_hard_link(path("in.npy"), path("hard.npy"));
  const std::string in_bytes = read_text(path("in.npy"));
  const std::string dirname = dir_.filename().string();
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"in.npy", "in.npy"},         {"./in.npy", "in.npy"},       {"sub/../in.npy", "in.npy"},
      {"../" + dirname + "/in.npy", "in.npy"}, {"link.npy", "in.npy"}, {"hard.npy", "in.npy"},
      {"in.npy", "link.npy"},       {dir_.string() + "/in.npy", "hard.npy"}};
  for (const auto& [out, in] : cases) {
    SCOPED_TRACE("-o " + out + ", input " + in);
    const tool_result r = sh("\"$K\" filter --lt 0 " + in + " -o " + out);
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_EQ(r.out, "");
    expect_one_error_line(r, out + ": is the same file as the input " + in + " (give -o another file)");
    EXPECT_EQ(read_text(path("in.npy")), in_bytes);
  }
  // Standard input redirected from the file.
  const tool_result r = sh("\"$K\" filter --lt 0 - -o in.npy < in.npy");
  EXPECT_EQ(r.exit_code, 2);
  expect_one_error_line(r, "in.npy: is the same file as the input standard input (give -o another file)");
  EXPECT_EQ(read_text(path("in.npy")), in_bytes);
  EXPECT_TRUE(fs::is_symlink(path("link.npy")));
}

TEST_F(OutputSafety, DirectoriesAndBadNamesAreRefused) {
  fs::create_directory(path("d"));
  write_bytes(path("d/keep"), "x");
  tool_result r = sh("\"$K\" filter --lt 0 in.npy -o d");
  EXPECT_EQ(r.exit_code, 2);
  expect_one_error_line(r, "d: is a directory (give -o a file name)");
  EXPECT_EQ(listing(path("d")), std::set<std::string>{"keep"});
  EXPECT_EQ(read_text(path("d/keep")), "x");

  r = sh("\"$K\" filter --lt 0 in.npy -o missing/out.npy");
  EXPECT_EQ(r.exit_code, 2);
  expect_one_error_line(r, "missing/out.npy: cannot create: No such file or directory");

  r = sh("\"$K\" filter --lt 0 in.npy -o ''");
  EXPECT_EQ(r.exit_code, 2);
  expect_one_error_line(r, "-o: the output file name is empty");

  r = sh("\"$K\" filter --lt 0 --indices in.npy");
  EXPECT_EQ(r.exit_code, 2);
  expect_one_error_line(r, "--indices: needs -o OUT.npy (without -o only the count is printed)");
  EXPECT_FALSE(fs::exists(path("out.npy")));
}

TEST_F(OutputSafety, ReplacingKeepsModeAndSymlinks) {
  ASSERT_EQ(::chmod(path("prev.npy").c_str(), 0640), 0);
  fs::create_symlink("prev.npy", path("to_prev.npy"));
  const auto before = listing(dir_);
  const tool_result r = sh("\"$K\" filter --lt -499 in.npy -o to_prev.npy");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(fs::is_symlink(path("to_prev.npy")));
  EXPECT_EQ(read_text(path("prev.npy")), npy_bytes(std::vector<float>(100, -500.0f)));
  EXPECT_EQ(lstat_of(path("prev.npy")).st_mode & 07777, 0640u);
  EXPECT_EQ(listing(dir_), before);
  // A new file gets 0666 less the umask.
  const tool_result fresh = sh("umask 027; \"$K\" filter --lt -499 in.npy -o fresh.npy");
  EXPECT_EQ(fresh.exit_code, 0) << fresh.err;
  EXPECT_EQ(lstat_of(path("fresh.npy")).st_mode & 07777, 0640u);
}

// SIGTERM or SIGHUP while the output is pending: the temporary file goes, the
// target stays, and the process ends by the signal. The input is a FIFO held
// open, so the tool waits in its read with the temporary file already created.
// (Not SIGINT: bash starts background jobs with SIGINT ignored, and the tool
// leaves ignored signals ignored; the handler is the same.)
TEST_F(OutputSafety, SignalRemovesTheTemporaryFile) {
  ASSERT_EQ(::mkfifo(path("in.fifo").c_str(), 0600), 0);
  for (const auto& [sig, status] : {std::pair<std::string, int>{"TERM", 143}, {"HUP", 129}}) {
    SCOPED_TRACE("SIG" + sig);
    const tool_result r = sh(
        "\"$K\" filter --lt 0 --dtype float32 in.fifo -o prev.npy & pid=$!\n"
        "exec 3>in.fifo\n"
        "for i in $(seq 100); do ls -a | grep -q '^\\.prev\\.npy\\.kselect-' && break; sleep 0.05; done\n"
        "ls -a | grep -c '^\\.prev\\.npy\\.kselect-'\n"
        "kill -" + sig + " $pid; wait $pid; echo status $?\n");
    // The temporary file existed, then the process ended by the signal (128 + its number).
    EXPECT_EQ(r.out, "1\nstatus " + std::to_string(status) + "\n") << r.err;
    EXPECT_EQ(read_text(path("prev.npy")), prev_);
    EXPECT_EQ(listing(dir_), (std::set<std::string>{"in.npy", "in.fifo", "prev.npy"}));
  }
}

TEST_F(OutputSafety, StdoutWriteErrors) {
  tool_result r = sh("\"$K\" select -k 0 in.npy > /dev/full");
  EXPECT_EQ(r.exit_code, 1);
  expect_one_error_line(r, "standard output: write error: No space left on device");
  // -o - onto a full stdout: the .npy's write fails.
  r = sh("\"$K\" filter --lt 0 in.npy -o - > /dev/full");
  EXPECT_EQ(r.exit_code, 1);
  expect_one_error_line(r, "standard output: write error: No space left on device");
  // A reader that stops early: no message, exit 1 (not death by SIGPIPE).
  r = sh("\"$K\" topk -k 100000 in.npy | head -c 10 >/dev/null; echo ${PIPESTATUS[0]}");
  EXPECT_EQ(r.out, "1\n");
  EXPECT_EQ(r.err, "");
  r = sh("\"$K\" filter --lt 1e30 in.npy -o - | head -c 10 >/dev/null; echo ${PIPESTATUS[0]}");
  EXPECT_EQ(r.out, "1\n");
  EXPECT_EQ(r.err, "");
}

}  // namespace
}  // namespace kselect_cli_test
