// The subcommands. Each takes its parsed options, writes its output to stdout
// only once it has every result, and returns the exit code. Bad input throws
// input_error; runtime failures throw kselect::error (main reports both).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kselect_cli {

/// Options every subcommand takes (before or after the subcommand's name).
struct common_options {
  std::string device = "auto";  // auto | cpu | cuda
  bool json = false;
  std::string dtype;  // empty: not given
  bool raw = false;
  std::string gpu_memory_limit;  // --gpu-memory-limit BYTES, as typed; empty: not given
};

/// --distributed and its options: select, quantile and topk as the processes of
/// an MPI job, each reading its part of the input (distributed.hpp).
struct distributed_options {
  bool on = false;                    // --distributed
  std::optional<std::string> shards;  // --shards PATTERN: a file per process, "{rank}" replaced
  std::string algorithm = "dibms";    // --algorithm (kselect::mpi::parse_algorithm's names)
  std::string transport = "mpi";      // --transport (kselect::mpi::parse_transport's names)
};

/// What select, quantile and topk take to run segmented (segmented_run.hpp): the
/// segments, --axis A or --offsets OFFSETS.npy, and -o OUT.npy for the result. Any
/// of them makes the run segmented (without --axis and --offsets, on one segment).
struct segment_options {
  std::optional<std::string> axis;     // --axis, as typed
  std::optional<std::string> offsets;  // --offsets OFFSETS.npy
  std::optional<std::string> output;   // -o OUT.npy

  bool any() const { return axis || offsets || output; }
};

struct select_options {
  std::vector<std::string> ranks;  // -k, comma lists
  std::string rank_option = "-k";  // as the user typed it: -k or --rank (for messages)
  bool approx = false;             // --approx: kselect::approx_multiselect
  std::string max_rank_error;      // --max-rank-error: a count or "P%" (needs --approx)
  bool max_rank_error_given = false;
  segment_options segments;
  std::optional<std::string> ks_file;  // --ks-file KS.npy: one rank per segment instead of -k
  std::string file;
};

/// Output options topk and range share.
struct selection_flags {
  bool indices = false;        // --indices: print each value's index in the input
  bool sorted = false;         // --sorted
  bool deterministic = false;  // --deterministic: ties by smaller index
};

struct topk_command_options {
  std::string k;         // -k
  bool largest = false;  // --largest
  selection_flags flags;
  segment_options segments;
  std::optional<std::string> indices_output;  // --indices-output IDX.npy (segmented)
  std::string file;
};

struct range_command_options {
  std::string lo, hi;  // --lo, --hi
  selection_flags flags;
  std::string file;
};

/// filter: one predicate option (--lt X, ..., --range A B), as given.
struct filter_command_options {
  std::string op;                     // "lt", "le", "gt", "ge", "eq", "ne" or "range"; empty: none given
  std::vector<std::string> operands;  // X, or A and B
  std::vector<std::string> given;     // every predicate option given ("--lt", ...): exactly one is allowed
  bool indices = false;               // --indices: write the positions instead of the values
  std::optional<std::string> output;  // -o OUT.npy ("-": stdout); not given: print the count only
  std::string file;
};

struct quantile_options {
  std::vector<std::string> quantiles;  // -q, comma lists
  std::string quantile_option = "-q";  // as the user typed it: -q or --quantile (for messages)
  bool percentiles = false;
  std::string method = "linear";
  bool nan_ignore = false;
  segment_options segments;
  std::string file;
};

/// demo: the numbers as typed, read with the tool's number syntax (args.hpp).
struct demo_options {
  std::string n;  // --n; when not given, 2^24 on the CPU, 2^28 on a GPU
  bool n_given = false;
  std::string seed = "42";
};

struct bench_options {
  std::vector<std::string> args;  // forwarded to the benchmark binary
};

int run_select(const common_options& common, const select_options& opts);
int run_topk(const common_options& common, const topk_command_options& opts);
int run_range(const common_options& common, const range_command_options& opts);
int run_quantile(const common_options& common, const quantile_options& opts);
int run_filter(const common_options& common, const filter_command_options& opts);
int run_demo(const common_options& common, const demo_options& opts);
/// Replaces the process with the benchmark binary; returns only on failure.
int run_bench(const common_options& common, const bench_options& opts);

}  // namespace kselect_cli
