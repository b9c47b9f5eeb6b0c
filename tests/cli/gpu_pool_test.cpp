// The tool maps the owning call's workspace while it reads the input
// (loaded_input.cpp: gpu::map_pool_memory with gpu::selection_workspace_bytes), so
// that the call takes memory the device's pool already holds instead of mapping it.
// Here: after map_pool_memory the pool holds at least those
// bytes, and a selection of that size then grows it by less than its workspace (and
// answers as std::nth_element). Skipped without a usable CUDA device.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <exception>
#include <vector>

#include "dtype.hpp"
#include "gpu.hpp"
#include "kselect/kselect.hpp"

namespace kselect_cli_test {
namespace {

namespace gpu = kselect_cli::gpu;

TEST(CliGpuPool, SelectionWorkspaceIsMappedBeforeTheCall) {
  if (!gpu::built_with_cuda()) GTEST_SKIP() << "built without CUDA";
  try {
    gpu::initialize();
  } catch (const std::exception& e) {
    GTEST_SKIP() << "no usable CUDA device: " << e.what();
  }
  constexpr std::int64_t n = std::int64_t{1} << 27;
  gpu::device_buffer values(static_cast<std::size_t>(n) * sizeof(float));
  gpu::fill_uniform(values, n, 7);

  const std::size_t bytes = gpu::selection_workspace_bytes(kselect_cli::dtype::float32, n, 1);
  ASSERT_GT(bytes, 0u);
  gpu::map_pool_memory(bytes);
  const std::size_t mapped = gpu::pool_reserved_bytes();
  EXPECT_GE(mapped, bytes) << "the pool gave back what map_pool_memory mapped";

  kselect::options opt;
  opt.device = kselect::device_kind::cuda;
  const float got = kselect::select(static_cast<const float*>(values.get()), n, n / 2, opt);
  EXPECT_LT(gpu::pool_reserved_bytes(), mapped + bytes / 2) << "the call mapped its workspace again";

  std::vector<float> host(static_cast<std::size_t>(n));
  values.download(host.data(), 0, host.size() * sizeof(float));
  std::nth_element(host.begin(), host.begin() + n / 2, host.end());
  EXPECT_EQ(got, host[static_cast<std::size_t>(n / 2)]);
}

}  // namespace
}  // namespace kselect_cli_test
