#include "loaded_input.hpp"

#include "errors.hpp"
#include "input.hpp"
#include "stopwatch.hpp"

namespace kselect_cli {

loaded_input load_command_input(const common_options& common, const std::string& file) {
  input_spec spec{file, std::nullopt, common.raw};
  if (!common.dtype.empty()) {
    spec.requested = parse_dtype_name(common.dtype);
    if (!spec.requested)
      throw input_error("--dtype: unknown type '" + common.dtype + "' (one of " +
                        std::string(dtype_names_list()) + ")");
  }
  stopwatch read;
  loaded_input in{load_input(spec), 0};
  in.read_ms = read.ms();
  if (size_of(in.values) == 0) throw input_error(file + ": holds no values");
  return in;
}

}  // namespace kselect_cli
