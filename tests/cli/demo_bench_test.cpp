// kselect demo (self-checking run on generated data) and kselect bench (finding
// and running the benchmark binary with the forwarded arguments).
#include <nlohmann/json.hpp>

#include "cli/cli_test_util.hpp"
#include "kselect/kselect.hpp"

namespace kselect_cli_test {
namespace {

TEST_F(CliTest, DemoOnCpuPasses) {
  const auto r = run({"demo", "--n", "30000", "--device", "cpu"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_NE(r.out.find("CPU backend"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("median"), std::string::npos);
  EXPECT_NE(r.out.find("101 percentiles"), std::string::npos);
  EXPECT_NE(r.out.find("1000 smallest"), std::string::npos);
  EXPECT_NE(r.out.find("all 3 checks passed"), std::string::npos) << r.out;
}

TEST_F(CliTest, DemoSaysWhenThereIsNoGpu) {
  if (kselect::cuda_available()) GTEST_SKIP() << "a CUDA device is available";
  const auto r = run({"demo", "--n", "5000"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("CPU backend: no CUDA device found"), std::string::npos) << r.out;
}

TEST_F(CliTest, DemoJson) {
  const auto r = run({"demo", "--n", "4099", "--seed", "7", "--json", "--device", "cpu"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["command"], "demo");
  EXPECT_EQ(j["device"], "cpu");
  EXPECT_EQ(j["dtype"], "float32");
  EXPECT_EQ(j["n"], 4099);
  EXPECT_EQ(j["seed"], 7);
  EXPECT_EQ(j["ok"], true);
  EXPECT_TRUE(j["time_ms"]["sort"].is_number());
  ASSERT_EQ(j["checks"].size(), 3u);
  EXPECT_EQ(j["checks"][0]["name"], "median");
  EXPECT_EQ(j["checks"][0]["values"].size(), 1u);
  EXPECT_EQ(j["checks"][1]["values"].size(), 101u);
  EXPECT_EQ(j["checks"][2]["values"].size(), 1000u);
  for (const auto& c : j["checks"]) EXPECT_EQ(c["ok"], true) << c["name"];
  // Values lie in (0, 1] and ascend.
  for (int i : {1, 2}) {
    const auto& v = j["checks"][i]["values"];
    for (std::size_t k = 0; k < v.size(); ++k) {
      EXPECT_GT(v[k].get<double>(), 0.0);
      EXPECT_LE(v[k].get<double>(), 1.0);
      if (k) EXPECT_LE(v[k - 1].get<double>(), v[k].get<double>());
    }
  }
}

TEST_F(CliTest, DemoWithFewerValuesThanTheSmallestCount) {
  const auto r = run({"demo", "--n", "10", "--json", "--device", "cpu"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["checks"][2]["values"].size(), 10u);
  EXPECT_EQ(j["ok"], true);
}

/// A copy of the tool in its own tree, with fake benchmark binaries that print
/// their name and arguments.
class BenchTest : public CliTest {
 protected:
  void SetUp() override {
    CliTest::SetUp();
    bin_ = dir_ / "prefix" / "tree" / "bin";
    fs::create_directories(bin_);
    fs::create_directories(dir_ / "empty");
    fs::copy_file(KSELECT_CLI_PATH, bin_ / "kselect");
  }
  void fake(const fs::path& where, const std::string& name) {
    fs::create_directories(where);
    write_bytes(where / name, "#!/bin/sh\necho \"" + name + "\" \"$@\"\nexit 3\n");
    fs::permissions(where / name, fs::perms::owner_all);
  }
  tool_result run_copy(const std::vector<std::string>& args) {
    return run_tool_at(dir_, (bin_ / "kselect").string(), args, "PATH=" + (dir_ / "empty").string());
  }
  fs::path bin_;
};

TEST_F(BenchTest, RunsCpuBenchNextToTheToolWithArguments) {
  fake(bin_, "kselect-cpu-bench");
  const auto r = run_copy({"--device", "cpu", "bench", "--sizes", "1000", "--json", "--help", "x y"});
  EXPECT_EQ(r.exit_code, 3) << r.err;  // the benchmark's exit code
  EXPECT_EQ(r.out, "kselect-cpu-bench --sizes 1000 --json --help x y\n");
}

TEST_F(BenchTest, FindsBenchInBuildTree) {
  fake(dir_ / "prefix" / "tree" / "bench", "kselect-cpu-bench");
  const auto r = run_copy({"--device", "cpu", "bench"});
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_EQ(r.out, "kselect-cpu-bench\n");
}

TEST_F(BenchTest, FindsBenchOnPath) {
  fake(dir_ / "onpath", "kselect-cpu-bench");
  const auto r = run_tool_at(dir_, (bin_ / "kselect").string(), {"--device", "cpu", "bench", "1"},
                             "PATH=" + (dir_ / "onpath").string());
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_EQ(r.out, "kselect-cpu-bench 1\n");
}

TEST_F(BenchTest, AutoPicksTheBackendsBenchmark) {
  fake(bin_, "kselect-cpu-bench");
  fake(bin_, "kselect-gpu-bench");
  const auto r = run_copy({"bench", "--n", "5"});
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_EQ(r.out, std::string(kselect::cuda_available() ? "kselect-gpu-bench" : "kselect-cpu-bench") +
                       " --n 5\n");
}

TEST_F(BenchTest, MissingBenchIsAnError) {
  const auto r = run_copy({"--device", "cpu", "bench", "--n", "5"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "");
  const auto lines = lines_of(r.err);
  ASSERT_EQ(lines.size(), 1u) << r.err;
  EXPECT_EQ(lines[0].rfind("kselect: error: ", 0), 0u);
  // It names the missing program and says how to get it.
  EXPECT_NE(lines[0].find("kselect-cpu-bench not found next to kselect, in its build tree or on PATH"),
            std::string::npos)
      << lines[0];
  EXPECT_NE(lines[0].find("'make install PREFIX=DIR' in a build with KSELECT_BUILD_BENCH=ON"), std::string::npos)
      << lines[0];
  EXPECT_NE(lines[0].find("or put it on PATH"), std::string::npos) << lines[0];
}

TEST_F(BenchTest, BenchThatCannotStartIsARuntimeFailure) {
  write_bytes(bin_ / "kselect-cpu-bench", "not a program\n");
  fs::permissions(bin_ / "kselect-cpu-bench", fs::perms::owner_all);
  const auto r = run_copy({"--device", "cpu", "bench"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("kselect: error: bench: cannot run "), std::string::npos) << r.err;
}

}  // namespace
}  // namespace kselect_cli_test
