// Segmented calls past 2^31 values (each test needs up to 9 GB of GPU memory and is
// skipped where the GPU lacks it), against the per-segment reference:
// - 2^11 + 1 rows of 2^20 uint32 keys (2^31 + 2^20 values), as equal rows and as
//   ragged segments over the same values: segment starts and positions pass 2^31
//   while local indices still fit int32 (rows: int32 indices; ragged: int64, since
//   int32 is refused for ragged layouts of 2^31 values or more).
// - One segment of more than 2^31 float keys, between two short ones (ragged) and as
//   one row: local positions and ranks pass 2^31 (int64 indices; int32 refused).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "common/segmented_check.hpp"
#include "common/segmented_inputs.hpp"
#include "common/segmented_reference.hpp"
#include "cuda/segmented_test_util.cuh"

namespace kselect::test {
namespace {

/// Whether the GPU has `bytes` free and `spare` more; the reason to skip otherwise.
std::string lacks_memory(std::size_t bytes, std::size_t spare) {
  std::size_t free_bytes = 0, total_bytes = 0;
  cuda_check(cudaMemGetInfo(&free_bytes, &total_bytes), "cudaMemGetInfo");
  if (free_bytes >= bytes + spare) return "";
  return "needs " + std::to_string(bytes) + " bytes of GPU memory and " + std::to_string(spare) + " more, " +
         std::to_string(free_bytes) + " free";
}

/// The largest workspace of segmented_select and segmented_topk (k = top, sorted,
/// IndexT indices) over `layouts`, asked with the real pointers.
template <class T, class IndexT>
std::size_t largest_workspace(const T* values, T* out, IndexT* idx, std::span<const device::segment_layout> layouts,
                              std::int64_t k, std::int64_t top) {
  device::topk_config cfg;
  cfg.largest = true;
  cfg.sorted = true;
  std::size_t largest = 0;
  for (const device::segment_layout& layout : layouts) {
    std::size_t bytes = 0;
    EXPECT_EQ(device::segmented_select(nullptr, bytes, values, out, layout, k), cudaSuccess)
        << device::last_error_message();
    largest = std::max(largest, bytes);
    EXPECT_EQ(device::segmented_topk(nullptr, bytes, values, out, idx, layout, top, nullptr, cfg), cudaSuccess)
        << device::last_error_message();
    largest = std::max(largest, bytes);
  }
  return largest;
}

TEST(SegmentedLarge, MoreThan2Pow31Values) {
  using T = std::uint32_t;
  const std::int64_t cols = std::int64_t{1} << 20, m = (std::int64_t{1} << 11) + 1, n = m * cols, k = cols / 2, top = 8;
  const std::vector<std::int64_t> offsets = row_offsets(m, cols);
  const device_buffer<std::int64_t> d_offsets(offsets);
  const device::segment_layout rows = device::segment_layout::rows(m, cols);
  const device::segment_layout ragged = device::segment_layout::ragged(d_offsets.data(), m, n);

  // The input with 2 GiB to spare, then the largest workspace with 256 MiB to spare.
  const std::string lacking = lacks_memory(static_cast<std::size_t>(n) * sizeof(T), std::size_t{2} << 30);
  if (!lacking.empty()) GTEST_SKIP() << lacking;
  const device_buffer<T> values(static_cast<std::size_t>(n));
  generate_on_device(values.data(), n, device_dist::uniform, 2031);
  const device_buffer<T> out(static_cast<std::size_t>(m * top));
  const device_buffer<std::int32_t> idx32(static_cast<std::size_t>(m * top));
  const device_buffer<std::int64_t> idx64(static_cast<std::size_t>(m * top));
  const std::size_t ws = std::max(largest_workspace(values.data(), out.data(), idx32.data(), {&rows, 1}, k, top),
                                  largest_workspace(values.data(), out.data(), idx64.data(), {&ragged, 1}, k, top));
  cuda_check(cudaDeviceSynchronize(), "generate");
  const std::string no_room = lacks_memory(ws, std::size_t{256} << 20);
  if (!no_room.empty()) GTEST_SKIP() << no_room;

  const std::vector<T> host = values.to_host();
  const std::int64_t rank[] = {k};
  const std::vector<T> want_median = reference_segmented_multiselect<T>(host, offsets, rank);
  const topk_rows<T> want_top = reference_segmented_topk<T>(host, offsets, top, true, true);

  for (const device::segment_layout& layout : {rows, ragged}) {
    SCOPED_TRACE(layout.d_offsets ? "ragged" : "rows");
    const device_segments<T> in{values.data(), layout};
    const selection_answer<T> median = gpu_segmented_select(in, k);
    EXPECT_TRUE(same_keys(median.values, want_median, 1));
    EXPECT_EQ(median.invalid, -1);
    if (layout.d_offsets)
      EXPECT_TRUE(same_topk(gpu_segmented_topk<T, std::int64_t>(in, top, true, true, true), want_top, top));
    else
      EXPECT_TRUE(same_topk(gpu_segmented_topk<T, std::int32_t>(in, top, true, true, true), want_top, top));
  }
}

// 5 + (2^31 + 2^20 + 3) + 3 floats (8.6 GB): the middle segment alone holds more than
// 2^31 keys. Ragged: the median of each segment (select_each), its 8 largest and 8
// smallest (sorted, int64 indices: the positions pass 2^31); as one row of all n
// values: the median and the 8 largest.
TEST(SegmentedLarge, OneSegmentOfMoreThan2Pow31Keys) {
  using T = float;
  const std::int64_t huge = (std::int64_t{1} << 31) + (std::int64_t{1} << 20) + 3, top = 8;
  const std::vector<std::int64_t> lengths = {5, huge, 3};
  const std::vector<std::int64_t> offsets = offsets_of(lengths);
  const std::int64_t n = offsets.back();
  const std::string lacking = lacks_memory(static_cast<std::size_t>(n) * sizeof(T), std::size_t{2} << 30);
  if (!lacking.empty()) GTEST_SKIP() << lacking;

  const device_buffer<std::int64_t> d_offsets(offsets);
  const device::segment_layout ragged = device::segment_layout::ragged(d_offsets.data(), 3, n);
  const std::vector<std::int64_t> whole = {0, n};
  const device::segment_layout one_row = device::segment_layout::rows(1, n);
  const device_buffer<T> values(static_cast<std::size_t>(n));
  generate_on_device(values.data(), n, device_dist::normal, 2032);
  // The extremes of the huge segment past local position 2^31 (random positions
  // would almost never be there: 2^20 of its 2^31 + 2^20 keys are), so that the
  // indices the top-k must write pass 2^31.
  const std::int64_t high_at = huge - 2, low_at = huge - 100;
  const float high = 1e30f, low = -1e30f;
  cuda_check(cudaMemcpy(values.data() + offsets[1] + high_at, &high, sizeof(T), cudaMemcpyHostToDevice), "plant");
  cuda_check(cudaMemcpy(values.data() + offsets[1] + low_at, &low, sizeof(T), cudaMemcpyHostToDevice), "plant");
  const device_buffer<T> out(static_cast<std::size_t>(3 * top));
  const device_buffer<std::int64_t> idx(static_cast<std::size_t>(3 * top));
  const device::segment_layout layouts[] = {ragged, one_row};
  const std::size_t ws = largest_workspace(values.data(), out.data(), idx.data(), layouts, n / 2, top);
  cuda_check(cudaDeviceSynchronize(), "generate");
  const std::string no_room = lacks_memory(ws, std::size_t{256} << 20);
  if (!no_room.empty()) GTEST_SKIP() << no_room;

  const std::vector<T> host = values.to_host();
  {
    SCOPED_TRACE("ragged");
    const device_segments<T> in{values.data(), ragged};
    const std::vector<std::int64_t> ks = middle_ranks(offsets);
    const selection_answer<T> median = gpu_segmented_select_each(in, ks);
    EXPECT_TRUE(same_keys(median.values, reference_segmented_select_each<T>(host, offsets, ks), 1));
    EXPECT_EQ(median.invalid, -1);
    for (const bool largest : {true, false}) {
      const topk_rows<T> want = reference_segmented_topk<T>(host, offsets, top, largest, true);
      const topk_rows<T> got = gpu_segmented_topk<T, std::int64_t>(in, top, largest, true, true);
      EXPECT_TRUE(same_topk(got, want, top)) << (largest ? "largest" : "smallest");
      // Sorted: the huge segment's (segment 1) first entry is its planted extreme.
      ASSERT_EQ(got.indices.size(), static_cast<std::size_t>(3 * top));
      EXPECT_EQ(got.indices[top], largest ? high_at : low_at);
    }
  }
  {
    SCOPED_TRACE("one row");
    const device_segments<T> in{values.data(), one_row};
    const std::int64_t rank[] = {n / 2};
    const selection_answer<T> median = gpu_segmented_select(in, n / 2);
    EXPECT_TRUE(same_keys(median.values, reference_segmented_multiselect<T>(host, whole, rank), 1));
    EXPECT_EQ(median.invalid, -1);
    EXPECT_TRUE(same_topk(gpu_segmented_topk<T, std::int64_t>(in, top, true, true, true),
                          reference_segmented_topk<T>(host, whole, top, true, true), top));
  }
}

}  // namespace
}  // namespace kselect::test
