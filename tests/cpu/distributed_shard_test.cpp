// The CPU shard of the distributed calls (src/distributed/cpu_shard.cpp) against brute
// force: the shard contract of tests/common/shard_conformance.hpp with 1 and 3 threads
// (3 only from 1000 keys on: below that the shard makes one chunk either way), and the
// CPU factory's own refusals.
#include <gtest/gtest.h>

#include <cstdint>
#include <stdexcept>
#include <vector>

#include "common/shard_conformance.hpp"

namespace kselect {
namespace {

using namespace shard_test;

// One process's all-reduce over host memory: each word reduced with itself. The CPU
// shard takes the default count_and_reduce, which hands host arrays only.
class identity_allreduce final : public distributed::device_allreduce {
 public:
  void device(const void*, void*, std::size_t, int, op, void*) override {
    throw std::logic_error("the CPU shard reduced device memory");
  }
  void host(void*, std::size_t, int, op) override {}
};

template <class T>
backend<T> cpu_backend() {
  backend<T> b;
  b.identity_reduce = [] { return std::make_unique<identity_allreduce>(); };
  b.make = [](const std::vector<T>& values, const variant& v) {
    kselect::options opt;
    opt.cpu_threads = static_cast<int>(v.setting);
    made_shard<T> s;
    // The shard reads the caller's array: keep a copy alive with it.
    auto copy = std::make_shared<std::vector<T>>(values);
    s.shard = distributed::make_cpu_shard<T>(copy->empty() ? nullptr : copy->data(),
                                             static_cast<std::int64_t>(copy->size()), opt);
    s.storage = copy;
    return s;
  };
  b.variants = [](std::int64_t n) {
    std::vector<variant> v{{"1 thread", 1}};
    if (n >= 1000) v.push_back({"3 threads", 3});
    return v;
  };
  return b;
}

template <class T>
class DistributedCpuShard : public ::testing::Test {};
using KeyTypes = ::testing::Types<float, double, std::int32_t, std::uint32_t, std::int64_t, std::uint64_t>;
TYPED_TEST_SUITE(DistributedCpuShard, KeyTypes);

TYPED_TEST(DistributedCpuShard, CountRoundsMatchBruteForce) { count_rounds_match_brute_force(cpu_backend<TypeParam>()); }
TYPED_TEST(DistributedCpuShard, WholeArrayQueries) { whole_array_queries(cpu_backend<TypeParam>()); }
TYPED_TEST(DistributedCpuShard, SampleDrawsElements) { sample_draws_elements(cpu_backend<TypeParam>()); }
TYPED_TEST(DistributedCpuShard, SampleIsUniform) { sample_is_uniform(cpu_backend<TypeParam>()); }
TYPED_TEST(DistributedCpuShard, SortKeys) { sort_keys(cpu_backend<TypeParam>()); }
TYPED_TEST(DistributedCpuShard, TakeMatchesStableSort) { take_matches_stable_sort(cpu_backend<TypeParam>()); }
TYPED_TEST(DistributedCpuShard, EqualElementInIndexOrder) { equal_element_in_index_order(cpu_backend<TypeParam>()); }
TYPED_TEST(DistributedCpuShard, CountsOfKeyMatchAScan) { counts_of_key_match_a_scan(cpu_backend<TypeParam>()); }
TYPED_TEST(DistributedCpuShard, EmptyArray) { empty_array(cpu_backend<TypeParam>()); }
TYPED_TEST(DistributedCpuShard, WrongExpectedKeptThrowsAfterCompacting) {
  wrong_expected_kept_throws_after_compacting(cpu_backend<TypeParam>());
}
TYPED_TEST(DistributedCpuShard, MalformedTablesRefused) { malformed_tables_refused(cpu_backend<TypeParam>()); }

TYPED_TEST(DistributedCpuShard, BadArguments) {
  using T = TypeParam;
  EXPECT_THROW(distributed::make_cpu_shard<T>(nullptr, 3, {}), std::invalid_argument);
  EXPECT_THROW(distributed::make_cpu_shard<T>(nullptr, -1, {}), std::invalid_argument);
#ifndef KSELECT_WITH_CUDA
  EXPECT_THROW(distributed::make_cuda_shard<T>(nullptr, 0, {}), kselect::error);
#endif
}

}  // namespace
}  // namespace kselect
