#include "segments_input.hpp"

#include <span>
#include <stdexcept>
#include <utility>

#include "args.hpp"
#include "core/segments.hpp"
#include "errors.hpp"
#include "npy.hpp"

namespace kselect_cli {
namespace {

/// Opens `path` for integer_file, its errors prefixed with the option.
input_source open_side_input(const std::string& option, const std::string& path) {
  if (path.empty()) throw input_error(option + " needs a file name");
  // Raw data would need a --dtype of its own; the .npy header says it all.
  if (!has_npy_extension(path))
    throw input_error(option + " " + path + ": not a .npy file (give a one-dimensional int64 .npy)");
  try {
    return input_source(input_spec{path, std::nullopt, false, false});
  } catch (const input_error& e) {
    throw input_error(option + ": " + e.what());
  }
}

}  // namespace

kselect::segments segment_layout::segments() const {
  if (!offsets.empty()) return kselect::segments::ragged(offsets.data(), count);
  return kselect::segments::rows(count, row_length);
}

std::vector<std::int64_t> segment_layout::result_shape(std::int64_t per_segment, bool one_per_segment) const {
  std::vector<std::int64_t> shape = leading_shape;
  if (!one_per_segment) shape.push_back(per_segment);
  return shape;
}

segment_layout rows_along_axis(std::int64_t axis, const std::vector<std::int64_t>& shape, const std::string& name) {
  const auto ndim = static_cast<std::int64_t>(shape.size());
  const std::string where = name + " of shape " + npy::shape_string(shape);
  if (axis < -ndim || axis >= ndim)
    throw input_error("--axis: axis " + std::to_string(axis) + " is out of range for " + where +
                      (ndim == 0 ? " (no axes)"
                                 : " (axes -" + std::to_string(ndim) + " to " + std::to_string(ndim - 1) + ")"));
  if (ndim < 2)
    throw input_error("--axis: " + where +
                      " is one-dimensional; --axis splits a .npy of two or more dimensions into rows (without it "
                      "the whole input is one selection; --offsets splits flat values)");
  if (axis != -1 && axis != ndim - 1)
    throw input_error("--axis: only the last axis is supported (-1 or " + std::to_string(ndim - 1) + " for " +
                      where + "), not axis " + std::to_string(axis));
  segment_layout l;
  l.leading_shape.assign(shape.begin(), shape.end() - 1);
  l.row_length = shape.back();
  l.count = 1;
  for (const std::int64_t d : l.leading_shape) l.count *= d;  // at most n: the input holds values
  return l;
}

segment_layout whole_input(std::int64_t n) {
  segment_layout l;
  l.count = 1;
  l.row_length = n;
  return l;
}

segment_layout ragged_segments(std::vector<std::int64_t> offsets, std::int64_t n, const std::string& name) {
  if (offsets.size() < 2)
    throw input_error(name + ": holds " + std::to_string(offsets.size()) +
                      (offsets.size() == 1 ? " offset" : " offsets") +
                      ", no segment (m segments need m + 1 offsets, the first 0 and the last n)");
  try {
    kselect::core::check_offsets(std::span<const std::int64_t>(offsets), n);
  } catch (const std::invalid_argument& e) {
    throw input_error(name + ": " + library_words(e));
  }
  segment_layout l;
  l.count = static_cast<std::int64_t>(offsets.size()) - 1;
  l.leading_shape = {l.count};
  l.offsets = std::move(offsets);
  return l;
}

integer_file::integer_file(std::string option, std::string path)
    : option_(std::move(option)), path_(std::move(path)), source_(open_side_input(option_, path_)) {}

guarded_input integer_file::guard() const { return guarded_input{source_.status(), path_}; }

std::vector<std::int64_t> integer_file::read() {
  any_array values = [&] {
    try {
      return source_.read();
    } catch (const input_error& e) {
      throw input_error(option_ + ": " + e.what());
    }
  }();
  if (source_.shape().size() != 1)
    throw input_error(display() + ": must be one-dimensional, not shape " + npy::shape_string(source_.shape()));
  return std::visit(
      [&](const auto& a) -> std::vector<std::int64_t> {
        using T = std::remove_cvref_t<decltype(*a.data())>;
        if constexpr (std::is_same_v<T, std::int64_t> || std::is_same_v<T, std::int32_t>) {
          return std::vector<std::int64_t>(a.data(), a.data() + a.size());
        } else {
          throw input_error(display() + ": must hold int64 or int32 values, not " +
                            std::string(dtype_name(dtype_of<T>())));
        }
      },
      values);
}

std::optional<std::int64_t> parse_axis_option(const std::optional<std::string>& axis_text,
                                              const std::optional<std::string>& offsets_path) {
  if (axis_text && offsets_path) throw input_error("give --axis or --offsets, not both");
  if (!axis_text) return std::nullopt;
  return parse_signed("--axis", *axis_text);
}

}  // namespace kselect_cli
