// More than 2^31 values in one segmented call: 2^11 + 1 rows of 2^20 uint32 keys
// (2^31 + 2^20 values, 8.6 GB), as equal rows and as ragged segments over the same
// values, so that segment starts and positions pass 2^31 while the local indices
// still fit int32. The median of every row and its top 8 (largest, sorted, int32
// indices) against the per-segment reference. Skipped where the GPU lacks the
// memory.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "common/segmented_check.hpp"
#include "common/segmented_inputs.hpp"
#include "common/segmented_reference.hpp"
#include "cuda/segmented_test_util.cuh"

namespace kselect::test {
namespace {

TEST(SegmentedLarge, MoreThan2Pow31Values) {
  using T = std::uint32_t;
  const std::int64_t cols = std::int64_t{1} << 20, m = (std::int64_t{1} << 11) + 1, n = m * cols, k = cols / 2, top = 8;
  const std::vector<std::int64_t> offsets = row_offsets(m, cols);
  const device_buffer<std::int64_t> d_offsets(offsets);
  const device::segment_layout layouts[] = {device::segment_layout::rows(m, cols),
                                            device::segment_layout::ragged(d_offsets.data(), m, n)};

  // The input with 2 GiB to spare, then the largest workspace of the calls (the
  // queries are made with the real pointers) with 256 MiB to spare.
  std::size_t free_bytes = 0, total_bytes = 0;
  cuda_check(cudaMemGetInfo(&free_bytes, &total_bytes), "cudaMemGetInfo");
  const std::size_t input_bytes = static_cast<std::size_t>(n) * sizeof(T);
  if (free_bytes < input_bytes + (std::size_t{2} << 30))
    GTEST_SKIP() << "needs about " << input_bytes << " bytes of GPU memory and more, " << free_bytes << " free";
  const device_buffer<T> values(static_cast<std::size_t>(n));
  generate_on_device(values.data(), n, device_dist::uniform, 2031);
  const device_buffer<T> out(static_cast<std::size_t>(m * top));
  const device_buffer<std::int32_t> idx(static_cast<std::size_t>(m * top));
  device::topk_config cfg;
  cfg.largest = true;
  cfg.sorted = true;
  std::size_t largest_ws = 0;
  for (const device::segment_layout& layout : layouts) {
    std::size_t bytes = 0;
    ASSERT_EQ(device::segmented_select(nullptr, bytes, values.data(), out.data(), layout, k), cudaSuccess)
        << device::last_error_message();
    largest_ws = std::max(largest_ws, bytes);
    ASSERT_EQ(device::segmented_topk(nullptr, bytes, values.data(), out.data(), idx.data(), layout, top, nullptr, cfg),
              cudaSuccess)
        << device::last_error_message();
    largest_ws = std::max(largest_ws, bytes);
  }
  cuda_check(cudaDeviceSynchronize(), "generate");
  cuda_check(cudaMemGetInfo(&free_bytes, &total_bytes), "cudaMemGetInfo");
  if (free_bytes < largest_ws + (std::size_t{256} << 20))
    GTEST_SKIP() << "needs a workspace of " << largest_ws << " bytes, " << free_bytes << " free";

  const std::vector<T> host = values.to_host();
  const std::int64_t rank[] = {k};
  const std::vector<T> want_median = reference_segmented_multiselect<T>(host, offsets, rank);
  const topk_rows<T> want_top = reference_segmented_topk<T>(host, offsets, top, true, true);

  for (const device::segment_layout& layout : layouts) {
    SCOPED_TRACE(layout.d_offsets ? "ragged" : "rows");
    const device_segments<T> in{values.data(), layout};
    const selection_answer<T> median = gpu_segmented_select(in, k);
    EXPECT_TRUE(same_keys(median.values, want_median, 1));
    EXPECT_EQ(median.invalid, -1);
    EXPECT_TRUE(same_topk(gpu_segmented_topk<T, std::int32_t>(in, top, true, true, true), want_top, top));
  }
}

}  // namespace
}  // namespace kselect::test
