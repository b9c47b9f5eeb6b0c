// kselect select -k K[,K...] FILE: the values at the given 0-based ranks; with
// --approx [--max-rank-error E], values within E ranks of those asked, each with
// its exact rank.
#include <span>

#include "args.hpp"
#include "backend.hpp"
#include "commands.hpp"
#include "errors.hpp"
#include "format.hpp"
#include "kselect/kselect.hpp"
#include "loaded_input.hpp"
#include "output.hpp"

namespace kselect_cli {

int run_select(const common_options& common, const select_options& opts) {
  const std::vector<std::int64_t> ranks = parse_ranks(opts.ranks, opts.rank_option);
  if (opts.max_rank_error_given && !opts.approx) throw input_error("--max-rank-error needs --approx");
  // Without --max-rank-error, --approx allows no error: exact selection.
  const rank_error_spec error_spec =
      opts.max_rank_error_given ? parse_max_rank_error(opts.max_rank_error) : rank_error_spec{0, -1};
  const backend b = choose_backend(common.device);
  const loaded_input in = load_command_input(common, opts.file);
  const std::int64_t n = size_of(in.values);
  check_ranks(ranks, n, opts.rank_option);
  const std::int64_t max_rank_error = resolve_max_rank_error(error_spec, n);

  timings t;
  t.read_ms = in.read_ms;
  std::string values_text, exact_ranks_text;
  std::visit(
      [&](const auto& data) {
        using T = std::remove_cvref_t<decltype(*data.data())>;
        const std::span<const std::int64_t> asked(ranks);
        if (!opts.approx) {
          const std::vector<T> values =
              run_on_backend(b, data, t, [&](const T* v, std::int64_t size, const kselect::options& opt) {
                if (ranks.size() == 1) return std::vector<T>{kselect::select(v, size, ranks[0], opt)};
                return kselect::multiselect(v, size, asked, opt);
              });
          values_text = common.json ? json_array(values) : text_lines(values);
          return;
        }
        const auto answers = run_on_backend(b, data, t, [&](const T* v, std::int64_t size, const kselect::options& opt) {
          return kselect::approx_multiselect(v, size, asked, max_rank_error, opt);
        });
        std::vector<T> values;
        std::vector<std::int64_t> exact;
        for (const auto& a : answers) values.push_back(a.value), exact.push_back(a.rank);
        if (common.json) {
          values_text = json_array(values);
          exact_ranks_text = json_array(exact);
        } else {
          values_text = two_column_lines(values, exact);
        }
      },
      in.values);

  if (!common.json) {
    write_stdout(values_text);
    return exit_ok;
  }
  json_object out = command_json("select", opts.file, in, b);
  out.add("ranks", json_array(ranks));
  if (opts.approx) out.add("max_rank_error", json_number(max_rank_error));
  out.add("values", values_text);
  if (opts.approx) out.add("exact_ranks", exact_ranks_text);
  out.add("time_ms", timings_json(t));
  write_stdout(out.str() + '\n');
  return exit_ok;
}

}  // namespace kselect_cli
