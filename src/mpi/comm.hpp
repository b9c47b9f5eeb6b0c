// The collectives a distributed call makes, over kselect's own duplicate of the
// caller's communicator (cached on it as an MPI attribute, so it is made once per
// communicator; its error handler returns errors instead of aborting, and kselect's
// traffic never matches the caller's). Every call is checked: an MPI error throws
// kselect::error naming the call and MPI's message. Counts what the call reports:
// collectives, and the bytes this process hands to MPI as send buffers.
//
// Fault injection for tests: with KSELECT_MPI_INJECT_FAILURE=<rank> in the
// environment, that process's second collective throws as an MPI failure would,
// without entering MPI (the other processes are left waiting in it).
#pragma once

#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

#include "kselect/mpi.hpp"

namespace kselect::mpi::detail {

class communicator {
 public:
  /// Throws std::invalid_argument for MPI_COMM_NULL, an uninitialized or finalized
  /// MPI, or an intercommunicator.
  communicator(MPI_Comm user, report& rep);

  int rank() const { return rank_; }
  int size() const { return size_; }
  report& stats() { return rep_; }
  /// kselect's duplicate of the caller's communicator (for what is cached on it).
  MPI_Comm raw() const { return comm_; }
  /// Counts a collective made outside MPI (the NCCL count all-reduce) and its bytes.
  void count_device_collective(std::int64_t bytes) { count_collective(bytes); }

  /// In place: MPI_Allreduce(MPI_IN_PLACE, data, count, MPI_UINT64_T, op).
  void allreduce(std::uint64_t* data, std::size_t count, MPI_Op op);
  /// In place on int64: MPI_SUM.
  void allreduce_sum(std::int64_t* data, std::size_t count);
  /// Every process's `count` int64 values, in rank order.
  std::vector<std::int64_t> allgather(const std::int64_t* mine, std::size_t count);
  /// Concatenation of every process's bytes (sizes known to all: bytes_of[p]), in rank
  /// order, on every process (root < 0) or on root only. Any size (chunked point to
  /// point beyond what an int count can say).
  std::vector<unsigned char> gather_bytes(const void* mine, std::int64_t my_bytes,
                                          const std::vector<std::int64_t>& bytes_of, int root);
  /// MPI_Bcast of bytes from root (any size).
  void bcast(void* data, std::int64_t bytes, int root);

  /// Agreement on local failures: every process passes its own error message ("" for
  /// none); if any process failed, all throw (std::invalid_argument when the lowest
  /// failing process's error was a caller mistake, kselect::error otherwise) with
  /// that process's message, prefixed by its rank. One MIN all-reduce, plus one
  /// broadcast of the message when there is an error.
  void agree(const std::string& local_error, bool caller_mistake);

 private:
  void count_collective(std::int64_t bytes);
  void check(int code, const char* call);
  MPI_Comm comm_;
  int rank_ = 0;
  int size_ = 1;
  report& rep_;
  int inject_at_ = -1;  ///< collective number that fails (fault injection), or -1
};

}  // namespace kselect::mpi::detail
