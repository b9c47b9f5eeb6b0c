#include "usage_check.hpp"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <span>
#include <string>
#include <vector>

#include "command_line.hpp"
#include "errors.hpp"
#include "input.hpp"
#include "typed_args.hpp"

namespace kselect_cli {
namespace {

[[noreturn]] void fail(const std::string& message) { throw input_error(message); }

std::string help_hint(const CLI::App* command) {
  return command ? "(run 'kselect " + command->get_name() + " --help')" : "(run 'kselect --help')";
}

/// "a, b or c" with `last` " or ", "a, b, c" with ", ".
std::string join(const std::vector<std::string>& names, const std::string& last) {
  std::string s;
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (i > 0) s += i + 1 == names.size() ? last : ", ";
    s += names[i];
  }
  return s;
}

std::vector<const CLI::App*> all_commands(const CLI::App& app) {
  return app.get_subcommands([](const CLI::App*) { return true; });
}

std::vector<std::string> command_names(const CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::App* c : all_commands(app)) names.push_back(c->get_name());
  return names;
}

/// The subcommands other than `except` that have an option called `name`.
std::vector<std::string> commands_with(const CLI::App& app, const std::string& name, const CLI::App* except) {
  std::vector<std::string> names;
  for (const CLI::App* c : all_commands(app))
    if (c != except && c->get_option_no_throw(name) != nullptr) names.push_back(c->get_name());
  return names;
}

bool contains(std::span<const std::string> tokens, const std::string& token) {
  return std::find(tokens.begin(), tokens.end(), token) != tokens.end();
}

/// Arguments before the subcommand's name that the main app does not take, or no
/// subcommand at all.
void check_main_extras(const CLI::App& app, const CLI::App* command, const typed_args& args) {
  std::vector<std::string> extras;
  for (const auto& token : app.remaining(false))  // see check_command_extras for the others
    if (token != "--" && (command == nullptr || contains(args.of(app), token))) extras.push_back(token);
  const std::string commands = join(command_names(app), " or ");
  if (extras.empty()) {
    if (command == nullptr) fail("a subcommand is required: " + commands + " " + help_hint(nullptr));
    return;
  }
  const std::string& first = extras.front();
  const std::string name = option_name_of(first);
  if (!name.empty()) {
    const auto owners = commands_with(app, name, nullptr);
    if (!owners.empty()) fail(name + " is an option of " + join(owners, " and ") + " (put it after the subcommand)");
    fail("unknown option " + name + " " + help_hint(nullptr));
  }
  if (command == nullptr) fail("unknown subcommand '" + first + "' (one of " + commands + ")");
  fail("unexpected argument '" + first + "' before the subcommand " + help_hint(nullptr));
}

/// "--json=1" (CLI11 reads it as true, and "--json=0" as false) and "--device="
/// (CLI11 then takes the next argument for the value).
void check_equals(const CLI::App& owner, const typed_args& args) {
  for (const auto& token : args.of(owner)) {
    const auto eq = token.find('=');
    if (eq == std::string::npos || token.rfind("--", 0) != 0) continue;
    const std::string name = token.substr(0, eq);
    const CLI::Option* o = owner.get_option_no_throw(name);
    if (o == nullptr) continue;
    if (is_flag(*o)) fail(name + " takes no value (give " + name + " alone)");
    if (eq + 1 == token.size()) fail(name + " needs a value");
  }
}

/// Arguments after the subcommand's name that it does not take.
void check_command_extras(const CLI::App& app, const CLI::App& command, const typed_args& args) {
  // CLI11 keeps a "--" among them (for prefix commands), and hands the main app a
  // subcommand's surplus positionals that follow one.
  std::vector<std::string> extras;
  for (const auto& token : command.remaining(false))
    if (token != "--") extras.push_back(token);
  for (const auto& token : app.remaining(false))
    if (token != "--" && !contains(args.of(app), token)) extras.push_back(token);
  if (extras.empty()) return;
  const std::string& first = extras.front();
  const std::string name = args.before_marker(first) ? option_name_of(first) : "";
  if (name.empty()) fail(command.get_name() + ": unexpected argument '" + first + "' " + help_hint(&command));
  const auto owners = commands_with(app, name, &command);
  fail(command.get_name() + " has no option " + name + " " +
       (owners.empty() ? help_hint(&command)
                       : "(" + join(owners, " and ") + (owners.size() == 1 ? " has it)" : " have it)")));
}

/// Options given before the subcommand's name: the subcommand must have them too
/// (they are its options, accepted on either side), and not get them twice.
void check_options_before(const CLI::App& app, const CLI::App& command, const typed_args& args) {
  for (const CLI::Option* o : app.get_options()) {
    if (o->count() == 0) continue;
    const std::string name = args.spelled(app, *o);
    if (command.get_prefix_command()) {  // bench: run_bench picks the benchmark by --device
      if (name != "--device")
        fail(command.get_name() + " has no option " + name + " (the benchmark's own options go after '" +
             command.get_name() + "')");
      continue;
    }
    const CLI::Option* same = command.get_option_no_throw(name);
    if (same == nullptr) fail(command.get_name() + " has no option " + name + " " + help_hint(&command));
    if (same->count() > 0 && !is_flag(*o))
      fail(name + " is given twice (before and after '" + command.get_name() + "')");
  }
}

/// Options with values given more than once (a repeated flag is harmless) or
/// with too few values (CLI11 leaves a value to FILE when it is the last argument:
/// "--range 1 f.npy").
void check_value_counts(const CLI::App& owner, const typed_args& args) {
  for (const CLI::Option* o : owner.get_options()) {
    if (is_flag(*o) || o->get_positional() || o->count() == 0) continue;
    const std::string name = args.spelled(owner, *o);
    if (o->count() > static_cast<std::size_t>(o->get_items_expected_max())) fail(name + " is given more than once");
    const int need = o->get_items_expected_min();
    if (o->count() < static_cast<std::size_t>(need))
      fail(name + (need > 1 ? " needs " + std::to_string(need) + " values" : " needs a value"));
  }
}

/// Whether `name` was given, before or after the subcommand's name.
bool given(const CLI::App& app, const CLI::App& command, const std::string& name) {
  for (const CLI::App* owner : {&app, &command})
    if (const CLI::Option* o = owner->get_option_no_throw(name); o != nullptr && o->count() > 0) return true;
  return false;
}

[[noreturn]] void fail_file_required(const CLI::App& command) {
  fail(command.get_name() + ": FILE is required (an input file, or - for standard input)");
}

void check_required(const CLI::App& app, const CLI::App& command) {
  for (const CLI::Option* o : command.get_options()) {
    if (!o->get_required() || o->count() > 0) continue;
    const std::string name = display_name(*o);
    if (o->get_positional()) fail_file_required(command);
    fail(command.get_name() + ": " + name + " is required (give " + name + " " + o->get_type_name() + ")");
  }
  // select, quantile and topk read FILE, or the files of --shards (command_line.cpp).
  const CLI::Option* file = command.get_option_no_throw("FILE");
  if (file == nullptr || file->get_required() || command.get_option_no_throw("--shards") == nullptr) return;
  const bool shards = given(app, command, "--shards");
  if (shards && file->count() > 0) fail(command.get_name() + ": give either FILE or --shards, not both");
  if (!shards && file->count() == 0) fail_file_required(command);
}

void check_alternatives(const command_line& cl, const CLI::App& command, const typed_args& args) {
  for (const either_or& e : cl.alternatives) {
    if (e.command != &command) continue;
    const bool first = e.first->count() > 0, second = e.second->count() > 0;
    if (first && second)
      fail(command.get_name() + ": give either " + args.spelled(command, *e.first) + " or " +
           args.spelled(command, *e.second) + ", not both");
    if (!first && !second)
      fail(command.get_name() + ": " + display_name(*e.first) + " is required (give " + display_name(*e.first) +
           " " + e.first->get_type_name() + " or " + display_name(*e.second) + ")");
  }
}

void check_choices(const command_line& cl) {
  for (const option_choices& c : cl.choices)
    for (const std::string& value : c.option->results())
      if (std::find(c.values.begin(), c.values.end(), value) == c.values.end())
        fail(display_name(*c.option) + ": '" + value + "' is not one of " + join(c.values, ", "));
}

/// The option called `name` of the main app, else of the first subcommand that has
/// one (an option's number of values does not depend on the subcommand).
const CLI::Option* find_option(const CLI::App& app, const std::string& name) {
  if (const CLI::Option* o = app.get_option_no_throw(name)) return o;
  for (const CLI::App* c : all_commands(app))
    if (const CLI::Option* o = c->get_option_no_throw(name)) return o;
  return nullptr;
}

/// CLI11 takes an option's values whatever they look like ("-k -1"), so a value
/// is missing only where the arguments ran out: the option is the last one typed.
[[noreturn]] void explain_missing_value(const CLI::App& app, const typed_args& args) {
  const auto& all = args.all();
  for (auto it = all.rbegin(); it != all.rend(); ++it) {
    const std::string name = option_name_of(*it);
    if (name.empty()) continue;
    const CLI::Option* o = find_option(app, name);
    if (o == nullptr || is_flag(*o)) continue;
    const int n = o->get_items_expected_min();
    fail(name + (n > 1 ? " needs " + std::to_string(n) + " values" : " needs a value"));
  }
  fail("an option's value is missing " + help_hint(nullptr));
}

/// --distributed on a subcommand that does not run distributed, before the checks
/// that would call it an unknown option of that subcommand.
void check_distributed_command(const CLI::App& app, const CLI::App& command, const typed_args& args) {
  if (command.get_option_no_throw("--distributed") != nullptr) return;
  for (const CLI::App* owner : {&app, &command})
    for (const auto& token : args.of(*owner))
      if (option_name_of(token) == "--distributed")
        fail(command.get_name() + " does not run distributed (--distributed is for select, quantile and topk)");
}

/// What --distributed does not take, and --shards, --algorithm and --transport without it.
void check_distributed_options(const command_line& cl, const CLI::App& command, const typed_args& args) {
  if (command.get_option_no_throw("--distributed") == nullptr) return;
  if (!cl.distributed.on) {
    for (const char* name : {"--shards", "--algorithm", "--transport"})
      if (given(cl.app, command, name)) fail(std::string(name) + " needs --distributed");
    return;
  }
  // The distributed commands answer for the whole input, one question at a time.
  for (const char* name :
       {"--axis", "--offsets", "-o", "--ks-file", "--indices-output", "--approx", "--max-rank-error"}) {
    const CLI::Option* o = command.get_option_no_throw(name);
    if (o != nullptr && o->count() > 0)
      fail(args.spelled(command, *o) + " is not available with --distributed (" + command.get_name() +
           " answers for the whole input there)");
  }
  const CLI::Option* file = command.get_option_no_throw("FILE");
  if (file != nullptr && file->count() > 0 && is_stdin_path(file->as<std::string>()))
    fail("--distributed: standard input cannot be split among processes (give a file, or a file per process "
         "with --shards PATTERN)");
  if (cl.distributed.shards && cl.distributed.shards->find("{rank}") == std::string::npos)
    fail("--shards: '" + *cl.distributed.shards +
         "' has no {rank} (each process reads its own file; to split one file among the processes, give it as "
         "FILE)");
}

}  // namespace

void check_usage(const command_line& cl, const typed_args& args) {
  const CLI::App* command = cl.subcommand();
  check_main_extras(cl.app, command, args);
  check_distributed_command(cl.app, *command, args);
  check_equals(cl.app, args);
  if (!command->get_prefix_command()) {  // bench's arguments are the benchmark's
    check_equals(*command, args);
    check_command_extras(cl.app, *command, args);
  }
  check_options_before(cl.app, *command, args);
  check_value_counts(cl.app, args);
  check_value_counts(*command, args);
  check_required(cl.app, *command);
  check_alternatives(cl, *command, args);
  check_choices(cl);
  check_distributed_options(cl, *command, args);
}

void explain_parse_error(const CLI::ParseError& e, const command_line& cl, const typed_args& args) {
  if (dynamic_cast<const CLI::ArgumentMismatch*>(&e) != nullptr) {
    // The parse stopped there; only what was read so far can be checked.
    check_value_counts(cl.app, args);
    if (cl.subcommand() != nullptr) check_value_counts(*cl.subcommand(), args);
    explain_missing_value(cl.app, args);
  }
  check_usage(cl, args);
  // Every error CLI11 raises on this command line is explained above (the CLI tests
  // cover each kind); its own text is not shown, being unlike the tool's.
  fail("cannot read the arguments " + help_hint(cl.subcommand()));
}

}  // namespace kselect_cli
