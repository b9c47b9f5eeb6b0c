// The input of a distributed run: each process's part (a slice of one file, or
// its own file with --shards) and what the processes agree on about the whole
// (the dtype, every part's size).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "commands.hpp"
#include "dtype.hpp"
#include "host_array.hpp"
#include "mpi_job.hpp"

namespace kselect_cli {

struct distributed_input {
  any_array values;                      // this process's elements
  dtype type{};                          // the same on every process
  std::int64_t global_n = 0;             // elements of all the parts (> 0)
  std::vector<std::int64_t> process_n;   // every process's element count, in rank order
  double read_ms = 0;                    // this process's reading time
  std::string name;                      // FILE, or the --shards pattern, as given
  bool shards = false;
};

/// The file process `rank` reads with --shards PATTERN: PATTERN with every
/// "{rank}" replaced by the rank's decimal digits.
std::string shard_path(const std::string& pattern, int rank);

/// Reads this process's part: with d.shards its own file whole, else the slice
/// job.rank() of job.size() of `file` (input_source::read_part: only those bytes).
/// Collective. Any process's failure (a missing, unreadable or malformed file)
/// fails every process (agreed_failure; process 0's message names the process and
/// the file), as do parts of different dtypes and an input without any value.
distributed_input load_distributed_input(mpi_job& job, const common_options& common, const distributed_options& d,
                                         const std::string& file);

}  // namespace kselect_cli
