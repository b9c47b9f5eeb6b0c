#include "distributed_input.hpp"

#include <optional>
#include <utility>

#include "errors.hpp"
#include "input.hpp"
#include "stopwatch.hpp"

namespace kselect_cli {

std::string shard_path(const std::string& pattern, int rank) {
  static constexpr std::string_view placeholder = "{rank}";
  std::string path;
  std::size_t from = 0;
  for (std::size_t at; (at = pattern.find(placeholder, from)) != std::string::npos; from = at + placeholder.size())
    path += pattern.substr(from, at - from) + std::to_string(rank);
  return path + pattern.substr(from);
}

distributed_input load_distributed_input(mpi_job& job, const common_options& common, const distributed_options& d,
                                         const std::string& file) {
  distributed_input in;
  in.shards = d.shards.has_value();
  in.name = in.shards ? *d.shards : file;
  job.step([&] {
    input_spec spec{in.shards ? shard_path(*d.shards, job.rank()) : file, std::nullopt, common.raw, false};
    // The parser admits only the known names (command_line.cpp).
    if (!common.dtype.empty()) spec.requested = parse_dtype_name(common.dtype);
    input_source source(spec);
    stopwatch read;
    in.values = in.shards ? source.read() : source.read_part(job.rank(), job.size()).values;
    in.read_ms = read.ms();
  });

  const std::int64_t mine = size_of(in.values);
  const std::vector<std::int64_t> all = job.allgather({static_cast<std::int64_t>(dtype_of(in.values)), mine});
  in.type = dtype_of(in.values);
  for (int p = 0; p < job.size(); ++p) {
    const auto type = static_cast<dtype>(all[2 * static_cast<std::size_t>(p)]);
    const std::int64_t n = all[2 * static_cast<std::size_t>(p) + 1];
    in.process_n.push_back(n);
    in.global_n += n;
    // Every process sees the same list, so each throws the same message.
    const auto first = static_cast<dtype>(all[0]);
    if (type != first)
      throw agreed_failure("--shards: process 0's file " + shard_path(in.name, 0) + " holds " +
                               std::string(dtype_name(first)) + " values, process " + std::to_string(p) + "'s " +
                               shard_path(in.name, p) + " " + std::string(dtype_name(type)) +
                               " values (every shard must have the same dtype)",
                           exit_usage);
  }
  if (in.global_n == 0) {
    if (in.shards) throw agreed_failure("--shards " + in.name + ": no process's file holds any value", exit_usage);
    throw agreed_failure(input_display_name(file) + ": holds no values", exit_usage);
  }
  return in;
}

}  // namespace kselect_cli
