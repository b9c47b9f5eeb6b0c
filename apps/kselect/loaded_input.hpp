// Loading the input file of select and quantile from the common options.
#pragma once

#include <string>

#include "backend.hpp"
#include "commands.hpp"
#include "format.hpp"
#include "host_array.hpp"

namespace kselect_cli {

struct loaded_input {
  any_array values;
  double read_ms = 0;
};

/// Reads `file` as --dtype and --raw say; throws input_error when it holds no values.
loaded_input load_command_input(const common_options& common, const std::string& file);

/// The --json fields select and quantile share: command, file, dtype, n, device.
json_object command_json(std::string_view command, const std::string& file, const loaded_input& in,
                         const backend& b);

/// Their "time_ms" object: read, transfer, select.
std::string timings_json(const timings& t);

}  // namespace kselect_cli
