// How select, quantile and topk split their input into segments: --axis A (the rows
// along the last axis of a .npy of two or more dimensions) or --offsets OFFSETS.npy
// (ragged segments of the flattened values); neither: the whole input is one
// segment. Also the side files of integers those options read (--offsets,
// --ks-file), and the shape a segmented result takes.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "input.hpp"
#include "kselect/segmented.hpp"
#include "output_file.hpp"

namespace kselect_cli {

/// The segments of a loaded input and the leading part of its results' shape.
struct segment_layout {
  std::int64_t count = 1;                   ///< m
  std::int64_t row_length = 0;              ///< equal rows: their length
  std::vector<std::int64_t> offsets;        ///< ragged: the m + 1 offsets; empty for equal rows
  std::vector<std::int64_t> leading_shape;  ///< the result's axes before the per-segment one

  kselect::segments segments() const;
  /// leading_shape, then `per_segment` unless `one_per_segment` (select with one
  /// k, quantile with one q: NumPy drops that axis for a scalar k or q).
  std::vector<std::int64_t> result_shape(std::int64_t per_segment, bool one_per_segment) const;
};

/// --axis A of an input of `shape` named `name`: A in [-ndim, ndim) and the last axis
/// (-1 or ndim - 1) of an input of two or more dimensions; the segments are its rows
/// along that axis, and the result keeps the other axes. Throws input_error.
segment_layout rows_along_axis(std::int64_t axis, const std::vector<std::int64_t>& shape, const std::string& name);

/// No --axis, no --offsets: one segment of all n values, the result without leading
/// axes (a 0-d array for one k or q, as numpy.quantile(a, q) is a scalar).
segment_layout whole_input(std::int64_t n);

/// --offsets: the m = offsets.size() - 1 segments [offsets[i], offsets[i+1]) of n
/// values. Throws input_error, naming `name`, unless the offsets start at 0, never
/// decrease and end at n (the library's checks and words).
segment_layout ragged_segments(std::vector<std::int64_t> offsets, std::int64_t n, const std::string& name);

/// A side input of integers (--offsets, --ks-file): a one-dimensional int64 or
/// int32 .npy. Opened at construction, so that outputs can be checked against it
/// before anything is read; read() later.
class integer_file {
 public:
  /// `option` names the file in messages ("--offsets"). Throws input_error when it
  /// cannot be opened or is not a .npy file.
  integer_file(std::string option, std::string path);

  /// The file as an output must not replace it.
  guarded_input guard() const;
  /// "--offsets o.npy", the prefix of this file's messages.
  std::string display() const { return option_ + " " + path_; }

  /// The values, widened to int64. Throws input_error for another dtype or shape.
  std::vector<std::int64_t> read();

 private:
  std::string option_, path_;
  input_source source_;
};

/// --axis and --offsets as given: parses --axis, refuses both together. The
/// caller passes axis_text only when --axis was given.
std::optional<std::int64_t> parse_axis_option(const std::optional<std::string>& axis_text,
                                              const std::optional<std::string>& offsets_path);

}  // namespace kselect_cli
