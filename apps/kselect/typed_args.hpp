// The arguments as the user typed them: messages name an option the way it was
// written (-k or --rank), and usage checks look at what CLI11 does not keep (which
// side of the subcommand an option stood on, "--json=1").
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace CLI {
class App;
class Option;
}  // namespace CLI

namespace kselect_cli {

/// The option name a token spells: "--rank" for "--rank" and "--rank=5", "-k" for
/// "-k" and "-k5"; "" for a token that names none: values, negative numbers
/// ("-5", "-.5"), "-" and "--".
std::string option_name_of(std::string_view token);

/// An option's name where the user did not type it: its first short name (-k),
/// else its first long name (--lo), else its positional name (FILE).
std::string display_name(const CLI::Option& option);

/// A flag (--json) takes no value; CLI11 marks one by expecting none.
bool is_flag(const CLI::Option& option);

class typed_args {
 public:
  /// `args`: argv without the program's name; `app`: the main app after a parse.
  typed_args(std::vector<std::string> args, const CLI::App& app);

  const std::vector<std::string>& all() const { return args_; }

  /// The tokens `owner` parsed: before the subcommand's name for the main app,
  /// after it for the subcommand; in both, only those before a "--" (the tokens
  /// after it are positionals whatever they look like).
  std::span<const std::string> of(const CLI::App& owner) const;

  /// How the user typed `option` of `owner` (its first occurrence); its
  /// display_name when it was not typed.
  std::string spelled(const CLI::App& owner, const CLI::Option& option) const;

  /// Whether `token` stands where it can be an option: before any "--".
  bool before_marker(const std::string& token) const;

 private:
  std::vector<std::string> args_;
  std::size_t subcommand_at_;  // index of the subcommand's name; args_.size() when none
};

}  // namespace kselect_cli
