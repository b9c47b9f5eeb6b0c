#include "command_fields.hpp"

namespace kselect_cli {

void add_quantile_fields(json_object& fields, kselect::quantile_method method, const quantile_options& opts,
                         const std::vector<double>& qs) {
  fields.add("method", json_string(kselect::to_string(method)))
      .add("nan_ignore", json_bool(opts.nan_ignore))
      .add("quantiles", json_array(qs));
}

void add_topk_fields(json_object& fields, std::int64_t k, const topk_command_options& opts) {
  fields.add("k", json_number(k))
      .add("largest", json_bool(opts.largest))
      .add("sorted", json_bool(opts.flags.sorted))
      .add("deterministic", json_bool(opts.flags.deterministic));
}

}  // namespace kselect_cli
