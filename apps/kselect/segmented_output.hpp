// Where the results of a segmented select, quantile or topk go, and their text:
// the -o and --indices-output files (opened before any work, checked against every
// input), one line per segment on stdout, or a JSON value of the result's shape.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "kselect/types.hpp"
#include "output_file.hpp"
#include "stream_output.hpp"

namespace kselect_cli {

/// The output files a segmented run may write: -o OUT.npy (the values) and topk's
/// --indices-output IDX.npy.
struct output_request {
  std::optional<std::string> values;
  std::optional<std::string> indices;
};

class segment_targets {
 public:
  /// Opens the requested files, refusing any that is one of `inputs`, the two
  /// naming the same file, and the indices on standard output while the values
  /// print there too. Throws input_error.
  void open(const output_request& request, std::span<const guarded_input> inputs);

  output_file* values() { return values_ ? &*values_ : nullptr; }
  output_file* indices() { return indices_ ? &*indices_ : nullptr; }

 private:
  std::optional<output_file> values_, indices_;
};

/// A key as the text writers format it: 16-bit floats widened to float (exact; the
/// shortest float text reads back to the same 16-bit value).
template <class T>
auto printable(T v) {
  if constexpr (kselect::is_half_key_v<T>) return kselect::to_float(v);
  else return v;
}

/// A (rows, cols) row-major result on stdout, one line per row, its entries separated
/// by a space (an empty line for a row of none).
template <class T>
void write_rows(const std::vector<T>& data, std::int64_t rows, std::int64_t cols) {
  if (cols == 0) {
    write_stdout(std::string(static_cast<std::size_t>(rows), '\n'));
    return;
  }
  stream_items(rows * cols, [&](std::int64_t i, std::string& out) {
    append_value(out, printable(data[static_cast<std::size_t>(i)]));
    out += (i + 1) % cols == 0 ? '\n' : ' ';
  });
}

/// The same with "index:value" entries (topk --indices).
template <class T>
void write_index_value_rows(const std::vector<std::int64_t>& indices, const std::vector<T>& values,
                            std::int64_t rows, std::int64_t cols) {
  if (cols == 0) {
    write_stdout(std::string(static_cast<std::size_t>(rows), '\n'));
    return;
  }
  stream_items(rows * cols, [&](std::int64_t i, std::string& out) {
    append_value(out, indices[static_cast<std::size_t>(i)]);
    out += ':';
    append_value(out, printable(values[static_cast<std::size_t>(i)]));
    out += (i + 1) % cols == 0 ? '\n' : ' ';
  });
}

/// The JSON text of an empty array of `shape` (some dimension 0): nested empty lists.
std::string empty_json_array(std::span<const std::int64_t> shape);

/// `data` (C order) as one JSON value of `shape`, as numpy's tolist() nests it: a
/// number for shape (), lists of lists otherwise. Streamed (see stream_items).
template <class T>
void write_json_shaped(const std::vector<T>& data, const std::vector<std::int64_t>& shape) {
  std::int64_t total = 1;
  for (const std::int64_t d : shape) total *= d;
  if (total == 0) {
    write_stdout(empty_json_array(shape));
    return;
  }
  // extent[j]: the elements in one list at depth j. Element i opens a list at every
  // depth whose extent it starts, and closes one at every depth whose extent it ends.
  std::vector<std::int64_t> extent(shape.size());
  std::int64_t p = 1;
  for (std::size_t j = shape.size(); j-- > 0;) extent[j] = p *= shape[j];
  stream_items(total, [&](std::int64_t i, std::string& out) {
    if (i > 0) out += ',';
    for (const std::int64_t e : extent)
      if (i % e == 0) out += '[';
    append_json_number(out, printable(data[static_cast<std::size_t>(i)]));
    for (const std::int64_t e : extent)
      if ((i + 1) % e == 0) out += ']';
  });
}

}  // namespace kselect_cli
