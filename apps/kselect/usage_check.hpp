// The tool's words for every mistake on the command line: one line that names the
// option as the user typed it, with one hint at most. CLI11 only splits the
// arguments (command_line.cpp lets it keep unknown and repeated ones); the checks
// here find the mistake, the most basic first, whatever CLI11 stopped at.
#pragma once

namespace CLI {
class ParseError;
}  // namespace CLI

namespace kselect_cli {

class command_line;
class typed_args;

/// Throws input_error for the first mistake on a parsed command line; returns
/// when there is none.
void check_usage(const command_line& cl, const typed_args& args);

/// Throws input_error with the tool's words for a CLI11 parse error (not --help or
/// --version): a value missing at the end, or what check_usage finds.
[[noreturn]] void explain_parse_error(const CLI::ParseError& e, const command_line& cl, const typed_args& args);

}  // namespace kselect_cli
