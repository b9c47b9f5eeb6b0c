// kselect quantile -q Q[,Q...] | --percentiles [--method M] [--nan-ignore] FILE:
// numpy.quantile (or numpy.nanquantile) of all the file's values; with --axis,
// --offsets or -o, of every segment (see segmented_run.hpp).
#include <span>

#include "args.hpp"
#include "backend.hpp"
#include "command_fields.hpp"
#include "commands.hpp"
#include "errors.hpp"
#include "format.hpp"
#include "gpu.hpp"
#include "kselect/kselect.hpp"
#include "loaded_input.hpp"
#include "output.hpp"
#include "segmented_run.hpp"
#include "stream_output.hpp"
#include "values_output.hpp"

namespace kselect_cli {
namespace {

/// One q (-q Q) gives one answer per segment; several, or --percentiles, (m, r).
int run_segmented_quantile(const common_options& common, const quantile_options& opts, const std::vector<double>& qs,
                           kselect::quantile_method method) {
  const backend b = choose_backend(common);
  segmented_session s(common, opts.file, opts.segments);
  timings t;
  t.read_ms = s.input().read_ms;
  json_object fields = s.fields("quantile", opts.file, b);
  add_quantile_fields(fields, method, opts, qs);
  const kselect::segments segs = s.layout().segments();
  return std::visit(
      [&](const auto& data) {
        using T = std::remove_cvref_t<decltype(*data.data())>;
        const auto r = run_on_backend(b, data, t, [&](const T* v, std::int64_t n, const kselect::options& opt) {
          const std::span<const double> q(qs);
          return opts.nan_ignore ? kselect::segmented_nanquantile(v, n, segs, q, method, opt)
                                 : kselect::segmented_quantile(v, n, segs, q, method, opt);
        }, "computing quantiles");
        return emit_segmented(common, s, std::move(fields), t, r, !opts.percentiles && qs.size() == 1);
      },
      s.input().values);
}

}  // namespace

int run_quantile(const common_options& common, const quantile_options& opts) {
  // -q or --percentiles, exactly one: usage_check.cpp says so before this runs.
  const std::vector<double> qs =
      opts.percentiles ? percentile_quantiles() : parse_quantiles(opts.quantiles, opts.quantile_option);
  const kselect::quantile_method method = kselect::parse_quantile_method(opts.method);
  if (opts.segments.any()) return run_segmented_quantile(common, opts, qs, method);
  const backend b = choose_backend(common, /*streams_host_input=*/true);
  // The call's workspace, mapped while the file is read: its selection takes at most
  // two ranks a quantile and one for the NaN check (core/quantile_recipe.hpp).
  const workspace_estimate workspace = [&](dtype t, std::int64_t n) {
    return gpu::selection_workspace_bytes(t, n, 2 * static_cast<std::int64_t>(qs.size()) + 1);
  };
  const loaded_input in = load_backend_input(common, opts.file, b, workspace);

  timings t;
  t.read_ms = in.read_ms;
  json_object fields = command_json("quantile", opts.file, in, b);
  add_quantile_fields(fields, method, opts, qs);
  visit_six_keys(
      [&](const auto& data) {
        using T = std::remove_cvref_t<decltype(*data.data())>;
        const auto values =
            run_on_backend(b, data, t, [&](const T* v, std::int64_t n, const kselect::options& opt) {
              const std::span<const double> q(qs);
              return opts.nan_ignore ? kselect::nanquantile(v, n, q, method, opt)
                                     : kselect::quantile(v, n, q, method, opt);
            }, "computing quantiles");
        print_values(common, fields, values, t);
      },
      in.values);
  return exit_ok;
}

}  // namespace kselect_cli
