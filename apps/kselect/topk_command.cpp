// kselect topk -k K [--largest] [--indices] [--sorted] [--deterministic] FILE:
// the K smallest (or largest; NaN counts as the largest) values of the file.
#include <string>

#include "args.hpp"
#include "backend.hpp"
#include "commands.hpp"
#include "errors.hpp"
#include "kselect/kselect.hpp"
#include "loaded_input.hpp"
#include "selection_output.hpp"

namespace kselect_cli {

int run_topk(const common_options& common, const topk_command_options& opts) {
  const std::int64_t k = parse_count("-k", opts.k);
  const backend b = choose_backend(common.device);
  const loaded_input in = load_command_input(common, opts.file);
  const std::int64_t n = size_of(in.values);
  if (k > n)
    throw input_error("-k: " + std::to_string(k) + " is more than the number of values (" + std::to_string(n) +
                      ")");

  // Indices only when printed: a top-k may be most of the input, and they cost 8 bytes each.
  const kselect::topk_options t{opts.largest, opts.flags.sorted, opts.flags.deterministic, opts.flags.indices};
  json_object fields = command_json("topk", opts.file, in, b);
  fields.add("k", json_number(k))
      .add("largest", json_bool(opts.largest))
      .add("sorted", json_bool(opts.flags.sorted))
      .add("deterministic", json_bool(opts.flags.deterministic));
  return print_selection(common, in, b, opts.flags.indices, std::move(fields),
                         [&](const auto* v, std::int64_t size, const kselect::options& opt) {
                           return kselect::topk(v, size, k, t, opt);
                         });
}

}  // namespace kselect_cli
