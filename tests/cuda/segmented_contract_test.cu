// The segmented device API's contract beyond the answers themselves: __half and
// __nv_bfloat16 keys taken directly; d_invalid_segment names the smallest segment
// whose rank lies outside it (-1 when none), among a few segments and among many;
// the workspace size depends on the sizes only, never on the data or the offsets'
// values, and a smaller workspace is refused with cudaErrorInvalidValue and a
// message giving the size needed; bad arguments are refused with
// cudaErrorInvalidValue and a message naming them.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "common/segmented_inputs.hpp"
#include "cuda/segmented_expect.cuh"

namespace kselect::test {
namespace {

// Every operation with the CUDA types, on the mixed ragged layout (NaN, +-inf,
// -0.0 and denormals among the segments), against kselect's 16-bit keys' reference.
template <class K, class D>
void expect_cuda_half_type() {
  const std::vector<std::int64_t> offsets = mixed_offsets();
  const segmented_input<K> in(fill_segments<K>(offsets, mixed_dist, 21), offsets, true);
  const std::vector<std::int64_t> ks = {0, 16};
  expect_segmented_select<K, D>(in, ks);
  expect_segmented_select_each<K, D>(in, cycling_ranks(offsets));
  const std::vector<std::int64_t> ranks = {3, 0, 3, 1};
  expect_segmented_multiselect<K, D>(in, ranks);
  const std::vector<double> qs = {0.5, 0.0, 1.0, 0.37};
  const quantile_method methods[] = {quantile_method::linear, quantile_method::nearest};
  expect_segmented_quantiles<K, D>(in, qs, methods);
  expect_segmented_median<K, D>(in);
  expect_segmented_topk<K, D>(in, 40);
}

TEST(SegmentedCudaHalfTypes, Half) { expect_cuda_half_type<kselect::float16, __half>(); }

TEST(SegmentedCudaHalfTypes, Bfloat16) { expect_cuda_half_type<kselect::bfloat16, __nv_bfloat16>(); }

// A few segments: each rank's first bad segment differs (an empty one, a short
// one), integers answer 0 where floats answer NaN; all ranks inside: -1.
TEST(SegmentedInvalidSegment, FewSegments) {
  const std::vector<std::int64_t> lengths = {5, 3, 0, 7, 2, 9};
  const std::vector<std::int64_t> offsets = offsets_of(lengths);
  const segmented_input<float> f(fill_segments<float>(offsets, cycling_dist, 3), offsets, true);
  const segmented_input<std::int32_t> i(fill_segments<std::int32_t>(offsets, cycling_dist, 4), offsets, true);
  const std::vector<std::int64_t> ks = {0, 1, 2, 3, 4, 8};  // first bad: 2, 2, 2, 1, 1, 0
  expect_segmented_select(f, ks);
  expect_segmented_select(i, ks);
  // One rank per segment, in device memory: the bad ones are 2 (empty), 3 (7 of 7)
  // and 5 (negative).
  const std::vector<std::int64_t> each = {4, 2, 0, 7, 1, -1};
  expect_segmented_select_each(f, each);
  expect_segmented_select_each(i, each);
  const std::vector<std::int64_t> ranks = {1, 0, 4, 1};  // first bad: 1
  expect_segmented_multiselect(f, ranks);
  expect_segmented_multiselect(i, ranks);

  const std::vector<std::int64_t> long_enough = {5, 3, 2, 7, 2, 9};
  const std::vector<std::int64_t> good_offsets = offsets_of(long_enough);
  const segmented_input<float> g(fill_segments<float>(good_offsets, cycling_dist, 5), good_offsets, true);
  const std::int64_t k = 1;
  EXPECT_EQ(gpu_segmented_select(g.device(), k).invalid, -1);
  EXPECT_EQ(gpu_segmented_multiselect(g.device(), std::span<const std::int64_t>(&k, 1)).invalid, -1);
}

// Many segments: the smallest bad one is far from the start (and not the last).
TEST(SegmentedInvalidSegment, ManySegments) {
  std::vector<std::int64_t> lengths(100000, 8);
  lengths[77777] = 2;
  lengths[99999] = 1;
  const std::vector<std::int64_t> offsets = offsets_of(lengths);
  const segmented_input<double> in(fill_segments<double>(offsets, cycling_dist, 6), offsets, true);
  const std::int64_t k = 5;
  const selection_answer<double> got = gpu_segmented_select(in.device(), k);
  EXPECT_EQ(got.invalid, 77777);
  EXPECT_TRUE(same_keys(
      got.values,
      reference_segmented_multiselect<double>(in.values(), in.offsets(), std::span<const std::int64_t>(&k, 1)), 1));
  std::vector<std::int64_t> each(lengths.size(), 0);
  each[88888] = 8;
  each[99998] = -3;
  EXPECT_EQ(gpu_segmented_select_each(in.device(), each).invalid, 88888);
  const std::vector<std::int64_t> ranks = {0, 5};
  EXPECT_EQ(gpu_segmented_multiselect(in.device(), ranks).invalid, 77777);
}

// Equal rows: a rank of `cols` lies outside every row, which the call answers (NaN,
// segment 0 reported) as for ragged segments, not as a bad argument.
TEST(SegmentedInvalidSegment, EqualRowsRankPastTheRow) {
  const std::vector<std::int64_t> rows = row_offsets(1000, 10);
  const segmented_input<float> r(fill_segments<float>(rows, cycling_dist, 7), rows, false);
  const std::vector<std::int64_t> ks = {9, 10};
  expect_segmented_select(r, ks);
}

// One segmented call with a workspace: (workspace, bytes, input) -> status.
using workspace_call = std::function<cudaError_t(void*, std::size_t&, const device_segments<float>&)>;

// Each operation's call on float keys, writing into outputs large enough for all.
std::vector<std::pair<std::string, workspace_call>> workspace_calls(float* out, float* out2, std::int64_t* idx,
                                                                    const std::int64_t* d_ks) {
  static const std::int64_t ranks[] = {1, 0, 5};
  static const double qs[] = {0.5, 0.1};
  return {
      {"select",
       [=](void* ws, std::size_t& b, const device_segments<float>& in) {
         return device::segmented_select(ws, b, in.values, out, in.layout, 3);
       }},
      {"select_each",
       [=](void* ws, std::size_t& b, const device_segments<float>& in) {
         return device::segmented_select_each(ws, b, in.values, out, in.layout, d_ks);
       }},
      {"multiselect",
       [=](void* ws, std::size_t& b, const device_segments<float>& in) {
         return device::segmented_multiselect(ws, b, in.values, out, in.layout, ranks, 3);
       }},
      {"quantile",
       [=](void* ws, std::size_t& b, const device_segments<float>& in) {
         return device::segmented_quantile(ws, b, in.values, out, in.layout, qs, 2, quantile_method::linear, true);
       }},
      {"topk",
       [=](void* ws, std::size_t& b, const device_segments<float>& in) {
         device::topk_config cfg;
         cfg.largest = true;
         cfg.sorted = true;
         return device::segmented_topk(ws, b, in.values, out2, idx, in.layout, 10, nullptr, cfg);
       }},
  };
}

TEST(SegmentedWorkspace, SizeFromSizesOnlyAndTooSmallRefused) {
  // Two ragged layouts of the same m and n with different lengths, two data sets.
  const std::int64_t m = 1000;
  std::vector<std::int64_t> lengths(m);
  for (std::int64_t i = 0; i < m; ++i) lengths[i] = static_cast<std::int64_t>(random_word(8, i) % 200);
  const std::vector<std::int64_t> offsets_a = offsets_of(lengths);
  std::reverse(lengths.begin(), lengths.end());
  const std::vector<std::int64_t> offsets_b = offsets_of(lengths);
  const std::int64_t n = offsets_a.back();
  const segmented_input<float> a(fill_segments<float>(offsets_a, cycling_dist, 9), offsets_a, true);
  const segmented_input<float> b(generate_keys<float>(dist::all_equal, n, 10), offsets_b, true);
  const std::vector<std::int64_t> rows = row_offsets(m, 100);
  const segmented_input<float> ra(generate_keys<float>(dist::uniform, m * 100, 11), rows, false);
  const segmented_input<float> rb(generate_keys<float>(dist::special, m * 100, 12), rows, false);

  const device_buffer<float> out(static_cast<std::size_t>(m * 10)), out2(static_cast<std::size_t>(m * 10));
  const device_buffer<std::int64_t> idx(static_cast<std::size_t>(m * 10));
  const device_buffer<std::int64_t> d_ks(std::vector<std::int64_t>(static_cast<std::size_t>(m), 0));
  cuda_check(cudaDeviceSynchronize(), "inputs");
  for (const auto& [name, call] : workspace_calls(out.data(), out2.data(), idx.data(), d_ks.data())) {
    for (const auto& [first, second] : {std::pair{&a, &b}, std::pair{&ra, &rb}}) {
      SCOPED_TRACE(name + (first == &a ? ", ragged" : ", rows"));
      std::size_t bytes = 0, other = 0;
      ASSERT_EQ(call(nullptr, bytes, first->device()), cudaSuccess) << device::last_error_message();
      ASSERT_EQ(call(nullptr, other, second->device()), cudaSuccess) << device::last_error_message();
      EXPECT_EQ(bytes, other) << "the workspace size depends on the data or the offsets";
      ASSERT_GT(bytes, 0u) << "a null workspace would be a query again";

      const device_buffer<char> ws(bytes);
      std::size_t small = bytes - 1;
      EXPECT_EQ(call(ws.data(), small, first->device()), cudaErrorInvalidValue);
      const std::string message = device::last_error_message();
      EXPECT_NE(message.find(std::to_string(bytes)), std::string::npos) << "no size needed in: " << message;
      std::size_t exact = bytes;
      EXPECT_EQ(call(ws.data(), exact, first->device()), cudaSuccess) << device::last_error_message();
      cuda_check(cudaDeviceSynchronize(), "call");
    }
  }
}

// Each bad argument the host can see: cudaErrorInvalidValue, and a message that
// names it. Size queries where the check needs no memory (int32 indices of 2^31
// positions included), real calls where pointers are looked at.
TEST(SegmentedArguments, RefusedWithAMessage) {
  const auto expect_refused = [](cudaError_t st, const std::string& needle) {
    EXPECT_EQ(st, cudaErrorInvalidValue) << "expected a refusal mentioning: " << needle;
    const std::string message = device::last_error_message();
    EXPECT_NE(message.find(needle), std::string::npos) << "message: " << message << "\nexpected: " << needle;
  };
  using layout = device::segment_layout;
  const device_buffer<float> in(64), out(64);
  const device_buffer<std::int64_t> offsets(std::vector<std::int64_t>{0, 32, 64}), idx64(64);
  const device_buffer<std::int32_t> idx32(64);
  const layout rows = layout::rows(2, 32);
  const float* no_in = nullptr;
  float* no_out = nullptr;
  std::size_t b = 0;
  expect_refused(device::segmented_select(nullptr, b, no_in, no_out, layout::rows(0, 4), 0), "count = 0");
  expect_refused(device::segmented_select(nullptr, b, no_in, no_out, layout::rows(std::int64_t{1} << 31, 1), 0),
                 "above 2^31 - 1");
  layout bad_rows = rows;
  bad_rows.num_items = 63;
  expect_refused(device::segmented_select(nullptr, b, no_in, no_out, bad_rows, 0),
                 "count * row_length is more than num_items");
  bad_rows.num_items = 65;
  expect_refused(device::segmented_select(nullptr, b, no_in, no_out, bad_rows, 0), "but num_items = 65");
  const std::int64_t ranks[] = {1, -2};
  expect_refused(device::segmented_multiselect(nullptr, b, no_in, no_out, rows, ranks, 2), "h_ranks[1] is negative");
  expect_refused(device::segmented_multiselect(nullptr, b, no_in, no_out, rows, ranks, 0), "num_ranks = 0");
  const double qs[] = {0.5, 1.5};
  expect_refused(device::segmented_quantile(nullptr, b, no_in, static_cast<quantile_value_t<float>*>(nullptr), rows, qs, 2),
                 "h_qs[1] is outside [0, 1]");
  expect_refused(device::segmented_quantile(nullptr, b, no_in, static_cast<quantile_value_t<float>*>(nullptr), rows, qs, 1,
                                            static_cast<quantile_method>(99)),
                 "unknown quantile_method value 99");
  expect_refused(device::segmented_select_each(nullptr, b, no_in, no_out, rows, nullptr), "d_ks is null");
  expect_refused(device::segmented_topk(nullptr, b, no_in, no_out, idx64.data(), rows, -1), "k = -1 is negative");
  device::topk_config sorted;
  sorted.sorted = true;
  expect_refused(device::segmented_topk(nullptr, b, no_in, no_out, idx64.data(), layout::rows(1 << 20, 4096), 4096,
                                        nullptr, sorted),
                 "count * k < 2^31");
  // int32 indices: refused where a position may not fit, accepted where it must.
  const std::int64_t big = std::int64_t{1} << 31;
  expect_refused(device::segmented_topk(nullptr, b, no_in, no_out, idx32.data(), layout::rows(1, big), 4),
                 "int32_t indices need rows shorter than 2^31");
  expect_refused(device::segmented_topk(nullptr, b, no_in, no_out, idx32.data(),
                                        layout::ragged(offsets.data(), 2, big), 4),
                 "int32_t indices of ragged segments need num_items < 2^31");
  EXPECT_EQ(device::segmented_topk(nullptr, b, no_in, no_out, idx32.data(), layout::rows(2, big / 2), 4), cudaSuccess)
      << device::last_error_message();
  EXPECT_EQ(device::segmented_topk(nullptr, b, no_in, no_out, idx32.data(),
                                    layout::ragged(offsets.data(), 2, big - 1), 4),
            cudaSuccess)
      << device::last_error_message();
  EXPECT_EQ(device::segmented_topk(nullptr, b, no_in, no_out, idx64.data(), layout::rows(1, big), 4), cudaSuccess)
      << device::last_error_message();

  // Real calls: null and host pointers.
  std::size_t bytes = 0;
  ASSERT_EQ(device::segmented_select(nullptr, bytes, in.data(), out.data(), rows, 0), cudaSuccess);
  const device_buffer<char> ws(bytes);
  std::vector<float> host(64);
  expect_refused(device::segmented_select(ws.data(), bytes, no_in, out.data(), rows, 0), "d_in is null");
  expect_refused(device::segmented_select(ws.data(), bytes, in.data(), no_out, rows, 0), "d_out is null");
  expect_refused(device::segmented_select(ws.data(), bytes, host.data(), out.data(), rows, 0),
                 "d_in points to host memory");
  expect_refused(device::segmented_select(ws.data(), bytes, in.data(), host.data(), rows, 0),
                 "d_out points to host memory");
  cuda_check(cudaDeviceSynchronize(), "calls");
}

}  // namespace
}  // namespace kselect::test
