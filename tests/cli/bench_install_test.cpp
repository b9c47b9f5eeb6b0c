// `kselect bench` from an installed tree: `cmake --install` (what `make install
// PREFIX=DIR` runs) puts kselect and the benchmarks side by side, and the
// installed kselect finds and runs its benchmark with PATH empty. (A copy of
// kselect alone is BenchTest.MissingBenchIsAnError.)
#include "cli/cli_test_util.hpp"

namespace kselect_cli_test {
namespace {

bool is_executable(const fs::path& p) { return fs::is_regular_file(p) && ::access(p.c_str(), X_OK) == 0; }

TEST_F(CliTest, InstalledKselectRunsItsBenchmark) {
  if (!KSELECT_CPU_BENCH_BUILT) GTEST_SKIP() << "built without the benchmarks (KSELECT_BUILD_BENCH=OFF)";
  const fs::path prefix = path("prefix"), log = path("install.log");
  const std::string install = shell_quote(KSELECT_CMAKE_COMMAND) + " --install " + shell_quote(KSELECT_BUILD_DIR) +
                              " --prefix " + shell_quote(prefix.string()) + " >" + shell_quote(log.string()) + " 2>&1";
  ASSERT_EQ(std::system(install.c_str()), 0) << read_text(log);

  const fs::path bin = prefix / "bin";
  ASSERT_TRUE(is_executable(bin / "kselect"));
  EXPECT_TRUE(is_executable(bin / "kselect-cpu-bench"));
  if (KSELECT_GPU_BENCH_BUILT) EXPECT_TRUE(is_executable(bin / "kselect-gpu-bench"));

  fs::create_directories(path("empty"));
  const tool_result r = run_tool_at(dir_, (bin / "kselect").string(),
                                    {"--device", "cpu", "bench", "--log2n", "10", "--runs", "1"},
                                    "PATH=" + path("empty").string());
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find(" 1024  select_n/2"), std::string::npos) << r.out;  // a row for n = 2^10
}

}  // namespace
}  // namespace kselect_cli_test
