#include "typed_args.hpp"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cctype>

namespace kselect_cli {
namespace {

/// `tokens` up to the first "--".
std::span<const std::string> up_to_marker(std::span<const std::string> tokens) {
  return tokens.first(static_cast<std::size_t>(std::find(tokens.begin(), tokens.end(), "--") - tokens.begin()));
}

}  // namespace

std::string option_name_of(std::string_view token) {
  if (token.size() < 2 || token[0] != '-') return "";
  if (token[1] == '-') return token.size() == 2 ? "" : std::string(token.substr(0, token.find('=')));
  // CLI11 takes "-5" for a value too, as long as no option is named -5.
  if (!std::isalpha(static_cast<unsigned char>(token[1]))) return "";
  return std::string(token.substr(0, 2));
}

std::string display_name(const CLI::Option& option) {
  if (!option.get_snames().empty()) return "-" + option.get_snames().front();
  if (!option.get_lnames().empty()) return "--" + option.get_lnames().front();
  return option.get_name();
}

bool is_flag(const CLI::Option& option) { return option.get_expected_max() == 0; }

typed_args::typed_args(std::vector<std::string> args, const CLI::App& app)
    : args_(std::move(args)), subcommand_at_(args_.size()) {
  const auto subs = app.get_subcommands();
  if (subs.empty()) return;
  // The subcommand's name is the first token equal to it that is no option's
  // value: "kselect --dtype select select ..." names the subcommand second.
  for (std::size_t i = 0; i < args_.size() && args_[i] != "--"; ++i) {
    if (args_[i] == subs.front()->get_name()) {
      subcommand_at_ = i;
      return;
    }
    const std::string name = option_name_of(args_[i]);
    if (name.empty() || name.size() != args_[i].size()) continue;  // a value, or "--name=value"
    const CLI::Option* o = app.get_option_no_throw(name);
    if (o != nullptr && !is_flag(*o)) i += static_cast<std::size_t>(o->get_items_expected_max());
  }
}

std::span<const std::string> typed_args::of(const CLI::App& owner) const {
  const std::span<const std::string> all(args_);
  if (owner.get_parent() == nullptr) return up_to_marker(all.first(subcommand_at_));
  if (subcommand_at_ == args_.size()) return {};
  return up_to_marker(all.subspan(subcommand_at_ + 1));
}

std::string typed_args::spelled(const CLI::App& owner, const CLI::Option& option) const {
  for (const auto& token : of(owner)) {
    const std::string name = option_name_of(token);
    if (!name.empty() && option.check_name(name)) return name;
  }
  return display_name(option);
}

}  // namespace kselect_cli

namespace kselect_cli {

bool typed_args::before_marker(const std::string& token) const {
  const auto all = up_to_marker(args_);
  return std::find(all.begin(), all.end(), token) != all.end();
}

}  // namespace kselect_cli
