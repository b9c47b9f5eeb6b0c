#include "mpi/device_collectives.hpp"

#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#if KSELECT_WITH_CUDA
#include <cuda_runtime_api.h>
#endif
#if KSELECT_WITH_CUDA && KSELECT_WITH_NCCL
#include <nccl.h>
#include <unistd.h>
#endif

namespace kselect::mpi {

int use_local_gpu(MPI_Comm comm) {
  // The process's rank among those of its host (collective over comm).
  MPI_Comm host = MPI_COMM_NULL;
  int rank = 0;
  if (comm == MPI_COMM_NULL) throw std::invalid_argument("kselect::mpi::use_local_gpu: the communicator is MPI_COMM_NULL");
  MPI_Comm_rank(comm, &rank);
  if (MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &host) != MPI_SUCCESS)
    throw kselect::error("kselect::mpi::use_local_gpu: MPI_Comm_split_type failed");
  int local = 0;
  MPI_Comm_rank(host, &local);
  MPI_Comm_free(&host);
#if KSELECT_WITH_CUDA
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
    cudaGetLastError();  // not sticky: clear it for the caller
    return -1;
  }
  const int device = local % count;
  if (const cudaError_t e = cudaSetDevice(device); e != cudaSuccess)
    throw kselect::error("kselect::mpi::use_local_gpu: cudaSetDevice(" + std::to_string(device) +
                         "): " + cudaGetErrorString(e));
  return device;
#else
  (void)local;
  return -1;
#endif
}

}  // namespace kselect::mpi

namespace kselect::mpi::detail {

#if KSELECT_WITH_CUDA && KSELECT_WITH_NCCL

bool nccl_built() noexcept { return true; }

namespace {

// The NCCL communicator of a kselect communicator, cached on it (MPI attribute) and
// destroyed when MPI frees it.
struct nccl_state {
  ncclComm_t comm = nullptr;
  int device = -1;
};
int nccl_keyval = MPI_KEYVAL_INVALID;

int destroy_state(MPI_Comm, int, void* attribute, void*) {
  auto* state = static_cast<nccl_state*>(attribute);
  ncclCommDestroy(state->comm);
  delete state;
  return MPI_SUCCESS;
}

void check_cuda(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw kselect::error(std::string("kselect::mpi (NCCL counts): ") + what + ": " + cudaGetErrorString(e));
}

void check_nccl(ncclResult_t r, const char* what) {
  if (r != ncclSuccess)
    throw kselect::error(std::string("kselect::mpi: ") + what + " failed: " + ncclGetErrorString(r) +
                         (ncclGetLastError(nullptr) ? std::string(" (") + ncclGetLastError(nullptr) + ")" : ""));
}

std::uint64_t fnv1a(const char* text) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (; *text; ++text) h = (h ^ static_cast<unsigned char>(*text)) * 0x100000001b3ull;
  return h;
}

class nccl_allreduce final : public distributed::device_allreduce {
 public:
  nccl_allreduce(ncclComm_t comm, cudaStream_t stream) : comm_(comm), stream_(stream) {}

  void device(const void* in, void* out, std::size_t count, int word_bytes, op o, void* stream) override {
    if (count == 0) return;
    check_nccl(ncclAllReduce(in, out, count, word_bytes == 8 ? ncclUint64 : ncclUint32, nccl_op(o), comm_,
                             static_cast<cudaStream_t>(stream)),
               "ncclAllReduce");
  }

  void host(void* data, std::size_t count, int word_bytes, op o) override {
    if (count == 0) return;
    const std::size_t bytes = count * static_cast<std::size_t>(word_bytes);
    void* buffer = nullptr;
    check_cuda(cudaMallocAsync(&buffer, bytes, stream_), "cudaMallocAsync");
    try {
      check_cuda(cudaMemcpyAsync(buffer, data, bytes, cudaMemcpyHostToDevice, stream_), "copying counts to the GPU");
      device(buffer, buffer, count, word_bytes, o, stream_);
      check_cuda(cudaMemcpyAsync(data, buffer, bytes, cudaMemcpyDeviceToHost, stream_), "copying counts back");
      check_cuda(cudaStreamSynchronize(stream_), "the NCCL all-reduce");
    } catch (...) {
      cudaFreeAsync(buffer, stream_);
      throw;
    }
    check_cuda(cudaFreeAsync(buffer, stream_), "cudaFreeAsync");
  }

 private:
  static ncclRedOp_t nccl_op(op o) { return o == op::sum ? ncclSum : o == op::min ? ncclMin : ncclMax; }
  ncclComm_t comm_;
  cudaStream_t stream_;
};

// Makes the NCCL communicator of `comm` (collective): every process's GPU must be
// present and distinct, which is agreed on over MPI first so that NCCL's own set-up
// never waits for a process that cannot join.
nccl_state* make_state(communicator& comm) {
  std::string failure;
  int device = -1;
  std::int64_t mine[3] = {0, 0, 0};  // failed, host, GPU
  try {
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0)
      throw std::invalid_argument("options.counts = nccl needs a GPU on every process; this one sees none");
    check_cuda(cudaGetDevice(&device), "cudaGetDevice");
    char host[256] = {}, bus[64] = {};
    gethostname(host, sizeof host - 1);
    check_cuda(cudaDeviceGetPCIBusId(bus, sizeof bus, device), "cudaDeviceGetPCIBusId");
    mine[1] = static_cast<std::int64_t>(fnv1a(host));
    mine[2] = static_cast<std::int64_t>(fnv1a(bus));
  } catch (const std::exception& e) {
    failure = e.what();
    mine[0] = 1;
  }
  const std::vector<std::int64_t> all = comm.allgather(mine, 3);
  comm.agree(failure, true);
  for (int p = 0; p < comm.size(); ++p)
    for (int q = 0; q < p; ++q)
      if (all[3 * p + 1] == all[3 * q + 1] && all[3 * p + 2] == all[3 * q + 2])
        throw std::invalid_argument("options.counts = nccl needs one GPU per process, but processes " +
                                    std::to_string(q) + " and " + std::to_string(p) +
                                    " use the same GPU (bind one GPU per process, kselect::mpi::use_local_gpu, "
                                    "or use transport::mpi)");
  // Process 0's unique id to all (with a failure flag), then NCCL's collective set-up,
  // whose outcome is agreed on before anyone keeps it.
  struct {
    ncclUniqueId id;
    std::int32_t failed;
  } start{};
  if (comm.rank() == 0) start.failed = ncclGetUniqueId(&start.id) == ncclSuccess ? 0 : 1;
  comm.bcast(&start, sizeof start, 0);
  if (start.failed) throw kselect::error("kselect::mpi: ncclGetUniqueId failed on process 0");
  ncclComm_t nccl = nullptr;
  const ncclResult_t r = ncclCommInitRank(&nccl, comm.size(), start.id, comm.rank());
  comm.agree(r == ncclSuccess ? "" : std::string("ncclCommInitRank failed: ") + ncclGetErrorString(r), false);
  auto* state = new nccl_state{nccl, device};
  if (nccl_keyval == MPI_KEYVAL_INVALID &&
      MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, destroy_state, &nccl_keyval, nullptr) != MPI_SUCCESS) {
    ncclCommDestroy(nccl);
    delete state;
    throw kselect::error("kselect::mpi: MPI_Comm_create_keyval failed");
  }
  if (MPI_Comm_set_attr(comm.raw(), nccl_keyval, state) != MPI_SUCCESS) {
    ncclCommDestroy(nccl);
    delete state;
    throw kselect::error("kselect::mpi: MPI_Comm_set_attr failed");
  }
  return state;
}

}  // namespace

std::unique_ptr<distributed::device_allreduce> make_nccl_allreduce(communicator& comm, void* stream) {
  // The cached communicator, when this process has one: every process has one or
  // none (a set-up is kept only once all agreed it worked). Whether the current
  // device is still its device is agreed on as well.
  nccl_state* state = nullptr;
  int found = 0;
  if (nccl_keyval != MPI_KEYVAL_INVALID) {
    void* attribute = nullptr;
    MPI_Comm_get_attr(comm.raw(), nccl_keyval, &attribute, &found);
    if (found) state = static_cast<nccl_state*>(attribute);
  }
  if (!state) {
    state = make_state(comm);
  } else {
    int device = -1;
    std::string failure;
    if (cudaGetDevice(&device) != cudaSuccess || device != state->device)
      failure = "options.counts = nccl: the current device is " + std::to_string(device) +
                ", but this communicator's NCCL set-up was made on device " + std::to_string(state->device) +
                " (keep one device per process for a communicator)";
    comm.agree(failure, true);
  }
  return std::make_unique<nccl_allreduce>(state->comm, static_cast<cudaStream_t>(stream));
}

#else

bool nccl_built() noexcept { return false; }

std::unique_ptr<distributed::device_allreduce> make_nccl_allreduce(communicator& comm, void*) {
  comm.agree("options.counts = nccl: this kselect was built without NCCL (KSELECT_WITH_NCCL; it needs the CUDA "
             "backend and nccl.h); use transport::mpi",
             true);
  return nullptr;  // not reached: agree() throws on every process
}

#endif

}  // namespace kselect::mpi::detail
