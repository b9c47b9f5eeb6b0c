// Bad input to the distributed calls: the same clear error on every process, never a
// hang (a process that threw alone would leave the others in a collective; these
// tests would then time out).
#include <gtest/gtest.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "kselect/mpi.hpp"
#include "mpi_test_data.hpp"

namespace kselect::mpi_test {
namespace {

mpi::options cpu_options() {
  mpi::options o;
  o.local.device = device_kind::cpu;
  return o;
}

// f throws std::invalid_argument whose message contains `text`, on this process.
template <class F>
void expect_invalid(F&& f, const std::string& text) {
  try {
    f();
    ADD_FAILURE() << "no exception (expected one mentioning '" << text << "')";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find(text), std::string::npos) << e.what();
  }
}

TEST(MpiErrors, OutOfRangeRanksAndEmptyInput) {
  const int me = world_rank();
  std::vector<float> mine(10, static_cast<float>(me));
  const std::int64_t n = 10 * world_size();
  expect_invalid([&] { mpi::select(MPI_COMM_WORLD, mine.data(), 10, n, cpu_options()); }, "outside [0, ");
  expect_invalid([&] { mpi::select(MPI_COMM_WORLD, mine.data(), 10, -1, cpu_options()); }, "outside [0, ");
  const std::vector<std::int64_t> ranks = {0, n};
  expect_invalid([&] { mpi::multiselect(MPI_COMM_WORLD, mine.data(), 10, ranks, cpu_options()); }, "");
  expect_invalid([&] { mpi::topk(MPI_COMM_WORLD, mine.data(), 10, n + 1, {}, cpu_options()); }, "outside [0, ");
  expect_invalid([&] { mpi::select(MPI_COMM_WORLD, mine.data(), 0, 0, cpu_options()); }, "empty");
  const std::vector<double> bad_q = {0.5, 1.5};
  expect_invalid([&] { mpi::quantile(MPI_COMM_WORLD, mine.data(), 10, bad_q, quantile_method::linear, cpu_options()); },
                 "");
  expect_invalid([&] { mpi::select<float>(MPI_COMM_NULL, mine.data(), 10, 0, cpu_options()); }, "MPI_COMM_NULL");
  // The library is still usable afterwards.
  EXPECT_EQ(mpi::select(MPI_COMM_WORLD, mine.data(), 10, 0, cpu_options()), 0.0f);
}

TEST(MpiErrors, ProcessesDisagreeing) {
  if (world_size() < 2) GTEST_SKIP() << "needs 2 processes";
  const int me = world_rank();
  std::vector<float> f(10, 1.0f);
  std::vector<double> d(10, 1.0);
  // Different ranks on one process.
  expect_invalid([&] { mpi::select(MPI_COMM_WORLD, f.data(), 10, me == 1 ? 3 : 2, cpu_options()); },
                 "different arguments");
  // Different key types (dtypes).
  expect_invalid(
      [&] {
        if (me == 1) mpi::select(MPI_COMM_WORLD, d.data(), 10, 2, cpu_options());
        else mpi::select(MPI_COMM_WORLD, f.data(), 10, 2, cpu_options());
      },
      "key type");
  // Different quantiles, a bad q on one process only, different options.
  std::vector<double> qs = {0.25, 0.5};
  if (me == 1) qs[1] = 0.75;
  expect_invalid([&] { mpi::quantile(MPI_COMM_WORLD, f.data(), 10, qs, quantile_method::linear, cpu_options()); },
                 "different arguments");
  std::vector<double> bad = {0.5};
  if (me == 1) bad[0] = -1.0;
  expect_invalid([&] { mpi::quantile(MPI_COMM_WORLD, f.data(), 10, bad, quantile_method::linear, cpu_options()); },
                 "process 1");
  mpi::options o = cpu_options();
  if (me == 1) o.algo = mpi::algorithm::sort_and_choose;
  expect_invalid([&] { mpi::select(MPI_COMM_WORLD, f.data(), 10, 2, o); }, "options.algo");
  o = cpu_options();
  if (me == 1) o.counts = mpi::transport::nccl;
  expect_invalid([&] { mpi::select(MPI_COMM_WORLD, f.data(), 10, 2, o); }, "options.counts");
  // A null pointer with n > 0 on one process.
  expect_invalid([&] { mpi::select(MPI_COMM_WORLD, me == 1 ? nullptr : f.data(), 10, 2, cpu_options()); },
                 "process 1: values is null");
  EXPECT_EQ(mpi::select(MPI_COMM_WORLD, f.data(), 10, 2, cpu_options()), 1.0f);
}

// The NCCL count transport where it cannot run: without a GPU (CI) or without NCCL in
// the build, the same clear error on every process, and the library still usable.
// (On GPUs: mpi_gpu_test.cpp checks processes sharing one, mpi_multidevice_test.cpp
// the transport at work.)
TEST(MpiErrors, NcclTransportWithoutGpus) {
  if (cuda_available() && mpi::nccl_available()) GTEST_SKIP() << "GPUs and NCCL present: the GPU suites test it";
  std::vector<float> f(10, static_cast<float>(world_rank()));
  mpi::options o = cpu_options();
  o.counts = mpi::transport::nccl;
  expect_invalid([&] { mpi::select(MPI_COMM_WORLD, f.data(), 10, 2, o); },
                 mpi::nccl_available() ? "needs a GPU on every process" : "built without NCCL");
  EXPECT_EQ(mpi::select(MPI_COMM_WORLD, f.data(), 10, 0, cpu_options()), 0.0f);
  EXPECT_STREQ(mpi::to_string(mpi::parse_transport("nccl")), "nccl");
  EXPECT_THROW(mpi::parse_transport("tcp"), std::invalid_argument);
}

}  // namespace
}  // namespace kselect::mpi_test
