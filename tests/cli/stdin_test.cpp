// Reading from standard input, pipes and FIFOs: '-' and /dev/stdin are .npy when
// they start with the magic string and raw otherwise (--dtype needed, --raw
// forces raw); FIFOs follow the extension like files; truncated and malformed
// streams give the files' errors.
#include <charconv>
#include <nlohmann/json.hpp>

#include "cli/io_test_util.hpp"

namespace kselect_cli_test {
namespace {

class StdinTest : public IoTest {
 protected:
  void SetUp() override {
    IoTest::SetUp();
    for (int i = 0; i < 1000; ++i) values_.push_back(static_cast<double>((i * 37) % 1000) - 300.5);
    write_npy(path("x.npy"), values_);
    write_bytes(path("x.bin"), raw_bytes(values_));
  }
  /// Expects exit code 0, nothing on stderr, and `want` on stdout.
  void expect_out(const std::string& script, const std::string& want) const {
    SCOPED_TRACE(script);
    const tool_result r = sh(script);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.err, "");
    EXPECT_EQ(r.out, want);
  }
  /// Expects exit code 2, nothing on stdout and the one error line.
  void expect_fail(const std::string& script, const std::string& message) const {
    SCOPED_TRACE(script);
    const tool_result r = sh(script);
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_EQ(r.out, "");
    expect_one_error_line(r, message);
  }
  std::vector<double> values_;  // the 10th smallest is -290.5
};

TEST_F(StdinTest, NpyAndRawFromRedirectionAndPipe) {
  for (const std::string file : {"-", "/dev/stdin"}) {
    expect_out("\"$K\" select -k 10 " + file + " < x.npy", "-290.5\n");
    expect_out("cat x.npy | \"$K\" select -k 10 " + file, "-290.5\n");
    expect_out("\"$K\" select -k 10 --dtype float64 " + file + " < x.bin", "-290.5\n");
    expect_out("cat x.bin | \"$K\" select -k 10 --dtype float64 " + file, "-290.5\n");
    // A .npy's --dtype must match its header, as for files.
    expect_out("cat x.npy | \"$K\" select -k 10 --dtype float64 " + file, "-290.5\n");
  }
  // --raw reads the .npy's bytes as data: 1000 doubles after a 128-byte header
  // are 1016 doubles.
  const tool_result r = sh("cat x.npy | \"$K\" --json select -k 0 --raw --dtype float64 -");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["n"], 1016);
}

TEST_F(StdinTest, JsonNamesStdinAsDash) {
  const tool_result r = sh("cat x.npy | \"$K\" --json quantile -q 0.5 -");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["file"], "-");
  EXPECT_EQ(j["n"], 1000);
  EXPECT_EQ(j["dtype"], "float64");
}

// Every command, and filter's output, work from a pipe.
TEST_F(StdinTest, EveryCommandReadsAPipe) {
  expect_out("cat x.npy | \"$K\" topk -k 2 --sorted -", "-300.5\n-299.5\n");
  expect_out("cat x.npy | \"$K\" range --lo 0 --hi 1 -", "-300.5\n");
  expect_out("cat x.npy | \"$K\" quantile -q 0 -", "-300.5\n");
  expect_out("cat x.npy | \"$K\" filter --lt -290 -", "11\n");  // -300.5 .. -290.5
  expect_out("cat x.bin | \"$K\" filter --dtype float64 --lt -290 - -o - 2>count | \"$K\" select -k 9 -",
             "-291.5\n");
  EXPECT_EQ(read_text(path("count")), "11\n");
}

TEST_F(StdinTest, FormatErrors) {
  expect_fail("cat x.bin | \"$K\" select -k 0 -",
              "standard input: not .npy data (no \\x93NUMPY magic string at the start), and raw input needs "
              "--dtype (one of float32, float64, int32, uint32, int64, uint64)");
  expect_fail("\"$K\" select -k 0 -", "standard input: holds no values");  // stdin is /dev/null
  expect_fail("\"$K\" select -k 0 --dtype float32 - < /dev/null", "standard input: holds no values");
  expect_fail("head -c 7 x.bin | \"$K\" select -k 0 --dtype float64 -",
              "standard input: read 7 bytes, not a multiple of the float64 item size 8");
  expect_fail("head -c 1000 x.npy | \"$K\" select -k 0 -",
              "standard input: truncated data: shape (1000,) of float64 needs 8000 bytes, the input holds 872 bytes");
  expect_fail("head -c 100 x.npy | \"$K\" select -k 0 -", "standard input: truncated .npy header");
  expect_fail("(cat x.npy; printf abc) | \"$K\" select -k 0 -",
              "standard input: 3 bytes of unexpected data after the array of shape (1000,)");
  expect_fail("cat x.npy | \"$K\" select -k 0 --dtype int32 -",
              "standard input: --dtype int32 conflicts with the file's dtype float64 ('<f8')");
  // /dev/stdin is named as typed.
  expect_fail("head -c 100 x.npy | \"$K\" select -k 0 /dev/stdin", "/dev/stdin: truncated .npy header");
}

/// `writer` in the background into a FIFO, then `tool`; the writer is ended
/// afterwards in case the tool never opened the FIFO (it would wait forever).
std::string with_writer(const std::string& writer, const std::string& tool) {
  return writer + " & w=$!; " + tool + "; rc=$?; kill $w 2>/dev/null; exit $rc";
}

// A FIFO is read to its end, its format from its name as for files.
TEST_F(StdinTest, FifoInput) {
  ASSERT_EQ(::mkfifo(path("f.npy").c_str(), 0600), 0);
  ASSERT_EQ(::mkfifo(path("f.bin").c_str(), 0600), 0);
  expect_out(with_writer("cat x.npy > f.npy", "\"$K\" select -k 10 f.npy"), "-290.5\n");
  expect_out(with_writer("cat x.bin > f.bin", "\"$K\" select -k 10 --dtype float64 f.bin"), "-290.5\n");
  // Slowly, in pieces: short reads are not the end.
  expect_out(with_writer("(head -c 3000 x.npy; sleep 0.2; tail -c +3001 x.npy) > f.npy", "\"$K\" select -k 10 f.npy"),
             "-290.5\n");
  expect_fail(with_writer("head -c 1000 x.npy > f.npy", "\"$K\" select -k 10 f.npy"),
              "f.npy: truncated data: shape (1000,) of float64 needs 8000 bytes, the input holds 872 bytes");
  expect_fail(with_writer("cat x.bin > f.npy", "\"$K\" select -k 10 f.npy"),
              "f.npy: not a .npy file (no \\x93NUMPY magic string)");
}

// Large enough for the stream buffer to grow many times (1 MiB, doubling).
TEST_F(StdinTest, LargeStreams) {
  const std::vector<float> big = random_values<float>(3'000'000, 4);
  write_npy(path("big.npy"), big);
  write_bytes(path("big.bin"), raw_bytes(big));
  const std::string want = read_text(path("big.npy"));
  std::vector<float> sorted = sorted_copy(big);
  char buf[64];
  const std::string median = std::string(buf, std::to_chars(buf, buf + sizeof buf, sorted[1'500'000]).ptr) + "\n";
  expect_out("cat big.npy | \"$K\" select -k 1500000 -", median);
  expect_out("cat big.bin | \"$K\" select -k 1500000 --dtype float32 -", median);
  expect_out("cat big.bin | \"$K\" filter --dtype float32 --ge -inf - -o - 2>/dev/null", want);
}

// Files of 16 MiB and more are read in parallel parts (pread): every byte of a
// 48 MB file, every part boundary included, comes back through filter -o, as
// .npy and raw, by name and by redirection.
TEST_F(StdinTest, LargeFilesReadInPartsIntact) {
  std::vector<std::uint32_t> big(12'000'001);  // odd: the parts are not equal
  for (std::size_t i = 0; i < big.size(); ++i) big[i] = static_cast<std::uint32_t>(i * 2654435761u);
  write_npy(path("big.npy"), big);
  write_bytes(path("big.bin"), raw_bytes(big));
  const std::string want = read_text(path("big.npy"));
  for (const std::string script :
       {"\"$K\" filter --ge 0 big.npy -o out.npy", "\"$K\" filter --ge 0 - -o out.npy < big.npy",
        "\"$K\" filter --dtype uint32 --ge 0 big.bin -o out.npy",
        "\"$K\" filter --dtype uint32 --ge 0 - -o out.npy < big.bin"}) {
    SCOPED_TRACE(script);
    fs::remove(path("out.npy"));
    const tool_result r = sh(script);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out, "12000001\n");
    EXPECT_TRUE(read_text(path("out.npy")) == want);
  }
}

}  // namespace
}  // namespace kselect_cli_test
