// The CUDA shard of the distributed calls (src/cuda/distributed/) against brute force:
// the shard contract of tests/common/shard_conformance.hpp in five variants (the count
// pass with everything in shared memory, everything in global memory, a budget that
// fits only small tables, a stream of its own, values not 16-byte aligned), the same samples as the CPU shard
// from the same seed, and a shard of more than 2^31 keys.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/shard_conformance.hpp"
#include "cuda/distributed/cuda_shard.hpp"

namespace kselect {
namespace {

using namespace shard_test;

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}

/// What a CUDA shard reads: its device copy of the values, and its stream.
struct device_storage {
  void* values = nullptr;
  cudaStream_t stream = nullptr;
  ~device_storage() {
    if (values) cudaFree(values);
    if (stream) cudaStreamDestroy(stream);
  }
};

constexpr std::int64_t own_stream = -2;  // variant setting: the device's limit, on a stream of its own
constexpr std::int64_t unaligned = -3;   // variant setting: the values one element past a 16-byte boundary

// One process's all-reduce: each word reduced with itself, a device copy.
class identity_allreduce final : public distributed::device_allreduce {
 public:
  void device(const void* in, void* out, std::size_t count, int word_bytes, op, void* stream) override {
    if (in != out)
      check(cudaMemcpyAsync(out, in, count * static_cast<std::size_t>(word_bytes), cudaMemcpyDeviceToDevice,
                            static_cast<cudaStream_t>(stream)),
            "cudaMemcpyAsync");
  }
  void host(void*, std::size_t, int, op) override {}
};

template <class T>
backend<T> cuda_backend() {
  backend<T> b;
  b.identity_reduce = [] { return std::make_unique<identity_allreduce>(); };
  b.make = [](const std::vector<T>& values, const variant& v) {
    auto storage = std::make_shared<device_storage>();
    const std::size_t skip = v.setting == unaligned ? 1 : 0;  // the passes' scalar loads for full tiles
    T* data = nullptr;
    if (!values.empty()) {
      check(cudaMalloc(&storage->values, (values.size() + skip) * sizeof(T)), "cudaMalloc");
      data = static_cast<T*>(storage->values) + skip;
      check(cudaMemcpy(data, values.data(), values.size() * sizeof(T), cudaMemcpyHostToDevice), "cudaMemcpy");
    }
    kselect::options opt;
    opt.device = device_kind::cuda;
    std::int64_t budget = v.setting == unaligned ? -1 : v.setting;
    if (v.setting == own_stream) {
      check(cudaStreamCreateWithFlags(&storage->stream, cudaStreamNonBlocking), "cudaStreamCreate");
      opt.stream = storage->stream;
      budget = -1;
    }
    made_shard<T> s;
    s.shard = cuda::distributed::make_cuda_shard_with_shared_budget<T>(data,
                                                                       static_cast<std::int64_t>(values.size()), opt,
                                                                       budget);
    s.storage = storage;
    return s;
  };
  b.variants = [](std::int64_t) {
    return std::vector<variant>{{"shared memory", -1},
                                {"global memory", 0},
                                {"small rounds in shared memory (8 KiB)", 8192},
                                {"own stream", own_stream},
                                {"values not 16-byte aligned", unaligned}};
  };
  return b;
}

template <class T>
backend<T> cpu_backend() {
  backend<T> b;
  b.make = [](const std::vector<T>& values, const variant&) {
    auto copy = std::make_shared<std::vector<T>>(values);
    made_shard<T> s;
    s.shard = distributed::make_cpu_shard<T>(copy->empty() ? nullptr : copy->data(),
                                             static_cast<std::int64_t>(copy->size()), {});
    s.storage = copy;
    return s;
  };
  b.variants = [](std::int64_t) { return std::vector<variant>{{"cpu", 0}}; };
  return b;
}

template <class T>
class DistributedCudaShard : public ::testing::Test {};
using KeyTypes = ::testing::Types<float, double, std::int32_t, std::uint32_t, std::int64_t, std::uint64_t>;
TYPED_TEST_SUITE(DistributedCudaShard, KeyTypes);

TYPED_TEST(DistributedCudaShard, CountRoundsMatchBruteForce) {
  count_rounds_match_brute_force(cuda_backend<TypeParam>());
}
TYPED_TEST(DistributedCudaShard, WholeArrayQueries) { whole_array_queries(cuda_backend<TypeParam>()); }
TYPED_TEST(DistributedCudaShard, SampleDrawsElementsAsTheCpuShardDoes) {
  const backend<TypeParam> cpu = cpu_backend<TypeParam>();
  sample_draws_elements(cuda_backend<TypeParam>(), &cpu);
}
TYPED_TEST(DistributedCudaShard, SampleIsUniform) { sample_is_uniform(cuda_backend<TypeParam>()); }
TYPED_TEST(DistributedCudaShard, SortKeys) { sort_keys(cuda_backend<TypeParam>()); }
TYPED_TEST(DistributedCudaShard, TakeMatchesStableSort) { take_matches_stable_sort(cuda_backend<TypeParam>()); }
TYPED_TEST(DistributedCudaShard, EqualElementInIndexOrder) { equal_element_in_index_order(cuda_backend<TypeParam>()); }
TYPED_TEST(DistributedCudaShard, CountsOfKeyMatchAScan) { counts_of_key_match_a_scan(cuda_backend<TypeParam>()); }
TYPED_TEST(DistributedCudaShard, EmptyArray) { empty_array(cuda_backend<TypeParam>()); }
TYPED_TEST(DistributedCudaShard, WrongExpectedKeptThrowsAfterCompacting) {
  wrong_expected_kept_throws_after_compacting(cuda_backend<TypeParam>());
}
TYPED_TEST(DistributedCudaShard, MalformedTablesRefused) { malformed_tables_refused(cuda_backend<TypeParam>()); }

// noncanonical_seen(): the first count over the whole array tallies -0.0 and the NaNs
// other than the canonical one, whichever intervals the table has (the engine then
// skips counts_of_key when no process holds any); a count over compacted keys keeps
// the tally. Integers have none.
TYPED_TEST(DistributedCudaShard, NoncanonicalElementsTalliedByTheFirstPass) {
  using T = TypeParam;
  using U = core::key_t<T>;
  using traits = core::key_traits<T>;
  std::mt19937_64 rng(23);
  std::vector<T> values(100037);
  for (T& v : values) v = static_cast<T>(static_cast<std::int64_t>(rng() % 2001) - 1000);
  if constexpr (std::is_floating_point_v<T>) {
    using B = std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>;
    const auto from_bits = [](B b) {
      T v;
      std::memcpy(&v, &b, sizeof v);
      return v;
    };
    const B sign = B(1) << (8 * sizeof(T) - 1);
    const T quiet = std::numeric_limits<T>::quiet_NaN();
    B quiet_bits;
    std::memcpy(&quiet_bits, &quiet, sizeof quiet_bits);
    const T planted[] = {T(-0.0), T(0.0), quiet, from_bits(quiet_bits | sign), from_bits(quiet_bits | 1),
                         T(-0.0), from_bits(quiet_bits | 5)};
    for (std::size_t i = 0; i < 40; ++i) values[rng() % values.size()] = planted[i % std::size(planted)];
  }
  std::int64_t want = 0;
  for (const T v : values) {
    const T canonical = traits::from_key(traits::to_key(v));
    want += std::memcmp(&v, &canonical, sizeof v) != 0 ? 1 : 0;
  }
  if constexpr (std::is_floating_point_v<T>) ASSERT_GT(want, 0);
  const backend<T> b = cuda_backend<T>();
  for (const variant& v : b.variants(0)) {
    SCOPED_TRACE(v.name);
    made_shard<T> s = b.make(values, v);
    EXPECT_EQ(s.shard->noncanonical_seen(), -1);  // no count yet
    // Intervals away from the zeros and NaNs, keeping their keys: the tally is of the whole array.
    const U lo = traits::to_key(T(5)), hi = traits::to_key(T(500));
    const auto table = make_table<U>({{lo, hi, 16}});
    std::vector<std::uint64_t> counts(table.buckets);
    s.shard->count(table, counts.data(), false, nullptr, nullptr, true, -1);
    EXPECT_EQ(s.shard->noncanonical_seen(), want);
    s.shard->count(table, counts.data(), false, nullptr, nullptr, false, -1);  // over the kept keys
    EXPECT_EQ(s.shard->noncanonical_seen(), want);
  }
}

TYPED_TEST(DistributedCudaShard, BadArguments) {
  using T = TypeParam;
  EXPECT_THROW(distributed::make_cuda_shard<T>(nullptr, 3, {}), std::invalid_argument);
  EXPECT_THROW(distributed::make_cuda_shard<T>(nullptr, -1, {}), std::invalid_argument);
  const std::vector<T> host(4, T(1));
  try {
    distributed::make_cuda_shard<T>(host.data(), 4, {});
    ADD_FAILURE() << "a host pointer was taken as device memory";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("not device memory"), std::string::npos) << e.what();
  }
}

// More than 2^31 floats (8.6 GB): zeros, and three planted values past position 2^31.
// Counts, compaction, top-k's counts and take must carry 64-bit positions.
TEST(DistributedCudaShardLarge, MoreThan2Pow31Keys) {
  using U = core::key_t<float>;
  const std::int64_t n = (std::int64_t{1} << 31) + 1000;
  float* d = nullptr;
  check(cudaMalloc(&d, static_cast<std::size_t>(n) * sizeof(float)), "cudaMalloc (8.6 GB)");
  std::unique_ptr<float, decltype(&cudaFree)> guard(d, &cudaFree);
  check(cudaMemset(d, 0, static_cast<std::size_t>(n) * sizeof(float)), "cudaMemset");
  const std::int64_t planted[3] = {(std::int64_t{1} << 31) + 1, (std::int64_t{1} << 31) + 500, n - 1};
  const float planted_values[3] = {2.0f, 3.0f, 2.0f};
  for (int i = 0; i < 3; ++i)
    check(cudaMemcpy(d + planted[i], &planted_values[i], sizeof(float), cudaMemcpyHostToDevice), "cudaMemcpy");
  kselect::options opt;
  opt.device = device_kind::cuda;
  const auto shard = distributed::make_cuda_shard<float>(d, n, opt);
  const U zero = core::key_traits<float>::to_key(0.0f), two = core::key_traits<float>::to_key(2.0f),
          three = core::key_traits<float>::to_key(3.0f);

  // Two intervals: [0.0] in one bucket, [2.0, 3.0] in four.
  const auto table = make_table<U>({{zero, zero, 1}, {two, three, 4}});
  std::vector<std::uint64_t> counts(table.buckets, 7);
  std::vector<U> mins(2), maxs(2);
  shard->count(table, counts.data(), true, mins.data(), maxs.data(), false, -1);
  EXPECT_EQ(counts[0], static_cast<std::uint64_t>(n - 3));
  std::uint64_t above = 0;
  for (std::size_t b = 1; b < counts.size(); ++b) above += counts[b];
  EXPECT_EQ(above, 3u);
  EXPECT_EQ(mins[1], two);
  EXPECT_EQ(maxs[1], three);

  // Compaction to the three planted keys, then a count over them alone.
  const auto planted_only = make_table<U>({{two, three, 4}});
  std::vector<std::uint64_t> c2(planted_only.buckets);
  shard->count(planted_only, c2.data(), false, nullptr, nullptr, true, 3);
  EXPECT_EQ(shard->size(), 3);
  std::vector<U> kept;
  shard->extract(planted_only, kept, 3);
  EXPECT_EQ(sorted(kept), (std::vector<U>{two, two, three}));

  // Top-3 largest: the planted positions, in index order, past 2^31.
  std::int64_t beyond = -1, equal = -1;
  shard->counts_beyond_and_equal(two, true, beyond, equal);
  EXPECT_EQ(beyond, 1);
  EXPECT_EQ(equal, 2);
  std::vector<float> values;
  std::vector<std::int64_t> indices;
  shard->take(two, true, 2, true, values, indices);
  EXPECT_EQ(indices, (std::vector<std::int64_t>{planted[0], planted[1], planted[2]}));
  EXPECT_EQ(values, (std::vector<float>{2.0f, 3.0f, 2.0f}));
  // One tie only: the first 2.0 in index order.
  values.clear();
  indices.clear();
  shard->take(two, true, 1, true, values, indices);
  EXPECT_EQ(indices, (std::vector<std::int64_t>{planted[0], planted[1]}));

  U lo = 1, hi = 1;
  shard->min_max(lo, hi);
  EXPECT_EQ(lo, zero);
  EXPECT_EQ(hi, three);
}

}  // namespace
}  // namespace kselect
