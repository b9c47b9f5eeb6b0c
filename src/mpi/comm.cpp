#include "mpi/comm.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>

namespace kselect::mpi::detail {
namespace {

// The duplicate communicator kselect works on, cached on the caller's communicator
// (MPI's attribute caching) and freed with it.
int dup_keyval = MPI_KEYVAL_INVALID;

int free_dup(MPI_Comm, int, void* attribute, void*) {
  auto* dup = static_cast<MPI_Comm*>(attribute);
  const int code = MPI_Comm_free(dup);
  delete dup;
  return code;
}

std::string mpi_message(int code) {
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  if (MPI_Error_string(code, text, &length) != MPI_SUCCESS) return "MPI error " + std::to_string(code);
  return std::string(text, static_cast<std::size_t>(length));
}

MPI_Comm kselect_comm(MPI_Comm user) {
  if (user == MPI_COMM_NULL) throw std::invalid_argument("kselect::mpi: the communicator is MPI_COMM_NULL");
  int initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  if (!initialized || finalized)
    throw std::invalid_argument("kselect::mpi: MPI is not initialized (call MPI_Init first) or already finalized");
  int inter = 0;
  if (MPI_Comm_test_inter(user, &inter) != MPI_SUCCESS || inter)
    throw std::invalid_argument("kselect::mpi: the communicator is not a valid intracommunicator");
  if (dup_keyval == MPI_KEYVAL_INVALID &&
      MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, free_dup, &dup_keyval, nullptr) != MPI_SUCCESS)
    throw kselect::error("kselect::mpi: MPI_Comm_create_keyval failed");
  void* attribute = nullptr;
  int found = 0;
  MPI_Comm_get_attr(user, dup_keyval, &attribute, &found);
  if (found) return *static_cast<MPI_Comm*>(attribute);
  // Collective over `user`: every process gets here on its first call with it.
  auto* dup = new MPI_Comm;
  int code = MPI_Comm_dup(user, dup);
  if (code != MPI_SUCCESS) {
    delete dup;
    throw kselect::error("kselect::mpi: MPI_Comm_dup failed: " + mpi_message(code));
  }
  MPI_Comm_set_errhandler(*dup, MPI_ERRORS_RETURN);
  code = MPI_Comm_set_attr(user, dup_keyval, dup);
  if (code != MPI_SUCCESS) throw kselect::error("kselect::mpi: MPI_Comm_set_attr failed: " + mpi_message(code));
  return *dup;
}

// MPI counts are int: larger transfers go in pieces of this many bytes.
constexpr std::int64_t chunk_bytes = std::int64_t(1) << 30;

}  // namespace

communicator::communicator(MPI_Comm user, report& rep) : comm_(kselect_comm(user)), rep_(rep) {
  MPI_Comm_rank(comm_, &rank_);
  MPI_Comm_size(comm_, &size_);
  if (const char* inject = std::getenv("KSELECT_MPI_INJECT_FAILURE"); inject && *inject)
    if (std::atoi(inject) == rank_) inject_at_ = rep_.collectives + 2;
}

void communicator::count_collective(std::int64_t bytes) {
  ++rep_.collectives;
  rep_.bytes_sent += bytes;
  if (rep_.collectives == inject_at_)
    throw kselect::error("kselect::mpi: collective " + std::to_string(inject_at_) + " on process " +
                         std::to_string(rank_) +
                         " failed: injected MPI failure (KSELECT_MPI_INJECT_FAILURE)");
}

void communicator::check(int code, const char* call) {
  if (code != MPI_SUCCESS)
    throw kselect::error(std::string("kselect::mpi: ") + call + " failed on process " +
                         std::to_string(rank_) + ": " + mpi_message(code));
}

void communicator::allreduce(std::uint64_t* data, std::size_t count, MPI_Op op) {
  count_collective(static_cast<std::int64_t>(count * sizeof(std::uint64_t)));
  check(MPI_Allreduce(MPI_IN_PLACE, data, static_cast<int>(count), MPI_UINT64_T, op, comm_), "MPI_Allreduce");
}

void communicator::allreduce_sum(std::int64_t* data, std::size_t count) {
  count_collective(static_cast<std::int64_t>(count * sizeof(std::int64_t)));
  check(MPI_Allreduce(MPI_IN_PLACE, data, static_cast<int>(count), MPI_INT64_T, MPI_SUM, comm_),
        "MPI_Allreduce");
}

std::vector<std::int64_t> communicator::allgather(const std::int64_t* mine, std::size_t count) {
  count_collective(static_cast<std::int64_t>(count * sizeof(std::int64_t)));
  std::vector<std::int64_t> all(count * static_cast<std::size_t>(size_));
  check(MPI_Allgather(mine, static_cast<int>(count), MPI_INT64_T, all.data(), static_cast<int>(count),
                      MPI_INT64_T, comm_),
        "MPI_Allgather");
  return all;
}

std::vector<unsigned char> communicator::gather_bytes(const void* mine, std::int64_t my_bytes,
                                                      const std::vector<std::int64_t>& bytes_of, int root) {
  std::int64_t total = 0;
  for (const std::int64_t b : bytes_of) total += b;
  const bool everyone = root < 0;
  const int target = everyone ? 0 : root;
  count_collective(my_bytes);
  std::vector<unsigned char> all;
  if (total <= std::int64_t(INT32_MAX) / 2) {
    // The common case (DIBMS's last step, DistributedBMS): one collective.
    std::vector<int> counts(bytes_of.size()), displs(bytes_of.size());
    int offset = 0;
    for (std::size_t p = 0; p < bytes_of.size(); ++p) {
      counts[p] = static_cast<int>(bytes_of[p]);
      displs[p] = offset;
      offset += counts[p];
    }
    if (everyone || rank_ == target) all.resize(static_cast<std::size_t>(total));
    if (everyone)
      check(MPI_Allgatherv(mine, static_cast<int>(my_bytes), MPI_BYTE, all.data(), counts.data(),
                           displs.data(), MPI_BYTE, comm_),
            "MPI_Allgatherv");
    else
      check(MPI_Gatherv(mine, static_cast<int>(my_bytes), MPI_BYTE, all.data(), counts.data(),
                        displs.data(), MPI_BYTE, target, comm_),
            "MPI_Gatherv");
    return all;
  }
  // Beyond int counts (Sort&Choose of more than 1 GiB): point to point, in chunks.
  if (rank_ == target) {
    all.resize(static_cast<std::size_t>(total));
    std::int64_t offset = 0;
    for (int p = 0; p < size_; ++p) {
      const std::int64_t bytes = bytes_of[static_cast<std::size_t>(p)];
      if (p == rank_) {
        if (bytes > 0) std::memcpy(all.data() + offset, mine, static_cast<std::size_t>(bytes));
      } else {
        for (std::int64_t done = 0; done < bytes; done += chunk_bytes)
          check(MPI_Recv(all.data() + offset + done, static_cast<int>(std::min(chunk_bytes, bytes - done)),
                         MPI_BYTE, p, 0, comm_, MPI_STATUS_IGNORE),
                "MPI_Recv");
      }
      offset += bytes;
    }
  } else {
    const auto* bytes_in = static_cast<const unsigned char*>(mine);
    for (std::int64_t done = 0; done < my_bytes; done += chunk_bytes)
      check(MPI_Send(bytes_in + done, static_cast<int>(std::min(chunk_bytes, my_bytes - done)), MPI_BYTE,
                     target, 0, comm_),
            "MPI_Send");
  }
  if (everyone) {
    if (rank_ != target) all.resize(static_cast<std::size_t>(total));
    bcast(all.data(), total, target);
  }
  return all;
}

void communicator::bcast(void* data, std::int64_t bytes, int root) {
  count_collective(rank_ == root ? bytes : 0);
  auto* p = static_cast<unsigned char*>(data);
  for (std::int64_t done = 0; done < bytes; done += chunk_bytes)
    check(MPI_Bcast(p + done, static_cast<int>(std::min(chunk_bytes, bytes - done)), MPI_BYTE, root, comm_),
          "MPI_Bcast");
}

void communicator::agree(const std::string& local_error, bool caller_mistake) {
  // (lowest failing rank, its kind) through one MIN all-reduce: rank * 2 + kind.
  std::uint64_t code = local_error.empty() ? ~std::uint64_t(0)
                                           : static_cast<std::uint64_t>(rank_) * 2 + (caller_mistake ? 0 : 1);
  allreduce(&code, 1, MPI_MIN);
  if (code == ~std::uint64_t(0)) return;
  const int failed = static_cast<int>(code / 2);
  const bool mistake = code % 2 == 0;
  constexpr std::size_t capacity = 1024;
  char text[capacity] = {};
  if (rank_ == failed) std::strncpy(text, local_error.c_str(), capacity - 1);
  bcast(text, capacity, failed);
  std::string message = std::string(text);
  if (size_ > 1) message = "process " + std::to_string(failed) + ": " + message;
  if (mistake) throw std::invalid_argument(message);
  throw kselect::error(message);
}

}  // namespace kselect::mpi::detail
