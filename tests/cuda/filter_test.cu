// The GPU filters against std::copy_if on the host, exactly: same order, same bits
// (NaN payloads and the sign of zero included), the count read from
// *d_num_selected, and no byte written past the result. Covered:
//  - the device API of kselect/device_filter.cuh: every key type with the lt, ge and
//    in_range predicates (all six comparisons in the special-values test); sizes
//    0, 1, 2, 3, 31, 32, 33, 2^k - 1, 2^k, 2^k + 1 up to 2^17 + 1 (around the tiles:
//    16384 keys per single-pass tile for 4-byte keys, 8192 for 8-byte ones, 4096 per
//    three-phase block), some tile multiples and a few million; selectivities 0% to
//    100%; alternating, clustered, first-only and last-only selections; NaN,
//    +-inf, -0.0 == +0.0 and denormals, as keys and as constants;
//  - every filter_algorithm (single_pass, three_phase, automatic); input 4 and 12
//    bytes off 16-byte alignment (the bulk-copy and vector-load paths off);
//    filter_if, filter_range, filter_if_indices (with the keys and alone, int32_t
//    and int64_t positions), partition and partition_pairs (all n outputs checked),
//    filter_if_pairs with payloads of 4, 8, 12 and 16 bytes, filter_flagged and
//    filter_flagged_indices (uint8_t and bool flags), count_if, filter_if_inplace;
//    keys of 1, 2 and 16 bytes with a functor of the caller's;
//  - more than 2^31 keys with int64_t positions, one run per algorithm;
//  - argument errors (cudaErrorInvalidValue and a message) and the size query;
//  - the owning API (kselect/filter.hpp) on device memory against the CPU backend on
//    a host copy, and host and device arrays mixed in one call.
// Every device-API call is made as a user makes it: the size query, a workspace of
// exactly that size filled with 0xA5, outputs filled with 0x5A, a non-blocking stream.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <limits>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "common/common.hpp"
#include "common/device_data.cuh"
#include "common/expect_invalid.hpp"
#include "common/filter_reference.hpp"
#include "common/key_types.hpp"
#include "common/probe_values.hpp"
#include "kselect/device.hpp"
#include "kselect/device_filter.cuh"
#include "kselect/kselect.hpp"

namespace kselect::test {
namespace {

using device::filter_algorithm;

constexpr filter_algorithm all_algorithms[] = {filter_algorithm::single_pass, filter_algorithm::three_phase,
                                               filter_algorithm::automatic};

const char* algo_name(filter_algorithm a) {
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

constexpr unsigned char output_poison = 0x5A;
constexpr unsigned char workspace_poison = 0xA5;
/// Elements after every output array that no call may write.
constexpr std::int64_t guard = 16;

/// A non-blocking stream: the calls must not rely on the legacy default stream.
class test_stream {
 public:
  test_stream() { cuda_check(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "stream"); }
  ~test_stream() { cudaStreamDestroy(stream_); }
  test_stream(const test_stream&) = delete;
  test_stream& operator=(const test_stream&) = delete;
  cudaStream_t get() const { return stream_; }

 private:
  cudaStream_t stream_ = nullptr;
};

/// A device output: `size` elements a call may write, then `guard` more that it may
/// not; poisoned with 0x5A before each call.
template <class V>
class device_output {
 public:
  explicit device_output(std::int64_t size) : buf_(static_cast<std::size_t>(size + guard)) {}
  V* data() const { return buf_.data(); }
  void poison(cudaStream_t stream) const {
    cuda_check(cudaMemsetAsync(buf_.data(), output_poison, buf_.size() * sizeof(V), stream), "poison output");
  }
  /// Every element, the guard included.
  std::vector<V> host() const { return buf_.to_host(); }

 private:
  device_buffer<V> buf_;
};

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

/// Whether `count` bytes at p all hold the output poison.
bool all_poison(const void* p, std::size_t count) {
  const auto* b = static_cast<const unsigned char*>(p);
  return std::all_of(b, b + count, [](unsigned char x) { return x == output_poison; });
}

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

/// The two-phase protocol: the size query (null workspace), then call(workspace,
/// bytes) with a workspace of exactly that size filled with 0xA5; waits for
/// `stream`. Returns the query's status if it fails, else the call's.
template <class Call>
cudaError_t two_phase(cudaStream_t stream, Call&& call) {
  // The inputs were copied by cudaMemcpy from pageable memory, which may return
  // before the copy lands; `stream` does not wait for the legacy default stream.
  cuda_check(cudaDeviceSynchronize(), "the inputs' copies");
  std::size_t bytes = 0;
  cudaError_t st = call(static_cast<void*>(nullptr), bytes);
  if (st != cudaSuccess) return st;
  if (bytes == 0) {
    ADD_FAILURE() << "the size query answered 0 bytes (a null workspace would be a query again)";
    return cudaErrorInvalidValue;
  }
  device_buffer<char> ws(bytes);
  cuda_check(cudaMemsetAsync(ws.data(), workspace_poison, bytes, stream), "poison workspace");
  st = call(static_cast<void*>(ws.data()), bytes);
  cuda_check(cudaStreamSynchronize(stream), "the filter's kernels");
  return st;
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
std::vector<std::int64_t> gpu_sizes() {
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

constexpr mask_pattern shaped_patterns[] = {mask_pattern::alternating, mask_pattern::runs, mask_pattern::last_only,
                                            mask_pattern::first_only};

// ---------------------------------------------------------------------------------
// Every key type
// ---------------------------------------------------------------------------------

class FilterGpuTypes : public testing::TestWithParam<key_type> {};

TEST_P(FilterGpuTypes, SelectivitiesAndSizes) {
  with_key_type(GetParam(), [&]<class T>() {
    for (const std::int64_t n : gpu_sizes())
      for (const double s : {0.0, 0.001, 0.01, 0.5, 0.99, 1.0}) {
        expect_mask<T>(mask_pattern::random, n, s, 17 + static_cast<std::uint64_t>(n), true);
        if (HasFailure()) return;
      }
  });
}

// Selections that make warps diverge: every other key, runs of 1 to 1000, only the
// last key, only the first; and their complements (ge) and in_range.
TEST_P(FilterGpuTypes, Patterns) {
  with_key_type(GetParam(), [&]<class T>() {
    for (const std::int64_t n : gpu_sizes())
      for (const mask_pattern pat : shaped_patterns) {
        expect_mask<T>(pat, n, 0, 29 + static_cast<std::uint64_t>(n), false);
        if (HasFailure()) return;
      }
  });
}

// A few million keys: hundreds of single-pass tiles chained by look-back.
TEST_P(FilterGpuTypes, MillionsOfKeys) {
  with_key_type(GetParam(), [&]<class T>() {
    const std::int64_t one = (std::int64_t{1} << 20) + 1, two = (std::int64_t{1} << 21) + 3,
                       four = (std::int64_t{1} << 22) - 5;
    expect_mask<T>(mask_pattern::random, two, 0.5, 5, false);
    expect_mask<T>(mask_pattern::random, four, 0.001, 6, true);
    expect_mask<T>(mask_pattern::random, one, 0.99, 7, true);
    expect_mask<T>(mask_pattern::runs, four, 0, 8, true);
    expect_mask<T>(mask_pattern::last_only, two, 0, 9, true);
  });
}

// The probe values (NaN of both signs and a full payload, +-inf, +-0, denormals,
// extremes) spread over three blocks of keys, with each of them as the constant of
// every comparison, and ranges between them.
TEST_P(FilterGpuTypes, SpecialValuesAsKeysAndConstants) {
  with_key_type(GetParam(), [&]<class T>() {
    const std::vector<T> probes = probe_values<T>(40, 3);
    std::vector<T> v(3 * 4096 + 5);
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = probes[random_word(41, i) % probes.size()];
    std::copy(probes.begin(), probes.end(), v.begin());  // every probe value at least once
    for (std::size_t k = 0; k < probes.size(); ++k) {
      const T c = probes[k];
      SCOPED_TRACE(testing::Message() << "constant " << +c);
      for (const filter_op op : {filter_op::lt, filter_op::le, filter_op::gt, filter_op::ge, filter_op::eq,
                                 filter_op::ne})
        expect_device_filters(v, predicate<T>{op, c, T{}}, 0, k % 8 != 0);
      if (HasFailure()) return;
    }
    for (std::size_t i = 0; i < probes.size(); i += 7)
      for (std::size_t j = 0; j < probes.size(); j += 11) {
        const T lo = probes[i], hi = probes[j];
        if constexpr (std::is_floating_point_v<T>)
          if (std::isnan(lo) || std::isnan(hi)) continue;
        if (lo > hi) continue;
        SCOPED_TRACE(testing::Message() << "range [" << +lo << ", " << +hi << ")");
        expect_device_filters(v, in_range(lo, hi), 0, true);
      }
  });
}

INSTANTIATE_TEST_SUITE_P(AllTypes, FilterGpuTypes, testing::ValuesIn(all_key_types),
                         [](const testing::TestParamInfo<key_type>& info) { return name(info.param); });

// ---------------------------------------------------------------------------------
// Alignment, payloads, flags, int32_t positions
// ---------------------------------------------------------------------------------

// Input 4 and 12 bytes (float) or 8 bytes (double) off 16-byte alignment: the single
// pass without its bulk copy, the three phases with scalar loads; and 16 bytes off
// a 256-byte boundary, still aligned. In place at the same offsets.
TEST(FilterGpu, MisalignedInput) {
  std::vector<std::int64_t> sizes = gpu_sizes();
  sizes.push_back((std::int64_t{1} << 20) + 3);
  for (const std::int64_t offset : {1, 3, 4})
    for (const std::int64_t n : sizes) {
      expect_mask<float>(mask_pattern::random, n, 0.5, 101 + static_cast<std::uint64_t>(n), true, offset);
      expect_mask<float>(mask_pattern::runs, n, 0, 103 + static_cast<std::uint64_t>(n), true, offset);
      if (HasFailure()) return;
    }
  for (const std::int64_t n : sizes) {
    expect_mask<double>(mask_pattern::random, n, 0.5, 107 + static_cast<std::uint64_t>(n), true, 1);
    expect_mask<double>(mask_pattern::alternating, n, 0, 109 + static_cast<std::uint64_t>(n), true, 1);
    if (HasFailure()) return;
  }
}

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

/// filter_flagged with uint8_t flags (the nonzero ones not all 1) and bool flags,
/// and filter_flagged_indices with int64_t positions (and keys) and int32_t
/// positions alone, under every algorithm. The keys are the special floats, NaN
/// included, independent of the flags.
void expect_flagged(const std::vector<std::uint8_t>& mask, std::uint64_t seed) {
  const auto n = static_cast<std::int64_t>(mask.size());
  const std::vector<float> v = generate<float>(dist::special, n, seed);
  const reference_selection<float> want =
      reference_filter(v, [&](std::int64_t i) { return mask[static_cast<std::size_t>(i)] != 0; });
  const std::vector<std::int64_t> count_m = {static_cast<std::int64_t>(want.values.size())};
  std::vector<std::uint8_t> bytes(mask.size()), ones(mask.size());
  for (std::size_t i = 0; i < mask.size(); ++i) {
    bytes[i] = mask[i] ? static_cast<std::uint8_t>(1 + i % 255) : 0;
    ones[i] = mask[i] ? 1 : 0;
  }

  test_stream stream;
  const cudaStream_t s = stream.get();
  const device_buffer<float> in(v);
  const device_buffer<std::uint8_t> flags8(bytes);
  const device_buffer<bool> flags_bool(mask.size());
  if (n > 0)
    cuda_check(cudaMemcpy(flags_bool.data(), ones.data(), ones.size(), cudaMemcpyHostToDevice), "copy bool flags");
  const device_output<float> out(n);
  const device_output<std::int64_t> idx64(n);
  const device_output<std::int32_t> idx32(n);
  const device_output<std::int64_t> count(1);
  auto poison = [&] {
    out.poison(s);
    idx64.poison(s);
    idx32.poison(s);
    count.poison(s);
  };

  for (const filter_algorithm algo : all_algorithms) {
    SCOPED_TRACE(algo_name(algo));
    const device::filter_config cfg{algo};
    poison();
    ASSERT_FILTER_OK(two_phase(s, [&](void* ws, std::size_t& b) {
      return device::filter_flagged(ws, b, in.data(), flags8.data(), out.data(), count.data(), n, s, cfg);
    })) << "uint8_t flags";
    EXPECT_TRUE(written_exactly(count.host(), count_m));
    EXPECT_TRUE(written_exactly(out.host(), want.values));

    poison();
    ASSERT_FILTER_OK(two_phase(s, [&](void* ws, std::size_t& b) {
      return device::filter_flagged(ws, b, in.data(), static_cast<const bool*>(flags_bool.data()), out.data(),
                                    count.data(), n, s, cfg);
    })) << "bool flags";
    EXPECT_TRUE(written_exactly(count.host(), count_m));
    EXPECT_TRUE(written_exactly(out.host(), want.values));

    poison();
    ASSERT_FILTER_OK(two_phase(s, [&](void* ws, std::size_t& b) {
      return device::filter_flagged_indices(ws, b, in.data(), flags8.data(), out.data(), idx64.data(), count.data(),
                                            n, s, cfg);
    })) << "int64_t positions";
    EXPECT_TRUE(written_exactly(count.host(), count_m));
    EXPECT_TRUE(written_exactly(out.host(), want.values));
    EXPECT_TRUE(written_exactly(idx64.host(), want.indices));

    poison();
    ASSERT_FILTER_OK(two_phase(s, [&](void* ws, std::size_t& b) {
      return device::filter_flagged_indices(ws, b, in.data(), flags8.data(), static_cast<float*>(nullptr),
                                            idx32.data(), count.data(), n, s, cfg);
    })) << "int32_t positions alone";
    EXPECT_TRUE(written_exactly(count.host(), count_m));
    EXPECT_TRUE(written_exactly(idx32.host(), as_index<std::int32_t>(want.indices)));
    EXPECT_TRUE(written_exactly(out.host(), std::vector<float>{}));
  }
}

TEST(FilterGpu, FlaggedWithByteAndBoolFlags) {
  std::vector<std::int64_t> sizes = gpu_sizes();
  sizes.push_back((std::int64_t{1} << 20) + 7);
  const std::pair<mask_pattern, double> masks[] = {
      {mask_pattern::random, 0.0},       {mask_pattern::random, 0.01},     {mask_pattern::random, 0.5},
      {mask_pattern::random, 1.0},       {mask_pattern::alternating, 0.0}, {mask_pattern::runs, 0.0},
      {mask_pattern::last_only, 0.0},    {mask_pattern::first_only, 0.0}};
  for (const std::int64_t n : sizes)
    for (const auto& [pat, sel] : masks) {
      SCOPED_TRACE(testing::Message() << "n = " << n << ", " << name(pat) << ", selectivity " << sel);
      const std::uint64_t seed = 307 + static_cast<std::uint64_t>(n);
      expect_flagged(selection_mask(pat, n, sel, seed), seed + 1);
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

/// A 16-byte key, selected by its first word; the other three are carried along.
struct key16 {
  std::uint32_t a, b, c, d;
};

/// x < split for the unsigned keys; for key16, x.a < split.
template <class T>
struct below {
  T split;
  __host__ __device__ bool operator()(T x) const { return x < split; }
};
template <>
struct below<key16> {
  std::uint32_t split;
  __host__ __device__ bool operator()(const key16& x) const { return x.a < split; }
};

/// Keys that below{2^(bits - 1)} (for key16: on the first word) selects exactly by `mask`.
template <class T>
std::vector<T> other_keys_for_mask(const std::vector<std::uint8_t>& mask, std::uint64_t seed) {
  std::vector<T> v(mask.size());
  for (std::size_t i = 0; i < mask.size(); ++i) {
    const std::uint64_t w = random_word(seed, i);
    if constexpr (std::is_same_v<T, key16>) {
      const auto low = static_cast<std::uint32_t>(w & 0x7fffffffu);
      v[i] = {mask[i] ? low : 0x80000000u | low, static_cast<std::uint32_t>(w >> 32),
              static_cast<std::uint32_t>(random_word(seed + 1, i)), static_cast<std::uint32_t>(i)};
    } else {
      constexpr std::uint64_t half = std::uint64_t{1} << (sizeof(T) * 8 - 1);
      v[i] = static_cast<T>(mask[i] ? w % half : half + w % half);
    }
  }
  return v;
}

// Keys of 1, 2 and 16 bytes, which the device API takes too (any trivially copyable
// key whose size divides 16) with the caller's functor: tiles of 8192 one- and
// two-byte keys and of 2048 sixteen-byte ones; 16 one-byte keys a vector load;
// one-byte keys 1 and 3 bytes off alignment, two-byte keys 2 bytes off.
TEST(FilterGpu, KeysOf1And2And16Bytes) {
  std::vector<std::int64_t> sizes = gpu_sizes();
  sizes.push_back((std::int64_t{1} << 20) + 3);
  const std::pair<mask_pattern, double> masks[] = {{mask_pattern::random, 0.5},
                                                   {mask_pattern::random, 0.01},
                                                   {mask_pattern::runs, 0.0},
                                                   {mask_pattern::last_only, 0.0}};
  for (const std::int64_t n : sizes)
    for (const auto& [pat, sel] : masks) {
      SCOPED_TRACE(testing::Message() << "n = " << n << ", " << name(pat) << ", selectivity " << sel);
      const std::uint64_t seed = 601 + static_cast<std::uint64_t>(n);
      const std::vector<std::uint8_t> mask = selection_mask(pat, n, sel, seed);
      const std::vector<std::uint8_t> bytes = other_keys_for_mask<std::uint8_t>(mask, seed + 1);
      for (const std::int64_t offset : {0, 1, 3}) {
        SCOPED_TRACE(testing::Message() << "uint8_t keys, offset " << offset);
        expect_device_filters(bytes, below<std::uint8_t>{0x80}, offset);
      }
      const std::vector<std::uint16_t> halves = other_keys_for_mask<std::uint16_t>(mask, seed + 2);
      for (const std::int64_t offset : {0, 1}) {
        SCOPED_TRACE(testing::Message() << "uint16_t keys, offset " << offset);
        expect_device_filters(halves, below<std::uint16_t>{0x8000}, offset);
      }
      {
        SCOPED_TRACE("16-byte keys");
        expect_device_filters(other_keys_for_mask<key16>(mask, seed + 3), below<key16>{0x80000000u});
      }
      if (HasFailure()) return;
    }
}

// ---------------------------------------------------------------------------------
// The protocol and argument errors
// ---------------------------------------------------------------------------------

// A null workspace answers a nonzero size, the same for the same n whatever the
// data, the predicate or the previous value of workspace_bytes; one byte less is
// refused, exactly the size accepted.
TEST(FilterGpu, WorkspaceSizeQuery) {
  const device_buffer<float> in(std::vector<float>(100000, 1.0f));
  const device_buffer<float> out(100000);
  const device_buffer<std::int64_t> count(1);
  for (const std::int64_t n : {std::int64_t{0}, std::int64_t{1}, std::int64_t{4096}, std::int64_t{8193},
                               std::int64_t{1} << 20, (std::int64_t{1} << 31) + 4097, (std::int64_t{1} << 40) - 1}) {
    SCOPED_TRACE(testing::Message() << "n = " << n);
    for (const filter_algorithm algo : all_algorithms) {
      SCOPED_TRACE(algo_name(algo));
      std::size_t first = 0, again = 12345, other = 0;
      ASSERT_EQ(device::filter_if(nullptr, first, in.data(), out.data(), count.data(), n, lt(0.5f), nullptr, {algo}),
                cudaSuccess)
          << device::last_error_message();
      EXPECT_GT(first, 0u);
      ASSERT_EQ(device::filter_if(nullptr, again, in.data(), out.data(), count.data(), n, lt(0.5f), nullptr, {algo}),
                cudaSuccess);
      EXPECT_EQ(again, first);
      ASSERT_EQ(device::filter_if(nullptr, other, in.data(), out.data(), count.data(), n, ne(2.0f), nullptr, {algo}),
                cudaSuccess);
      EXPECT_EQ(other, first);
    }
    std::size_t part = 0, part_again = 1;
    ASSERT_EQ(device::partition(nullptr, part, in.data(), out.data(), count.data(), n, lt(0.5f)), cudaSuccess);
    ASSERT_EQ(device::partition(nullptr, part_again, in.data(), out.data(), count.data(), n, lt(0.5f)), cudaSuccess);
    EXPECT_GT(part, 0u);
    EXPECT_EQ(part_again, part);
    std::size_t counting = 0;
    ASSERT_EQ(device::count_if(nullptr, counting, in.data(), count.data(), n, lt(0.5f)), cudaSuccess);
    EXPECT_GT(counting, 0u);
  }

  const std::int64_t n = 100000;
  test_stream stream;
  cuda_check(cudaDeviceSynchronize(), "the input's copy");  // the stream does not wait for it
  for (const filter_algorithm algo : all_algorithms) {
    SCOPED_TRACE(algo_name(algo));
    std::size_t bytes = 0;
    ASSERT_EQ(device::filter_if(nullptr, bytes, in.data(), out.data(), count.data(), n, lt(0.5f), stream.get(),
                                {algo}),
              cudaSuccess);
    device_buffer<char> ws(bytes);
    std::size_t small = bytes - 1;
    EXPECT_EQ(device::filter_if(ws.data(), small, in.data(), out.data(), count.data(), n, lt(0.5f), stream.get(),
                                {algo}),
              cudaErrorInvalidValue);
    const std::string msg = device::last_error_message();
    EXPECT_NE(msg.find("workspace too small"), std::string::npos) << msg;
    EXPECT_NE(msg.find(std::to_string(bytes) + " needed"), std::string::npos) << msg;
    std::size_t exact = bytes;
    EXPECT_EQ(device::filter_if(ws.data(), exact, in.data(), out.data(), count.data(), n, lt(0.5f), stream.get(),
                                {algo}),
              cudaSuccess)
        << device::last_error_message();
    EXPECT_STREQ(device::last_error_message(), "") << "a successful call leaves no message";
    cuda_check(cudaStreamSynchronize(stream.get()), "sync");
    EXPECT_EQ(count.to_host()[0], 0) << "every key is 1.0: lt(0.5) selects none";
  }
}

TEST(FilterGpu, BadArgumentsAreRejectedWithAMessage) {
  const std::int64_t n = 1000;
  const std::vector<float> host = generate<float>(dist::uniform, n, 3);
  const device_buffer<float> in(host);
  const device_buffer<float> out(static_cast<std::size_t>(n));
  const device_buffer<std::int64_t> count(1);
  const device_buffer<std::int64_t> idx64(static_cast<std::size_t>(n));
  const device_buffer<std::uint8_t> flags(std::vector<std::uint8_t>(static_cast<std::size_t>(n), 1));
  const device_buffer<triple> values_in(static_cast<std::size_t>(n));
  const device_buffer<triple> values_out(static_cast<std::size_t>(n));
  std::vector<float> host_out(static_cast<std::size_t>(n));
  std::vector<std::uint8_t> host_flags(static_cast<std::size_t>(n), 1);
  std::vector<triple> host_values(static_cast<std::size_t>(n));
  std::int64_t host_count = 0;
  const predicate<float> p = lt(0.5f);
  using fa = filter_algorithm;

  // A workspace larger than any of these calls needs (checked), so that only the
  // argument under test is wrong.
  constexpr std::size_t ws_bytes = std::size_t{1} << 20;
  for (const fa algo : all_algorithms) {
    std::size_t b = 0;
    ASSERT_EQ(device::filter_if(nullptr, b, in.data(), out.data(), count.data(), n, p, nullptr, {algo}), cudaSuccess);
    ASSERT_LE(b, ws_bytes);
  }
  const device_buffer<char> ws(ws_bytes);

  auto expect_rejected = [](cudaError_t st, const std::string& needle) {
    EXPECT_EQ(st, cudaErrorInvalidValue) << "expected a rejection mentioning '" << needle << "'";
    const std::string msg = device::last_error_message();
    EXPECT_NE(msg.find(needle), std::string::npos) << "message: " << msg;
    EXPECT_EQ(cudaGetLastError(), cudaSuccess) << "a rejected call left a CUDA error behind";
  };
  auto filter = [&](const float* d_in, float* d_out, std::int64_t* d_count, std::int64_t nn, fa algo = fa::automatic) {
    std::size_t b = ws_bytes;
    return device::filter_if(ws.data(), b, d_in, d_out, d_count, nn, p, nullptr, {algo});
  };

  // n
  for (const fa algo : all_algorithms) expect_rejected(filter(in.data(), out.data(), count.data(), -1, algo), "n = -1 is negative");
  std::size_t query = 0;
  expect_rejected(device::filter_if(nullptr, query, in.data(), out.data(), count.data(), -5, p), "n = -5 is negative");
  expect_rejected(filter(in.data(), out.data(), count.data(), std::int64_t{1} << 40), "exceeds 2^40");
  {
    std::size_t b = ws_bytes;
    expect_rejected(device::count_if(ws.data(), b, in.data(), count.data(), -3, p), "n = -3 is negative");
  }

  // Null and host pointers.
  for (const fa algo : all_algorithms) {
    SCOPED_TRACE(algo_name(algo));
    expect_rejected(filter(nullptr, out.data(), count.data(), n, algo), "d_in is null");
    expect_rejected(filter(in.data(), nullptr, count.data(), n, algo), "d_out is null");
    expect_rejected(filter(in.data(), out.data(), nullptr, n, algo), "d_num_selected is null");
    expect_rejected(filter(host.data(), out.data(), count.data(), n, algo), "d_in is not device memory");
    expect_rejected(filter(in.data(), host_out.data(), count.data(), n, algo), "d_out is not device memory");
    expect_rejected(filter(in.data(), out.data(), &host_count, n, algo), "d_num_selected is not device memory");
  }
  {
    std::size_t b = ws_bytes;
    expect_rejected(device::filter_if_indices(ws.data(), b, in.data(), out.data(), static_cast<std::int64_t*>(nullptr),
                                              count.data(), n, p),
                    "d_indices_out is null");
    b = ws_bytes;
    expect_rejected(device::filter_flagged(ws.data(), b, in.data(), static_cast<const std::uint8_t*>(nullptr),
                                           out.data(), count.data(), n),
                    "d_flags is null");
    b = ws_bytes;
    expect_rejected(device::filter_flagged(ws.data(), b, in.data(), host_flags.data(), out.data(), count.data(), n),
                    "d_flags is not device memory");
    b = ws_bytes;
    expect_rejected(device::count_if(ws.data(), b, in.data(), static_cast<std::int64_t*>(nullptr), n, p),
                    "d_count is null");
    b = ws_bytes;
    expect_rejected(device::count_if(ws.data(), b, host.data(), count.data(), n, p), "d_in is not device memory");
    b = ws_bytes;
    std::vector<float> host_data = host;
    expect_rejected(device::filter_if_inplace(ws.data(), b, host_data.data(), count.data(), n, p),
                    "not device memory");
  }

  // A workspace too small: the message says how many bytes are needed.
  {
    std::size_t needed = 0;
    ASSERT_EQ(device::partition(nullptr, needed, in.data(), out.data(), count.data(), n, p), cudaSuccess);
    std::size_t b = needed - 1;
    expect_rejected(device::partition(ws.data(), b, in.data(), out.data(), count.data(), n, p),
                    "workspace too small");
    b = needed / 2;
    expect_rejected(device::partition(ws.data(), b, in.data(), out.data(), count.data(), n, p),
                    std::to_string(needed) + " needed");
  }

  // d_out overlapping d_in (an in-place filter goes through filter_if_inplace);
  // adjacent arrays are fine.
  {
    device_buffer<float> both(2 * static_cast<std::size_t>(n));
    cuda_check(cudaMemcpy(both.data(), host.data(), host.size() * sizeof(float), cudaMemcpyHostToDevice), "copy");
    for (const fa algo : all_algorithms) {
      SCOPED_TRACE(algo_name(algo));
      expect_rejected(filter(both.data(), both.data(), count.data(), n, algo), "d_out overlaps d_in");
      expect_rejected(filter(both.data(), both.data() + 1, count.data(), n, algo), "d_out overlaps d_in");
      expect_rejected(filter(both.data() + 1, both.data(), count.data(), n, algo), "d_out overlaps d_in");
      expect_rejected(filter(both.data(), both.data() + n - 1, count.data(), n, algo), "d_out overlaps d_in");
      EXPECT_EQ(filter(both.data(), both.data() + n, count.data(), n, algo), cudaSuccess)
          << device::last_error_message();
      cuda_check(cudaDeviceSynchronize(), "sync");
    }
    std::size_t b = ws_bytes;
    expect_rejected(device::partition(ws.data(), b, both.data(), both.data() + 10, count.data(), n, p),
                    "d_out overlaps d_in");
  }

  // An unknown algorithm.
  {
    expect_rejected(filter(in.data(), out.data(), count.data(), n, static_cast<fa>(7)), "unknown filter_algorithm 7");
  }

  // int32_t positions need n < 2^31: refused before any pointer is looked at (no
  // memory behind these), by every entry point that writes them.
  {
    const std::int64_t big = std::int64_t{1} << 31;
    auto* no_in = static_cast<const float*>(nullptr);
    auto* no_out = static_cast<float*>(nullptr);
    auto* no_idx = static_cast<std::int32_t*>(nullptr);
    std::size_t b = 0;
    expect_rejected(device::filter_if_indices(nullptr, b, no_in, no_out, no_idx, nullptr, big, p),
                    "int32_t indices need n < 2^31");
    b = 0;
    expect_rejected(device::filter_flagged_indices(nullptr, b, no_in, static_cast<const std::uint8_t*>(nullptr),
                                                   no_out, no_idx, nullptr, big),
                    "int32_t indices need n < 2^31");
    b = 0;
    expect_rejected(device::partition_pairs(nullptr, b, no_in, static_cast<const triple*>(nullptr), no_out,
                                            static_cast<triple*>(nullptr), no_idx, nullptr, big, p),
                    "int32_t indices need n < 2^31");
    // 2^31 - 1 keys are fine (a size query only: it reads no array).
    const device_buffer<std::int32_t> idx32(1);
    b = 0;
    EXPECT_EQ(device::filter_if_indices(nullptr, b, in.data(), out.data(), idx32.data(), count.data(), big - 1, p),
              cudaSuccess)
        << device::last_error_message();
  }

  // Payloads: d_values_in without d_values_out, or neither where they are required.
  {
    std::size_t b = ws_bytes;
    expect_rejected(device::partition_pairs(ws.data(), b, in.data(), values_in.data(), out.data(),
                                            static_cast<triple*>(nullptr), idx64.data(), count.data(), n, p),
                    "d_values_in and d_values_out must both be given or both be null");
    b = ws_bytes;
    expect_rejected(device::partition_pairs(ws.data(), b, in.data(), static_cast<const triple*>(nullptr), out.data(),
                                            values_out.data(), idx64.data(), count.data(), n, p),
                    "must both be given");
    b = ws_bytes;
    expect_rejected(device::filter_if_pairs(ws.data(), b, in.data(), values_in.data(), out.data(),
                                            static_cast<triple*>(nullptr), count.data(), n, p),
                    "must both be given");
    b = ws_bytes;
    expect_rejected(device::filter_if_pairs(ws.data(), b, in.data(), static_cast<const triple*>(nullptr), out.data(),
                                            static_cast<triple*>(nullptr), count.data(), n, p),
                    "d_values_in is null");
    b = ws_bytes;
    expect_rejected(device::filter_if_pairs(ws.data(), b, in.data(), host_values.data(), out.data(),
                                            values_out.data(), count.data(), n, p),
                    "d_values_in is not device memory");
    b = ws_bytes;
    expect_rejected(device::partition_pairs(ws.data(), b, in.data(), static_cast<const triple*>(nullptr),
                                            static_cast<float*>(nullptr), static_cast<triple*>(nullptr),
                                            static_cast<std::int64_t*>(nullptr), count.data(), n, p),
                    "no output given");
  }

  // A good call after all this: no message left.
  EXPECT_EQ(filter(in.data(), out.data(), count.data(), n), cudaSuccess) << device::last_error_message();
  EXPECT_STREQ(device::last_error_message(), "");
  cuda_check(cudaDeviceSynchronize(), "sync");
}

// ---------------------------------------------------------------------------------
// More than 2^31 keys
// ---------------------------------------------------------------------------------

// n = 2^31 + 4097 floats in [0, 1) made on the device; ge(2^-20) keeps all but about
// 2000, so positions and output offsets both pass 2^31. filter_if_indices with
// int64_t positions under each algorithm, then positions alone, then a partition's
// positions, against std::copy_if on the host.
TEST(FilterGpu, MoreThan2Pow31Keys) {
  const std::int64_t n = (std::int64_t{1} << 31) + 4097;
  const auto un = static_cast<std::size_t>(n);
  std::size_t free_bytes = 0, total_bytes = 0;
  cuda_check(cudaMemGetInfo(&free_bytes, &total_bytes), "cudaMemGetInfo");
  const std::size_t needed = un * (2 * sizeof(float) + sizeof(std::int64_t)) + (std::size_t{1} << 30);
  if (free_bytes < needed) GTEST_SKIP() << "needs about " << needed << " bytes of GPU memory, " << free_bytes << " free";

  const device_buffer<float> in(un);
  generate_on_device(in.data(), n, device_dist::uniform, 2031);
  cuda_check(cudaDeviceSynchronize(), "generate");
  const std::unique_ptr<float[]> host(new float[un]);  // not zero-filled: 8.6 GB
  cuda_check(cudaMemcpy(host.get(), in.data(), un * sizeof(float), cudaMemcpyDeviceToHost), "copy input");

  const float c = 0x1p-20f;
  const predicate<float> p = ge(c);
  std::vector<float> want;
  want.reserve(un);
  std::copy_if(host.get(), host.get() + n, std::back_inserter(want), [c](float x) { return x >= c; });
  const auto m = static_cast<std::int64_t>(want.size());
  ASSERT_GT(m, std::int64_t{1} << 31) << "the output should pass 2^31 too";
  ASSERT_LT(m, n) << "some keys should be rejected";

  const device_buffer<float> out(un);
  const device_buffer<std::int64_t> idx(un);
  const device_buffer<std::int64_t> count(1);
  const std::unique_ptr<float[]> got(new float[un]);
  const std::unique_ptr<std::int64_t[]> got_idx(new std::int64_t[un]);
  test_stream stream;
  const cudaStream_t s = stream.get();
  auto poison = [&] {
    cuda_check(cudaMemsetAsync(out.data(), output_poison, un * sizeof(float), s), "poison");
    cuda_check(cudaMemsetAsync(idx.data(), output_poison, un * sizeof(std::int64_t), s), "poison");
    cuda_check(cudaMemsetAsync(count.data(), output_poison, sizeof(std::int64_t), s), "poison");
  };

  for (const filter_algorithm algo : {filter_algorithm::single_pass, filter_algorithm::three_phase}) {
    SCOPED_TRACE(algo_name(algo));
    poison();
    ASSERT_FILTER_OK(two_phase(s, [&](void* ws, std::size_t& bytes) {
      return device::filter_if_indices(ws, bytes, in.data(), out.data(), idx.data(), count.data(), n, p, s,
                                       device::filter_config{algo});
    }));
    ASSERT_EQ(count.to_host()[0], m);
    const auto um = static_cast<std::size_t>(m);
    cuda_check(cudaMemcpy(got.get(), out.data(), um * sizeof(float), cudaMemcpyDeviceToHost), "copy keys");
    cuda_check(cudaMemcpy(got_idx.get(), idx.data(), um * sizeof(std::int64_t), cudaMemcpyDeviceToHost),
               "copy positions");
    EXPECT_EQ(std::memcmp(got.get(), want.data(), um * sizeof(float)), 0) << "the keys differ from std::copy_if's";
    // Ascending, in range, selected, and the key written next to each: with the
    // count right, exactly copy_if's positions.
    std::int64_t bad = 0;
#pragma omp parallel for reduction(+ : bad)
    for (std::int64_t j = 0; j < m; ++j) {
      const std::int64_t i = got_idx[j];
      const bool ok = i >= 0 && i < n && (j == 0 || got_idx[j - 1] < i) && host[i] >= c &&
                      std::bit_cast<std::uint32_t>(host[i]) == std::bit_cast<std::uint32_t>(got[j]);
      bad += ok ? 0 : 1;
    }
    EXPECT_EQ(bad, 0) << "positions wrong";
    EXPECT_GT(got_idx[um - 1], std::int64_t{INT32_MAX});
  }

  {
    // Positions alone (the single pass stages them): exactly those checked above.
    SCOPED_TRACE("filter_if_indices, positions alone");
    poison();
    ASSERT_FILTER_OK(two_phase(s, [&](void* ws, std::size_t& bytes) {
      return device::filter_if_indices(ws, bytes, in.data(), static_cast<float*>(nullptr), idx.data(), count.data(),
                                       n, p, s, device::filter_config{filter_algorithm::single_pass});
    }));
    ASSERT_EQ(count.to_host()[0], m);
    const auto um = static_cast<std::size_t>(m);
    constexpr std::size_t chunk = std::size_t{1} << 24;
    std::vector<std::int64_t> alone(chunk);
    std::size_t differ = 0;
    for (std::size_t j = 0; j < um; j += chunk) {
      const std::size_t len = std::min(chunk, um - j);
      cuda_check(cudaMemcpy(alone.data(), idx.data() + j, len * sizeof(std::int64_t), cudaMemcpyDeviceToHost), "copy");
      differ += std::memcmp(alone.data(), got_idx.get() + j, len * sizeof(std::int64_t)) != 0 ? 1 : 0;
    }
    EXPECT_EQ(differ, 0u) << "positions wrong";
  }

  SCOPED_TRACE("partition_pairs, positions alone");
  poison();
  ASSERT_FILTER_OK(two_phase(s, [&](void* ws, std::size_t& bytes) {
    return device::partition_pairs(ws, bytes, in.data(), static_cast<const float*>(nullptr),
                                   static_cast<float*>(nullptr), static_cast<float*>(nullptr), idx.data(),
                                   count.data(), n, p, s);
  }));
  ASSERT_EQ(count.to_host()[0], m);
  cuda_check(cudaMemcpy(got_idx.get(), idx.data(), un * sizeof(std::int64_t), cudaMemcpyDeviceToHost), "copy");
  // Both parts ascending; the first m selected, the rest not: the partition's order.
  std::int64_t bad = 0;
#pragma omp parallel for reduction(+ : bad)
  for (std::int64_t j = 0; j < n; ++j) {
    const std::int64_t i = got_idx[j];
    const bool ok = i >= 0 && i < n && (j == 0 || j == m || got_idx[j - 1] < i) && (host[i] >= c) == (j < m);
    bad += ok ? 0 : 1;
  }
  EXPECT_EQ(bad, 0) << "partition positions wrong";
}

// ---------------------------------------------------------------------------------
// The owning API on device memory
// ---------------------------------------------------------------------------------

/// Every owning filter on a device copy of `host` (options `gpu`, so the CUDA
/// backend) against the same call on `host` (the CPU backend), and filter_if also
/// against the reference.
template <class T>
void expect_owning_matches_cpu(const std::vector<T>& host, const predicate<T>& p, const options& gpu) {
  const auto n = static_cast<std::int64_t>(host.size());
  options cpu;
  cpu.device = device_kind::cpu;
  const device_buffer<T> dev(host);
  ASSERT_EQ(pointer_location(dev.data()), device_kind::cuda);

  std::vector<std::uint8_t> flags(host.size());
  for (std::size_t i = 0; i < host.size(); ++i) flags[i] = p(host[i]) ? static_cast<std::uint8_t>(1 + i % 255) : 0;
  const device_buffer<std::uint8_t> dev_flags(flags);
  const std::vector<triple> t = payloads<triple>(n);
  const std::vector<double> d = payloads<double>(n);
  const device_buffer<triple> dev_t(t);
  const device_buffer<double> dev_d(d);
  const device_buffer<T> dev_copy(host);  // for filter_if_inplace
  cuda_check(cudaDeviceSynchronize(), "the inputs' copies");  // gpu.stream may not wait for them

  const filtered<T> g = kselect::filter_if(dev.data(), n, p, {}, gpu);
  const filtered<T> c = kselect::filter_if(host.data(), n, p, {}, cpu);
  EXPECT_TRUE(same_bits(g.values, c.values)) << "filter_if";
  EXPECT_TRUE(same_bits(g.values, reference_of(host, p).values)) << "filter_if against std::copy_if";
  EXPECT_TRUE(g.indices.empty());

  const filtered<T> gi = kselect::filter_if(dev.data(), n, p, {.indices = true}, gpu);
  const filtered<T> ci = kselect::filter_if(host.data(), n, p, {.indices = true}, cpu);
  EXPECT_TRUE(same_bits(gi.values, ci.values)) << "filter_if with indices";
  EXPECT_EQ(gi.indices, ci.indices) << "filter_if with indices";

  const T lo = std::numeric_limits<T>::lowest(), hi = split_key<T>();
  const filtered<T> gr = kselect::filter_range(dev.data(), n, lo, hi, {.indices = true}, gpu);
  const filtered<T> cr = kselect::filter_range(host.data(), n, lo, hi, {.indices = true}, cpu);
  EXPECT_TRUE(same_bits(gr.values, cr.values)) << "filter_range";
  EXPECT_EQ(gr.indices, cr.indices) << "filter_range";

  const filtered<T> gf = kselect::filter_flagged(dev.data(), n, dev_flags.data(), {.indices = true}, gpu);
  const filtered<T> cf = kselect::filter_flagged(host.data(), n, flags.data(), {.indices = true}, cpu);
  EXPECT_TRUE(same_bits(gf.values, cf.values)) << "filter_flagged";
  EXPECT_EQ(gf.indices, cf.indices) << "filter_flagged";

  const partitioned<T> gp = kselect::partition(dev.data(), n, p, {.indices = true}, gpu);
  const partitioned<T> cp = kselect::partition(host.data(), n, p, {.indices = true}, cpu);
  EXPECT_EQ(gp.selected, cp.selected) << "partition";
  EXPECT_TRUE(same_bits(gp.values, cp.values)) << "partition";
  EXPECT_EQ(gp.indices, cp.indices) << "partition";
  const partitioned<T> gp_plain = kselect::partition(dev.data(), n, p, {}, gpu);
  EXPECT_TRUE(same_bits(gp_plain.values, cp.values)) << "partition without indices";
  EXPECT_TRUE(gp_plain.indices.empty());

  EXPECT_EQ(kselect::count_if(dev.data(), n, p, gpu), kselect::count_if(host.data(), n, p, cpu)) << "count_if";

  const filtered_pairs<T, triple> g_pairs = kselect::filter_if_pairs(dev.data(), dev_t.data(), n, p, {.indices = true}, gpu);
  const filtered_pairs<T, triple> c_pairs = kselect::filter_if_pairs(host.data(), t.data(), n, p, {.indices = true}, cpu);
  EXPECT_TRUE(same_bits(g_pairs.values, c_pairs.values)) << "filter_if_pairs";
  EXPECT_TRUE(same_bits(g_pairs.payload, c_pairs.payload)) << "filter_if_pairs";
  EXPECT_EQ(g_pairs.indices, c_pairs.indices) << "filter_if_pairs";

  const filtered_pairs<T, double> gfp = kselect::filter_flagged_pairs(dev.data(), dev_d.data(), n, dev_flags.data(), {}, gpu);
  const filtered_pairs<T, double> cfp = kselect::filter_flagged_pairs(host.data(), d.data(), n, flags.data(), {}, cpu);
  EXPECT_TRUE(same_bits(gfp.values, cfp.values)) << "filter_flagged_pairs";
  EXPECT_TRUE(same_bits(gfp.payload, cfp.payload)) << "filter_flagged_pairs";
  EXPECT_TRUE(gfp.indices.empty());

  const partitioned_pairs<T, triple> g_parted_pairs = kselect::partition_pairs(dev.data(), dev_t.data(), n, p, {.indices = true}, gpu);
  const partitioned_pairs<T, triple> c_parted_pairs = kselect::partition_pairs(host.data(), t.data(), n, p, {.indices = true}, cpu);
  EXPECT_EQ(g_parted_pairs.selected, c_parted_pairs.selected) << "partition_pairs";
  EXPECT_TRUE(same_bits(g_parted_pairs.values, c_parted_pairs.values)) << "partition_pairs";
  EXPECT_TRUE(same_bits(g_parted_pairs.payload, c_parted_pairs.payload)) << "partition_pairs";
  EXPECT_EQ(g_parted_pairs.indices, c_parted_pairs.indices) << "partition_pairs";

  // In place: the device array's first `count` elements, bit for bit.
  std::vector<T> host_copy = host;
  const std::int64_t gk = kselect::filter_if_inplace(dev_copy.data(), n, p, gpu);
  const std::int64_t ck = kselect::filter_if_inplace(host_copy.data(), n, p, cpu);
  ASSERT_EQ(gk, ck) << "filter_if_inplace";
  std::vector<T> after = dev_copy.to_host();
  after.resize(static_cast<std::size_t>(gk));
  host_copy.resize(static_cast<std::size_t>(ck));
  EXPECT_TRUE(same_bits(after, host_copy)) << "filter_if_inplace";
}

template <class T>
class FilterGpuOwning : public testing::Test {};
using KeyTypes = testing::Types<float, double, std::int32_t, std::uint32_t, std::int64_t, std::uint64_t>;
TYPED_TEST_SUITE(FilterGpuOwning, KeyTypes);

TYPED_TEST(FilterGpuOwning, MatchesTheCpuBackend) {
  using T = TypeParam;
  ASSERT_TRUE(cuda_available());
  const options by_pointer;  // device pointers: the CUDA backend
  test_stream stream;
  options explicit_cuda;
  explicit_cuda.device = device_kind::cuda;
  explicit_cuda.stream = stream.get();
  const T split = split_key<T>();
  for (const std::int64_t n : {std::int64_t{1}, std::int64_t{4097}, std::int64_t{300007}})
    for (const auto& [pat, sel] : {std::pair{mask_pattern::random, 0.0}, std::pair{mask_pattern::random, 0.01},
                                   std::pair{mask_pattern::random, 0.5}, std::pair{mask_pattern::random, 1.0},
                                   std::pair{mask_pattern::runs, 0.0}}) {
      SCOPED_TRACE(testing::Message() << "n = " << n << ", " << name(pat) << ", selectivity " << sel);
      const std::uint64_t seed = 503 + static_cast<std::uint64_t>(n);
      const std::vector<T> v = keys_for_mask<T>(selection_mask(pat, n, sel, seed), seed + 1);
      expect_owning_matches_cpu(v, lt(split), by_pointer);
      expect_owning_matches_cpu(v, ge(split), explicit_cuda);
      if (this->HasFailure()) return;
    }
  // NaN, infinities, signed zeros, denormals and extremes.
  const std::vector<T> probes = probe_values<T>(40, 5);
  std::vector<T> v(20011);
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = probes[random_word(7, i) % probes.size()];
  expect_owning_matches_cpu(v, ne(T(0)), by_pointer);
  expect_owning_matches_cpu(v, eq(T(0)), by_pointer);
  expect_owning_matches_cpu(v, in_range(T(0), std::numeric_limits<T>::max()), by_pointer);
  if constexpr (std::is_floating_point_v<T>) {
    expect_owning_matches_cpu(v, ne(std::numeric_limits<T>::quiet_NaN()), by_pointer);
    expect_owning_matches_cpu(v, le(std::numeric_limits<T>::infinity()), by_pointer);
  }
  // n == 0 with a device pointer: empty results.
  const device_buffer<T> one(std::vector<T>{T(1)});
  EXPECT_TRUE(kselect::filter_if(one.data(), 0, lt(split)).values.empty());
  EXPECT_EQ(kselect::partition(one.data(), 0, lt(split)).selected, 0);
  EXPECT_EQ(kselect::count_if(one.data(), 0, lt(split)), 0);
}

TEST(FilterGpuOwningErrors, MixedHostAndDeviceArraysAreRejected) {
  const std::int64_t n = 100;
  const std::vector<float> host = generate<float>(dist::uniform, n, 9);
  const device_buffer<float> dev(host);
  const std::vector<std::uint8_t> host_flags(static_cast<std::size_t>(n), 1);
  const device_buffer<std::uint8_t> dev_flags(host_flags);
  const std::vector<double> host_payload(static_cast<std::size_t>(n), 1.0);
  const device_buffer<double> dev_payload(host_payload);

  expect_invalid([&] { kselect::filter_flagged(dev.data(), n, host_flags.data()); },
                 "flags points to host memory but values does not");
  expect_invalid([&] { kselect::filter_flagged(host.data(), n, dev_flags.data()); },
                 "flags points to device memory but values does not");
  expect_invalid([&] { kselect::filter_flagged_pairs(dev.data(), dev_payload.data(), n, host_flags.data()); },
                 "flags points to host memory");
  expect_invalid([&] { kselect::filter_if_pairs(dev.data(), host_payload.data(), n, lt(0.5f)); },
                 "payload points to host memory but values does not");
  expect_invalid([&] { kselect::partition_pairs(host.data(), dev_payload.data(), n, lt(0.5f)); },
                 "payload points to device memory but values does not");
  options cpu;
  cpu.device = device_kind::cpu;
  expect_invalid([&] { kselect::filter_if(dev.data(), n, lt(0.5f), {}, cpu); },
                 "options.device is cpu but values points to device memory");
  expect_invalid([&] { kselect::count_if(dev.data(), n, lt(0.5f), cpu); }, "options.device is cpu");
  // The predicate is checked before any backend runs.
  expect_invalid([&] { kselect::filter_range(dev.data(), n, 1.0f, 0.0f); }, "is greater than hi");
  std::vector<float> copy = host;
  const device_buffer<float> dev_copy(copy);
  expect_invalid([&] { kselect::filter_if_inplace(dev_copy.data(), n, in_range(0.0f, std::nanf(""))); },
                 "hi is NaN");
}

}  // namespace
}  // namespace kselect::test
