// The segmented calls are a fixed number of launches with no allocation, no host
// round trip and no synchronisation, so they may be captured in a CUDA graph and
// replayed with new data (kselect/device_segmented.hpp). Captured here: a
// segmented_select on equal rows and a segmented_topk on ragged segments, on a
// non-default stream in global capture mode (PyTorch's default, the strictest);
// then replayed twice, with other values (and other offsets, same m and n) written
// into the same buffers before each replay, and both replays' answers checked.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <span>
#include <vector>

#include "common/segmented_check.hpp"
#include "common/segmented_inputs.hpp"
#include "common/segmented_reference.hpp"
#include "cuda/segmented_test_util.cuh"

namespace kselect::test {
namespace {

// Owns a captured graph's executable form.
class graph_exec {
 public:
  graph_exec() = default;
  ~graph_exec() {
    if (exec_) cudaGraphExecDestroy(exec_);
    if (graph_) cudaGraphDestroy(graph_);
  }
  graph_exec(const graph_exec&) = delete;
  graph_exec& operator=(const graph_exec&) = delete;
  cudaGraph_t& graph() { return graph_; }
  cudaGraphExec_t& exec() { return exec_; }

 private:
  cudaGraph_t graph_ = nullptr;
  cudaGraphExec_t exec_ = nullptr;
};

TEST(SegmentedGraph, CapturedSelectAndTopkReplayWithNewData) {
  const std::int64_t rows = 64, cols = 1000, n = rows * cols, k_select = cols / 2, k_top = 20;
  const std::vector<std::int64_t> row_offs = row_offsets(rows, cols);
  // Ragged segments over the same n values: lengths 0 to 1199, the last one the rest.
  std::vector<std::int64_t> lengths;
  std::int64_t sum = 0;
  for (std::int64_t i = 0; i < 99; ++i) {
    lengths.push_back((i * 37) % 1200);
    sum += lengths.back();
  }
  lengths.push_back(n - sum);
  const std::vector<std::int64_t> offsets_a = offsets_of(lengths);
  std::reverse(lengths.begin(), lengths.end());
  const std::vector<std::int64_t> offsets_b = offsets_of(lengths);
  const auto m = static_cast<std::int64_t>(lengths.size());

  test_stream stream;
  const cudaStream_t s = stream.get();
  const device_buffer<float> values(static_cast<std::size_t>(n));
  const device_buffer<std::int64_t> offsets(offsets_a);
  const device_output<float> selected(rows), top(m * k_top);
  const device_output<std::int32_t> top_idx(m * k_top);
  const device_segments<float> by_rows{values.data(), device::segment_layout::rows(rows, cols)};
  const device_segments<float> ragged{values.data(), device::segment_layout::ragged(offsets.data(), m, n)};
  device::topk_config cfg;
  cfg.largest = true;
  cfg.sorted = true;

  // Workspaces sized and allocated before the capture.
  std::size_t select_bytes = 0, topk_bytes = 0;
  ASSERT_EQ(
      device::segmented_select(nullptr, select_bytes, by_rows.values, selected.data(), by_rows.layout, k_select, s),
      cudaSuccess)
      << device::last_error_message();
  ASSERT_EQ(device::segmented_topk(nullptr, topk_bytes, ragged.values, top.data(), top_idx.data(), ragged.layout, k_top,
                                   s, cfg),
            cudaSuccess)
      << device::last_error_message();
  const device_buffer<char> select_ws(select_bytes), topk_ws(topk_bytes);
  cuda_check(cudaDeviceSynchronize(), "setup");

  graph_exec g;
  ASSERT_EQ(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal), cudaSuccess);
  const cudaError_t select_status = device::segmented_select(select_ws.data(), select_bytes, by_rows.values,
                                                             selected.data(), by_rows.layout, k_select, s);
  const cudaError_t topk_status = device::segmented_topk(topk_ws.data(), topk_bytes, ragged.values, top.data(),
                                                         top_idx.data(), ragged.layout, k_top, s, cfg);
  const cudaError_t capture_status = cudaStreamEndCapture(s, &g.graph());
  ASSERT_EQ(select_status, cudaSuccess) << device::last_error_message();
  ASSERT_EQ(topk_status, cudaSuccess) << device::last_error_message();
  ASSERT_EQ(capture_status, cudaSuccess) << cudaGetErrorString(capture_status);
  ASSERT_EQ(cudaGraphInstantiate(&g.exec(), g.graph(), 0), cudaSuccess);

  for (int replay = 0; replay < 2; ++replay) {
    SCOPED_TRACE(testing::Message() << "replay " << replay);
    const std::vector<float> host =
        replay == 0 ? fill_segments<float>(row_offs, cycling_dist, 31) : generate_keys<float>(dist::special, n, 32);
    const std::vector<std::int64_t>& host_offsets = replay == 0 ? offsets_a : offsets_b;
    cuda_check(cudaMemcpyAsync(values.data(), host.data(), host.size() * sizeof(float), cudaMemcpyHostToDevice, s),
               "new values");
    cuda_check(cudaMemcpyAsync(offsets.data(), host_offsets.data(), host_offsets.size() * sizeof(std::int64_t),
                               cudaMemcpyHostToDevice, s),
               "new offsets");
    selected.poison(s);
    top.poison(s);
    top_idx.poison(s);
    ASSERT_EQ(cudaGraphLaunch(g.exec(), s), cudaSuccess);
    cuda_check(cudaStreamSynchronize(s), "replay");

    const std::int64_t rank[] = {k_select};
    EXPECT_TRUE(same_keys(written(selected, rows), reference_segmented_multiselect<float>(host, row_offs, rank), 1));
    topk_rows<float> got;
    got.values = written(top, m * k_top);
    const std::vector<std::int32_t> idx = written(top_idx, m * k_top);
    got.indices.assign(idx.begin(), idx.end());
    EXPECT_TRUE(same_topk(got, reference_segmented_topk<float>(host, host_offsets, k_top, true, true), k_top));
  }
}

}  // namespace
}  // namespace kselect::test
