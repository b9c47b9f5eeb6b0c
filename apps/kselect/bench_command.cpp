// kselect bench [ARGS...]: runs the benchmark binary for the backend in use,
// kselect-gpu-bench (CUDA) or kselect-cpu-bench, forwarding ARGS.
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <optional>
#include <stdexcept>

#include "backend.hpp"
#include "commands.hpp"
#include "errors.hpp"

namespace kselect_cli {
namespace {

namespace fs = std::filesystem;

bool is_executable(const fs::path& p) {
  std::error_code ec;
  return fs::is_regular_file(p, ec) && ::access(p.c_str(), X_OK) == 0;
}

/// The places searched, in order: next to this binary (installed), ../bench
/// and ../../bench relative to it (build trees), then PATH.
std::vector<fs::path> search_dirs() {
  std::vector<fs::path> dirs;
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const fs::path dir = self.parent_path();
    dirs.push_back(dir);
    dirs.push_back(dir / ".." / "bench");
    dirs.push_back(dir / ".." / ".." / "bench");
  }
  if (const char* path = std::getenv("PATH")) {
    std::string_view rest(path);
    while (!rest.empty()) {
      const auto colon = rest.find(':');
      const std::string_view entry = rest.substr(0, colon);
      if (!entry.empty()) dirs.emplace_back(entry);
      if (colon == std::string_view::npos) break;
      rest.remove_prefix(colon + 1);
    }
  }
  return dirs;
}

std::optional<fs::path> find_tool(const std::string& name) {
  for (const auto& dir : search_dirs())
    if (is_executable(dir / name)) return (dir / name).lexically_normal();
  return std::nullopt;
}

}  // namespace

int run_bench(const common_options& common, const bench_options& opts) {
  const backend b = choose_backend(common.device);
  std::vector<std::string> candidates;
  if (b.cuda) candidates.push_back("kselect-gpu-bench");
  // On auto, a CUDA machine without the GPU benchmark still gets the CPU one.
  if (!b.cuda || common.device == "auto") candidates.push_back("kselect-cpu-bench");

  std::optional<fs::path> tool;
  for (const auto& name : candidates)
    if ((tool = find_tool(name))) break;
  if (!tool) {
    // Typically a kselect copied without its benchmark: say how to get one.
    std::string names;
    for (const auto& name : candidates) names += (names.empty() ? "" : " or ") + name;
    throw input_error("bench: " + names +
                      " not found next to kselect, in its build tree or on PATH (install it with kselect: "
                      "'make install PREFIX=DIR' in a build with KSELECT_BUILD_BENCH=ON, the default; "
                      "or put it on PATH)");
  }

  std::vector<std::string> args{tool->string()};
  args.insert(args.end(), opts.args.begin(), opts.args.end());
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::fflush(stdout);
  ::execv(argv[0], argv.data());
  // Found and executable, yet not started: a runtime failure (exit code 1), not a usage error.
  throw std::runtime_error("bench: cannot run " + tool->string() + ": " + std::strerror(errno));
}

}  // namespace kselect_cli
