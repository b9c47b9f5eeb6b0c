#include "loaded_input.hpp"

#include "dtype.hpp"
#include "errors.hpp"
#include "input.hpp"
#include "stopwatch.hpp"

namespace kselect_cli {

loaded_input load_command_input(const common_options& common, const std::string& file,
                                const std::function<void(const struct stat&)>& on_open, bool half_keys) {
  input_spec spec{file, std::nullopt, common.raw, half_keys};
  // The parser admits only the known names (command_line.cpp).
  if (!common.dtype.empty()) spec.requested = parse_dtype_name(common.dtype);
  input_source source(spec);
  if (on_open) on_open(source.status());
  stopwatch read;
  loaded_input in{source.read(), 0, {}};
  in.read_ms = read.ms();
  in.shape = source.shape();
  if (size_of(in.values) == 0) throw input_error(input_display_name(file) + ": holds no values");
  return in;
}

json_object command_json(std::string_view command, const std::string& file, const loaded_input& in,
                         const backend& b) {
  return command_json(command, file, dtype_of(in.values), size_of(in.values), b.name());
}

json_object command_json(std::string_view command, const std::string& file, dtype t, std::int64_t n,
                         std::string_view device) {
  json_object out;
  out.add("command", json_string(command))
      .add("file", json_string(file))
      .add("dtype", json_string(dtype_name(t)))
      .add("n", json_number(n))
      .add("device", json_string(device));
  return out;
}

std::string timings_json(const timings& t) {
  return json_object()
      .add("read", json_ms(t.read_ms))
      .add("transfer", json_ms(t.transfer_ms))
      .add("select", json_ms(t.compute_ms))
      .str();
}

}  // namespace kselect_cli
