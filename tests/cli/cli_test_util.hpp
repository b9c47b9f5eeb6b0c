// Helpers of the kselect tool's end-to-end tests: a temporary directory, a
// small .npy writer, running the tool with captured output, and references.
#pragma once

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

namespace kselect_cli_test {

namespace fs = std::filesystem;

// ---- running the tool -----------------------------------------------------------

struct tool_result {
  int exit_code = -1;
  std::string out;
  std::string err;
};

inline std::string shell_quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

inline std::string read_text(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

/// Runs `tool args...` through the shell with stdout and stderr captured in files
/// of `dir`. `env` (e.g. "PATH=/x") is prepended as environment assignments.
inline tool_result run_tool_at(const fs::path& dir, const std::string& tool,
                               const std::vector<std::string>& args, const std::string& env = "") {
  const fs::path out = dir / "stdout.txt", err = dir / "stderr.txt";
  std::string cmd = env.empty() ? "" : "env " + env + " ";
  cmd += shell_quote(tool);
  for (const auto& a : args) cmd += " " + shell_quote(a);
  cmd += " >" + shell_quote(out.string()) + " 2>" + shell_quote(err.string()) + " </dev/null";
  const int status = std::system(cmd.c_str());
  tool_result r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
  r.out = read_text(out);
  r.err = read_text(err);
  return r;
}

inline std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// ---- types ----------------------------------------------------------------------

template <class T>
std::string npy_descr() {
  if constexpr (std::is_same_v<T, float>) return "<f4";
  else if constexpr (std::is_same_v<T, double>) return "<f8";
  else if constexpr (std::is_same_v<T, std::int32_t>) return "<i4";
  else if constexpr (std::is_same_v<T, std::uint32_t>) return "<u4";
  else if constexpr (std::is_same_v<T, std::int64_t>) return "<i8";
  else return "<u8";
}

template <class T>
std::string dtype_name() {
  if constexpr (std::is_same_v<T, float>) return "float32";
  else if constexpr (std::is_same_v<T, double>) return "float64";
  else if constexpr (std::is_same_v<T, std::int32_t>) return "int32";
  else if constexpr (std::is_same_v<T, std::uint32_t>) return "uint32";
  else if constexpr (std::is_same_v<T, std::int64_t>) return "int64";
  else return "uint64";
}

/// Parses one printed value of type T ("nan", "inf", "-inf" included); the whole
/// string must be consumed.
template <class T>
T parse_value(const std::string& s) {
  errno = 0;
  char* end = nullptr;
  T v{};
  if constexpr (std::is_same_v<T, float>) v = std::strtof(s.c_str(), &end);
  else if constexpr (std::is_same_v<T, double>) v = std::strtod(s.c_str(), &end);
  else if constexpr (std::is_signed_v<T>) v = static_cast<T>(std::strtoll(s.c_str(), &end, 10));
  else v = static_cast<T>(std::strtoull(s.c_str(), &end, 10));
  // errno: out of range integers; floats may set ERANGE for subnormals, which are fine.
  const bool range_ok = std::is_floating_point_v<T> || errno == 0;
  EXPECT_TRUE(!s.empty() && end == s.c_str() + s.size() && range_ok) << "cannot parse '" << s << "'";
  return v;
}

template <class T>
bool same_value(T a, T b) {
  if constexpr (std::is_floating_point_v<T>)
    if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  return a == b;
}

/// Ascending, NaN last (kselect's order).
template <class T>
std::vector<T> sorted_copy(std::vector<T> v) {
  std::sort(v.begin(), v.end(), [](T a, T b) {
    if constexpr (std::is_floating_point_v<T>) {
      if (std::isnan(a)) return false;
      if (std::isnan(b)) return true;
    }
    return a < b;
  });
  return v;
}

template <class T>
std::vector<T> random_values(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<T> v(n);
  for (auto& x : v) {
    if constexpr (std::is_floating_point_v<T>) x = static_cast<T>(std::normal_distribution<double>(0, 1e3)(rng));
    else x = static_cast<T>(rng());  // the full range, extremes likely
  }
  return v;
}

// ---- writing files -----------------------------------------------------------------

inline void write_bytes(const fs::path& p, const std::string& bytes) {
  std::ofstream f(p, std::ios::binary);
  f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  ASSERT_TRUE(f.good()) << "cannot write " << p;
}

/// "(3,)", "(2, 3)", "()" as NumPy writes shapes.
inline std::string shape_text(const std::vector<std::int64_t>& shape) {
  std::string s = "(";
  for (std::size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + (shape.size() == 1 ? ",)" : ")");
}

/// A .npy preamble and header (padded to 64 bytes as NumPy does) for `dict`.
inline std::string npy_prefix(const std::string& dict, int major = 1) {
  const std::size_t pre = major == 1 ? 10 : 12;
  std::string header = dict;
  header += std::string(64 - (pre + header.size() + 1) % 64, ' ') + "\n";
  std::string out = "\x93NUMPY";
  out += static_cast<char>(major);
  out += '\0';
  const auto len = static_cast<std::uint32_t>(header.size());
  for (std::size_t i = 0; i < (major == 1 ? 2u : 4u); ++i) out += static_cast<char>((len >> (8 * i)) & 0xff);
  return out + header;
}

inline std::string npy_dict(const std::string& descr, const std::vector<std::int64_t>& shape,
                            bool fortran = false) {
  return "{'descr': '" + descr + "', 'fortran_order': " + (fortran ? "True" : "False") +
         ", 'shape': " + shape_text(shape) + ", }";
}

template <class T>
std::string raw_bytes(const std::vector<T>& v) {
  return std::string(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(T));
}

template <class T>
void write_npy(const fs::path& p, const std::vector<T>& v, std::vector<std::int64_t> shape = {},
               int major = 1, bool fortran = false) {
  if (shape.empty()) shape = {static_cast<std::int64_t>(v.size())};
  write_bytes(p, npy_prefix(npy_dict(npy_descr<T>(), shape, fortran), major) + raw_bytes(v));
}

// ---- the fixture ---------------------------------------------------------------------

class CliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    static int counter = 0;
    dir_ = fs::temp_directory_path() /
           ("kselect_cli_test_" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
    fs::create_directories(dir_);
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }

  fs::path path(const std::string& name) const { return dir_ / name; }

  tool_result run(const std::vector<std::string>& args, const std::string& env = "") const {
    return run_tool_at(dir_, tool_path(), args, env);
  }

  /// The tool this build made, or the environment's KSELECT_CLI_PATH where set (a
  /// test binary carried to another machine, whose build tree lies elsewhere).
  static std::string tool_path() {
    const char* moved = std::getenv("KSELECT_CLI_PATH");
    return moved != nullptr && *moved != '\0' ? moved : KSELECT_CLI_PATH;
  }

  /// Expects exit code 0, empty stderr, and returns the stdout lines.
  std::vector<std::string> run_ok(const std::vector<std::string>& args) const {
    const tool_result r = run(args);
    EXPECT_EQ(r.exit_code, 0) << "stderr: " << r.err;
    EXPECT_EQ(r.err, "");
    return lines_of(r.out);
  }

  /// "kselect ARGS...", for traces.
  static std::string command_text(const std::vector<std::string>& args) {
    std::string cmd = "kselect";
    for (const auto& a : args) cmd += " " + a;
    return cmd;
  }

  /// Expects exit code 2, nothing on stdout, exactly one stderr line starting
  /// "kselect: error: " and containing `needle`.
  void expect_error(const std::vector<std::string>& args, const std::string& needle) const {
    SCOPED_TRACE(command_text(args));
    const tool_result r = run(args);
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_EQ(r.out, "");
    const auto lines = lines_of(r.err);
    ASSERT_EQ(lines.size(), 1u) << "stderr: " << r.err;
    EXPECT_EQ(lines[0].rfind("kselect: error: ", 0), 0u) << lines[0];
    EXPECT_NE(lines[0].find(needle), std::string::npos) << lines[0] << "\n  should contain: " << needle;
    EXPECT_EQ(r.err.back(), '\n');
  }

  /// Expects exit code 2, nothing on stdout and stderr exactly
  /// "kselect: error: <message>\n".
  void expect_exact(const std::vector<std::string>& args, const std::string& message) const {
    SCOPED_TRACE(command_text(args));
    const tool_result r = run(args);
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_EQ(r.out, "");
    EXPECT_EQ(r.err, "kselect: error: " + message + "\n");
  }

  fs::path dir_;
};

}  // namespace kselect_cli_test
