// kselect::mpi::topk against the single-process deterministic top-k on the
// concatenated shards: the union of the processes' parts (or the root's whole answer)
// holds the same global indices and values, ties going to the lowest indices.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "kselect/kselect.hpp"
#include "kselect/mpi.hpp"
#include "mpi_test_data.hpp"

namespace kselect::mpi_test {
namespace {

template <class T>
bool same_bits(T a, T b) {
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}

// Every process's part, concatenated in process order, on every process.
template <class T>
selection<T> gather_parts(const selection<T>& mine) {
  const int processes = world_size();
  const long long count = static_cast<long long>(mine.values.size());
  std::vector<long long> counts(static_cast<std::size_t>(processes));
  MPI_Allgather(&count, 1, MPI_LONG_LONG, counts.data(), 1, MPI_LONG_LONG, MPI_COMM_WORLD);
  std::vector<int> bytes(counts.size()), displs(counts.size()), ibytes(counts.size()), idispls(counts.size());
  int at = 0, iat = 0;
  for (std::size_t p = 0; p < counts.size(); ++p) {
    bytes[p] = static_cast<int>(counts[p] * sizeof(T));
    displs[p] = at;
    at += bytes[p];
    ibytes[p] = static_cast<int>(counts[p] * sizeof(std::int64_t));
    idispls[p] = iat;
    iat += ibytes[p];
  }
  selection<T> all;
  all.values.resize(static_cast<std::size_t>(at) / sizeof(T));
  all.indices.resize(static_cast<std::size_t>(iat) / sizeof(std::int64_t));
  MPI_Allgatherv(mine.values.data(), bytes[static_cast<std::size_t>(world_rank())], MPI_BYTE, all.values.data(),
                 bytes.data(), displs.data(), MPI_BYTE, MPI_COMM_WORLD);
  MPI_Allgatherv(mine.indices.data(), ibytes[static_cast<std::size_t>(world_rank())], MPI_BYTE,
                 all.indices.data(), ibytes.data(), idispls.data(), MPI_BYTE, MPI_COMM_WORLD);
  return all;
}

template <class T>
class MpiTopk : public ::testing::Test {};
using KeyTypes = ::testing::Types<float, double, std::int32_t, std::uint64_t>;
TYPED_TEST_SUITE(MpiTopk, KeyTypes);

TYPED_TEST(MpiTopk, PartsMakeTheSingleProcessDeterministicAnswer) {
  using T = TypeParam;
  const int me = world_rank(), processes = world_size();
  std::uint64_t seed = 500;
  for (const std::int64_t n : {std::int64_t{1}, std::int64_t{33}, std::int64_t{4099}}) {
    for (const dist d : {dist::uniform, dist::all_equal, dist::sixteen_values, dist::specials, dist::sorted}) {
      const std::vector<T> global = make_global<T>(d, n, ++seed);
      for (const layout l : {layout::even, layout::uneven, layout::first_empty}) {
        const auto [begin, end] = slice(l, n, me, processes);
        for (const std::int64_t k : {std::int64_t{0}, std::int64_t{1}, n / 3, n}) {
          for (const bool largest : {false, true}) {
            for (const bool sorted : {false, true}) {
              for (const int root : {-1, 0}) {
                SCOPED_TRACE(::testing::Message() << "n=" << n << " " << name(d) << " " << name(l) << " k=" << k
                                                  << " largest=" << largest << " sorted=" << sorted << " root=" << root);
                topk_options t;
                t.largest = largest;
                t.sorted = sorted;
                t.deterministic = true;
                options local;
                local.device = device_kind::cpu;
                const selection<T> want = kselect::topk(global.data(), n, k, t, local);
                mpi::options opt;
                opt.local.device = device_kind::cpu;
                opt.root = root;
                const selection<T> part =
                    mpi::topk(MPI_COMM_WORLD, global.data() + begin, end - begin, k, t, opt);
                ASSERT_EQ(part.values.size(), part.indices.size());
                for (std::size_t i = 0; i < part.indices.size(); ++i) {
                  const std::int64_t g = part.indices[i];
                  ASSERT_TRUE(g >= 0 && g < n);
                  if (root < 0) ASSERT_TRUE(g >= begin && g < end) << "an index outside this process's slice";
                  ASSERT_TRUE(same_bits(part.values[i], global[static_cast<std::size_t>(g)]));
                }
                const selection<T> all = root < 0 ? gather_parts(part) : part;
                if (root >= 0 && me != root) {
                  EXPECT_TRUE(all.values.empty());
                  continue;
                }
                ASSERT_EQ(all.indices.size(), want.indices.size());
                if (sorted && root >= 0) {
                  EXPECT_EQ(all.indices, want.indices);  // the answer's order, ties by index
                } else {
                  std::vector<std::int64_t> a = all.indices, b = want.indices;
                  std::sort(a.begin(), a.end());
                  std::sort(b.begin(), b.end());
                  EXPECT_EQ(a, b);
                }
              }
            }
          }
        }
      }
    }
  }
}

}  // namespace
}  // namespace kselect::mpi_test
