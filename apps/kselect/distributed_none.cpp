// distributed.hpp in builds without MPI: --distributed is refused.
#include <cstdlib>
#include <string_view>

#include "distributed.hpp"
#include "errors.hpp"

namespace kselect_cli {

int run_distributed(int, char**) {
  // Started by mpirun or srun anyway: one message for the job, from its first process.
  for (const char* name : {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK", "SLURM_PROCID"})
    if (const char* rank = std::getenv(name); rank != nullptr && std::string_view(rank) != "0") return exit_usage;
  report_error("--distributed: this kselect was built without MPI (configure with an MPI installed, "
               "KSELECT_WITH_MPI=ON or AUTO)");
  return exit_usage;
}

}  // namespace kselect_cli
