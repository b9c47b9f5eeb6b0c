// The filters (include/kselect/filter.hpp) on the CPU against std::copy_if, exactly
// and in order: every key type, the standard sizes, selectivities 0% to 100%, masks
// that are alternating, clustered or select only the first or last element; the
// predicates on NaN, infinities, -0.0 and denormals; partition, flagged, count_if,
// indices, paired payloads, in place; the CPU backend with more chunks than threads;
// argument errors.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <span>
#include <string>
#include <vector>

#include "common/common.hpp"
#include "common/expect_invalid.hpp"
#include "common/filter_reference.hpp"
#include "common/key_types.hpp"
#include "common/probe_values.hpp"
#include "cpu/filter.hpp"
#include "kselect/kselect.hpp"

namespace kselect {
namespace {

using test::key_type;
using test::mask_pattern;

using test::expect_invalid;
using test::gather;

/// A payload that is none of the fixed copy sizes (12 bytes).
struct triple {
  std::int32_t a;
  float b;
  std::uint32_t c;
};

triple triple_of(std::int64_t i) {
  return {static_cast<std::int32_t>(i), static_cast<float>(i) * 0.5f, static_cast<std::uint32_t>(~i)};
}

bool operator==(const triple& x, const triple& y) { return std::memcmp(&x, &y, sizeof x) == 0; }

/// Every filter of the owning API on `v` with predicate `p` (and, for the flagged
/// ones, the flags that p gives, as bytes other than 1) against the reference.
template <class T>
void expect_filters(const std::vector<T>& v, const predicate<T>& p, const options& opt) {
  const auto n = static_cast<std::int64_t>(v.size());
  const test::reference_selection<T> want = test::reference_filter(
      v, [&](std::int64_t i) { return test::reference_keep(p, v[static_cast<std::size_t>(i)]); });
  const auto m = static_cast<std::int64_t>(want.values.size());

  const filtered<T> plain = filter_if(v.data(), n, p, {}, opt);
  EXPECT_TRUE(test::same_bits(plain.values, want.values));
  EXPECT_TRUE(plain.indices.empty());
  const filtered<T> with_indices = filter_if(v.data(), n, p, {.indices = true}, opt);
  EXPECT_TRUE(test::same_bits(with_indices.values, want.values));
  EXPECT_EQ(with_indices.indices, want.indices);

  EXPECT_EQ(count_if(v.data(), n, p, opt), m);

  // partition: the selected ones, then the others, each in input order.
  const partitioned<T> parts = partition(v.data(), n, p, {.indices = true}, opt);
  const std::vector<std::int64_t> order = test::partition_order(want.indices, n);
  EXPECT_EQ(parts.selected, m);
  EXPECT_EQ(parts.indices, order);
  EXPECT_TRUE(test::same_bits(parts.values, gather(v, order)));

  // Flags from the predicate, any nonzero byte meaning "keep".
  std::vector<std::uint8_t> flags(v.size());
  for (std::size_t i = 0; i < v.size(); ++i)
    flags[i] = test::reference_keep(p, v[i]) ? static_cast<std::uint8_t>(1 + i % 255) : 0;
  const filtered<T> flagged = filter_flagged(v.data(), n, flags.data(), {.indices = true}, opt);
  EXPECT_TRUE(test::same_bits(flagged.values, want.values));
  EXPECT_EQ(flagged.indices, want.indices);

  // Paired payloads of 12 and 8 bytes.
  std::vector<triple> t(v.size());
  std::vector<double> d(v.size());
  for (std::int64_t i = 0; i < n; ++i) {
    t[static_cast<std::size_t>(i)] = triple_of(i);
    d[static_cast<std::size_t>(i)] = -0.25 * static_cast<double>(i);
  }
  const filtered_pairs<T, triple> pairs = filter_if_pairs(v.data(), t.data(), n, p, {.indices = true}, opt);
  EXPECT_TRUE(test::same_bits(pairs.values, want.values));
  EXPECT_EQ(pairs.payload, gather(t, want.indices));
  EXPECT_EQ(pairs.indices, want.indices);
  const filtered_pairs<T, double> flagged_pairs = filter_flagged_pairs(v.data(), d.data(), n, flags.data(), {}, opt);
  EXPECT_TRUE(test::same_bits(flagged_pairs.values, want.values));
  EXPECT_EQ(flagged_pairs.payload, gather(d, want.indices));
  EXPECT_TRUE(flagged_pairs.indices.empty());
  const partitioned_pairs<T, triple> parted_pairs = partition_pairs(v.data(), t.data(), n, p, {}, opt);
  EXPECT_EQ(parted_pairs.selected, m);
  EXPECT_TRUE(test::same_bits(parted_pairs.values, gather(v, order)));
  EXPECT_EQ(parted_pairs.payload, gather(t, order));

  // In place: the prefix, bit for bit.
  std::vector<T> copy = v;
  const std::int64_t kept = filter_if_inplace(std::span<T>(copy), p, opt);
  ASSERT_EQ(kept, m);
  copy.resize(static_cast<std::size_t>(kept));
  EXPECT_TRUE(test::same_bits(copy, want.values));
}

options threads(int t) {
  options opt;
  opt.device = device_kind::cpu;
  opt.cpu_threads = t;
  return opt;
}

/// expect_filters on keys selected exactly by a mask of pattern p, with lt and (unless
/// lt_only) with ge (the complement) and in_range below the split.
template <class T>
void expect_mask(mask_pattern pat, std::int64_t n, double selectivity, std::uint64_t seed, const options& opt,
                 bool lt_only = false) {
  SCOPED_TRACE(testing::Message() << "n = " << n << ", " << test::name(pat) << ", selectivity " << selectivity
                                  << ", threads " << opt.cpu_threads);
  const std::vector<std::uint8_t> mask = test::selection_mask(pat, n, selectivity, seed);
  const std::vector<T> v = test::keys_for_mask<T>(mask, seed + 1);
  const T split = test::split_key<T>();
  // lt(split) selects the mask exactly; check that the keys do what they should.
  for (std::int64_t i = 0; i < n; ++i)
    ASSERT_EQ(v[static_cast<std::size_t>(i)] < split, mask[static_cast<std::size_t>(i)] != 0) << "i = " << i;
  expect_filters(v, lt(split), opt);
  if (lt_only) return;
  expect_filters(v, ge(split), opt);
  expect_filters(v, in_range(std::numeric_limits<T>::lowest(), split), opt);
}

class FilterTypes : public testing::TestWithParam<key_type> {};

TEST_P(FilterTypes, SelectivitiesAndSizes) {
  test::with_key_type(GetParam(), [&]<class T>() {
    for (const std::int64_t n : test::test_sizes(std::int64_t{1} << 16))
      for (const double s : {0.0, 0.001, 0.01, 0.5, 0.99, 1.0})
        expect_mask<T>(mask_pattern::random, n, s, 17 + static_cast<std::uint64_t>(n), threads(n % 3 + 1));
  });
}

TEST_P(FilterTypes, Patterns) {
  test::with_key_type(GetParam(), [&]<class T>() {
    for (const std::int64_t n : test::test_sizes(std::int64_t{1} << 16))
      for (const mask_pattern pat : {mask_pattern::alternating, mask_pattern::runs, mask_pattern::last_only,
                                     mask_pattern::first_only})
        expect_mask<T>(pat, n, 0, 29 + static_cast<std::uint64_t>(n), threads(n % 3 + 1));
  });
}

// Sizes of a few million: the parallel path with one chunk per thread.
TEST_P(FilterTypes, Large) {
  test::with_key_type(GetParam(), [&]<class T>() {
    const std::int64_t million = (std::int64_t{1} << 20) + 1, two_million = (std::int64_t{1} << 21) + 1;
    expect_mask<T>(mask_pattern::random, two_million, 0.5, 5, threads(0), true);
    expect_mask<T>(mask_pattern::random, million, 0.001, 6, threads(3), true);
    expect_mask<T>(mask_pattern::runs, million, 0, 7, threads(2), true);
    expect_mask<T>(mask_pattern::last_only, two_million, 0, 8, threads(2), true);
  });
}

// Every comparison against every probe value as the constant (NaN, +-inf, +-0,
// denormals, extremes), and ranges between probe values.
TEST_P(FilterTypes, SpecialValues) {
  test::with_key_type(GetParam(), [&]<class T>() {
    const std::vector<T> v = test::probe_values<T>(40, 3);
    for (const T c : v) {
      SCOPED_TRACE(testing::Message() << "constant " << c);
      for (const filter_op op : {filter_op::lt, filter_op::le, filter_op::gt, filter_op::ge, filter_op::eq,
                                 filter_op::ne})
        expect_filters(v, predicate<T>{op, c, T{}}, threads(2));
    }
    for (std::size_t i = 0; i < v.size(); i += 3)
      for (std::size_t j = 0; j < v.size(); j += 5) {
        const T lo = v[i], hi = v[j];
        if constexpr (std::is_floating_point_v<T>)
          if (std::isnan(lo) || std::isnan(hi)) continue;
        if (lo > hi) continue;
        SCOPED_TRACE(testing::Message() << "range [" << lo << ", " << hi << ")");
        expect_filters(v, in_range(lo, hi), threads(1));
      }
  });
}

INSTANTIATE_TEST_SUITE_P(
    AllTypes, FilterTypes, testing::ValuesIn(test::all_key_types),
    [](const testing::TestParamInfo<key_type>& param_info) { return test::name(param_info.param); });

TEST(Filter, PredicateSemantics) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  // NaN compares false, except ne.
  for (const predicate<double> p : {lt(1.0), le(1.0), gt(1.0), ge(1.0), eq(1.0), in_range(-inf, inf)})
    EXPECT_FALSE(p(nan));
  EXPECT_TRUE(ne(1.0)(nan));
  EXPECT_TRUE(ne(nan)(nan));
  EXPECT_FALSE(eq(nan)(nan));
  EXPECT_FALSE(lt(nan)(-inf));
  // -0.0 == +0.0.
  EXPECT_TRUE(eq(0.0)(-0.0));
  EXPECT_TRUE(eq(-0.0)(0.0));
  EXPECT_FALSE(lt(0.0)(-0.0));
  EXPECT_TRUE(in_range(0.0, 1.0)(-0.0));
  EXPECT_FALSE(in_range(-1.0, -0.0)(0.0));
  // Half open.
  EXPECT_TRUE(in_range(1, 3)(1));
  EXPECT_FALSE(in_range(1, 3)(3));
  EXPECT_FALSE(in_range(2, 2)(2));
  EXPECT_TRUE(in_range(-inf, inf)(-inf));
  EXPECT_FALSE(in_range(-inf, inf)(inf));

  const std::vector<float> v = {1.0f, std::nanf(""), -0.0f, 0.0f, -std::numeric_limits<float>::infinity(), 2.0f};
  EXPECT_EQ(filter_if(v, ne(0.0f), {.indices = true}).indices, (std::vector<std::int64_t>{0, 1, 4, 5}));
  EXPECT_EQ(filter_if(v, eq(0.0f), {.indices = true}).indices, (std::vector<std::int64_t>{2, 3}));
  EXPECT_EQ(count_if(v, lt(std::nanf(""))), 0);
  EXPECT_EQ(count_if(v, ne(std::nanf(""))), 6);
  EXPECT_EQ(filter_range(v, -1.0f, 1.0f, {.indices = true}).indices, (std::vector<std::int64_t>{2, 3}));
}

TEST(Filter, Conveniences) {
  const std::vector<std::int32_t> v = {5, -3, 8, 0, 8, 2};
  EXPECT_EQ(filter_if(v, gt(1)).values, (std::vector<std::int32_t>{5, 8, 8, 2}));
  EXPECT_EQ(filter_range(v, 0, 8).values, (std::vector<std::int32_t>{5, 0, 2}));
  const partitioned<std::int32_t> p = partition(v, eq(8), {.indices = true});
  EXPECT_EQ(p.values, (std::vector<std::int32_t>{8, 8, 5, -3, 0, 2}));
  EXPECT_EQ(p.indices, (std::vector<std::int64_t>{2, 4, 0, 1, 3, 5}));
  EXPECT_EQ(p.selected, 2);
  EXPECT_EQ(count_if(v, le(0)), 2);
  const std::vector<std::uint8_t> flags = {0, 1, 0, 0, 7, 0};
  EXPECT_EQ(filter_flagged(v, flags).values, (std::vector<std::int32_t>{-3, 8}));
  std::vector<std::int32_t> w = v;
  EXPECT_EQ(filter_if_inplace(w.data(), 6, ne(8)), 4);
  EXPECT_EQ(std::vector<std::int32_t>(w.begin(), w.begin() + 4), (std::vector<std::int32_t>{5, -3, 0, 2}));
  const std::vector<std::uint16_t> payload = {10, 11, 12, 13, 14, 15};
  const auto pairs = filter_if_pairs(v.data(), payload.data(), 6, lt(3));
  EXPECT_EQ(pairs.values, (std::vector<std::int32_t>{-3, 0, 2}));
  EXPECT_EQ(pairs.payload, (std::vector<std::uint16_t>{11, 13, 15}));
  // uint8_t and 16-byte payloads (copied with their own fixed sizes).
  const std::vector<std::uint8_t> bytes = {1, 2, 3, 4, 5, 6};
  EXPECT_EQ(filter_if_pairs(v.data(), bytes.data(), 6, ge(5)).payload, (std::vector<std::uint8_t>{1, 3, 5}));
  struct wide {
    std::uint64_t a, b;
    bool operator==(const wide&) const = default;
  };
  const std::vector<wide> w16 = {{1, 2}, {3, 4}, {5, 6}, {7, 8}, {9, 10}, {11, 12}};
  EXPECT_EQ(partition_pairs(v.data(), w16.data(), 6, lt(0)).payload,
            (std::vector<wide>{{3, 4}, {1, 2}, {5, 6}, {7, 8}, {9, 10}, {11, 12}}));
}

TEST(Filter, EmptyInputIsValid) {
  const std::vector<double> empty;
  EXPECT_TRUE(filter_if(empty, lt(1.0)).values.empty());
  EXPECT_TRUE(filter_if<double>(nullptr, 0, lt(1.0), {.indices = true}).indices.empty());
  EXPECT_TRUE(filter_range(empty, 0.0, 1.0).values.empty());
  EXPECT_TRUE(filter_flagged<double>(nullptr, 0, nullptr).values.empty());
  const partitioned<double> p = partition<double>(nullptr, 0, gt(0.0));
  EXPECT_TRUE(p.values.empty());
  EXPECT_EQ(p.selected, 0);
  EXPECT_EQ(count_if<double>(nullptr, 0, gt(0.0)), 0);
  EXPECT_EQ(filter_if_inplace<double>(nullptr, 0, gt(0.0)), 0);
  const filtered_pairs<double, int> pairs = filter_if_pairs<double, int>(nullptr, nullptr, 0, gt(0.0));
  EXPECT_TRUE(pairs.payload.empty());
}

TEST(Filter, BadArguments) {
  const std::vector<float> v = {1, 2, 3};
  const float nan = std::numeric_limits<float>::quiet_NaN();
  expect_invalid([&] { filter_if<float>(nullptr, 5, lt(1.0f)); }, "values is null (n = 5)");
  expect_invalid([&] { filter_if(v.data(), -1, lt(1.0f)); }, "n = -1 is negative");
  expect_invalid([&] { count_if<float>(nullptr, 2, lt(1.0f)); }, "values is null");
  expect_invalid([&] { count_if(v.data(), -4, lt(1.0f)); }, "n = -4 is negative");
  expect_invalid([&] { filter_if_inplace<float>(nullptr, 3, lt(1.0f)); }, "values is null");
  expect_invalid([&] { partition(v.data(), -2, lt(1.0f)); }, "n = -2 is negative");
  expect_invalid([&] { filter_range(v, 3.0f, 1.0f); }, "in_range: lo = 3 is greater than hi = 1");
  expect_invalid([&] { filter_range(v, 0.5f, -0.25f); }, "lo = 0.5 is greater than hi = -0.25");
  expect_invalid([&] { filter_range(std::vector<std::int64_t>{1}, std::int64_t{7}, std::int64_t{-7}); },
                 "lo = 7 is greater than hi = -7");
  expect_invalid([&] { filter_range(v, nan, 1.0f); }, "in_range: lo is NaN");
  expect_invalid([&] { filter_range(v, 0.0f, nan); }, "in_range: hi is NaN");
  expect_invalid([&] { count_if(v, in_range(nan, nan)); }, "lo is NaN");
  std::vector<float> w = v;
  expect_invalid([&] { filter_if_inplace(std::span<float>(w), in_range(2.0f, 1.0f)); }, "greater than hi");
  expect_invalid([&] { filter_if(v, predicate<float>{static_cast<filter_op>(42), 0.0f, 0.0f}); },
                 "predicate.op = 42 is not a filter_op");
  expect_invalid([&] { filter_flagged(v.data(), 3, nullptr); }, "flags is null (n = 3)");
  expect_invalid([&] { filter_flagged(v, std::vector<std::uint8_t>{1, 0}); },
                 "flags.size() = 2 differs from values.size() = 3");
  expect_invalid([&] { filter_if_pairs(v.data(), static_cast<const int*>(nullptr), 3, lt(1.0f)); },
                 "payload is null (n = 3)");
  options bad_threads;
  bad_threads.cpu_threads = -1;
  expect_invalid([&] { filter_if(v, lt(1.0f), {}, bad_threads); }, "options.cpu_threads = -1");
  // CUDA asked for with host memory, or in a build without CUDA: a caller mistake.
  options cuda;
  cuda.device = device_kind::cuda;
  EXPECT_THROW(filter_if(v, lt(1.0f), {}, cuda), std::invalid_argument);
  EXPECT_THROW(count_if(v, lt(1.0f), cuda), std::invalid_argument);
}

// The CPU backend with more chunks than threads (and empty chunks), so that the scan
// over chunk counts and the in-place moves are exercised on small inputs.
TEST(FilterCpu, ManyChunks) {
  for (const std::int64_t n : test::test_sizes(4097))
    for (const std::int64_t chunks : {2, 3, 7, 64})
      for (const int t : {1, 2, 3}) {
        SCOPED_TRACE(testing::Message() << "n = " << n << ", chunks " << chunks << ", threads " << t);
        const cpu::filter_tuning tuning{0, chunks};
        const std::vector<std::uint8_t> mask =
            test::selection_mask(mask_pattern::runs, n, 0, 3 + static_cast<std::uint64_t>(n));
        const std::vector<float> v = test::keys_for_mask<float>(mask, 4);
        const predicate<float> p = lt(0.0f);
        const test::reference_selection<float> want =
            test::reference_filter(v, [&](std::int64_t i) { return mask[static_cast<std::size_t>(i)] != 0; });
        const auto m = static_cast<std::int64_t>(want.values.size());

        const cpu::filter_plan plan = cpu::filter_count(v.data(), n, p, nullptr, t, tuning);
        ASSERT_EQ(plan.chunks(), chunks);
        ASSERT_EQ(plan.selected(), m);
        EXPECT_EQ(cpu::count_if(v.data(), n, p, t, tuning), m);

        std::vector<float> values(static_cast<std::size_t>(n));
        std::vector<std::int64_t> indices(static_cast<std::size_t>(n), -1);
        std::vector<double> payload(static_cast<std::size_t>(n)), out_payload(static_cast<std::size_t>(n));
        for (std::int64_t i = 0; i < n; ++i) payload[static_cast<std::size_t>(i)] = static_cast<double>(i);
        cpu::filter_write(v.data(), p, nullptr, plan, payload.data(), sizeof(double), true, values.data(),
                          indices.data(), out_payload.data(), t);
        const std::vector<std::int64_t> order = test::partition_order(want.indices, n);
        EXPECT_EQ(indices, order);
        EXPECT_TRUE(test::same_bits(values, gather(v, order)));
        for (std::size_t i = 0; i < order.size(); ++i) ASSERT_EQ(out_payload[i], static_cast<double>(order[i]));

        // Flags select the same elements.
        const cpu::filter_plan by_flags =
            cpu::filter_count(v.data(), n, predicate<float>{}, mask.data(), t, tuning);
        EXPECT_EQ(by_flags.selected_before, plan.selected_before);
        std::vector<float> flagged(static_cast<std::size_t>(m));
        cpu::filter_write(v.data(), predicate<float>{}, mask.data(), by_flags, nullptr, 0, false, flagged.data(),
                          nullptr, nullptr, t);
        EXPECT_TRUE(test::same_bits(flagged, want.values));

        std::vector<float> in_place = v;
        const std::int64_t kept = cpu::filter_inplace(in_place.data(), n, p, t, tuning);
        ASSERT_EQ(kept, m);
        in_place.resize(static_cast<std::size_t>(kept));
        EXPECT_TRUE(test::same_bits(in_place, want.values));
      }
}

}  // namespace
}  // namespace kselect
