// kselect select -k K[,K...] FILE: the values at the given 0-based ranks; with
// --approx [--max-rank-error E], values within E ranks of those asked, each with
// its exact rank. With --axis, --offsets, -o or --ks-file: the same ranks in every
// segment (or one rank per segment from --ks-file), see segmented_run.hpp.
#include <span>
#include <stdexcept>

#include "args.hpp"
#include "backend.hpp"
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

/// One rank (-k K, or --ks-file's rank of each segment) gives one answer per
/// segment; several ranks give (m, r), the same ranks in every segment.
int run_segmented_select(const common_options& common, const select_options& opts) {
  if (opts.approx)
    throw input_error("--approx selects from the whole input: not with --axis, --offsets, -o or --ks-file");
  // -k or --ks-file, exactly one: usage_check.cpp says so before this runs.
  const std::vector<std::int64_t> ranks =
      opts.ks_file ? std::vector<std::int64_t>{} : parse_ranks(opts.ranks, opts.rank_option);
  const backend b = choose_backend(common);
  segmented_session s(common, opts.file, opts.segments, opts.ks_file);

  timings t;
  t.read_ms = s.input().read_ms;
  json_object fields = s.fields("select", opts.file, b);
  if (opts.ks_file)
    fields.add("ks_file", json_string(*opts.ks_file));
  else
    fields.add("ranks", json_array(ranks));
  const kselect::segments segs = s.layout().segments();
  // A rank outside a segment is the library's finding; its message names the segment.
  const std::string asked_by = opts.ks_file ? "--ks-file " + *opts.ks_file : opts.rank_option;
  return std::visit(
      [&](const auto& data) {
        using T = std::remove_cvref_t<decltype(*data.data())>;
        const kselect::matrix<T> r = [&] {
          try {
            return run_on_backend(b, data, t, [&](const T* v, std::int64_t n, const kselect::options& opt) {
              if (opts.ks_file) return as_column(kselect::segmented_select(v, n, segs, s.ks(), opt));
              if (ranks.size() == 1) return as_column(kselect::segmented_select(v, n, segs, ranks[0], opt));
              return kselect::segmented_multiselect(v, n, segs, std::span<const std::int64_t>(ranks), opt);
            }, "selecting");
          } catch (const std::invalid_argument& e) {
            throw input_error(asked_by + ": " + library_words(e));
          }
        }();
        return emit_segmented(common, s, std::move(fields), t, r, opts.ks_file || ranks.size() == 1);
      },
      s.input().values);
}

}  // namespace

int run_select(const common_options& common, const select_options& opts) {
  if (opts.max_rank_error_given && !opts.approx) throw input_error("--max-rank-error needs --approx");
  if (opts.segments.any() || opts.ks_file) return run_segmented_select(common, opts);
  const std::vector<std::int64_t> ranks = parse_ranks(opts.ranks, opts.rank_option);
  // Without --max-rank-error, --approx allows no error: exact selection.
  const rank_error_spec error_spec =
      opts.max_rank_error_given ? parse_max_rank_error(opts.max_rank_error) : rank_error_spec{0, -1};
  // Exact selection streams an input too large for the GPU from host memory.
  const backend b = choose_backend(common, /*streams_host_input=*/!opts.approx);
  // The exact call's workspace, mapped while the file is read.
  workspace_estimate workspace;
  if (!opts.approx)
    workspace = [&](dtype t, std::int64_t n) {
      return gpu::selection_workspace_bytes(t, n, static_cast<std::int64_t>(ranks.size()));
    };
  const loaded_input in = load_backend_input(common, opts.file, b, workspace);
  const std::int64_t n = size_of(in.values);
  check_ranks(ranks, n, opts.rank_option);
  const std::int64_t max_rank_error = resolve_max_rank_error(error_spec, n);

  timings t;
  t.read_ms = in.read_ms;
  json_object fields = command_json("select", opts.file, in, b);
  fields.add("ranks", json_array(ranks));
  if (opts.approx) fields.add("max_rank_error", json_number(max_rank_error));
  visit_six_keys(
      [&](const auto& data) {
        using T = std::remove_cvref_t<decltype(*data.data())>;
        const std::span<const std::int64_t> asked(ranks);
        std::vector<T> values;
        std::vector<std::int64_t> exact;
        if (!opts.approx) {
          values = run_on_backend(b, data, t, [&](const T* v, std::int64_t size, const kselect::options& opt) {
            if (ranks.size() == 1) return std::vector<T>{kselect::select(v, size, ranks[0], opt)};
            return kselect::multiselect(v, size, asked, opt);
          }, "selecting");
        } else {
          const auto answers =
              run_on_backend(b, data, t, [&](const T* v, std::int64_t size, const kselect::options& opt) {
                return kselect::approx_multiselect(v, size, asked, max_rank_error, opt);
              }, "selecting");
          for (const auto& a : answers) values.push_back(a.value), exact.push_back(a.rank);
        }
        if (!opts.approx) {
          print_values(common, fields, values, t);
          return;
        }
        if (!common.json) {
          write_two_columns(values, exact);
          return;
        }
        write_stdout(fields.open_str() + ",\"values\":");
        write_json_array(values);
        write_stdout(",\"exact_ranks\":");
        write_json_array(exact);
        write_stdout(",\"time_ms\":" + timings_json(t) + "}\n");
      },
      in.values);
  return exit_ok;
}

}  // namespace kselect_cli
