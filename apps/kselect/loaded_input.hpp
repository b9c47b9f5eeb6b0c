// Loading the input file of select and quantile from the common options.
#pragma once

#include <string>

#include "commands.hpp"
#include "host_array.hpp"

namespace kselect_cli {

struct loaded_input {
  any_array values;
  double read_ms = 0;
};

/// Reads `file` as --dtype and --raw say; throws input_error when it holds no values.
loaded_input load_command_input(const common_options& common, const std::string& file);

}  // namespace kselect_cli
