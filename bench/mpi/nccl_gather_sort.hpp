// The Sort&Choose a user of NCCL would write (issue 26's baseline): every process's
// device shard sent to GPU 0 (ncclSend / ncclRecv), CUB's radix sort of the whole
// there, the values at the asked ranks read back. Built with CUDA and NCCL only
// (nccl_gather_sort.cu, KSELECT_BENCH_NCCL); distributed_bench.cpp uses it only then.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <memory>
#include <vector>

namespace kselect::mpi_bench::gpu {

template <class T>
class nccl_gather_sort {
 public:
  /// Collective over comm: its own NCCL communicator (one distinct GPU per process, the
  /// current device), and on rank 0 room for every key twice plus CUB's workspace.
  nccl_gather_sort(MPI_Comm comm, std::int64_t global_n, void* stream);
  ~nccl_gather_sort();
  nccl_gather_sort(const nccl_gather_sort&) = delete;
  nccl_gather_sort& operator=(const nccl_gather_sort&) = delete;

  /// Collective: gathers the shards (in rank order), sorts, and returns the values at
  /// `ranks` on rank 0 (empty elsewhere); the stream is synchronised on return.
  std::vector<T> run(const T* shard, std::int64_t n, const std::vector<std::int64_t>& ranks);

 private:
  struct impl;
  std::unique_ptr<impl> p_;
};

}  // namespace kselect::mpi_bench::gpu
