// The --json fields that say what quantile and topk were asked, after the input's
// fields (command_json). Local, segmented and distributed runs share them.
#pragma once

#include <cstdint>
#include <vector>

#include "commands.hpp"
#include "format.hpp"
#include "kselect/kselect.hpp"

namespace kselect_cli {

/// "method", "nan_ignore", "quantiles".
void add_quantile_fields(json_object& fields, kselect::quantile_method method, const quantile_options& opts,
                         const std::vector<double>& qs);

/// "k", "largest", "sorted", "deterministic".
void add_topk_fields(json_object& fields, std::int64_t k, const topk_command_options& opts);

}  // namespace kselect_cli
