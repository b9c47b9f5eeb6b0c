// kselect range --lo A --hi B [--indices] [--sorted] [--deterministic] FILE: the
// values at positions [A, B) of the file's ascending stable sort (NaN last, ties
// by index).
#include <string>

#include "args.hpp"
#include "backend.hpp"
#include "commands.hpp"
#include "errors.hpp"
#include "kselect/kselect.hpp"
#include "loaded_input.hpp"
#include "selection_output.hpp"

namespace kselect_cli {

int run_range(const common_options& common, const range_command_options& opts) {
  const std::int64_t lo = parse_count("--lo", opts.lo);
  const std::int64_t hi = parse_count("--hi", opts.hi);
  if (lo > hi)
    throw input_error("--lo " + std::to_string(lo) + " is greater than --hi " + std::to_string(hi));
  // An input too large for the GPU is streamed from host memory.
  const backend b = choose_backend(common, /*streams_host_input=*/true);
  const loaded_input in = load_backend_input(common, opts.file, b);
  const std::int64_t n = size_of(in.values);
  check_at_most_n("--hi", hi, n);

  const kselect::range_options r{opts.flags.sorted, opts.flags.deterministic, opts.flags.indices};
  json_object fields = command_json("range", opts.file, in, b);
  fields.add("lo", json_number(lo))
      .add("hi", json_number(hi))
      .add("sorted", json_bool(opts.flags.sorted))
      .add("deterministic", json_bool(opts.flags.deterministic));
  return print_selection(common, in, b, opts.flags.indices, std::move(fields),
                         [&](const auto* v, std::int64_t size, const kselect::options& opt) {
                           return kselect::rank_range(v, size, lo, hi, r, opt);
                         });
}

}  // namespace kselect_cli
