// Printing a command's answers, one value per each thing asked (select's ranks,
// quantile's q): one value per line, or with --json the command's fields, then
// "values" and "time_ms". The local commands and the distributed ones
// (distributed_command.cpp) print through here, so their output is the same.
#pragma once

#include <vector>

#include "backend.hpp"
#include "commands.hpp"
#include "format.hpp"
#include "loaded_input.hpp"
#include "output.hpp"
#include "stream_output.hpp"

namespace kselect_cli {

/// Writes `values` to stdout: one per line, or with common.json one object of
/// `fields` (already holding the command's fields), "values" and "time_ms".
template <class T>
void print_values(const common_options& common, const json_object& fields, const std::vector<T>& values,
                  const timings& t) {
  if (!common.json) {
    write_lines(values);
    return;
  }
  write_stdout(fields.open_str() + ",\"values\":");
  write_json_array(values);
  write_stdout(",\"time_ms\":" + timings_json(t) + "}\n");
}

}  // namespace kselect_cli
