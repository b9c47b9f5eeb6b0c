#include "command_line.hpp"

#include <array>
#include <string>
#include <utility>

#include "kselect/types.hpp"
#include "usage_check.hpp"

#ifndef KSELECT_CLI_VERSION
#define KSELECT_CLI_VERSION "unknown"
#endif

namespace kselect_cli {
namespace {

constexpr const char* kInputFooter =
    "Input: FILE is a .npy file (little-endian <f4 <f8 <i4 <u4 <i8 <u8, any shape, flattened) or raw\n"
    "binary (any other extension, or --raw) with --dtype; FILE - reads standard input.\n"
    "Output: one value per line (nan, inf, -inf), in the order requested ('index value' with --indices,\n"
    "'value rank' with select --approx); with --json one object (non-finite values as strings).\n"
    "filter prints the count and writes the values (or, with --indices, their int64 positions)\n"
    "to -o OUT.npy.\n";
constexpr const char* kNumbersFooter =
    "Numbers are decimal: no '+' sign, no hexadecimal; nan, inf and -inf only as float values.\n";
constexpr const char* kExitFooter =
    "Exit codes: 0 success; 1 runtime failure (write error, out of memory, CUDA error, demo check\n"
    "failed); 2 bad arguments or bad input.\n";
constexpr const char* kFileHelp = "Input file (.npy or raw; - for standard input)";
// select, quantile and topk: FILE, or --shards with --distributed (usage_check.cpp
// says when FILE is missing).
constexpr const char* kFileOrShardsHelp =
    "Input file (.npy or raw; - for standard input); with --distributed, read in slices (or give --shards)";
constexpr const char* kDistributedFooter =
    "Distributed: mpirun -np P kselect --distributed select|quantile|topk ... FILE: process r reads\n"
    "elements [n*r/P, n*(r+1)/P) of FILE; with --shards PATTERN instead, its own file (\"{rank}\" in\n"
    "PATTERN replaced by r). Ranks, k and indices are global; process 0 prints.\n";
constexpr const char* kSegmentsFooter =
    "Segments: --axis -1 makes every row along the last axis of a .npy of 2+ dimensions a segment (only\n"
    "the last axis); --offsets OFFSETS.npy (1-D int64 or int32, m + 1 offsets from 0 to n) makes values\n"
    "[o[i], o[i+1]) segment i. Text: one line per segment (topk --indices: index:value entries); --json:\n"
    "\"values\" nested as the result. -o OUT.npy writes the result as a .npy: shape (m,) for one K or Q,\n"
    "(m, r) for r of them, (m, K) for topk (with --axis, the input's shape less its last axis stands for\n"
    "m); without segments, the whole input's: () for one K or Q, else (r,). float16 .npy data (<f2) is\n"
    "taken here (quantiles as float32).\n";

std::string footer_for_input() { return std::string(kInputFooter) + kNumbersFooter + kExitFooter; }

/// The footer of select, quantile and topk, which also take segments.
std::string footer_for_segments() {
  return std::string(kInputFooter) + kSegmentsFooter + kDistributedFooter + kNumbersFooter + kExitFooter;
}

/// --axis, --offsets and -o of select, quantile and topk (segmented_run.hpp).
void add_segment_options(CLI::App& cmd, segment_options& s) {
  cmd.add_option("--axis", s.axis, "Answer for every row along this axis of a 2+ dimensional .npy (the last: -1)")
      ->type_name("A")
      ->allow_extra_args(false);
  cmd.add_option("--offsets", s.offsets, "Answer for every segment [o[i], o[i+1]) of OFFSETS.npy (1-D int64)")
      ->type_name("OFFSETS.npy");
  cmd.add_option("-o,--output", s.output, "Write the result to OUT.npy (- for standard output) instead of printing it")
      ->type_name("OUT.npy");
}

/// A subcommand: it and the main app leave unknown arguments to usage_check (allow_extras),
/// which names them better than CLI11's "The following argument was not expected".
CLI::App* add_command(CLI::App& app, const std::string& name, const std::string& description) {
  CLI::App* cmd = app.add_subcommand(name, description);
  cmd->allow_extras();
  return cmd;
}

/// An option given more than once keeps all its values (TakeLast, TakeAll), so that
/// usage_check names the repeat instead of CLI11 throwing "At Most 1 required but received 2".
void keep_repeats(CLI::App& app) {
  for (CLI::Option* o : app.get_options()) {
    if (is_flag(*o)) continue;  // repeating a flag is harmless
    o->multi_option_policy(o->get_items_expected_max() == 1 ? CLI::MultiOptionPolicy::TakeLast
                                                            : CLI::MultiOptionPolicy::TakeAll);
  }
}

/// --indices and --deterministic of topk and range (--sorted differs: topk's knows --largest).
void add_selection_flags(CLI::App& cmd, selection_flags& f) {
  cmd.add_flag("--indices", f.indices, "Print each value's 0-based index in the input: 'index value' lines");
  cmd.add_flag("--deterministic", f.deterministic,
               "Of values tied at the boundary, take the smaller indices (same output every run)");
}

}  // namespace

command_line::command_line()
    : app("kselect: exact selection (k-th smallest, many ranks, quantiles) on GPU and CPU.", "kselect") {
  app.set_version_flag("--version", "kselect " KSELECT_CLI_VERSION);
  app.require_subcommand(1);
  app.allow_extras();
  app.footer(footer_for_input());
  // The common options are accepted before the subcommand and after it (bench
  // takes only --device, before it: its arguments all go to the benchmark).
  add_common_options(app, true);
  add_distributed_options(app);
  add_select();
  add_topk();
  add_range();
  add_quantile();
  add_filter();
  add_demo_and_bench();
  keep_repeats(app);
  for (CLI::App* sub : app.get_subcommands({})) keep_repeats(*sub);
}

void command_line::add_common_options(CLI::App& cmd, bool input) {
  choices.push_back({cmd.add_option("--device", common.device, "Where to run: auto (CUDA when available), cpu, cuda")
                         ->check(CLI::IsMember({"auto", "cpu", "cuda"}))
                         ->default_str("auto"),
                     {"auto", "cpu", "cuda"}});
  cmd.add_flag("--json", common.json, "Print one JSON object instead of plain text");
  if (!input) return;
  cmd.add_option("--gpu-memory-limit", common.gpu_memory_limit,
                 "With CUDA: the device memory select and quantile may take (e.g. 512M, 8G). An input larger "
                 "than half of it (default: of the GPU's free memory) stays in host memory and is streamed "
                 "through the GPU in chunks")
      ->type_name("BYTES");
  const std::vector<std::string> dtypes{"float32", "float64", "int32", "uint32", "int64", "uint64"};
  choices.push_back({cmd.add_option("--dtype", common.dtype,
                                    "Element type of a raw file (required for raw files; must match a .npy header)")
                         ->check(CLI::IsMember(dtypes)),
                     dtypes});
  cmd.add_flag("--raw", common.raw, "Read FILE as raw binary whatever its extension");
}

void command_line::add_distributed_options(CLI::App& cmd) {
  cmd.add_flag("--distributed", distributed.on,
               "Run as one process of an MPI job (mpirun -np P kselect --distributed ...): each reads its part");
  cmd.add_option("--shards", distributed.shards,
                 "With --distributed, instead of FILE: a file per process, {rank} replaced by its rank")
      ->type_name("PATTERN");
  const std::vector<std::string> algorithms{"dibms", "dbms", "distributed_bms", "sort", "sort_and_choose"};
  choices.push_back({cmd.add_option("--algorithm", distributed.algorithm,
                                    "With --distributed: dibms, dbms (distributed_bms) or sort (sort_and_choose)")
                         ->check(CLI::IsMember(algorithms))
                         ->default_str("dibms"),
                     algorithms});
  const std::vector<std::string> transports{"mpi", "nccl"};
  choices.push_back({cmd.add_option("--transport", distributed.transport,
                                    "With --distributed: how bucket counts travel, mpi (host buffers) or nccl "
                                    "(on the GPUs; one GPU per process, --device cuda)")
                         ->check(CLI::IsMember(transports))
                         ->default_str("mpi"),
                     transports});
}

void command_line::add_select() {
  CLI::App* cmd = select_cmd_ = add_command(app, "select", "Values at 0-based ranks (k-th smallest)");
  cmd->footer(footer_for_segments());
  add_common_options(*cmd, true);
  // Comma lists are split by parse_ranks(), which rejects empty entries.
  rank_ = cmd->add_option("-k,--rank", select.ranks,
                          "0-based rank(s): K or K1,K2,... (repeatable; the same in every segment)")
              ->type_name("K[,K...]")
              ->allow_extra_args(false);
  // excludes() only shows in --help; usage_check explains both and neither.
  const CLI::Option* ks_file =
      cmd->add_option("--ks-file", select.ks_file, "One rank per segment instead of -k: a 1-D int64 .npy of m ranks")
          ->type_name("KS.npy")
          ->excludes(rank_);
  alternatives.push_back({cmd, rank_, ks_file});
  cmd->add_flag("--approx", select.approx,
                "Approximate: each answer within --max-rank-error ranks, printed with its exact rank");
  max_rank_error_ = cmd->add_option("--max-rank-error", select.max_rank_error,
                                    "With --approx: allowed rank error, a count E or a percent of n (0.1%)")
                        ->type_name("E|P%");
  add_segment_options(*cmd, select.segments);
  add_distributed_options(*cmd);
  cmd->add_option("FILE", select.file, kFileOrShardsHelp);
}

void command_line::add_topk() {
  CLI::App* cmd =
      add_command(app, "topk", "The K smallest (--largest: largest; NaN counts as the largest) values");
  cmd->footer(footer_for_segments());
  add_common_options(*cmd, true);
  cmd->add_option("-k", topk.k, "How many values (0 to n)")->type_name("K")->required();
  cmd->add_flag("--largest", topk.largest, "The K largest instead of the K smallest");
  cmd->add_flag("--sorted", topk.flags.sorted, "In order (ascending; descending with --largest) instead of by index");
  add_selection_flags(*cmd, topk.flags);
  add_segment_options(*cmd, topk.segments);
  cmd->add_option("--indices-output", topk.indices_output,
                  "Write the (m, K) int64 indices, local to each segment (-1 pads a short one), to IDX.npy")
      ->type_name("IDX.npy");
  add_distributed_options(*cmd);
  cmd->add_option("FILE", topk.file, kFileOrShardsHelp);
}

void command_line::add_range() {
  CLI::App* cmd = add_command(app, "range", "The values at positions [lo, hi) of the ascending stable sort");
  cmd->footer(footer_for_input());
  add_common_options(*cmd, true);
  cmd->add_option("--lo", range.lo, "First position (0-based)")->type_name("A")->required();
  cmd->add_option("--hi", range.hi, "One past the last position (at most n)")->type_name("B")->required();
  cmd->add_flag("--sorted", range.flags.sorted, "In ascending order instead of by index");
  add_selection_flags(*cmd, range.flags);
  cmd->add_option("FILE", range.file, kFileHelp)->required();
}

void command_line::add_quantile() {
  CLI::App* cmd = quantile_cmd_ = add_command(app, "quantile", "Quantiles as numpy.quantile");
  cmd->footer(footer_for_segments());
  add_common_options(*cmd, true);
  quantile_ = cmd->add_option("-q,--quantile", quantile.quantiles,
                              "Quantile(s) in [0, 1]: Q or Q1,Q2,... (repeatable; or --percentiles)")
                  ->type_name("Q[,Q...]")
                  ->allow_extra_args(false);
  // excludes() only shows in --help; usage_check explains both and neither.
  const CLI::Option* percentiles =
      cmd->add_flag("--percentiles", quantile.percentiles, "All 101 percentiles 0, 0.01, ..., 1")->excludes(quantile_);
  alternatives.push_back({cmd, quantile_, percentiles});
  // The library's names (parse_quantile_method reads them), so the two lists cannot drift apart.
  std::vector<std::string> methods;
  for (const kselect::quantile_method m : kselect::quantile_methods) methods.emplace_back(kselect::to_string(m));
  choices.push_back({cmd->add_option("--method", quantile.method, "As numpy.quantile's method= (one of those in braces)")
                         ->check(CLI::IsMember(methods))
                         ->default_str("linear"),
                     methods});
  cmd->add_flag("--nan-ignore", quantile.nan_ignore, "Ignore NaNs (numpy.nanquantile)");
  add_segment_options(*cmd, quantile.segments);
  add_distributed_options(*cmd);
  cmd->add_option("FILE", quantile.file, kFileOrShardsHelp);
}

void command_line::add_filter() {
  CLI::App* cmd = add_command(app, "filter", "The values satisfying a predicate, in input order, to a .npy file");
  cmd->footer("Give one predicate; its constants are values of the input's dtype (nan, inf for floats).\n" +
              footer_for_input());
  add_common_options(*cmd, true);
  const std::array<std::pair<const char*, const char*>, 6> one_value{{{"lt", "Values < X"},
                                                                      {"le", "Values <= X"},
                                                                      {"gt", "Values > X"},
                                                                      {"ge", "Values >= X"},
                                                                      {"eq", "Values == X (-0.0 == 0.0, NaN equals nothing)"},
                                                                      {"ne", "Values != X (NaN included)"}}};
  for (std::size_t i = 0; i < one_value.size(); ++i) {
    predicate& p = predicates_[i];
    p.op = one_value[i].first;
    p.option = cmd->add_option("--" + p.op, p.operands, one_value[i].second)
                   ->type_name("X")
                   ->expected(1)
                   ->allow_extra_args(false);
  }
  predicate& range_predicate = predicates_.back();
  range_predicate.op = "range";
  range_predicate.option = cmd->add_option("--range", range_predicate.operands, "--range A B: values x with A <= x < B")
                               ->type_name("BOUND")
                               ->expected(2)
                               ->allow_extra_args(false);
  cmd->add_flag("--indices", filter.indices, "Write the values' 0-based positions (int64) instead");
  cmd->add_option("-o,--output", filter.output,
                  "Write the values (or positions) to OUT.npy (- for standard output); without it only their "
                  "number is printed")
      ->type_name("OUT.npy");
  cmd->add_option("FILE", filter.file, kFileHelp)->required();
}

void command_line::add_demo_and_bench() {
  CLI::App* demo_cmd =
      add_command(app, "demo", "Median, percentiles and 1000 smallest of uniform floats, checked against a sort");
  demo_cmd->footer(std::string(kNumbersFooter) + kExitFooter);
  add_common_options(*demo_cmd, false);
  demo_n_ = demo_cmd->add_option("--n", demo.n, "Number of values, 1 to 2^31-1 (default 2^24 on the CPU, 2^28 on a GPU)")
                ->type_name("N");
  demo_cmd->add_option("--seed", demo.seed, "Seed of the generated values, 0 to 2^64-1")
      ->type_name("SEED")
      ->default_str("42");

  bench_cmd_ = add_command(app, "bench",
                           "Run kselect-gpu-bench (CUDA) or kselect-cpu-bench, found next to kselect or on PATH, "
                           "with the remaining arguments");
  bench_cmd_->prefix_command();
  bench_cmd_->set_help_flag();  // --help goes to the benchmark
}

std::optional<int> command_line::parse(int argc, char** argv, bool print) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) {  // --help, --version
      if (!print) return 0;
      return app.exit(e);
    }
    explain_parse_error(e, *this, typed_args(args, app));
  }
  const typed_args typed(args, app);
  check_usage(*this, typed);
  finish(typed);
  return std::nullopt;
}

const CLI::App* command_line::subcommand() const {
  const auto subs = app.get_subcommands();
  return subs.empty() ? nullptr : subs.front();
}

void command_line::finish(const typed_args& args) {
  select.rank_option = args.spelled(*select_cmd_, *rank_);
  select.max_rank_error_given = max_rank_error_->count() > 0;
  quantile.quantile_option = args.spelled(*quantile_cmd_, *quantile_);
  for (const auto& p : predicates_) {
    if (p.option->count() == 0) continue;
    filter.given.push_back("--" + p.op);
    filter.op = p.op;
    filter.operands = p.operands;
  }
  demo.n_given = demo_n_->count() > 0;
  bench.args = bench_cmd_->remaining();
}

}  // namespace kselect_cli
