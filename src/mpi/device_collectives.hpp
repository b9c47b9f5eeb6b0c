// What the distributed calls do on the GPUs of their processes: the count all-reduce
// through NCCL (options.counts = transport::nccl) and the binding of one GPU per
// process. Builds without NCCL (or without the CUDA backend) get stubs that say so.
#pragma once

#include <memory>

#include "distributed/shard.hpp"
#include "mpi/comm.hpp"

namespace kselect::mpi::detail {

/// Whether this build has NCCL (KSELECT_WITH_NCCL).
bool nccl_built() noexcept;

/// The round counts' all-reduce over comm's processes through NCCL, on `stream` (a
/// cudaStream_t, the current device's). Collective. The NCCL communicator is made on
/// the first call with a communicator (every process's current device; NCCL wants
/// them distinct) and cached on it until it is freed. Throws std::invalid_argument on
/// every process when a process has no GPU, two processes share one, the build has
/// no NCCL, or a process's current device is not the one its NCCL communicator was
/// made on; kselect::error when NCCL fails.
std::unique_ptr<distributed::device_allreduce> make_nccl_allreduce(communicator& comm, void* stream);

}  // namespace kselect::mpi::detail
