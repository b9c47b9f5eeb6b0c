// The distributed calls over device memory, several processes sharing one GPU (or
// one GPU each where there are enough): each process copies its slice of the global
// array to its GPU and the calls pick the CUDA backend from the pointer. Compared
// with the single-process CPU answer on the concatenation. Suite names contain
// "Gpu" (CTest runs them as mpi.gpu.np*, label gpu).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/key_traits.hpp"
#include "kselect/kselect.hpp"
#include "kselect/mpi.hpp"
#include "mpi_device_data.hpp"
#include "mpi_test_data.hpp"

namespace kselect::mpi_test {
namespace {

// Binds this process's GPU: local rank modulo the GPUs present.
void bind_gpu() {
  if (mpi::use_local_gpu(MPI_COMM_WORLD) < 0) throw std::runtime_error("no CUDA device");
}

template <class T>
class MpiGpu : public ::testing::Test {
 protected:
  void SetUp() override { bind_gpu(); }
};
using KeyTypes = ::testing::Types<float, double, std::int32_t, std::uint64_t>;
TYPED_TEST_SUITE(MpiGpu, KeyTypes);

TYPED_TEST(MpiGpu, MatchesTheSingleProcessAnswer) {
  using T = TypeParam;
  using R = quantile_value_t<T>;
  const int me = world_rank(), processes = world_size();
  std::vector<double> qs(101);
  for (int i = 0; i <= 100; ++i) qs[static_cast<std::size_t>(i)] = i / 100.0;
  std::uint64_t seed = 77;
  for (const std::int64_t n : {std::int64_t{1}, std::int64_t{1000}, std::int64_t{(1 << 22) + 3}}) {
    for (const dist d : {dist::uniform, dist::normal, dist::all_equal, dist::sixteen_values, dist::clustered,
                         dist::specials, dist::sorted}) {
      const std::vector<T> global = make_global<T>(d, n, ++seed);
      options local;
      local.device = device_kind::cpu;
      const std::vector<R> want = kselect::quantile(global.data(), n, qs, quantile_method::linear, local);
      const std::vector<R> want_nan = kselect::nanquantile(global.data(), n, qs, quantile_method::linear, local);
      for (const layout l : {layout::even, layout::uneven, layout::first_empty}) {
        const auto [begin, end] = slice(l, n, me, processes);
        device_array<T> mine(global.data() + begin, end - begin);
        for (const mpi::algorithm a : {mpi::algorithm::dibms, mpi::algorithm::distributed_bms,
                                       mpi::algorithm::sort_and_choose}) {
          SCOPED_TRACE(::testing::Message() << "n=" << n << " " << name(d) << " " << name(l) << " "
                                            << mpi::to_string(a));
          mpi::options opt;
          opt.algo = a;
          mpi::report rep;
          const std::vector<R> q =
              mpi::quantile(MPI_COMM_WORLD, mine.p, end - begin, qs, quantile_method::linear, opt, &rep);
          const std::vector<R> nq =
              mpi::nanquantile(MPI_COMM_WORLD, mine.p, end - begin, qs, quantile_method::linear, opt, &rep);
          ASSERT_EQ(q.size(), qs.size());
          for (std::size_t i = 0; i < qs.size(); ++i) {
            EXPECT_TRUE(same_bits(q[i], want[i])) << "q=" << qs[i] << ": " << q[i] << " vs " << want[i];
            EXPECT_TRUE(same_bits(nq[i], want_nan[i])) << "nanquantile q=" << qs[i];
          }
          if (a == mpi::algorithm::dibms) {
            EXPECT_LE(rep.bytes_sent, 1 << 20);
            if (d == dist::all_equal || d == dist::sixteen_values) EXPECT_LE(rep.rounds, 2);
          }
          // Top-k over device memory: this process's part, checked against the input.
          topk_options t;
          t.largest = true;
          const std::int64_t k = std::min<std::int64_t>(n, 1000);
          const selection<T> part = mpi::topk(MPI_COMM_WORLD, mine.p, end - begin, k, t, opt);
          const T kth = mpi::select(MPI_COMM_WORLD, mine.p, end - begin, n - k, opt);
          ASSERT_NO_FATAL_FAILURE(check_topk_part(part, global, begin, end, k, kth));
        }
      }
    }
  }
}

// Zeros and NaNs of one bit pattern or several over device memory (the CPU suite's
// MpiSelectBits, through the CUDA shard's counts_of_key and equal_element).
template <class T>
class MpiGpuBits : public ::testing::Test {
 protected:
  void SetUp() override { bind_gpu(); }
};
using FloatTypes = ::testing::Types<float, double>;
TYPED_TEST_SUITE(MpiGpuBits, FloatTypes);

TYPED_TEST(MpiGpuBits, ZerosAndNansOfOneOrSeveralBitPatterns) {
  using T = TypeParam;
  const int me = world_rank(), processes = world_size();
  const std::int64_t n = (1 << 20) + 7;
  for (const bit_mix m : all_bit_mixes) {
    const std::vector<T> global = make_bit_mix<T>(m, n, 41);
    options local;
    local.device = device_kind::cpu;
    std::vector<std::int64_t> ranks;
    for (std::int64_t i = 0; i < 101; ++i) ranks.push_back(i * (n - 1) / 100);
    const std::vector<T> want = kselect::multiselect(global.data(), n, ranks, local);
    const auto [begin, end] = slice(layout::uneven, n, me, processes);
    device_array<T> mine(global.data() + begin, end - begin);
    SCOPED_TRACE(name(m));
    const std::vector<T> got = mpi::multiselect(MPI_COMM_WORLD, mine.p, end - begin, ranks, {});
    ASSERT_EQ(got.size(), ranks.size());
    for (std::size_t i = 0; i < ranks.size(); ++i)
      EXPECT_TRUE(same_bits(got[i], want[i])) << "rank " << ranks[i] << ": " << got[i] << " vs " << want[i];
  }
}

// The NCCL count transport needs one GPU per process: processes sharing one get a
// clear error on every process (not NCCL's own failure or a hang), and the MPI
// transport still works afterwards.
TEST(MpiGpuErrors, NcclNeedsOneGpuPerProcess) {
  bind_gpu();
  int devices = 0;
  check(cudaGetDeviceCount(&devices), "cudaGetDeviceCount");
  if (world_size() <= devices) GTEST_SKIP() << "one GPU per process here: mpi_multidevice_test.cpp runs NCCL";
  const std::vector<float> host(100, static_cast<float>(world_rank()));
  device_array<float> mine(host.data(), 100);
  mpi::options opt;
  opt.counts = mpi::transport::nccl;
  try {
    mpi::select(MPI_COMM_WORLD, mine.p, 100, 5, opt);
    ADD_FAILURE() << "no error for NCCL on processes sharing a GPU";
  } catch (const std::invalid_argument& e) {
    const std::string what = e.what();
    EXPECT_TRUE(what.find("same GPU") != std::string::npos || what.find("built without NCCL") != std::string::npos)
        << what;
  }
  EXPECT_EQ(mpi::select(MPI_COMM_WORLD, mine.p, 100, 0, {}), 0.0f);
}

// More than 2^31 keys over the processes' device memory: key (i * 7919) mod M at
// global index i, as float (exact below 2^24), the reference from counting.
TEST(MpiGpuLarge, GlobalSizeAboveTwoPow31) {
  bind_gpu();
  const int me = world_rank(), processes = world_size();
  const std::int64_t n = (std::int64_t{1} << 31) + 12345;
  constexpr std::int64_t m = 1000003;
  const auto [begin, end] = slice(layout::uneven, n, me, processes);
  std::vector<float> host(static_cast<std::size_t>(end - begin));
#pragma omp parallel for
  for (std::int64_t i = begin; i < end; ++i) host[static_cast<std::size_t>(i - begin)] = static_cast<float>((i * 7919) % m);
  device_array<float> mine(host.data(), end - begin);
  std::vector<float>().swap(host);
  std::vector<std::int64_t> occurrences(m, n / m);
  for (std::int64_t i = (n / m) * m; i < n; ++i) ++occurrences[static_cast<std::size_t>((i * 7919) % m)];
  auto reference = [&](std::int64_t rank) {
    std::int64_t seen = 0;
    for (std::int64_t v = 0; v < m; ++v) {
      seen += occurrences[static_cast<std::size_t>(v)];
      if (seen > rank) return static_cast<float>(v);
    }
    return -1.0f;
  };
  const std::vector<std::int64_t> ranks = {0, 1, n / 2, (std::int64_t{1} << 31) + 1, n - 1};
  mpi::report rep;
  const std::vector<float> got = mpi::multiselect(MPI_COMM_WORLD, mine.p, end - begin, ranks, {}, &rep);
  EXPECT_EQ(rep.global_size, n);
  ASSERT_EQ(got.size(), ranks.size());
  for (std::size_t i = 0; i < ranks.size(); ++i) EXPECT_EQ(got[i], reference(ranks[i])) << "rank " << ranks[i];
  EXPECT_LE(rep.bytes_sent, 1 << 20);
  if (me == 0)
    std::printf("  > 2^31 keys on %d processes: rounds %d, bytes sent %lld\n", processes, rep.rounds,
                static_cast<long long>(rep.bytes_sent));
}

}  // namespace
}  // namespace kselect::mpi_test
