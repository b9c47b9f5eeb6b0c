// kselect: exact selection from the command line. Parsing (command_line.cpp),
// usage checks (usage_check.cpp) and error reporting; the subcommands live in
// *_command.cpp.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <exception>
#include <new>
#include <stdexcept>
#include <string>
#include <vector>

#include "command_line.hpp"
#include "commands.hpp"
#include "errors.hpp"
#include "typed_args.hpp"
#include "usage_check.hpp"

namespace {

using namespace kselect_cli;

void report(const std::string& message) {
  std::string line = message;
  for (auto& c : line)
    if (c == '\n' || c == '\r') c = ' ';
  std::fprintf(stderr, "kselect: error: %s\n", line.c_str());
}

int run(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  command_line cl;
  try {
    cl.app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return cl.app.exit(e);  // --help, --version
    explain_parse_error(e, cl, typed_args(args, cl.app));
  }
  const typed_args typed(args, cl.app);
  check_usage(cl, typed);
  cl.finish(typed);

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
  try {
    return run(argc, argv);
  } catch (const kselect_cli::input_error& e) {
    report(e.what());
    return kselect_cli::exit_usage;
  } catch (const std::invalid_argument& e) {  // the owning API's caller mistakes
    report(kselect_cli::library_words(e));
    return kselect_cli::exit_usage;
  } catch (const std::bad_alloc&) {
    report("out of memory");
    return kselect_cli::exit_failure;
  } catch (const std::exception& e) {
    report(e.what());
    return kselect_cli::exit_failure;
  }
}
