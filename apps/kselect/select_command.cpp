// kselect select -k K[,K...] FILE: the values at the given 0-based ranks.
#include <span>

#include "args.hpp"
#include "backend.hpp"
#include "commands.hpp"
#include "errors.hpp"
#include "format.hpp"
#include "kselect/kselect.hpp"
#include "loaded_input.hpp"
#include "output.hpp"

namespace kselect_cli {

int run_select(const common_options& common, const select_options& opts) {
  const std::vector<std::int64_t> ranks = parse_ranks(opts.ranks);
  const backend b = choose_backend(common.device);
  const loaded_input in = load_command_input(common, opts.file);
  check_ranks(ranks, size_of(in.values));

  timings t;
  t.read_ms = in.read_ms;
  const std::string values_text = std::visit(
      [&](const auto& data) {
        using T = std::remove_cvref_t<decltype(*data.data())>;
        const std::vector<T> values =
            run_on_backend(b, data, t, [&](const T* v, std::int64_t n, const kselect::options& opt) {
              if (ranks.size() == 1) return std::vector<T>{kselect::select(v, n, ranks[0], opt)};
              return kselect::multiselect(v, n, std::span<const std::int64_t>(ranks), opt);
            });
        return common.json ? json_array(values) : text_lines(values);
      },
      in.values);

  if (!common.json) {
    write_stdout(values_text);
    return exit_ok;
  }
  json_object out = command_json("select", opts.file, in, b);
  out.add("ranks", json_array(ranks))
      .add("values", values_text)
      .add("time_ms", timings_json(t));
  write_stdout(out.str() + '\n');
  return exit_ok;
}

}  // namespace kselect_cli
