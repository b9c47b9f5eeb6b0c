#include "segmented_output.hpp"

#include <sys/stat.h>

#include <filesystem>
#include <system_error>

#include "errors.hpp"

namespace kselect_cli {
namespace {

/// Whether two output names reach the same file: both "-", the same existing file
/// (a terminal or /dev/null may take both), or, for names not there yet, the same
/// path once resolved (./x and x).
bool same_target(const std::string& a, const std::string& b) {
  if (a == "-" || b == "-") return a == b;
  struct stat sa {}, sb {};
  if (::stat(a.c_str(), &sa) == 0 && ::stat(b.c_str(), &sb) == 0)
    return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino && !S_ISCHR(sa.st_mode);
  // weakly_canonical leaves a relative path relative when its first part is missing.
  auto resolved = [](const std::string& p, std::error_code& ec) {
    return std::filesystem::weakly_canonical(std::filesystem::absolute(p, ec), ec);
  };
  std::error_code ea, eb;
  const auto ca = resolved(a, ea), cb = resolved(b, eb);
  return !ea && !eb && ca == cb;
}

}  // namespace

void segment_targets::open(const output_request& request, std::span<const guarded_input> inputs) {
  if (request.values && request.values->empty()) throw input_error("-o: the output file name is empty");
  if (request.indices && request.indices->empty())
    throw input_error("--indices-output: the output file name is empty");
  if (request.values && request.indices && same_target(*request.values, *request.indices))
    throw input_error("-o and --indices-output name the same file (" + *request.indices + ")");
  if (request.values) values_.emplace(*request.values, inputs, "-o");
  if (request.indices) indices_.emplace(*request.indices, inputs, "--indices-output");
  if (!indices_ || !indices_->to_stdout()) return;
  if (!values_)
    throw input_error("--indices-output: standard output carries the values (give -o OUT.npy for them, or "
                      "another file for the indices)");
  if (values_->to_stdout()) throw input_error("-o and --indices-output both write to standard output");
}

std::string empty_json_array(std::span<const std::int64_t> shape) {
  if (shape.empty()) return "[]";  // not reached: shape () holds one element
  if (shape.front() == 0) return "[]";
  const std::string inner = empty_json_array(shape.subspan(1));
  std::string out = "[";
  for (std::int64_t i = 0; i < shape.front(); ++i) out += (i ? "," : "") + inner;
  return out + ']';
}

}  // namespace kselect_cli
