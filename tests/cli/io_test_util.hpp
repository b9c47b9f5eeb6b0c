// Helpers of the input/output tests: running a bash script around the tool (for
// redirections, pipes and ulimit), file status, and directory listings.
#pragma once

#include <sys/stat.h>

#include <set>
#include <string>

#include "cli/cli_test_util.hpp"

namespace kselect_cli_test {

/// Runs `script` with bash in `dir` (the working directory), with $K the tool's
/// path, stdout and stderr captured into files outside `dir`'s listing checks
/// (dir/../<name>.stdout/.stderr), stdin /dev/null unless the script redirects it.
inline tool_result run_script(const fs::path& dir, const std::string& script) {
  const fs::path out = dir.string() + ".stdout", err = dir.string() + ".stderr";
  const std::string cmd = "cd " + shell_quote(dir.string()) + " && K=" + shell_quote(KSELECT_CLI_PATH) +
                          " bash -c " + shell_quote(script) + " >" + shell_quote(out.string()) + " 2>" +
                          shell_quote(err.string()) + " </dev/null";
  const int status = std::system(cmd.c_str());
  tool_result r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
  r.out = read_text(out);
  r.err = read_text(err);
  fs::remove(out);
  fs::remove(err);
  return r;
}

/// The names in `dir` (not recursive).
inline std::set<std::string> listing(const fs::path& dir) {
  std::set<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) names.insert(e.path().filename().string());
  return names;
}

inline struct stat lstat_of(const fs::path& p) {
  struct stat st {};
  EXPECT_EQ(::lstat(p.c_str(), &st), 0) << p;
  return st;
}

/// Expects exactly one stderr line, "kselect: error: " + `message`.
inline void expect_one_error_line(const tool_result& r, const std::string& message) {
  const auto lines = lines_of(r.err);
  ASSERT_EQ(lines.size(), 1u) << "stderr: " << r.err;
  EXPECT_EQ(lines[0], "kselect: error: " + message);
}

class IoTest : public CliTest {
 protected:
  /// Runs a bash script in the test's directory (see run_script).
  tool_result sh(const std::string& script) const { return run_script(dir_, script); }
};

}  // namespace kselect_cli_test
