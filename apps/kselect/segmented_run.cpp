#include "segmented_run.hpp"

#include "input.hpp"

namespace kselect_cli {

segmented_session::segmented_session(const common_options& common, const std::string& file,
                                     const segment_options& segments, const std::optional<std::string>& ks_file,
                                     const std::optional<std::string>& indices_output)
    : axis_(parse_axis_option(segments.axis, segments.offsets)), offsets_path_(segments.offsets) {
  // The side files are opened first, so that the outputs can be checked against
  // them too before any file is read.
  if (segments.offsets) offsets_file_.emplace("--offsets", *segments.offsets);
  if (ks_file) ks_file_.emplace("--ks-file", *ks_file);
  const output_request request{segments.output, indices_output};
  in_ = load_command_input(common, file, [&](const struct stat& input) {
    std::vector<guarded_input> inputs{guarded_input{input, input_display_name(file)}};
    if (offsets_file_) inputs.push_back(offsets_file_->guard());
    if (ks_file_) inputs.push_back(ks_file_->guard());
    targets_.open(request, inputs);
  }, /*half_keys=*/true);
  const std::int64_t n = size_of(in_.values);
  if (axis_)
    layout_ = rows_along_axis(*axis_, in_.shape, input_display_name(file));
  else if (offsets_file_)
    layout_ = ragged_segments(offsets_file_->read(), n, offsets_file_->display());
  else
    layout_ = whole_input(n);
  if (ks_file_) {
    ks_ = ks_file_->read();
    if (static_cast<std::int64_t>(ks_.size()) != layout_.count)
      throw input_error(ks_file_->display() + ": holds " + std::to_string(ks_.size()) + " ranks for " +
                        std::to_string(layout_.count) + (layout_.count == 1 ? " segment" : " segments") +
                        " (one rank per segment)");
  }
}

json_object segmented_session::fields(std::string_view command, const std::string& file, const backend& b) const {
  json_object out = command_json(command, file, in_, b);
  if (axis_) out.add("axis", json_number(*axis_));
  if (offsets_path_) out.add("offsets", json_string(*offsets_path_));
  out.add("segments", json_number(layout_.count));
  return out;
}

}  // namespace kselect_cli
