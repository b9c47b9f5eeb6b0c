#include "backend.hpp"

#include <string>

#include "errors.hpp"
#include "kselect/kselect.hpp"

namespace kselect_cli {

backend choose_backend(std::string_view device_option) {
  const bool built = gpu::built_with_cuda();
  const bool usable = built && kselect::cuda_available();
  if (device_option == "cpu") return {false, "CPU backend (--device cpu)"};
  if (device_option == "cuda" && !built)
    throw input_error("--device cuda: this kselect was built without CUDA support");
  if (device_option == "cuda" && !usable) throw input_error("--device cuda: no CUDA device found");
  if (!usable)
    return {false, built ? "CPU backend: no CUDA device found"
                         : "CPU backend: no CUDA device found (this build has no CUDA support)"};
  gpu::initialize();
  return {true, "CUDA backend: " + gpu::device_name()};
}

backend choose_backend(const common_options& common, bool streams_host_input) {
  backend b = choose_backend(common.device);
  b.streams_host_input = streams_host_input;
  if (!common.gpu_memory_limit.empty()) b.device_memory_limit = parse_byte_count(common.gpu_memory_limit, "--gpu-memory-limit");
  return b;
}

std::size_t parse_byte_count(const std::string& text, const std::string& option) {
  std::size_t digits = 0;
  while (digits < text.size() && text[digits] >= '0' && text[digits] <= '9') ++digits;
  const std::string suffix = text.substr(digits);
  struct unit {
    const char* name;
    int shift;
  };
  static constexpr unit units[] = {{"", 0},    {"B", 0},    {"K", 10},   {"k", 10},   {"KiB", 10}, {"M", 20},
                                   {"MiB", 20}, {"G", 30},  {"GiB", 30}, {"T", 40},   {"TiB", 40}};
  int shift = -1;
  for (const unit& u : units)
    if (suffix == u.name) shift = u.shift;
  const std::string usage = option + " " + text + ": expected a positive number of bytes, optionally with K, M, G or T";
  if (digits == 0 || digits > 15 || shift < 0) throw input_error(usage);
  const unsigned long long count = std::stoull(text.substr(0, digits));
  if (count == 0 || count > (~0ull >> shift)) throw input_error(usage);
  return static_cast<std::size_t>(count << shift);
}

bool streams_through_gpu(const backend& b, std::size_t bytes) {
  if (!b.cuda || !b.streams_host_input) return false;
  const std::size_t budget = b.device_memory_limit != 0 ? b.device_memory_limit : gpu::free_memory();
  return bytes > budget / 2;
}

}  // namespace kselect_cli
