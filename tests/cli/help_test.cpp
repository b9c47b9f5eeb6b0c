// --help agrees with the behaviour: exit code 0, help on stdout and nothing on
// stderr, and no text that says what the tool does not do.
#include "cli/cli_test_util.hpp"

namespace kselect_cli_test {
namespace {

class CliHelp : public CliTest {
 protected:
  std::string help(const std::vector<std::string>& args) const {
    const tool_result r = run(args);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.err, "");
    return r.out;
  }
  static bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }
};

TEST_F(CliHelp, ExitCodesSayThatOneCoversRuntimeFailures) {
  const std::string h = help({"--help"});
  EXPECT_TRUE(has(h, "Exit codes: 0 success; 1 runtime failure (write error, out of memory, CUDA error, demo check\n"
                     "failed); 2 bad arguments or bad input."))
      << h;
  EXPECT_TRUE(has(help({"select", "--help"}), "1 runtime failure (write error"));
  EXPECT_TRUE(has(help({"demo", "--help"}), "1 runtime failure (write error"));
}

TEST_F(CliHelp, FilterRunsOnEveryBackend) {
  const std::string h = help({"filter", "--help"});
  EXPECT_FALSE(has(h, "CPU backend")) << h;
  EXPECT_TRUE(has(h, "--device")) << h;
  EXPECT_FALSE(has(help({"--help"}), "CPU backend for now"));
}

TEST_F(CliHelp, RangeAndTopkHaveTheirOwnSortedText) {
  const std::string range = help({"range", "--help"});
  EXPECT_FALSE(has(range, "--largest")) << range;
  EXPECT_TRUE(has(range, "--sorted                    In ascending order instead of by index")) << range;
  const std::string topk = help({"topk", "--help"});
  EXPECT_TRUE(has(topk, "--sorted                    In order (ascending; descending with --largest)")) << topk;
  EXPECT_TRUE(has(topk, "--largest")) << topk;
}

TEST_F(CliHelp, FileMayBeStandardInput) {
  EXPECT_TRUE(has(help({"--help"}), "FILE - reads standard input"));
  for (const std::string command : {"select", "topk", "range", "quantile", "filter"})
    EXPECT_TRUE(has(help({command, "--help"}), "Input file (.npy or raw; - for standard input)")) << command;
}

TEST_F(CliHelp, RequiredOptionsAndNumberSyntax) {
  const std::string select = help({"select", "--help"});
  // -k or --ks-file (one rank per segment): neither alone is required.
  EXPECT_TRUE(has(select, "-k,--rank K[,K...] ... Excludes: --ks-file")) << select;
  EXPECT_TRUE(has(select, "--ks-file KS.npy Excludes: --rank")) << select;
  EXPECT_TRUE(has(select, "Numbers are decimal: no '+' sign, no hexadecimal")) << select;
  EXPECT_TRUE(has(help({"range", "--help"}), "--lo A REQUIRED"));
  EXPECT_TRUE(has(help({"quantile", "--help"}), "Excludes: --percentiles"));
  const std::string demo = help({"demo", "--help"});
  EXPECT_TRUE(has(demo, "--n N")) << demo;
  EXPECT_TRUE(has(demo, "--seed SEED=42")) << demo;
  EXPECT_FALSE(has(demo, "--dtype")) << demo;  // demo reads no file
}

TEST_F(CliHelp, BenchSaysWhereItLooks) {
  EXPECT_TRUE(has(help({"--help"}), "kselect-cpu-bench, found next to kselect or on PATH"));
}

}  // namespace
}  // namespace kselect_cli_test
