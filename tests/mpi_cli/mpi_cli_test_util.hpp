// Helpers of the distributed tool's tests: running `mpirun -np P kselect
// --distributed ...` (under `timeout`, so that a hang fails the case instead of
// stalling the suite) and comparing it with the local `kselect ...` on the same data.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "cli/cli_test_util.hpp"

namespace kselect_cli_test {

/// Seconds one distributed run may take before it counts as a hang.
inline constexpr int kHangSeconds = 120;

/// timeout's exit status when it had to stop the command (124; 137 after -k's SIGKILL).
inline bool timed_out(int exit_code) { return exit_code == 124 || exit_code == 137; }

/// The float and integer values of the comparisons: random, with the extremes,
/// infinities, NaNs (positive: see NanSignsAndSignedZeros for the others) and
/// repeated values, so that ties and special values cross the processes' slices.
template <class T>
std::vector<T> test_values(std::size_t n, std::uint64_t seed) {
  std::vector<T> v = random_values<T>(n, seed);
  std::vector<T> specials;
  if constexpr (std::is_floating_point_v<T>)
    specials = {std::numeric_limits<T>::infinity(), -std::numeric_limits<T>::infinity(),
                std::numeric_limits<T>::quiet_NaN(), std::numeric_limits<T>::lowest(),
                std::numeric_limits<T>::denorm_min(), T(0.5), T(0.5), T(0.5), T(0), T(-2)};
  else
    specials = {std::numeric_limits<T>::min(), std::numeric_limits<T>::max(), T(0), T(7), T(7), T(7), T(7)};
  for (std::size_t i = 0; i < specials.size() && i < n; ++i) v[(i * 37 + 3) % n] = specials[i];
  return v;
}

class MpiCliTest : public CliTest {
 protected:
  /// `mpirun -np P kselect --distributed ARGS...` (env: "NAME=VALUE ..." for every process).
  tool_result run_np(int processes, const std::vector<std::string>& args, const std::string& env = "") const {
    std::vector<std::string> all{"-k", "10", std::to_string(kHangSeconds)};
    all.insert(all.end(), {KSELECT_MPIEXEC_ARGS});
    all.insert(all.end(), {"-np", std::to_string(processes), KSELECT_CLI_PATH, "--distributed"});
    all.insert(all.end(), args.begin(), args.end());
    return run_tool_at(dir_, "timeout", all, env);
  }

  static std::string job_text(int processes, const std::vector<std::string>& args) {
    std::string cmd = "mpirun -np " + std::to_string(processes) + " kselect --distributed";
    for (const auto& a : args) cmd += " " + a;
    return cmd;
  }

  /// Expects the local tool to succeed on `local_args`; returns its stdout.
  std::string local_output(const std::vector<std::string>& local_args) const {
    const tool_result r = run(local_args);
    EXPECT_EQ(r.exit_code, 0) << command_text(local_args) << "\nstderr: " << r.err;
    EXPECT_FALSE(r.out.empty()) << command_text(local_args);
    return r.out;
  }

  /// Expects the distributed run to succeed, with nothing on stderr; returns its stdout.
  std::string job_output(int processes, const std::vector<std::string>& args, const std::string& env = "") const {
    const tool_result r = run_np(processes, args, env);
    EXPECT_FALSE(timed_out(r.exit_code)) << job_text(processes, args) << ": hung";
    EXPECT_EQ(r.exit_code, 0) << job_text(processes, args) << "\nstderr: " << r.err;
    EXPECT_EQ(r.err, "") << job_text(processes, args);
    return r.out;
  }

  /// Expects `mpirun -np P kselect --distributed ARGS` to print, byte for byte,
  /// what `kselect LOCAL_ARGS` prints, for each P of `processes`.
  void expect_same_as_local(const std::vector<std::string>& args, const std::vector<std::string>& local_args,
                            const std::vector<int>& processes = {1, 2, 3, 4}) const {
    const std::string want = local_output(local_args);
    for (const int p : processes) {
      SCOPED_TRACE(job_text(p, args) + "  vs  " + command_text(local_args));
      EXPECT_EQ(job_output(p, args), want);
    }
  }

  /// Expects a failed job: exit code `code` (any non-zero one when 0), nothing on
  /// stdout, and exactly one line of the tool on stderr ("kselect: error: ..."),
  /// containing `needle` (the launcher may add its own lines about the exit).
  /// Returns that line.
  std::string expect_job_error(int processes, const std::vector<std::string>& args, const std::string& needle,
                               int code = 2, const std::string& env = "") const {
    SCOPED_TRACE(job_text(processes, args));
    const tool_result r = run_np(processes, args, env);
    EXPECT_FALSE(timed_out(r.exit_code)) << "hung";
    if (code != 0)
      EXPECT_EQ(r.exit_code, code) << "stderr: " << r.err;
    else
      EXPECT_NE(r.exit_code, 0) << "stderr: " << r.err;
    EXPECT_EQ(r.out, "");
    std::vector<std::string> ours;
    for (const auto& line : lines_of(r.err))
      if (line.rfind("kselect", 0) == 0) ours.push_back(line);
    EXPECT_EQ(ours.size(), 1u) << "stderr: " << r.err;
    if (ours.empty()) return "";
    EXPECT_EQ(ours[0].rfind("kselect: error: ", 0), 0u) << ours[0];
    EXPECT_NE(ours[0].find(needle), std::string::npos) << ours[0] << "\n  should contain: " << needle;
    return ours[0];
  }
};

/// The JSON object without the fields that differ between runs or that only a
/// distributed run has (time_ms, the job's fields), and without `also`.
inline nlohmann::json comparable_json(const std::string& text, const std::vector<std::string>& also = {}) {
  nlohmann::json j = nlohmann::json::parse(text);
  for (const char* key : {"time_ms", "processes", "input", "process_n", "algorithm", "transport", "rounds",
                          "collectives", "candidates_after_round", "gathered_keys", "bytes_sent"})
    j.erase(key);
  for (const auto& key : also) j.erase(key);
  return j;
}

}  // namespace kselect_cli_test
