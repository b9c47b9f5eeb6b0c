// filter_if_pairs with payloads of 4, 8, 12 and 16 bytes, partition_pairs (all n
// outputs checked), and filter_if_indices / partition_pairs writing int32_t as well
// as int64_t positions, under every filter_algorithm, against std::copy_if on the
// host (filter_test_util.cuh).
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "cuda/filter_test_util.cuh"

namespace kselect::test {
namespace {

/// filter_if_pairs (payload V, every algorithm) and partition_pairs (IndexT
/// positions, with and without the keys) on keys selected by `mask`.
template <class T, class V, class IndexT>
void expect_pairs(const std::vector<std::uint8_t>& mask, std::uint64_t seed) {
  const auto n = static_cast<std::int64_t>(mask.size());
  const std::vector<T> keys = keys_for_mask<T>(mask, seed);
  const std::vector<V> values = payloads<V>(n);
  const predicate<T> p = lt(split_key<T>());
  const reference_selection<T> want = reference_of(keys, p);
  const std::vector<std::int64_t> count_m = {static_cast<std::int64_t>(want.values.size())};
  const std::vector<std::int64_t> order = partition_order(want.indices, n);

  test_stream stream;
  const cudaStream_t s = stream.get();
  const device_buffer<T> keys_in(keys);
  // (n == 0: a real, if empty, payload array; only d_in may be null then)
  const device_buffer<V> values_in(values.empty() ? std::vector<V>(1) : values);
  const device_output<T> keys_out(n);
  const device_output<V> values_out(n);
  const device_output<IndexT> idx(n);
  const device_output<std::int64_t> count(1);
  auto poison = [&] {
    keys_out.poison(s);
    values_out.poison(s);
    idx.poison(s);
    count.poison(s);
  };

  for (const filter_algorithm algo : all_algorithms) {
    SCOPED_TRACE(std::string("filter_if_pairs, ") + algo_name(algo));
    poison();
    ASSERT_FILTER_OK(two_phase(s, [&](void* ws, std::size_t& bytes) {
      return device::filter_if_pairs(ws, bytes, keys_in.data(), values_in.data(), keys_out.data(), values_out.data(),
                                     count.data(), n, p, s, device::filter_config{algo});
    }));
    EXPECT_TRUE(written_exactly(count.host(), count_m));
    EXPECT_TRUE(written_exactly(keys_out.host(), want.values));
    EXPECT_TRUE(written_exactly(values_out.host(), gather(values, want.indices)));
  }
  for (const filter_algorithm algo : all_algorithms)
    for (const bool with_keys : {true, false}) {
      SCOPED_TRACE(testing::Message() << "partition_pairs, " << algo_name(algo) << ", keys " << with_keys);
      poison();
      ASSERT_FILTER_OK(two_phase(s, [&](void* ws, std::size_t& bytes) {
        return device::partition_pairs(ws, bytes, keys_in.data(), values_in.data(),
                                       with_keys ? keys_out.data() : nullptr, values_out.data(), idx.data(),
                                       count.data(), n, p, s, device::filter_config{algo});
      }));
      EXPECT_TRUE(written_exactly(count.host(), count_m));
      EXPECT_TRUE(written_exactly(keys_out.host(), with_keys ? gather(keys, order) : std::vector<T>{}));
      EXPECT_TRUE(written_exactly(values_out.host(), gather(values, order)));
      EXPECT_TRUE(written_exactly(idx.host(), as_index<IndexT>(order)));
    }
}

// Payloads of 4 (uint32_t), 8 (double), 12 (a struct of three 4-byte fields) and
// 16 bytes with float keys, 12 and 16 bytes with double keys; int32_t and int64_t
// positions.
TEST(FilterGpu, PairsWithPayloadsOf4To16Bytes) {
  const std::int64_t sizes[] = {0, 1, 31, 33, 4097, 8193, 3 * 8192 + 5, 100003, (std::int64_t{1} << 20) + 7};
  const std::pair<mask_pattern, double> masks[] = {{mask_pattern::random, 0.5},  {mask_pattern::random, 0.01},
                                                   {mask_pattern::runs, 0},      {mask_pattern::alternating, 0},
                                                   {mask_pattern::last_only, 0}, {mask_pattern::random, 1.0}};
  for (const std::int64_t n : sizes)
    for (const auto& [pat, sel] : masks) {
      SCOPED_TRACE(testing::Message() << "n = " << n << ", " << name(pat) << ", selectivity " << sel);
      const std::uint64_t seed = 211 + static_cast<std::uint64_t>(n);
      const std::vector<std::uint8_t> mask = selection_mask(pat, n, sel, seed);
      {
        SCOPED_TRACE("float keys, uint32_t payload");
        expect_pairs<float, std::uint32_t, std::int64_t>(mask, seed);
      }
      {
        SCOPED_TRACE("float keys, double payload");
        expect_pairs<float, double, std::int64_t>(mask, seed);
      }
      {
        SCOPED_TRACE("float keys, 12-byte payload, int32_t positions");
        expect_pairs<float, triple, std::int32_t>(mask, seed);
      }
      {
        SCOPED_TRACE("float keys, 12-byte payload, int64_t positions");
        expect_pairs<float, triple, std::int64_t>(mask, seed);
      }
      {
        SCOPED_TRACE("float keys, 16-byte payload");
        expect_pairs<float, wide, std::int64_t>(mask, seed);
      }
      {
        SCOPED_TRACE("double keys, 12-byte payload");
        expect_pairs<double, triple, std::int64_t>(mask, seed);
      }
      {
        SCOPED_TRACE("double keys, 16-byte payload");
        expect_pairs<double, wide, std::int64_t>(mask, seed);
      }
      if (HasFailure()) return;
    }
}

// filter_if_indices and partition_pairs writing int32_t positions (float keys).
TEST(FilterGpu, Int32Indices) {
  std::vector<std::int64_t> sizes = gpu_sizes();
  sizes.push_back((std::int64_t{1} << 21) + 9);
  for (const std::int64_t n : sizes)
    for (const mask_pattern pat : {mask_pattern::random, mask_pattern::runs}) {
      SCOPED_TRACE(testing::Message() << "n = " << n << ", " << name(pat));
      const std::uint64_t seed = 401 + static_cast<std::uint64_t>(n);
      const std::vector<std::uint8_t> mask = selection_mask(pat, n, 0.5, seed);
      const std::vector<float> v = keys_for_mask<float>(mask, seed + 1);
      const predicate<float> p = lt(0.0f);
      const reference_selection<float> want = reference_of(v, p);
      const std::vector<std::int64_t> count_m = {static_cast<std::int64_t>(want.values.size())};
      const std::vector<std::int64_t> order = partition_order(want.indices, n);

      test_stream stream;
      const cudaStream_t s = stream.get();
      const device_buffer<float> in(v);
      const device_output<float> out(n);
      const device_output<std::int32_t> idx(n);
      const device_output<std::int64_t> count(1);
      auto poison = [&] {
        out.poison(s);
        idx.poison(s);
        count.poison(s);
      };
      for (const filter_algorithm algo : all_algorithms)
        for (const bool with_keys : {true, false}) {
          SCOPED_TRACE(testing::Message() << algo_name(algo) << ", keys " << with_keys);
          poison();
          ASSERT_FILTER_OK(two_phase(s, [&](void* ws, std::size_t& b) {
            return device::filter_if_indices(ws, b, in.data(), with_keys ? out.data() : nullptr, idx.data(),
                                             count.data(), n, p, s, device::filter_config{algo});
          }));
          EXPECT_TRUE(written_exactly(count.host(), count_m));
          EXPECT_TRUE(written_exactly(out.host(), with_keys ? want.values : std::vector<float>{}));
          EXPECT_TRUE(written_exactly(idx.host(), as_index<std::int32_t>(want.indices)));
        }
      for (const filter_algorithm algo : all_algorithms) {
        SCOPED_TRACE(std::string("partition_pairs, ") + algo_name(algo));
        poison();
        ASSERT_FILTER_OK(two_phase(s, [&](void* ws, std::size_t& b) {
          return device::partition_pairs(ws, b, in.data(), static_cast<const float*>(nullptr), out.data(),
                                         static_cast<float*>(nullptr), idx.data(), count.data(), n, p, s,
                                         device::filter_config{algo});
        }));
        EXPECT_TRUE(written_exactly(count.host(), count_m));
        EXPECT_TRUE(written_exactly(out.host(), gather(v, order)));
        EXPECT_TRUE(written_exactly(idx.host(), as_index<std::int32_t>(order)));
      }
      if (HasFailure()) return;
    }
}

}  // namespace
}  // namespace kselect::test
