#include "mpi_job.hpp"

#include <cstdlib>

#include "kselect/types.hpp"

namespace kselect_cli {
namespace {

std::string mpi_message(int code) {
  char text[MPI_MAX_ERROR_STRING] = {};
  int length = 0;
  if (MPI_Error_string(code, text, &length) != MPI_SUCCESS) return "MPI error " + std::to_string(code);
  return std::string(text, static_cast<std::size_t>(length));
}

// A message travels whole up to this length: a path in it may be long, but not this long.
constexpr std::size_t max_message = 4096;

}  // namespace

mpi_job::mpi_job(int* argc, char*** argv) {
  if (const int code = MPI_Init(argc, argv); code != MPI_SUCCESS)
    throw kselect::error("--distributed: MPI_Init failed: " + mpi_message(code));
  try {
    // Errors come back as codes (check() turns them into kselect::error) instead
    // of MPI's default of ending the job with its own words.
    check(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN), "MPI_Comm_set_errhandler");
    check(MPI_Comm_rank(MPI_COMM_WORLD, &rank_), "MPI_Comm_rank");
    check(MPI_Comm_size(MPI_COMM_WORLD, &size_), "MPI_Comm_size");
    MPI_Comm host = MPI_COMM_NULL;
    check(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &host),
          "MPI_Comm_split_type");
    const int rank_code = MPI_Comm_rank(host, &local_rank_);
    const int size_code = MPI_Comm_size(host, &local_size_);
    MPI_Comm_free(&host);
    check(rank_code, "MPI_Comm_rank");
    check(size_code, "MPI_Comm_size");
  } catch (const std::exception& e) {
    // Another process may be inside MPI_Comm_split_type: only an abort ends them.
    report_error(e.what());
    abort(exit_failure);
  }
}

mpi_job::~mpi_job() { MPI_Finalize(); }

void mpi_job::check(int code, const char* call) const {
  if (code != MPI_SUCCESS)
    throw kselect::error(std::string(call) + " failed on process " + std::to_string(rank_) + ": " +
                         mpi_message(code));
}

std::vector<std::int64_t> mpi_job::allgather(const std::vector<std::int64_t>& mine) {
  std::vector<std::int64_t> all(mine.size() * static_cast<std::size_t>(size_));
  check(MPI_Allgather(mine.data(), static_cast<int>(mine.size()), MPI_INT64_T, all.data(),
                      static_cast<int>(mine.size()), MPI_INT64_T, MPI_COMM_WORLD),
        "MPI_Allgather");
  return all;
}

std::vector<double> mpi_job::gather_to_first(const std::vector<double>& mine) {
  std::vector<double> all(rank_ == 0 ? mine.size() * static_cast<std::size_t>(size_) : 0);
  check(MPI_Gather(mine.data(), static_cast<int>(mine.size()), MPI_DOUBLE, all.data(), static_cast<int>(mine.size()),
                   MPI_DOUBLE, 0, MPI_COMM_WORLD),
        "MPI_Gather");
  return all;
}

void mpi_job::agree(const failure_report& mine) {
  const std::string message = mine.message.substr(0, max_message);
  const bool failed = !message.empty();
  const std::vector<std::int64_t> all =
      allgather({failed ? 1 : 0, mine.code, static_cast<std::int64_t>(message.size())});
  const auto at = [&](int p, int field) { return all[static_cast<std::size_t>(p) * 3 + field]; };
  int first = -1, failures = 0;
  for (int p = 0; p < size_; ++p) {
    if (at(p, 0) == 0) continue;
    if (first < 0) first = p;
    ++failures;
  }
  if (first < 0) return;

  // Only process 0 prints: it gets every message, the others learn the exit code.
  std::vector<int> lengths(static_cast<std::size_t>(size_)), offsets(static_cast<std::size_t>(size_));
  int total = 0;
  for (int p = 0; p < size_; ++p) {
    lengths[static_cast<std::size_t>(p)] = static_cast<int>(at(p, 2));
    offsets[static_cast<std::size_t>(p)] = total;
    total += static_cast<int>(at(p, 2));
  }
  std::string texts(rank_ == 0 ? static_cast<std::size_t>(total) : 0, '\0');
  check(MPI_Gatherv(message.data(), static_cast<int>(message.size()), MPI_CHAR, texts.data(), lengths.data(),
                    offsets.data(), MPI_CHAR, 0, MPI_COMM_WORLD),
        "MPI_Gatherv");
  const auto code = static_cast<int>(at(first, 1));
  if (rank_ != 0) throw agreed_failure(message, code);
  const auto text_of = [&](int p) {
    return texts.substr(static_cast<std::size_t>(offsets[static_cast<std::size_t>(p)]),
                        static_cast<std::size_t>(lengths[static_cast<std::size_t>(p)]));
  };
  const std::string first_text = text_of(first);
  bool alike = failures == size_;
  for (int p = 0; p < size_ && alike; ++p) alike = text_of(p) == first_text;
  // The same mistake everywhere (a bad option, a malformed shared file) needs no process named.
  if (alike) throw agreed_failure(first_text, code);
  std::string report = "process " + std::to_string(first) + ": " + first_text;
  if (failures > 1)
    report += " (and " + std::to_string(failures - 1) + (failures == 2 ? " other process" : " other processes") +
              " failed)";
  throw agreed_failure(report, code);
}

void mpi_job::abort(int code) noexcept {
  MPI_Abort(MPI_COMM_WORLD, code);
  std::_Exit(code);  // MPI_Abort should not return; if it does, this process still ends
}

}  // namespace kselect_cli
