// Usage errors in the tool's own words: one line "kselect: error: ...", exit code
// 2, lower case, the option named as the user typed it, one hint at most, and
// none of the argument parser's (CLI11's) texts. Each test covers one kind of
// CLI11 error (RequiredError, ExtrasError, ArgumentMismatch, ValidationError,
// ExcludesError, ConversionError) or a check the tool adds.
#include "cli/cli_test_util.hpp"

namespace kselect_cli_test {
namespace {

class CliMessages : public CliTest {
 protected:
  void SetUp() override {
    CliTest::SetUp();
    file_ = path("f.npy").string();
    write_npy(file_, std::vector<float>{3, 1, 2});
  }

  std::string file_;
};

TEST_F(CliMessages, RequiredOptionsNamedAsTheyAreWritten) {  // CLI::RequiredError
  expect_exact({"select", file_}, "select: -k is required (give -k K[,K...] or --ks-file)");
  expect_exact({"topk", file_}, "topk: -k is required (give -k K)");
  expect_exact({"range", "--hi", "1", file_}, "range: --lo is required (give --lo A)");
  expect_exact({"range", "--lo", "1", file_}, "range: --hi is required (give --hi B)");
  expect_exact({"quantile", file_}, "quantile: -q is required (give -q Q[,Q...] or --percentiles)");
  expect_exact({"select", "-k", "0"}, "select: FILE is required (an input file, or - for standard input)");
  expect_exact({"filter", "--lt", "1"}, "filter: FILE is required (an input file, or - for standard input)");
}

TEST_F(CliMessages, MissingOrUnknownSubcommand) {  // CLI::RequiredError (subcommand)
  const std::string commands = "select, topk, range, quantile, filter, demo or bench";
  expect_exact({}, "a subcommand is required: " + commands + " (run 'kselect --help')");
  expect_exact({"--json"}, "a subcommand is required: " + commands + " (run 'kselect --help')");
  expect_exact({"frobnicate"}, "unknown subcommand 'frobnicate' (one of " + commands + ")");
  expect_exact({"--nope", "select"}, "unknown option --nope (run 'kselect --help')");
  expect_exact({"-k", "1", "select", file_}, "-k is an option of select and topk (put it after the subcommand)");
  expect_exact({file_, "select", "-k", "1"},
                 "unexpected argument '" + file_ + "' before the subcommand (run 'kselect --help')");
}

TEST_F(CliMessages, UnexpectedArguments) {  // CLI::ExtrasError
  expect_exact({"select", "-k", "1", file_, "b"}, "select: unexpected argument 'b' (run 'kselect select --help')");
  expect_exact({"select", "-k", "1", "--nope", file_}, "select has no option --nope (run 'kselect select --help')");
  expect_exact({"select", "-k", "1", "--nope=3", file_}, "select has no option --nope (run 'kselect select --help')");
  expect_exact({"range", "--lo", "0", "--hi", "1", "--largest", file_}, "range has no option --largest (topk has it)");
  expect_exact({"quantile", "-k", "1", file_}, "quantile has no option -k (select and topk have it)");
  expect_exact({"select", "-k", "1", "--percentiles", file_}, "select has no option --percentiles (quantile has it)");
  expect_exact({"demo", "--dtype", "float32"},
                 "demo has no option --dtype (select, topk, range, quantile and filter have it)");
  expect_exact({"select", "--version"}, "select has no option --version (run 'kselect select --help')");
  // After "--" every argument is a file name, whatever it looks like.
  expect_exact({"select", "-k", "1", file_, "--", "-x"}, "select: unexpected argument '-x' (run 'kselect select --help')");
  write_npy(path("-x.npy"), std::vector<float>{5, 4});
  EXPECT_EQ(run_ok({"select", "-k", "1", "--", path("-x.npy").string()}), std::vector<std::string>{"5"});
}

TEST_F(CliMessages, MissingValues) {  // CLI::ArgumentMismatch (too few)
  expect_exact({"select", "-k"}, "-k needs a value");
  expect_exact({"select", file_, "--rank"}, "--rank needs a value");
  expect_exact({"select", "-k", "1", file_, "--device"}, "--device needs a value");
  expect_exact({"--device"}, "--device needs a value");
  expect_exact({"topk", file_, "-k"}, "-k needs a value");
  expect_exact({"filter", "--range", "1", file_}, "--range needs 2 values");
  expect_exact({"filter", file_, "--range", "1"}, "--range needs 2 values");
  expect_exact({"demo", "--seed"}, "--seed needs a value");
  // "--opt=" gives an empty value (CLI11 would take the next argument for it).
  expect_exact({"select", "--rank=", file_}, "--rank needs a value");
  expect_exact({"select", "--device=", "-k", "1", file_}, "--device needs a value");
  expect_exact({"select", "-k", "", file_}, "-k needs a value");
}

TEST_F(CliMessages, OptionsGivenTwice) {  // CLI::ArgumentMismatch (too many)
  expect_exact({"topk", "-k", "1", "-k", "2", file_}, "-k is given more than once");
  expect_exact({"range", "--lo", "0", "--lo", "1", "--hi", "2", file_}, "--lo is given more than once");
  expect_exact({"filter", "--lt", "1", "--lt", "2", file_}, "--lt is given more than once");
  expect_exact({"filter", "--range", "1", "2", "--range", "3", "4", file_}, "--range is given more than once");
  expect_exact({"filter", "--lt", "1", "-o", "a.npy", "--output", "b.npy", file_}, "-o is given more than once");
  expect_exact({"--device", "cpu", "--device", "cuda", "select", "-k", "1", file_}, "--device is given more than once");
  expect_exact({"--device", "cpu", "select", "--device", "cpu", "-k", "1", file_},
                 "--device is given twice (before and after 'select')");
  expect_exact({"demo", "--seed", "1", "--seed", "2"}, "--seed is given more than once");
  // Repeatable options and flags stay allowed.
  EXPECT_EQ(run_ok({"select", "-k", "0", "--rank", "2", file_}), (std::vector<std::string>{"1", "3"}));
  EXPECT_EQ(run_ok({"--json", "select", "--json", "-k", "0", file_}).size(), 1u);
}

TEST_F(CliMessages, ValuesNotInTheList) {  // CLI::ValidationError
  expect_exact({"select", "-k", "1", "--device", "gpu", file_}, "--device: 'gpu' is not one of auto, cpu, cuda");
  expect_exact({"--device", "gpu", "bench"}, "--device: 'gpu' is not one of auto, cpu, cuda");
  expect_exact({"--dtype", "f16", "select", "-k", "1", file_},
                 "--dtype: 'f16' is not one of float32, float64, int32, uint32, int64, uint64");
  expect_exact({"quantile", "-q", "0.5", "--method", "cubic", file_},
                 "--method: 'cubic' is not one of linear, lower, higher, nearest, midpoint, inverted_cdf, "
                 "averaged_inverted_cdf, closest_observation, interpolated_inverted_cdf, hazen, weibull, "
                 "median_unbiased, normal_unbiased");
}

TEST_F(CliMessages, OptionsThatExcludeEachOther) {  // CLI::ExcludesError
  expect_exact({"quantile", "-q", "0.5", "--percentiles", file_}, "quantile: give either -q or --percentiles, not both");
  expect_exact({"quantile", "--percentiles", "--quantile", "0.5", file_},
                 "quantile: give either --quantile or --percentiles, not both");
}

TEST_F(CliMessages, FlagsTakeNoValue) {  // CLI::ConversionError ("--json=maybe"); "--json=0" read as false
  expect_exact({"select", "--json=maybe", "-k", "1", file_}, "--json takes no value (give --json alone)");
  expect_exact({"select", "--json=0", "-k", "1", file_}, "--json takes no value (give --json alone)");
  expect_exact({"--raw=1", "select", "-k", "1", file_}, "--raw takes no value (give --raw alone)");
  expect_exact({"quantile", "--percentiles=true", file_}, "--percentiles takes no value (give --percentiles alone)");
}

TEST_F(CliMessages, OptionsTheSubcommandHasNoUseFor) {
  // Common options before the subcommand apply to it; those it lacks are errors.
  expect_exact({"--json", "bench"}, "bench has no option --json (the benchmark's own options go after 'bench')");
  expect_exact({"--dtype", "float32", "bench"},
                 "bench has no option --dtype (the benchmark's own options go after 'bench')");
  expect_exact({"--dtype", "float32", "demo"}, "demo has no option --dtype (run 'kselect demo --help')");
  expect_exact({"--raw", "demo", "--n", "10"}, "demo has no option --raw (run 'kselect demo --help')");
  EXPECT_EQ(run_ok({"--dtype", "float32", "select", "-k", "0", file_}), std::vector<std::string>{"1"});
}

TEST_F(CliMessages, NamesAsTyped) {
  expect_exact({"select", "--rank", "5", file_}, "--rank: rank 5 is out of range [0, 3) for 3 values");
  expect_exact({"select", "-k", "5", file_}, "-k: rank 5 is out of range [0, 3) for 3 values");
  expect_exact({"select", "--rank", "x", file_}, "--rank: 'x' is not an integer");
  expect_exact({"select", "--rank=-1", file_}, "--rank: -1 is negative");
  expect_exact({"select", "-k-1", file_}, "-k: -1 is negative");
  expect_exact({"quantile", "--quantile", "2", file_}, "--quantile: 2 is not in [0, 1]");
  expect_exact({"quantile", "--quantile=0x1", file_}, "--quantile: '0x1' is hexadecimal (write numbers in decimal)");
}

TEST_F(CliMessages, NoParserTextReachesTheUser) {
  const std::vector<std::vector<std::string>> cases{
      {},
      {"select"},
      {"select", file_},
      {"select", "-k"},
      {"select", "-k", "1", file_, "b", "c"},
      {"topk", "-k", "1", "-k", "2", file_},
      {"select", "-k", "1", "--device", "gpu", file_},
      {"quantile", "-q", "0.5", "--percentiles", file_},
      {"range", "--lo", "0", "--hi", "1", "--largest", file_},
      {"select", "--json=maybe", "-k", "1", file_},
      {"filter", "--range", "1", file_},
      {"filter", "--lt", "1", "--lt", "2", file_},
      {"--nope"},
      {"demo", "--n"},
      {"demo", "--n", "1", "extra"},
  };
  for (const auto& args : cases) {
    const tool_result r = run(args);
    SCOPED_TRACE(r.err);
    EXPECT_EQ(r.exit_code, 2);
    const auto lines = lines_of(r.err);
    ASSERT_EQ(lines.size(), 1u);
    const std::string prefix = "kselect: error: ";
    ASSERT_EQ(lines[0].rfind(prefix, 0), 0u);
    const char first = lines[0][prefix.size()];
    EXPECT_FALSE(first >= 'A' && first <= 'Z') << "not lower case";
    for (const char* cli11 : {"required but received", "is required and", "The following", "not expected", "not in {",
                              "excludes", "Could not convert", "At Most", "At least", "Expected", "TEXT",
                              "run 'kselect --help' for usage"})
      EXPECT_EQ(lines[0].find(cli11), std::string::npos) << cli11;
    // One hint at most: a single parenthesised remark, at the end.
    EXPECT_LE(std::count(lines[0].begin(), lines[0].end(), '('), 1);
  }
}

}  // namespace
}  // namespace kselect_cli_test
