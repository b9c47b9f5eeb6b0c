// What the segmented select, quantile and topk share: opening the side files
// (--offsets, --ks-file) and the outputs before anything is read, loading the
// input, its segments, and emitting a result (files, or text or JSON on stdout).
//
// Result shapes (NumPy's): the segments' leading axes (the input's shape without
// its last axis for --axis, (m,) for --offsets, none for the whole input), then one
// axis of the r answers per segment, dropped when the request is a single k or q
// (as numpy.partition(a, k, axis=-1)[..., k] or numpy.quantile(a, q, axis=-1)).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "backend.hpp"
#include "commands.hpp"
#include "dtype.hpp"
#include "errors.hpp"
#include "format.hpp"
#include "kselect/segmented.hpp"
#include "loaded_input.hpp"
#include "output.hpp"
#include "segmented_output.hpp"
#include "segments_input.hpp"

namespace kselect_cli {

class segmented_session {
 public:
  /// Checks the segment options, opens the side files and the outputs (refusing
  /// any output that is an input), reads the input and its segments. `ks_file`
  /// (select) and `indices_output` (topk) are given only by their commands.
  segmented_session(const common_options& common, const std::string& file, const segment_options& segments,
                    const std::optional<std::string>& ks_file = std::nullopt,
                    const std::optional<std::string>& indices_output = std::nullopt);

  const loaded_input& input() const { return in_; }
  const segment_layout& layout() const { return layout_; }
  /// --ks-file: one rank per segment (empty without it).
  std::span<const std::int64_t> ks() const { return ks_; }
  segment_targets& targets() { return targets_; }

  /// command_json's fields and "segments", with "axis" or "offsets" where given.
  json_object fields(std::string_view command, const std::string& file, const backend& b) const;

 private:
  std::optional<std::int64_t> axis_;
  std::optional<std::string> offsets_path_;
  std::optional<integer_file> offsets_file_, ks_file_;
  segment_targets targets_;
  loaded_input in_;
  segment_layout layout_;
  std::vector<std::int64_t> ks_;
};

/// Writes the result of a segmented run, m segments of `values.cols` answers, where
/// the session's targets say: the -o and --indices-output files (then only the
/// --json report prints, on stderr when the values went to stdout), else one line
/// per segment ("index:value" entries with `print_indices`) or with --json the
/// command's fields, "shape", "values" (and "indices") and "time_ms". `indices`
/// is needed when printed or written. Returns the exit code.
template <class T>
int emit_segmented(const common_options& common, segmented_session& s, json_object fields, const timings& t,
                   const kselect::matrix<T>& values, bool one_per_segment,
                   const kselect::matrix<std::int64_t>* indices = nullptr, bool print_indices = false) {
  const std::vector<std::int64_t> shape = s.layout().result_shape(values.cols, one_per_segment);
  segment_targets& out = s.targets();
  fields.add("shape", json_array(shape));
  if (out.indices()) fields.add("indices_output", json_string(out.indices()->name()));
  try {
    if (out.indices()) write_npy(*out.indices(), dtype::int64, indices->data.data(), shape);
    if (out.values()) {
      write_npy(*out.values(), dtype_of<T>(), values.data.data(), shape);
      if (!common.json) return exit_ok;  // the result is in the file
      const std::string report =
          fields.add("output", json_string(out.values()->name())).add("time_ms", timings_json(t)).str() + '\n';
      out.values()->to_stdout() ? write_stderr(report) : write_stdout(report);
      return exit_ok;
    }
  } catch (const broken_pipe&) {
    return exit_failure;  // stdout's reader has gone: quietly (see broken_pipe)
  }
  if (!common.json) {
    if (print_indices)
      write_index_value_rows(indices->data, values.data, values.rows, values.cols);
    else
      write_rows(values.data, values.rows, values.cols);
    return exit_ok;
  }
  write_stdout(fields.open_str() + ",\"values\":");
  write_json_shaped(values.data, shape);
  if (print_indices) {
    write_stdout(",\"indices\":");
    write_json_shaped(indices->data, shape);
  }
  write_stdout(",\"time_ms\":" + timings_json(t) + "}\n");
  return exit_ok;
}

/// One answer per segment as a (m, 1) matrix, for emit_segmented.
template <class T>
kselect::matrix<T> as_column(std::vector<T> values) {
  const auto m = static_cast<std::int64_t>(values.size());
  return kselect::matrix<T>{std::move(values), m, 1};
}

}  // namespace kselect_cli
