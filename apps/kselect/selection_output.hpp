// What topk and range share: running a kselect call that returns a
// kselect::selection and printing it (values, or "index value" lines with
// --indices; with --json the command's fields plus "values", "indices", "time_ms").
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

namespace kselect_cli {

/// Calls select(values, n, options) (returning kselect::selection<T>) on `in`
/// where `b` runs and writes the result to stdout; `fields` are the JSON fields
/// that come before "values". Returns the exit code.
template <class Select>
int print_selection(const common_options& common, const loaded_input& in, const backend& b,
                    bool with_indices, json_object fields, Select&& select) {
  timings t;
  t.read_ms = in.read_ms;
  std::string values_text, indices_text;
  std::visit(
      [&](const auto& data) {
        using T = std::remove_cvref_t<decltype(*data.data())>;
        const kselect::selection<T> s = run_on_backend(
            b, data, t, [&](const T* v, std::int64_t n, const kselect::options& opt) { return select(v, n, opt); });
        if (common.json) {
          values_text = json_array(s.values);
          if (with_indices) indices_text = json_array(s.indices);
        } else {
          values_text = with_indices ? two_column_lines(s.indices, s.values) : text_lines(s.values);
        }
      },
      in.values);

  if (!common.json) {
    write_stdout(values_text);
    return exit_ok;
  }
  fields.add("values", values_text);
  if (with_indices) fields.add("indices", indices_text);
  fields.add("time_ms", timings_json(t));
  write_stdout(fields.str() + '\n');
  return exit_ok;
}

}  // namespace kselect_cli
