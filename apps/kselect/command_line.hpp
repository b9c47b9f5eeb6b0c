// The tool's command line: the CLI11 app with its subcommands, options and help
// texts, and the option structures a parse fills. CLI11 only splits the command
// line here; usage_check.hpp explains every mistake in the tool's own words.
#pragma once

#include <CLI/CLI.hpp>
#include <array>
#include <optional>
#include <string>
#include <vector>

#include "commands.hpp"
#include "typed_args.hpp"

namespace kselect_cli {

/// An option whose value must be one of a fixed list (--device, --dtype, --method).
struct option_choices {
  const CLI::Option* option;
  std::vector<std::string> values;
};

/// Two options of which exactly one must be given (quantile: -q or --percentiles).
struct either_or {
  const CLI::App* command;
  const CLI::Option* first;
  const CLI::Option* second;
};

class command_line {
 public:
  command_line();
  command_line(const command_line&) = delete;
  command_line& operator=(const command_line&) = delete;

  CLI::App app;
  std::vector<option_choices> choices;
  std::vector<either_or> alternatives;

  common_options common;
  distributed_options distributed;
  select_options select;
  topk_command_options topk;
  range_command_options range;
  quantile_options quantile;
  filter_command_options filter;
  demo_options demo;
  bench_options bench;

  /// Parses argv (all of it, the program's name first) and checks it
  /// (usage_check.hpp), then finish(). A mistake throws input_error in the tool's
  /// words. --help and --version return their exit code, having printed their
  /// text when `print`; otherwise returns std::nullopt.
  std::optional<int> parse(int argc, char** argv, bool print);

  /// The subcommand given (nullptr when none).
  const CLI::App* subcommand() const;

  /// After a successful parse: fills what the options do not set themselves
  /// (the names -k and -q were typed as, filter's predicate, bench's arguments).
  void finish(const typed_args& args);

 private:
  /// --device and --json; with `input`, also --dtype and --raw (for commands that read FILE).
  void add_common_options(CLI::App& cmd, bool input);
  /// --distributed, --shards, --algorithm and --transport (the main app, select, quantile, topk).
  void add_distributed_options(CLI::App& cmd);
  void add_select();
  void add_topk();
  void add_range();
  void add_quantile();
  void add_filter();
  void add_demo_and_bench();

  /// Each filter predicate (--lt ... --range) keeps its own operands: run_filter
  /// gets those of the one given (usage checks refuse two).
  struct predicate {
    std::string op;
    CLI::Option* option = nullptr;
    std::vector<std::string> operands;
  };
  std::array<predicate, 7> predicates_;
  CLI::App* select_cmd_ = nullptr;
  CLI::App* quantile_cmd_ = nullptr;
  CLI::Option* rank_ = nullptr;      // select -k
  CLI::Option* quantile_ = nullptr;  // quantile -q
  CLI::Option* max_rank_error_ = nullptr;
  CLI::Option* demo_n_ = nullptr;
  CLI::App* bench_cmd_ = nullptr;
};

}  // namespace kselect_cli
