// What the GPU filter tests (filter_*_test.cu) share. They compare the device
// filters with std::copy_if on the host, exactly: same order, same bits (NaN
// payloads and the sign of zero included), the count read from *d_num_selected,
// and no byte written past the result. Every device-API call is made as a user
// makes it: the size query, a workspace of exactly that size filled with 0xA5,
// outputs filled with 0x5A, a non-blocking stream (two_phase, device_output).
// expect_device_filters runs every device filter on one input.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "common/common.hpp"
#include "common/device_data.cuh"
#include "common/filter_reference.hpp"
#include "cuda/user_call.cuh"
#include "kselect/device.hpp"
#include "kselect/device_filter.cuh"
#include "kselect/kselect.hpp"

namespace kselect::test {

using device::filter_algorithm;

inline constexpr filter_algorithm all_algorithms[] = {filter_algorithm::single_pass, filter_algorithm::three_phase,
                                                      filter_algorithm::automatic};

inline const char* algo_name(filter_algorithm a) {
  switch (a) {
    case filter_algorithm::automatic: return "automatic";
    case filter_algorithm::single_pass: return "single_pass";
    case filter_algorithm::three_phase: return "three_phase";
  }
  return "?";
}

// ---------------------------------------------------------------------------------
// Payloads and the reference's helpers
// ---------------------------------------------------------------------------------

/// A 12-byte payload (none of the power-of-two copy sizes).
struct triple {
  std::int32_t a;
  float b;
  std::uint32_t c;
};

/// A 16-byte payload.
struct wide {
  std::uint64_t a, b;
};

/// Payload element i (distinct for distinct i, so a misplaced one shows).
template <class V>
V payload_of(std::int64_t i) {
  if constexpr (std::is_same_v<V, triple>) {
    return {static_cast<std::int32_t>(i), static_cast<float>(i) * 0.5f, static_cast<std::uint32_t>(~i)};
  } else if constexpr (std::is_same_v<V, wide>) {
    return {static_cast<std::uint64_t>(i), ~static_cast<std::uint64_t>(i) * 0x9e3779b97f4a7c15ull};
  } else if constexpr (std::is_floating_point_v<V>) {
    return static_cast<V>(-0.25 * static_cast<double>(i));
  } else {
    return static_cast<V>(static_cast<std::uint64_t>(i) * 2654435761u + 7);
  }
}

template <class V>
std::vector<V> payloads(std::int64_t n) {
  std::vector<V> p(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) p[static_cast<std::size_t>(i)] = payload_of<V>(i);
  return p;
}

/// Positions as the index type a call writes.
template <class IndexT>
std::vector<IndexT> as_index(const std::vector<std::int64_t>& v) {
  return std::vector<IndexT>(v.begin(), v.end());
}

/// The reference selection of predicate p on v: for kselect's predicates,
/// reference_keep (written out comparison by comparison), else p itself on the host.
template <class T, class Pred>
reference_selection<T> reference_of(const std::vector<T>& v, const Pred& p) {
  return reference_filter(v, [&](std::int64_t i) {
    const T& x = v[static_cast<std::size_t>(i)];
    if constexpr (std::is_same_v<Pred, predicate<T>>) return reference_keep(p, x);
    else return static_cast<bool>(p(x));
  });
}

// ---------------------------------------------------------------------------------
// Calling the device API as a user does
// ---------------------------------------------------------------------------------

/// The keys in device memory, `offset` elements past the start of an allocation
/// (cudaMalloc aligns to 256 bytes: offsets 1 and 3 put float keys off 16-byte
/// alignment). Null for an empty input without offset.
template <class T>
class device_keys {
 public:
  explicit device_keys(const std::vector<T>& v, std::int64_t offset = 0)
      : buf_(v.size() + static_cast<std::size_t>(offset)), offset_(offset) {
    if (!v.empty())
      cuda_check(cudaMemcpy(buf_.data() + offset, v.data(), v.size() * sizeof(T), cudaMemcpyHostToDevice),
                 "copy keys");
  }
  const T* data() const { return buf_.size() ? buf_.data() + offset_ : nullptr; }

 private:
  device_buffer<T> buf_;
  std::int64_t offset_;
};

/// got starts with want, bit for bit, and every byte after it is still the poison.
template <class V>
testing::AssertionResult written_exactly(const std::vector<V>& got, const std::vector<V>& want) {
  if (got.size() < want.size())
    return testing::AssertionFailure() << "output of " << got.size() << " elements, " << want.size() << " expected";
  for (std::size_t i = 0; i < want.size(); ++i)
    if (std::memcmp(&got[i], &want[i], sizeof(V)) != 0)
      return testing::AssertionFailure() << "element " << i << " of " << want.size() << " differs";
  if (!all_poison(got.data() + want.size(), (got.size() - want.size()) * sizeof(V)))
    return testing::AssertionFailure() << "written past the " << want.size() << " results";
  return testing::AssertionSuccess();
}

#define ASSERT_FILTER_OK(expr) ASSERT_EQ((expr), cudaSuccess) << device::last_error_message()

/// Every device filter on keys v (copied to the device `offset` elements into an
/// allocation) with predicate p (kselect's, or any host-and-device functor), against
/// the reference: filter_if (filter_range for an in_range predicate) under every
/// algorithm, partition under both that partition, count_if; unless `light`, also
/// filter_if_indices with and without the keys, partition_pairs with keys and
/// positions and with positions alone, and filter_if_inplace.
template <class T, class Pred>
void expect_device_filters(const std::vector<T>& v, const Pred& p, std::int64_t offset = 0, bool light = false) {
  const auto n = static_cast<std::int64_t>(v.size());
  const reference_selection<T> want = reference_of(v, p);
  const auto m = static_cast<std::int64_t>(want.values.size());
  const std::vector<std::int64_t> order = partition_order(want.indices, n);
  const std::vector<T> parted = gather(v, order);
  const std::vector<std::int64_t> count_m = {m};
  const std::vector<T> no_keys;

  test_stream stream;
  const cudaStream_t s = stream.get();
  const device_keys<T> in(v, offset);
  const device_output<T> out(n);
  const device_output<std::int64_t> idx(n);
  const device_output<std::int64_t> count(1);
  auto poison = [&] {
    out.poison(s);
    idx.poison(s);
    count.poison(s);
  };

  for (const filter_algorithm algo : all_algorithms) {
    SCOPED_TRACE(algo_name(algo));
    const device::filter_config cfg{algo};
    poison();
    ASSERT_FILTER_OK(two_phase(s, [&](void* ws, std::size_t& bytes) -> cudaError_t {
      if constexpr (std::is_same_v<Pred, predicate<T>>)
        if (p.op == filter_op::range)
          return device::filter_range(ws, bytes, in.data(), out.data(), count.data(), n, p.value, p.hi, s, cfg);
      return device::filter_if(ws, bytes, in.data(), out.data(), count.data(), n, p, s, cfg);
    }));
    EXPECT_TRUE(written_exactly(count.host(), count_m));
    EXPECT_TRUE(written_exactly(out.host(), want.values));
    if (light) continue;

    poison();
    ASSERT_FILTER_OK(two_phase(s, [&](void* ws, std::size_t& bytes) {
      return device::filter_if_indices(ws, bytes, in.data(), out.data(), idx.data(), count.data(), n, p, s, cfg);
    }));
    EXPECT_TRUE(written_exactly(count.host(), count_m));
    EXPECT_TRUE(written_exactly(out.host(), want.values));
    EXPECT_TRUE(written_exactly(idx.host(), want.indices));

    poison();  // the positions alone
    ASSERT_FILTER_OK(two_phase(s, [&](void* ws, std::size_t& bytes) {
      return device::filter_if_indices(ws, bytes, in.data(), static_cast<T*>(nullptr), idx.data(), count.data(), n,
                                       p, s, cfg);
    }));
    EXPECT_TRUE(written_exactly(count.host(), count_m));
    EXPECT_TRUE(written_exactly(idx.host(), want.indices));
    EXPECT_TRUE(written_exactly(out.host(), no_keys));
  }

  for (const filter_algorithm algo : all_algorithms) {
    SCOPED_TRACE(std::string("partition, ") + algo_name(algo));
    const device::filter_config cfg{algo};
    poison();
    ASSERT_FILTER_OK(two_phase(s, [&](void* ws, std::size_t& bytes) {
      return device::partition(ws, bytes, in.data(), out.data(), count.data(), n, p, s, cfg);
    }));
    EXPECT_TRUE(written_exactly(count.host(), count_m));
    EXPECT_TRUE(written_exactly(out.host(), parted));
    if (light) continue;

    poison();  // keys and positions, no payload
    ASSERT_FILTER_OK(two_phase(s, [&](void* ws, std::size_t& bytes) {
      return device::partition_pairs(ws, bytes, in.data(), static_cast<const T*>(nullptr), out.data(),
                                     static_cast<T*>(nullptr), idx.data(), count.data(), n, p, s, cfg);
    }));
    EXPECT_TRUE(written_exactly(count.host(), count_m));
    EXPECT_TRUE(written_exactly(out.host(), parted));
    EXPECT_TRUE(written_exactly(idx.host(), order));

    poison();  // the positions alone
    ASSERT_FILTER_OK(two_phase(s, [&](void* ws, std::size_t& bytes) {
      return device::partition_pairs(ws, bytes, in.data(), static_cast<const T*>(nullptr), static_cast<T*>(nullptr),
                                     static_cast<T*>(nullptr), idx.data(), count.data(), n, p, s, cfg);
    }));
    EXPECT_TRUE(written_exactly(count.host(), count_m));
    EXPECT_TRUE(written_exactly(idx.host(), order));
    EXPECT_TRUE(written_exactly(out.host(), no_keys));
  }

  count.poison(s);
  ASSERT_FILTER_OK(two_phase(
      s, [&](void* ws, std::size_t& bytes) { return device::count_if(ws, bytes, in.data(), count.data(), n, p, s); }));
  EXPECT_TRUE(written_exactly(count.host(), count_m)) << "count_if";
  if (light) return;

  // In place, at the same offset: the selected keys in d_data[0..m), nothing
  // written before d_data or past d_data[n).
  SCOPED_TRACE("filter_if_inplace");
  const device_output<T> data(offset + n);
  data.poison(s);
  count.poison(s);
  if (n > 0)
    cuda_check(cudaMemcpyAsync(data.data() + offset, v.data(), v.size() * sizeof(T), cudaMemcpyHostToDevice, s),
               "copy keys");
  ASSERT_FILTER_OK(two_phase(s, [&](void* ws, std::size_t& bytes) {
    return device::filter_if_inplace(ws, bytes, data.data() + offset, count.data(), n, p, s);
  }));
  EXPECT_TRUE(written_exactly(count.host(), count_m));
  const std::vector<T> after = data.host();
  const auto first = static_cast<std::size_t>(offset);
  EXPECT_TRUE(all_poison(after.data(), first * sizeof(T))) << "written before d_data";
  EXPECT_TRUE(std::equal(want.values.begin(), want.values.end(), after.begin() + offset, [](const T& a, const T& b) {
    return std::memcmp(&a, &b, sizeof(T)) == 0;
  })) << "the selected keys differ";
  EXPECT_TRUE(all_poison(after.data() + first + v.size(), static_cast<std::size_t>(guard) * sizeof(T)))
      << "written past d_data[n)";
}

// ---------------------------------------------------------------------------------
// Sizes and inputs
// ---------------------------------------------------------------------------------

/// test_sizes up to 2^17 + 1 (2^k - 1, 2^k, 2^k + 1 around the tile sizes, 4096,
/// 8192 and 16384), and multiples of the tiles that are not powers of two, with remainders.
inline std::vector<std::int64_t> gpu_sizes() {
  std::vector<std::int64_t> sizes = test_sizes((std::int64_t{1} << 17) + 1);
  for (const std::int64_t extra : {3 * 4096 - 1, 3 * 4096 + 1, 2 * 8192 + 5, 5 * 8192 - 7, 7 * 4096 + 2048 + 31,
                                   3 * 16384 - 1, 3 * 16384 + 1, 5 * 16384 + 8192 + 33})
    sizes.push_back(extra);
  std::sort(sizes.begin(), sizes.end());
  sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
  return sizes;
}

/// Keys that lt(split_key<T>()) selects exactly by a mask of pattern `pat` (with
/// +-inf, -0.0, +0.0 and denormals among the float keys), through every device
/// filter with lt and, unless lt_only, with ge (the complement) and in_range.
template <class T>
void expect_mask(mask_pattern pat, std::int64_t n, double selectivity, std::uint64_t seed, bool lt_only,
                 std::int64_t offset = 0) {
  SCOPED_TRACE(testing::Message() << "n = " << n << ", " << name(pat) << ", selectivity " << selectivity
                                  << ", offset " << offset);
  const std::vector<std::uint8_t> mask = selection_mask(pat, n, selectivity, seed);
  const std::vector<T> v = keys_for_mask<T>(mask, seed + 1);
  const T split = split_key<T>();
  for (std::int64_t i = 0; i < n; ++i)
    ASSERT_EQ(v[static_cast<std::size_t>(i)] < split, mask[static_cast<std::size_t>(i)] != 0) << "i = " << i;
  expect_device_filters(v, lt(split), offset);
  if (lt_only) return;
  expect_device_filters(v, ge(split), offset);
  expect_device_filters(v, in_range(std::numeric_limits<T>::lowest(), split), offset);
}

}  // namespace kselect::test
