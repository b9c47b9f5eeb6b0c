// The distributed calls with one GPU per process (label multigpu; run on a machine
// with at least as many GPUs as processes, scripts/multigpu-check.sh): each process
// binds the GPU of its rank on the host, copies its slice of the global array there,
// and the counts travel over MPI (host buffers) and over NCCL (on the stream). Every
// answer is compared bit for bit with the single-process CPU answer on the
// concatenation, for even and uneven shards, a GPU with no data and all data on one.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "core/key_traits.hpp"
#include "kselect/kselect.hpp"
#include "kselect/mpi.hpp"
#include "mpi_device_data.hpp"
#include "mpi_test_data.hpp"

namespace kselect::mpi_test {
namespace {

// KSELECT_TEST_VERBOSE=1: each case's name on stderr before it runs (where a job hangs).
bool verbose() {
  static const bool on = [] {
    const char* v = std::getenv("KSELECT_TEST_VERBOSE");
    return v && *v && *v != '0';
  }();
  return on;
}

template <class T>
class MpiMultiDevice : public ::testing::Test {
 protected:
  void SetUp() override {
    // Too few GPUs is a machine these tests do not apply to (ctest -L gpu also
    // matches the label multigpu): every process skips, decided together so that none
    // goes on alone into the collectives.
    int devices = 0;
    check(cudaGetDeviceCount(&devices), "cudaGetDeviceCount");
    int enough = devices >= world_size() ? 1 : 0;
    MPI_Allreduce(MPI_IN_PLACE, &enough, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (!enough)
      GTEST_SKIP() << "the multigpu tests need one GPU per process: " << devices << " GPU(s) here for "
                   << world_size() << " processes";
    ASSERT_GE(mpi::use_local_gpu(MPI_COMM_WORLD), 0);
    ASSERT_TRUE(mpi::nccl_available()) << "this kselect was built without NCCL (KSELECT_WITH_NCCL)";
  }
};
using KeyTypes = ::testing::Types<float, double, std::int32_t, std::uint64_t>;
TYPED_TEST_SUITE(MpiMultiDevice, KeyTypes);

TYPED_TEST(MpiMultiDevice, MatchesTheSingleProcessAnswer) {
  using T = TypeParam;
  using R = quantile_value_t<T>;
  const int me = world_rank(), processes = world_size();
  std::vector<double> qs(101);
  for (int i = 0; i <= 100; ++i) qs[static_cast<std::size_t>(i)] = i / 100.0;
  std::uint64_t seed = 991;
  for (const std::int64_t n : {std::int64_t{1}, std::int64_t{33}, std::int64_t{(1 << 20) + 3}}) {
    for (const dist d : {dist::uniform, dist::normal, dist::sorted, dist::all_equal, dist::two_values,
                         dist::sixteen_values, dist::clustered, dist::specials}) {
      const std::vector<T> global = make_global<T>(d, n, ++seed);
      options cpu;
      cpu.device = device_kind::cpu;
      const std::vector<R> want = kselect::quantile(global.data(), n, qs, quantile_method::linear, cpu);
      const std::vector<std::int64_t> ranks = {0, n / 2, n - 1};
      const std::vector<T> want_at = kselect::multiselect(global.data(), n, ranks, cpu);
      for (const layout l : all_layouts) {
        const auto [begin, end] = slice(l, n, me, processes);
        device_array<T> mine(global.data() + begin, end - begin);
        for (const mpi::transport via : {mpi::transport::mpi, mpi::transport::nccl}) {
          for (const mpi::algorithm a : {mpi::algorithm::dibms, mpi::algorithm::distributed_bms}) {
            SCOPED_TRACE(::testing::Message() << "n=" << n << " " << name(d) << " " << name(l) << " "
                                              << mpi::to_string(a) << " over " << mpi::to_string(via));
            if (verbose() && me == 0)
              std::fprintf(stderr, "[multidevice %.3f s] n=%lld %s %s %s over %s\n", MPI_Wtime(),
                           static_cast<long long>(n), name(d), name(l), mpi::to_string(a), mpi::to_string(via));
            mpi::options opt;
            opt.algo = a;
            opt.counts = via;
            mpi::report rep;
            const std::vector<R> q =
                mpi::quantile(MPI_COMM_WORLD, mine.p, end - begin, qs, quantile_method::linear, opt, &rep);
            ASSERT_EQ(q.size(), qs.size());
            for (std::size_t i = 0; i < qs.size(); ++i)
              EXPECT_TRUE(same_bits(q[i], want[i])) << "q=" << qs[i] << ": " << q[i] << " vs " << want[i];
            if (a == mpi::algorithm::dibms) {
              EXPECT_LE(rep.bytes_sent, 1 << 20);
              // The "<= 2 rounds" for 16 distinct values is the benchmark's
              // (bench/mpi checks it at 2^26 and 2^28 keys per process); some samples
              // take a third round here (seen: double, 2^20 + 3 keys, all on the last
              // of 4 processes).
              if (d == dist::all_equal) EXPECT_LE(rep.rounds, 2);
              if (d == dist::sixteen_values) EXPECT_LE(rep.rounds, 3);
            }
            const std::vector<T> at = mpi::multiselect(MPI_COMM_WORLD, mine.p, end - begin, ranks, opt);
            ASSERT_EQ(at.size(), ranks.size());
            for (std::size_t i = 0; i < ranks.size(); ++i)
              EXPECT_TRUE(same_bits(at[i], want_at[i])) << "rank " << ranks[i];
            // Top-k: this process's part, every element an input element beyond the k-th.
            topk_options t;
            t.largest = true;
            const std::int64_t k = std::min<std::int64_t>(n, 1000);
            const selection<T> part = mpi::topk(MPI_COMM_WORLD, mine.p, end - begin, k, t, opt);
            ASSERT_NO_FATAL_FAILURE(
                check_topk_part(part, global, begin, end, k, kselect::select(global.data(), n, n - k, cpu)));
          }
        }
      }
    }
  }
}

// The two transports agree on what they report: the same rounds and candidates, and
// the NCCL rounds counted among the collectives.
TEST(MpiMultiDeviceReport, TransportsCountTheSameRounds) {
  ASSERT_GE(mpi::use_local_gpu(MPI_COMM_WORLD), 0);
  const std::int64_t n = std::int64_t{1} << 22;
  const std::vector<float> global = make_global<float>(dist::normal, n, 5);
  const auto [begin, end] = slice(layout::uneven, n, world_rank(), world_size());
  device_array<float> mine(global.data() + begin, end - begin);
  std::vector<double> qs(101);
  for (int i = 0; i <= 100; ++i) qs[static_cast<std::size_t>(i)] = i / 100.0;
  mpi::report by_mpi, by_nccl;
  mpi::options opt;
  const auto a = mpi::quantile(MPI_COMM_WORLD, mine.p, end - begin, qs, quantile_method::linear, opt, &by_mpi);
  opt.counts = mpi::transport::nccl;
  const auto b = mpi::quantile(MPI_COMM_WORLD, mine.p, end - begin, qs, quantile_method::linear, opt, &by_nccl);
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) EXPECT_TRUE(same_bits(a[i], b[i]));
  EXPECT_EQ(by_mpi.rounds, by_nccl.rounds);
  EXPECT_EQ(by_mpi.candidates_after_round, by_nccl.candidates_after_round);
  EXPECT_GT(by_nccl.collectives, by_nccl.rounds);
  EXPECT_LE(by_nccl.bytes_sent, 1 << 20);
}

}  // namespace
}  // namespace kselect::mpi_test
