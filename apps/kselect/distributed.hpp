// The tool's distributed mode: `mpirun -np P kselect --distributed select|quantile|topk
// ...` runs the command as one MPI job. Process r reads its part of the input (a
// slice of FILE, or its own file with --shards), the processes answer together
// (kselect/mpi.hpp), and process 0 prints what the local tool would print for the
// whole input. Built with MPI in distributed_command.cpp; without it,
// distributed_none.cpp says so.
#pragma once

#include <string_view>

namespace kselect_cli {

/// Whether the command line asks for the distributed mode: --distributed (or a
/// mistaken --distributed=...) before any "--". Decided before parsing, so that
/// even a mistake on the command line is reported once for the whole job.
inline bool wants_distributed(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string_view token(argv[i]);
    if (token == "--") return false;
    if (token == "--distributed" || token.starts_with("--distributed=")) return true;
  }
  return false;
}

/// Runs the tool as one process of an MPI job (MPI_Init ... MPI_Finalize): parses
/// the command line, reads this process's part, answers with the other processes
/// and, on process 0, prints. Every failure is agreed on before the processes go
/// on, so that all of them end with the same exit code and process 0 reports it
/// once; a failure inside MPI (which may leave the others waiting) ends the job
/// with MPI_Abort instead. Returns the exit code.
int run_distributed(int argc, char** argv);

}  // namespace kselect_cli
