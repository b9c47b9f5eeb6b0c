// kselect topk -k K [--largest] [--indices] [--sorted] [--deterministic] FILE:
// the K smallest (or largest; NaN counts as the largest) values of the file; with
// --axis, --offsets, -o or --indices-output, of every segment (a (m, K) result,
// short segments padded; see segmented_run.hpp).
#include <string>

#include "args.hpp"
#include "backend.hpp"
#include "command_fields.hpp"
#include "commands.hpp"
#include "errors.hpp"
#include "kselect/kselect.hpp"
#include "loaded_input.hpp"
#include "segmented_run.hpp"
#include "selection_output.hpp"

namespace kselect_cli {
namespace {

int run_segmented_topk(const common_options& common, const topk_command_options& opts, std::int64_t k) {
  if (opts.flags.indices && opts.segments.output)
    throw input_error("--indices prints the indices; with -o write them to a file with --indices-output IDX.npy");
  const bool with_indices = opts.flags.indices || opts.indices_output.has_value();
  const kselect::topk_options to{opts.largest, opts.flags.sorted, opts.flags.deterministic, with_indices};
  const backend b = choose_backend(common);
  segmented_session s(common, opts.file, opts.segments, std::nullopt, opts.indices_output);
  timings t;
  t.read_ms = s.input().read_ms;
  json_object fields = s.fields("topk", opts.file, b);
  add_topk_fields(fields, k, opts);
  const kselect::segments segs = s.layout().segments();
  return std::visit(
      [&](const auto& data) {
        using T = std::remove_cvref_t<decltype(*data.data())>;
        const kselect::segmented_selection<T> r =
            run_on_backend(b, data, t, [&](const T* v, std::int64_t n, const kselect::options& opt) {
              return kselect::segmented_topk(v, n, segs, k, to, opt);
            }, "selecting");
        return emit_segmented(common, s, std::move(fields), t, r.values, false, &r.indices, opts.flags.indices);
      },
      s.input().values);
}

}  // namespace

int run_topk(const common_options& common, const topk_command_options& opts) {
  const std::int64_t k = parse_count("-k", opts.k);
  if (opts.segments.any() || opts.indices_output) return run_segmented_topk(common, opts, k);
  // An input too large for the GPU is streamed from host memory.
  const backend b = choose_backend(common, /*streams_host_input=*/true);
  const loaded_input in = load_backend_input(common, opts.file, b);
  check_at_most_n("-k", k, size_of(in.values));

  // Indices only when printed: a top-k may be most of the input, and they cost 8 bytes each.
  const kselect::topk_options t{opts.largest, opts.flags.sorted, opts.flags.deterministic, opts.flags.indices};
  json_object fields = command_json("topk", opts.file, in, b);
  add_topk_fields(fields, k, opts);
  return print_selection(common, in, b, opts.flags.indices, std::move(fields),
                         [&](const auto* v, std::int64_t size, const kselect::options& opt) {
                           return kselect::topk(v, size, k, t, opt);
                         });
}

}  // namespace kselect_cli
