// The MPI job of the distributed mode: MPI's start and end, checked collectives
// over MPI_COMM_WORLD, and the agreement on local failures that lets every process
// end alike (process 0 reporting once) instead of some waiting forever in a
// collective that a failed process never reaches.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "errors.hpp"

namespace kselect_cli {

/// A failure every process of the job knows of (thrown on each, after an
/// agreement): its message (complete on process 0) and the exit code of all.
class agreed_failure : public std::runtime_error {
 public:
  agreed_failure(const std::string& message, int code) : std::runtime_error(message), code_(code) {}
  int code() const noexcept { return code_; }

 private:
  int code_;
};

class mpi_job {
 public:
  /// MPI_Init, with errors returned (not fatal) on MPI_COMM_WORLD so that each
  /// is reported in the tool's words. Throws kselect::error when MPI cannot start.
  mpi_job(int* argc, char*** argv);
  /// MPI_Finalize (not after abort(), which does not return).
  ~mpi_job();
  mpi_job(const mpi_job&) = delete;
  mpi_job& operator=(const mpi_job&) = delete;

  MPI_Comm comm() const noexcept { return MPI_COMM_WORLD; }
  int rank() const noexcept { return rank_; }
  int size() const noexcept { return size_; }
  /// This process's rank among those of its host, and their number (MPI_COMM_TYPE_SHARED).
  int local_rank() const noexcept { return local_rank_; }
  int local_size() const noexcept { return local_size_; }

  /// Runs f() on every process, then agrees on what failed (one all-gather; a
  /// gather of the messages when one did). When any process failed, throws
  /// agreed_failure on every process: the lowest failing process's message,
  /// prefixed "process R: " unless every process failed with the same message,
  /// and its exit code (describe_current_exception()).
  template <class F>
  void step(F&& f) {
    failure_report mine{"", exit_ok};
    try {
      f();
    } catch (...) {
      mine = describe_current_exception();
      if (mine.message.empty()) mine.message = "failed";
    }
    agree(mine);
  }

  /// Every process's `count` int64 values, in rank order, on every process.
  std::vector<std::int64_t> allgather(const std::vector<std::int64_t>& mine);
  /// Every process's `count` doubles, in rank order, on process 0 (empty elsewhere).
  std::vector<double> gather_to_first(const std::vector<double>& mine);

  /// Ends the whole job now (MPI_Abort) with `code`: after a failure inside MPI,
  /// or any other failure the other processes cannot learn of.
  [[noreturn]] void abort(int code) noexcept;

 private:
  void agree(const failure_report& mine);
  /// Throws kselect::error naming `call` and MPI's message unless code is MPI_SUCCESS.
  void check(int code, const char* call) const;

  int rank_ = 0;
  int size_ = 1;
  int local_rank_ = 0;
  int local_size_ = 1;
};

}  // namespace kselect_cli
