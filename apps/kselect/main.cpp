// kselect: exact selection from the command line. Argument parsing (CLI11) and
// error reporting; the subcommands live in *_command.cpp.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <exception>
#include <new>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "commands.hpp"
#include "errors.hpp"
#include "kselect/types.hpp"

#ifndef KSELECT_CLI_VERSION
#define KSELECT_CLI_VERSION "unknown"
#endif

namespace {

using namespace kselect_cli;

void report(const std::string& message) {
  std::string line = message;
  for (auto& c : line)
    if (c == '\n' || c == '\r') c = ' ';
  std::fprintf(stderr, "kselect: error: %s\n", line.c_str());
}

/// --device and --json; with `input`, also --dtype and --raw (for commands that read FILE).
void add_common_options(CLI::App& app, common_options& c, bool input = true) {
  app.add_option("--device", c.device, "Where to run: auto (CUDA when available), cpu, cuda")
      ->check(CLI::IsMember({"auto", "cpu", "cuda"}))
      ->default_str("auto");
  app.add_flag("--json", c.json, "Print one JSON object instead of plain text");
  if (!input) return;
  app.add_option("--dtype", c.dtype,
                 "Element type of a raw file (required for raw files; must match a .npy header)")
      ->check(CLI::IsMember({"float32", "float64", "int32", "uint32", "int64", "uint64"}));
  app.add_flag("--raw", c.raw, "Read FILE as raw binary whatever its extension");
}

/// --indices, --sorted and --deterministic of topk and range.
void add_selection_flags(CLI::App& app, selection_flags& f) {
  app.add_flag("--indices", f.indices, "Print each value's 0-based index in the input: 'index value' lines");
  app.add_flag("--sorted", f.sorted, "In order (ascending; descending with --largest) instead of by index");
  app.add_flag("--deterministic", f.deterministic,
               "Of values tied at the boundary, take the smaller indices (same output every run)");
}

int run(int argc, char** argv) {
  CLI::App app{"kselect: exact selection (k-th smallest, many ranks, quantiles) on GPU and CPU.",
               "kselect"};
  app.set_version_flag("--version", "kselect " KSELECT_CLI_VERSION);
  app.require_subcommand(1);
  common_options common;
  // The common options are accepted before the subcommand and after it
  // (except for bench, whose arguments all go to the benchmark).
  add_common_options(app, common);
  app.footer(
      "Input: .npy files (little-endian <f4 <f8 <i4 <u4 <i8 <u8, any shape, flattened) or raw binary\n"
      "(any other extension, or --raw) with --dtype. Output: one value per line (nan, inf, -inf),\n"
      "in the order requested ('index value' with --indices, 'value rank' with select --approx);\n"
      "with --json one object (non-finite values as strings). filter prints the count and writes\n"
      "the values (or, with --indices, their int64 positions) to -o OUT.npy.\n"
      "Exit codes: 0 success, 1 failure (demo check, CUDA error), 2 bad arguments or input.\n");

  select_options sel;
  CLI::App* select_cmd = app.add_subcommand("select", "Values at 0-based ranks (k-th smallest)");
  add_common_options(*select_cmd, common);
  // Comma lists are split by parse_ranks(), which rejects empty entries.
  select_cmd->add_option("-k,--rank", sel.ranks, "0-based rank(s): K or K1,K2,... (repeatable)")
      ->allow_extra_args(false)
      ->required();
  select_cmd->add_flag("--approx", sel.approx,
                       "Approximate: each answer within --max-rank-error ranks, printed with its exact rank");
  CLI::Option* max_rank_error =
      select_cmd->add_option("--max-rank-error", sel.max_rank_error,
                             "With --approx: allowed rank error, a count E or a percent of n (0.1%)")
          ->type_name("E|P%");
  select_cmd->add_option("FILE", sel.file, "Input file (.npy or raw)")->required();

  topk_command_options topk;
  CLI::App* topk_cmd =
      app.add_subcommand("topk", "The K smallest (--largest: largest; NaN counts as the largest) values");
  add_common_options(*topk_cmd, common);
  topk_cmd->add_option("-k", topk.k, "How many values (0 to n)")->type_name("K")->required();
  topk_cmd->add_flag("--largest", topk.largest, "The K largest instead of the K smallest");
  add_selection_flags(*topk_cmd, topk.flags);
  topk_cmd->add_option("FILE", topk.file, "Input file (.npy or raw)")->required();

  range_command_options range;
  CLI::App* range_cmd =
      app.add_subcommand("range", "The values at positions [lo, hi) of the ascending stable sort");
  add_common_options(*range_cmd, common);
  range_cmd->add_option("--lo", range.lo, "First position (0-based)")->type_name("A")->required();
  range_cmd->add_option("--hi", range.hi, "One past the last position (at most n)")->type_name("B")->required();
  add_selection_flags(*range_cmd, range.flags);
  range_cmd->add_option("FILE", range.file, "Input file (.npy or raw)")->required();

  quantile_options quant;
  CLI::App* quantile_cmd = app.add_subcommand("quantile", "Quantiles as numpy.quantile");
  add_common_options(*quantile_cmd, common);
  auto* q_opt = quantile_cmd
                    ->add_option("-q,--quantile", quant.quantiles,
                                 "Quantile(s) in [0, 1]: Q or Q1,Q2,... (repeatable)")
                    ->allow_extra_args(false);
  quantile_cmd->add_flag("--percentiles", quant.percentiles, "All 101 percentiles 0, 0.01, ..., 1")
      ->excludes(q_opt);
  quantile_cmd->add_option("--method", quant.method, "linear, lower, higher, nearest, midpoint")
      ->check(CLI::IsMember({"linear", "lower", "higher", "nearest", "midpoint"}))
      ->default_str("linear");
  quantile_cmd->add_flag("--nan-ignore", quant.nan_ignore, "Ignore NaNs (numpy.nanquantile)");
  quantile_cmd->add_option("FILE", quant.file, "Input file (.npy or raw)")->required();

  filter_command_options filter;
  CLI::App* filter_cmd = app.add_subcommand(
      "filter", "The values satisfying a predicate, in input order, to a .npy file (CPU backend for now)");
  add_common_options(*filter_cmd, common);
  std::vector<std::pair<CLI::Option*, std::string>> filter_predicates;
  for (const auto& [op, help] : {std::pair<std::string, std::string>{"lt", "Values < X"},
                                 {"le", "Values <= X"},
                                 {"gt", "Values > X"},
                                 {"ge", "Values >= X"},
                                 {"eq", "Values == X (-0.0 == 0.0, NaN equals nothing)"},
                                 {"ne", "Values != X (NaN included)"}})
    filter_predicates.emplace_back(
        filter_cmd->add_option("--" + op, filter.operands, help)
            ->type_name("X")
            ->expected(1)
            ->allow_extra_args(false),
        op);
  filter_predicates.emplace_back(
      filter_cmd->add_option("--range", filter.operands, "--range A B: values x with A <= x < B")
          ->type_name("BOUND")
          ->expected(2)
          ->allow_extra_args(false),
      "range");
  filter_cmd->add_flag("--indices", filter.indices, "Write the values' 0-based positions (int64) instead");
  filter_cmd->add_option("-o,--output", filter.output,
                         "Write the values (or positions) to OUT.npy; without it only their number is printed")
      ->type_name("OUT.npy");
  filter_cmd->add_option("FILE", filter.file, "Input file (.npy or raw)")->required();
  filter_cmd->footer("Give one predicate; its constants are values of the input's dtype (nan, inf for floats).");

  demo_options demo;
  CLI::App* demo_cmd = app.add_subcommand(
      "demo", "Median, percentiles and 1000 smallest of uniform floats, checked against a sort");
  add_common_options(*demo_cmd, common, false);
  CLI::Option* demo_n =
      demo_cmd->add_option("--n", demo.n, "Number of values (default 2^24 on the CPU, 2^28 on a GPU)")
          ->type_name("N");
  demo_cmd->add_option("--seed", demo.seed, "Seed of the generated values")->type_name("SEED")->default_str("42");

  bench_options bench;
  CLI::App* bench_cmd = app.add_subcommand(
      "bench", "Run kselect-gpu-bench (CUDA) or kselect-cpu-bench with the remaining arguments");
  bench_cmd->prefix_command();
  bench_cmd->allow_extras();
  bench_cmd->set_help_flag();  // --help goes to the benchmark

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help, --version
    std::string what = e.what();
    if (app.get_subcommands().empty()) {  // no subcommand recognised
      const auto rest = app.remaining();
      what = rest.empty() ? "a subcommand is required"
                          : "unknown subcommand '" + rest.front() + "'";
      what += " (one of select, quantile, topk, range, filter, demo, bench)";
    }
    report(what + " (run 'kselect --help' for usage)");
    return exit_usage;
  }

  if (select_cmd->parsed()) {
    sel.max_rank_error_given = max_rank_error->count() > 0;
    return run_select(common, sel);
  }
  if (topk_cmd->parsed()) return run_topk(common, topk);
  if (range_cmd->parsed()) return run_range(common, range);
  if (quantile_cmd->parsed()) return run_quantile(common, quant);
  if (filter_cmd->parsed()) {
    for (const auto& [option, op] : filter_predicates) {
      if (option->count() == 0) continue;
      filter.given.push_back("--" + op);
      filter.op = op;
    }
    return run_filter(common, filter);
  }
  if (demo_cmd->parsed()) {
    demo.n_given = demo_n->count() > 0;
    return run_demo(common, demo);
  }
  bench.args = bench_cmd->remaining();
  return run_bench(common, bench);
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const kselect_cli::input_error& e) {
    report(e.what());
    return kselect_cli::exit_usage;
  } catch (const std::invalid_argument& e) {  // the owning API's caller mistakes
    report(e.what());
    return kselect_cli::exit_usage;
  } catch (const std::bad_alloc&) {
    report("out of memory");
    return kselect_cli::exit_failure;
  } catch (const std::exception& e) {
    report(e.what());
    return kselect_cli::exit_failure;
  }
}
