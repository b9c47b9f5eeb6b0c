// kselect --distributed --device cuda: each process copies its part of the file to the
// GPU of its local rank (modulo the GPUs; on one GPU all processes share it) and the
// job prints, byte for byte, what the local tool prints on the CPU. Suites named Gpu*
// run as mpi.cli.gpu.* (label gpu; they need a CUDA GPU).
#include <cstring>

#include "mpi_cli/mpi_cli_test_util.hpp"

namespace kselect_cli_test {
namespace {

template <class T>
class GpuDistributed : public MpiCliTest {};
using key_types = ::testing::Types<float, double, std::int32_t, std::uint64_t>;
TYPED_TEST_SUITE(GpuDistributed, key_types);

TYPED_TEST(GpuDistributed, SameAsTheLocalToolOnTheCpu) {
  using T = TypeParam;
  // 2^20 + 3 values: several blocks of the GPU's passes on every process.
  std::vector<T> v = test_values<T>((std::size_t{1} << 20) + 3, 21);
  for (std::size_t i = 0; i < v.size(); i += 5) v[i] = T(3);  // ties at many ranks
  if constexpr (std::is_floating_point_v<T>) {
    float negative_nan;
    const std::uint32_t bits = 0xffc00000u;
    std::memcpy(&negative_nan, &bits, sizeof bits);
    v[11] = T(-0.0);
    v[700001] = static_cast<T>(negative_nan);
  }
  write_npy(this->path("in.npy"), v);
  const std::string file = this->path("in.npy").string();
  const std::vector<int> processes{1, 3, 4};
  this->expect_same_as_local({"--device", "cuda", "quantile", "--percentiles", file},
                             {"--device", "cpu", "quantile", "--percentiles", file}, processes);
  this->expect_same_as_local({"--device", "cuda", "quantile", "--percentiles", "--nan-ignore", file},
                             {"--device", "cpu", "quantile", "--percentiles", "--nan-ignore", file}, processes);
  this->expect_same_as_local({"--device", "cuda", "select", "-k", "0,1,524289,1048578", file},
                             {"--device", "cpu", "select", "-k", "0,1,524289,1048578", file}, processes);
  this->expect_same_as_local({"--device", "cuda", "topk", "-k", "1000", "--largest", "--indices", "--sorted", file},
                             {"--device", "cpu", "topk", "-k", "1000", "--largest", "--indices", "--sorted",
                              "--deterministic", file},
                             processes);
}

// --transport nccl: the counts all-reduced on the GPUs, the same answers. NCCL needs
// one GPU per process: one process here (the library's mpi.multigpu tests run NCCL
// over several GPUs).
class GpuNcclTransport : public MpiCliTest {};

TEST_F(GpuNcclTransport, SameAnswersAsTheLocalTool) {
  std::vector<float> v = test_values<float>((std::size_t{1} << 20) + 3, 22);
  for (std::size_t i = 0; i < v.size(); i += 7) v[i] = 2.5f;  // ties
  write_npy(path("in.npy"), v);
  const std::string file = path("in.npy").string();
  const tool_result probe = run_np(1, {"--transport", "nccl", "--device", "cuda", "select", "-k", "0", file});
  if (probe.err.find("built without NCCL") != std::string::npos) GTEST_SKIP() << probe.err;
  const std::vector<int> processes{1};
  expect_same_as_local({"--transport", "nccl", "--device", "cuda", "quantile", "--percentiles", file},
                       {"--device", "cpu", "quantile", "--percentiles", file}, processes);
  expect_same_as_local(
      {"--transport", "nccl", "--device", "cuda", "topk", "-k", "1000", "--largest", "--indices", "--sorted", file},
      {"--device", "cpu", "topk", "-k", "1000", "--largest", "--indices", "--sorted", "--deterministic", file},
      processes);
  const nlohmann::json j = nlohmann::json::parse(
      job_output(1, {"--json", "--transport", "nccl", "--device", "cuda", "select", "-k", "1", file}));
  EXPECT_EQ(j["transport"], "nccl");
}

}  // namespace
}  // namespace kselect_cli_test
