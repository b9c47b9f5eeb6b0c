// kselect: exact selection from the command line. Parsing (command_line.cpp),
// usage checks (usage_check.cpp) and error reporting; the subcommands live in
// *_command.cpp, the distributed mode (--distributed, an MPI job) in
// distributed_command.cpp.
#include <string>

#include "command_line.hpp"
#include "commands.hpp"
#include "distributed.hpp"
#include "errors.hpp"

namespace {

using namespace kselect_cli;

int run(int argc, char** argv) {
  command_line cl;
  if (const auto code = cl.parse(argc, argv, true)) return *code;  // --help, --version

  const std::string command = cl.subcommand()->get_name();
  if (command == "select") return run_select(cl.common, cl.select);
  if (command == "topk") return run_topk(cl.common, cl.topk);
  if (command == "range") return run_range(cl.common, cl.range);
  if (command == "quantile") return run_quantile(cl.common, cl.quantile);
  if (command == "filter") return run_filter(cl.common, cl.filter);
  if (command == "demo") return run_demo(cl.common, cl.demo);
  return run_bench(cl.common, cl.bench);
}

}  // namespace

int main(int argc, char** argv) {
  // Only --distributed starts MPI: the local tool runs without mpirun, as ever.
  if (kselect_cli::wants_distributed(argc, argv)) return kselect_cli::run_distributed(argc, argv);
  try {
    return run(argc, argv);
  } catch (...) {
    const kselect_cli::failure_report f = kselect_cli::describe_current_exception();
    kselect_cli::report_error(f.message);
    return f.code;
  }
}
