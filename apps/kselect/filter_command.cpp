// kselect filter (--lt X | --le X | --gt X | --ge X | --eq X | --ne X | --range A B)
// [--indices] FILE [-o OUT.npy]: the elements satisfying the predicate, in input
// order, written to OUT.npy in the input's dtype (with --indices, their int64
// positions); prints how many there are (on stderr when the .npy goes to stdout).
#include <cmath>
#include <optional>
#include <string>
#include <type_traits>
#include <variant>

#include "args.hpp"
#include "backend.hpp"
#include "commands.hpp"
#include "errors.hpp"
#include "format.hpp"
#include "kselect/kselect.hpp"
#include "loaded_input.hpp"
#include "input.hpp"
#include "output.hpp"
#include "stopwatch.hpp"

namespace kselect_cli {
namespace {

const std::vector<std::string>& predicate_options() {
  static const std::vector<std::string> names = {"--lt", "--le", "--gt", "--ge", "--eq", "--ne", "--range"};
  return names;
}

/// The predicate of the options, its constants parsed as T.
template <class T>
kselect::predicate<T> parse_predicate(const filter_command_options& opts) {
  const std::string option = "--" + opts.op;
  if (opts.op == "range") {
    const T lo = parse_constant<T>(option, opts.operands.at(0));
    const T hi = parse_constant<T>(option, opts.operands.at(1));
    if constexpr (std::is_floating_point_v<T>)
      if (std::isnan(lo) || std::isnan(hi)) throw input_error(option + ": a bound is NaN");
    if (lo > hi)
      throw input_error(option + ": A = " + format_value(lo) + " is greater than B = " + format_value(hi) +
                        " (the range is A <= x < B)");
    return kselect::in_range(lo, hi);
  }
  const T c = parse_constant<T>(option, opts.operands.at(0));
  if (opts.op == "lt") return kselect::lt(c);
  if (opts.op == "le") return kselect::le(c);
  if (opts.op == "gt") return kselect::gt(c);
  if (opts.op == "ge") return kselect::ge(c);
  if (opts.op == "eq") return kselect::eq(c);
  return kselect::ne(c);
}

/// The predicate as JSON fields: "predicate" and "value", or "lo" and "hi".
template <class T>
void add_predicate_json(json_object& out, const kselect::predicate<T>& p, const std::string& op) {
  out.add("predicate", json_string(op));
  if (p.op == kselect::filter_op::range)
    out.add("lo", json_number(p.value)).add("hi", json_number(p.hi));
  else
    out.add("value", json_number(p.value));
}

}  // namespace

int run_filter(const common_options& common, const filter_command_options& opts) {
  std::string names;
  for (const auto& name : predicate_options()) names += (names.empty() ? "" : ", ") + name;
  if (opts.given.empty()) throw input_error("give a predicate: one of " + names);
  if (opts.given.size() > 1)
    throw input_error("give one predicate, not " + opts.given[0] + " and " + opts.given[1]);
  if (opts.output && opts.output->empty()) throw input_error("-o: the output file name is empty");
  if (opts.indices && !opts.output)
    throw input_error("--indices: needs -o OUT.npy (without -o only the count is printed)");
  const backend b = choose_backend(common);
  // The output is checked and opened once the input is open and before it is
  // read: refusing it (it is the input, a directory, ...) then costs no work.
  std::optional<output_file> target;
  const loaded_input in = load_command_input(common, opts.file, [&](const struct stat& input) {
    if (opts.output) target.emplace(*opts.output, input, input_display_name(opts.file));
  });

  timings t;
  t.read_ms = in.read_ms;
  double write_ms = 0;
  std::int64_t count = 0;
  json_object out = command_json("filter", opts.file, in, b);
  try {
    visit_six_keys(
        [&](const auto& data) {
          using T = std::remove_cvref_t<decltype(*data.data())>;
          const kselect::predicate<T> pred = parse_predicate<T>(opts);
          add_predicate_json(out, pred, opts.op);
          if (!target) {  // only the count is wanted
            auto count_if = [&](const T* v, std::int64_t n, const kselect::options& opt) {
              return kselect::count_if(v, n, pred, opt);
            };
            count = run_on_backend(b, data, t, count_if, "filtering");
            return;
          }
          const kselect::filter_options f{.indices = opts.indices};
          auto filter_if = [&](const T* v, std::int64_t n, const kselect::options& opt) {
            return kselect::filter_if(v, n, pred, f, opt);
          };
          const kselect::filtered<T> r = run_on_backend(b, data, t, filter_if, "filtering");
          count = static_cast<std::int64_t>(r.values.size());
          stopwatch w;
          if (opts.indices)
            write_npy(*target, dtype::int64, r.indices.data(), count);
          else
            write_npy(*target, dtype_of<T>(), r.values.data(), count);
          write_ms = w.ms();
        },
        in.values);
  } catch (const broken_pipe&) {
    return exit_failure;  // stdout's reader has gone: quietly (see broken_pipe)
  }

  // The report goes where the data does not.
  const bool data_on_stdout = target && target->to_stdout();
  auto report = [&](const std::string& text) { data_on_stdout ? write_stderr(text) : write_stdout(text); };
  if (!common.json) {
    report(std::to_string(count) + '\n');
    return exit_ok;
  }
  out.add("indices", json_bool(opts.indices))
      .add("output", opts.output ? json_string(*opts.output) : "null")
      .add("count", json_number(count))
      .add("time_ms", json_object()
                          .add("read", json_ms(t.read_ms))
                          .add("transfer", json_ms(t.transfer_ms))
                          .add("filter", json_ms(t.compute_ms))
                          .add("write", json_ms(write_ms))
                          .str());
  report(out.str() + '\n');
  return exit_ok;
}

}  // namespace kselect_cli
