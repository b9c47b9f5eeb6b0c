// nccl_gather_sort.hpp: gather over NCCL to GPU 0, CUB radix sort there.
#include "nccl_gather_sort.hpp"

#include <stdexcept>
#include <string>

#include <cub/device/device_radix_sort.cuh>
#include <cuda_runtime_api.h>
#include <nccl.h>

namespace kselect::mpi_bench::gpu {

namespace {
void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}
void check(ncclResult_t r, const char* what) {
  if (r != ncclSuccess) throw std::runtime_error(std::string(what) + ": " + ncclGetErrorString(r));
}
}  // namespace

template <class T>
struct nccl_gather_sort<T>::impl {
  ncclComm_t comm = nullptr;
  cudaStream_t stream = nullptr;
  int rank = 0, size = 1;
  std::vector<std::int64_t> sizes;  // every process's keys (set by run)
  T* keys = nullptr;                // rank 0: 2 * global_n keys (DoubleBuffer)
  void* workspace = nullptr;
  std::size_t workspace_bytes = 0;
  std::int64_t global_n = 0;
  MPI_Comm mpi = MPI_COMM_NULL;
};

template <class T>
nccl_gather_sort<T>::nccl_gather_sort(MPI_Comm comm, std::int64_t global_n, void* stream) : p_(new impl) {
  p_->mpi = comm;
  p_->stream = static_cast<cudaStream_t>(stream);
  p_->global_n = global_n;
  MPI_Comm_rank(comm, &p_->rank);
  MPI_Comm_size(comm, &p_->size);
  ncclUniqueId id{};
  if (p_->rank == 0) check(ncclGetUniqueId(&id), "ncclGetUniqueId");
  MPI_Bcast(&id, sizeof id, MPI_BYTE, 0, comm);
  check(ncclCommInitRank(&p_->comm, p_->size, id, p_->rank), "ncclCommInitRank");
  if (p_->rank == 0) {
    check(cudaMalloc(reinterpret_cast<void**>(&p_->keys), 2 * static_cast<std::size_t>(global_n) * sizeof(T)),
          "cudaMalloc (2 x the global keys on GPU 0)");
    cub::DoubleBuffer<T> buffer(p_->keys, p_->keys + global_n);
    check(cub::DeviceRadixSort::SortKeys(nullptr, p_->workspace_bytes, buffer, global_n, 0, int(sizeof(T) * 8),
                                         p_->stream),
          "cub::DeviceRadixSort::SortKeys query");
    check(cudaMalloc(&p_->workspace, p_->workspace_bytes), "cudaMalloc (sort workspace)");
  }
}

template <class T>
nccl_gather_sort<T>::~nccl_gather_sort() {
  if (p_->comm) ncclCommDestroy(p_->comm);
  cudaFree(p_->keys);
  cudaFree(p_->workspace);
}

template <class T>
std::vector<T> nccl_gather_sort<T>::run(const T* shard, std::int64_t n, const std::vector<std::int64_t>& ranks) {
  impl& p = *p_;
  p.sizes.assign(static_cast<std::size_t>(p.size), 0);
  MPI_Allgather(&n, 1, MPI_INT64_T, p.sizes.data(), 1, MPI_INT64_T, p.mpi);
  check(ncclGroupStart(), "ncclGroupStart");
  if (p.rank == 0) {
    std::int64_t offset = 0;
    for (int q = 0; q < p.size; ++q) {
      const std::int64_t count = p.sizes[static_cast<std::size_t>(q)];
      if (q == 0 && count > 0)
        check(cudaMemcpyAsync(p.keys, shard, static_cast<std::size_t>(count) * sizeof(T), cudaMemcpyDeviceToDevice,
                              p.stream),
              "cudaMemcpyAsync");
      else if (count > 0)
        check(ncclRecv(p.keys + offset, static_cast<std::size_t>(count) * sizeof(T), ncclUint8, q, p.comm, p.stream),
              "ncclRecv");
      offset += count;
    }
  } else if (n > 0) {
    check(ncclSend(shard, static_cast<std::size_t>(n) * sizeof(T), ncclUint8, 0, p.comm, p.stream), "ncclSend");
  }
  check(ncclGroupEnd(), "ncclGroupEnd");
  std::vector<T> out;
  if (p.rank == 0) {
    cub::DoubleBuffer<T> buffer(p.keys, p.keys + p.global_n);
    std::size_t bytes = p.workspace_bytes;
    check(cub::DeviceRadixSort::SortKeys(p.workspace, bytes, buffer, p.global_n, 0, int(sizeof(T) * 8), p.stream),
          "cub::DeviceRadixSort::SortKeys");
    out.resize(ranks.size());
    for (std::size_t i = 0; i < ranks.size(); ++i)
      check(cudaMemcpyAsync(&out[i], buffer.Current() + ranks[i], sizeof(T), cudaMemcpyDeviceToHost, p.stream),
            "cudaMemcpyAsync");
  }
  check(cudaStreamSynchronize(p.stream), "the NCCL gather and sort");
  return out;
}

template class nccl_gather_sort<float>;
template class nccl_gather_sort<double>;


}  // namespace kselect::mpi_bench::gpu
