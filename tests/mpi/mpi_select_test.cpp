// kselect::mpi select, multiselect, quantile and nanquantile against the
// single-process owning API on the concatenated shards: every key type, generated
// distributions (NaN, +-inf, -0.0, denormals, ties), uneven and empty shards, the three
// algorithms, ranks 0, 1, n/2, n-1 and 101 percentiles; rounds and bytes of DIBMS.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <vector>

#include "core/key_traits.hpp"
#include "kselect/kselect.hpp"
#include "kselect/mpi.hpp"
#include "mpi_test_data.hpp"

namespace kselect::mpi_test {
namespace {

// Answers are elements of the input (quantiles NumPy's bits), as in the owning API:
// the same bits, so that -0.0 against +0.0 and one NaN against another fail.
template <class T>
bool same_bits(T a, T b) {
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}

std::vector<double> percentiles() {
  std::vector<double> q(101);
  for (int i = 0; i <= 100; ++i) q[static_cast<std::size_t>(i)] = i / 100.0;
  return q;
}

struct algo_case {
  const char* label;
  mpi::options opt;
};
std::vector<algo_case> algo_cases() {
  mpi::options dibms;
  mpi::options iterate = dibms;
  iterate.gather_keys = 0;  // no final gather: rounds until every rank is exact
  iterate.buckets = 64;     // few buckets: many rounds, every planning path
  iterate.pivot_intervals = 4;
  mpi::options dbms = dibms;
  dbms.algo = mpi::algorithm::distributed_bms;
  mpi::options sort = dibms;
  sort.algo = mpi::algorithm::sort_and_choose;
  mpi::options on_root = dibms;
  on_root.root = world_size() - 1;
  for (auto* o : {&dibms, &iterate, &dbms, &sort, &on_root}) o->local.device = device_kind::cpu;
  return {{"dibms", dibms}, {"dibms_iterate", iterate}, {"distributed_bms", dbms}, {"sort_and_choose", sort},
          {"dibms_on_last_root", on_root}};
}

template <class T>
class MpiSelect : public ::testing::Test {};
using KeyTypes = ::testing::Types<float, double, std::int32_t, std::uint32_t, std::int64_t, std::uint64_t>;
TYPED_TEST_SUITE(MpiSelect, KeyTypes);

TYPED_TEST(MpiSelect, MatchesTheSingleProcessAnswerOnTheConcatenation) {
  using T = TypeParam;
  using R = quantile_value_t<T>;
  const int me = world_rank(), processes = world_size();
  const std::vector<double> qs = percentiles();
  std::uint64_t seed = 1;
  for (const std::int64_t n : {std::int64_t{1}, std::int64_t{2}, std::int64_t{33}, std::int64_t{1025},
                               std::int64_t{100003}}) {
    for (const dist d : all_dists) {
      const std::vector<T> global = make_global<T>(d, n, ++seed);
      options local;
      local.device = device_kind::cpu;
      const std::vector<std::int64_t> ranks = {0, std::min<std::int64_t>(1, n - 1), n / 2, n - 1};
      const std::vector<T> want_ranks = kselect::multiselect(global.data(), n, ranks, local);
      const std::vector<R> want_q = kselect::quantile(global.data(), n, qs, quantile_method::linear, local);
      const std::vector<R> want_nan_q = kselect::nanquantile(global.data(), n, qs, quantile_method::linear, local);
      const std::vector<R> want_lower = kselect::quantile(global.data(), n, qs, quantile_method::lower, local);
      for (const layout l : all_layouts) {
        if (n > 2000 && l == layout::all_on_last && d != dist::uniform) continue;  // time
        const auto [begin, end] = slice(l, n, me, processes);
        const T* mine = global.data() + begin;
        const std::int64_t mine_n = end - begin;
        for (const algo_case& a : algo_cases()) {
          SCOPED_TRACE(::testing::Message() << "n=" << n << " " << name(d) << " " << name(l) << " " << a.label);
          const bool has_answers = a.opt.root < 0 || a.opt.root == me;
          mpi::report rep;
          const T k_half = mpi::select(MPI_COMM_WORLD, mine, mine_n, n / 2, a.opt, &rep);
          EXPECT_TRUE(same_bits(k_half, want_ranks[2]));
          EXPECT_EQ(rep.global_size, n);
          const std::vector<T> got = mpi::multiselect(MPI_COMM_WORLD, mine, mine_n, ranks, a.opt, &rep);
          if (has_answers) {
            ASSERT_EQ(got.size(), ranks.size());
            for (std::size_t i = 0; i < ranks.size(); ++i)
              EXPECT_TRUE(same_bits(got[i], want_ranks[i])) << "rank " << ranks[i];
          } else {
            EXPECT_TRUE(got.empty());
          }
          const std::vector<R> q = mpi::quantile(MPI_COMM_WORLD, mine, mine_n, qs, quantile_method::linear, a.opt, &rep);
          if (has_answers) {
            ASSERT_EQ(q.size(), qs.size());
            for (std::size_t i = 0; i < qs.size(); ++i)
              EXPECT_TRUE(same_bits(q[i], want_q[i])) << "q=" << qs[i] << ": " << q[i] << " vs " << want_q[i];
          }
          if (a.opt.algo == mpi::algorithm::dibms) EXPECT_LE(rep.bytes_sent, 1 << 20);
          if (a.opt.algo == mpi::algorithm::dibms && a.opt.buckets == mpi::options{}.buckets) {
            // The round targets, with the default options (dibms_iterate's 4
            // pivot intervals cannot separate 16 values in one round).
            if (d == dist::all_equal || d == dist::sixteen_values || d == dist::two_values)
              EXPECT_LE(rep.rounds, 2) << "rounds";
          }
          const std::vector<R> nq =
              mpi::nanquantile(MPI_COMM_WORLD, mine, mine_n, qs, quantile_method::linear, a.opt, &rep);
          const std::vector<R> lq = mpi::quantile(MPI_COMM_WORLD, mine, mine_n, qs, quantile_method::lower, a.opt, &rep);
          if (has_answers) {
            for (std::size_t i = 0; i < qs.size(); ++i) {
              EXPECT_TRUE(same_bits(nq[i], want_nan_q[i])) << "nanquantile q=" << qs[i];
              EXPECT_TRUE(same_bits(lq[i], want_lower[i])) << "lower q=" << qs[i];
            }
          }
        }
      }
    }
  }
}

// Answers that are a zero or a NaN are the element the stable sort holds there, bit
// for bit, whether the key has one bit pattern (no lookup: the canonical value, or
// -0.0 when every zero is -0.0) or several (a lookup in index order).
template <class T>
class MpiSelectBits : public ::testing::Test {};
using FloatTypes = ::testing::Types<float, double>;
TYPED_TEST_SUITE(MpiSelectBits, FloatTypes);

TYPED_TEST(MpiSelectBits, ZerosAndNansOfOneOrSeveralBitPatterns) {
  using T = TypeParam;
  const int me = world_rank(), processes = world_size();
  for (const std::int64_t n : {std::int64_t{7}, std::int64_t{1000}, std::int64_t{100003}}) {
    for (const bit_mix m : all_bit_mixes) {
      const std::vector<T> global = make_bit_mix<T>(m, n, 31 + static_cast<std::uint64_t>(n));
      options local;
      local.device = device_kind::cpu;
      std::vector<std::int64_t> ranks;
      for (std::int64_t i = 0; i < 101; ++i) ranks.push_back(i * (n - 1) / 100);
      ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
      const std::vector<T> want = kselect::multiselect(global.data(), n, ranks, local);
      for (const layout l : {layout::even, layout::uneven, layout::first_empty}) {
        const auto [begin, end] = slice(l, n, me, processes);
        for (const algo_case& a : algo_cases()) {
          SCOPED_TRACE(::testing::Message() << "n=" << n << " " << name(m) << " " << name(l) << " " << a.label);
          const std::vector<T> got = mpi::multiselect(MPI_COMM_WORLD, global.data() + begin, end - begin, ranks, a.opt);
          if (a.opt.root >= 0 && a.opt.root != me) continue;
          ASSERT_EQ(got.size(), ranks.size());
          for (std::size_t i = 0; i < ranks.size(); ++i)
            EXPECT_TRUE(same_bits(got[i], want[i])) << "rank " << ranks[i] << ": " << got[i] << " vs " << want[i];
        }
      }
    }
  }
}

// The round targets at a size where they mean something (all processes'
// keys in all: 2^20), 101 percentiles.
TEST(MpiSelectRounds, FewRoundsOnEveryDistribution) {
  const int me = world_rank(), processes = world_size();
  const std::int64_t n = std::int64_t{1} << 20;
  const std::vector<double> qs = percentiles();
  for (const dist d : {dist::uniform, dist::normal, dist::clustered, dist::all_equal, dist::sixteen_values}) {
    const std::vector<float> global = make_global<float>(d, n, 99);
    const auto [begin, end] = slice(layout::even, n, me, processes);
    mpi::options opt;
    opt.local.device = device_kind::cpu;
    mpi::report rep;
    (void)mpi::quantile(MPI_COMM_WORLD, global.data() + begin, end - begin, qs, quantile_method::linear, opt, &rep);
    const int limit = (d == dist::all_equal || d == dist::sixteen_values) ? 2 : 4;
    EXPECT_LE(rep.rounds, limit) << name(d);
    EXPECT_LE(rep.bytes_sent, 1 << 20) << name(d);
    if (me == 0)
      std::printf("  %-16s rounds %d, collectives %d, bytes sent %lld, gathered %lld\n", name(d), rep.rounds,
                  rep.collectives, static_cast<long long>(rep.bytes_sent), static_cast<long long>(rep.gathered_keys));
  }
}

// A global size above 2^31: two processes with 2^30 + 5 and 2^30 + 7 int32 keys, key
// (i * 7919) mod M at global index i, so the reference comes from counting, not sorting.
TEST(MpiSelectLarge, GlobalSizeAboveTwoPow31) {
  const int me = world_rank(), processes = world_size();
  const std::int64_t sizes[2] = {(std::int64_t{1} << 30) + 5, (std::int64_t{1} << 30) + 7};
  if (processes != 2) GTEST_SKIP() << "runs with 2 processes";
  const std::int64_t n = sizes[0] + sizes[1];
  constexpr std::int64_t m = 1000003;  // prime, so each block of m indices holds every key once
  const std::int64_t begin = me == 0 ? 0 : sizes[0], count = sizes[me];
  std::vector<std::int32_t> mine(static_cast<std::size_t>(count));
#pragma omp parallel for
  for (std::int64_t i = 0; i < count; ++i)
    mine[static_cast<std::size_t>(i)] = static_cast<std::int32_t>(((begin + i) * 7919) % m) - 500000;
  // Occurrences of each key: n / m full blocks, then the tail's own keys.
  std::vector<std::int64_t> occurrences(m, n / m);
  for (std::int64_t i = (n / m) * m; i < n; ++i) ++occurrences[static_cast<std::size_t>((i * 7919) % m)];
  auto reference = [&](std::int64_t rank) {
    std::int64_t seen = 0;
    for (std::int64_t v = 0; v < m; ++v) {
      seen += occurrences[static_cast<std::size_t>(v)];
      if (seen > rank) return static_cast<std::int32_t>(v - 500000);
    }
    return std::int32_t{0};
  };
  const std::vector<std::int64_t> ranks = {0, 1, n / 2, (std::int64_t{1} << 31) + 1, n - 1};
  mpi::options opt;
  opt.local.device = device_kind::cpu;
  mpi::report rep;
  const std::vector<std::int32_t> got = mpi::multiselect(MPI_COMM_WORLD, mine.data(), count, ranks, opt, &rep);
  EXPECT_EQ(rep.global_size, n);
  ASSERT_EQ(got.size(), ranks.size());
  for (std::size_t i = 0; i < ranks.size(); ++i) EXPECT_EQ(got[i], reference(ranks[i])) << "rank " << ranks[i];
  EXPECT_LE(rep.bytes_sent, 1 << 20);
}

}  // namespace
}  // namespace kselect::mpi_test
