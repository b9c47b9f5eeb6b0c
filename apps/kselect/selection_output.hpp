// What topk and range share: running a kselect call that returns a
// kselect::selection and printing it (values, or "index value" lines with
// --indices; with --json the command's fields plus "values", "indices", "time_ms").
// The distributed topk (distributed_command.cpp) prints through print_selection_result.
#pragma once

#include <string>
#include <type_traits>
#include <variant>

#include "backend.hpp"
#include "commands.hpp"
#include "errors.hpp"
#include "format.hpp"
#include "kselect/kselect.hpp"
#include "loaded_input.hpp"
#include "output.hpp"
#include "stream_output.hpp"

namespace kselect_cli {

/// Writes a selection to stdout: its values, one per line ("index value" with
/// `with_indices`), or with common.json one object of `fields` (the command's),
/// "values", "indices" (with `with_indices`) and "time_ms".
template <class T>
void print_selection_result(const common_options& common, const json_object& fields, const kselect::selection<T>& s,
                            bool with_indices, const timings& t) {
  if (!common.json) {
    if (with_indices)
      write_two_columns(s.indices, s.values);
    else
      write_lines(s.values);
    return;
  }
  // Streamed: the values may be a large part of the input.
  write_stdout(fields.open_str() + ",\"values\":");
  write_json_array(s.values);
  if (with_indices) {
    write_stdout(",\"indices\":");
    write_json_array(s.indices);
  }
  write_stdout(",\"time_ms\":" + timings_json(t) + "}\n");
}

/// Calls select(values, n, options) (returning kselect::selection<T>, with indices
/// when `with_indices`) on `in` where `b` runs and streams the result to stdout;
/// `fields` are the JSON fields that come before "values". Returns the exit code.
template <class Select>
int print_selection(const common_options& common, const loaded_input& in, const backend& b,
                    bool with_indices, json_object fields, Select&& select) {
  timings t;
  t.read_ms = in.read_ms;
  visit_six_keys(
      [&](const auto& data) {
        using T = std::remove_cvref_t<decltype(*data.data())>;
        const kselect::selection<T> s = run_on_backend(
            b, data, t, [&](const T* v, std::int64_t n, const kselect::options& opt) { return select(v, n, opt); },
            "selecting");
        print_selection_result(common, fields, s, with_indices, t);
      },
      in.values);
  return exit_ok;
}

}  // namespace kselect_cli
