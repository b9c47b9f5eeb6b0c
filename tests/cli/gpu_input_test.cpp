// The CUDA backend's file input (loaded_input.hpp, load_backend_input): a regular
// file goes to device memory through pinned staging buffers, chunk by chunk. The
// answers must be those of the CPU backend, which reads the file into host memory,
// for files of one chunk and of many (more chunks than readers, a last chunk
// shorter than the others), .npy and raw, and for standard input (a stream:
// read into host memory, then copied). Skipped where no CUDA device is usable.
#include <nlohmann/json.hpp>

#include "cli/cli_test_util.hpp"

namespace kselect_cli_test {
namespace {

class CliGpuInput : public CliTest {
 protected:
  void SetUp() override {
    CliTest::SetUp();
    write_npy(path("probe.npy"), std::vector<float>{1.0f});
    const tool_result r = run({"select", "--device", "cuda", "-k", "0", path("probe.npy").string()});
    if (r.exit_code != 0) GTEST_SKIP() << "no usable CUDA device: " << r.err;
  }

  /// The same command on both backends: the same stdout, nothing on stderr.
  void expect_same_on_both(std::vector<std::string> args) const {
    SCOPED_TRACE(command_text(args));
    std::vector<std::string> cpu = args, cuda = args;
    cpu.insert(cpu.begin() + 1, {"--device", "cpu"});
    cuda.insert(cuda.begin() + 1, {"--device", "cuda"});
    const tool_result want = run(cpu), got = run(cuda);
    ASSERT_EQ(want.exit_code, 0) << want.err;
    EXPECT_EQ(got.exit_code, 0) << got.err;
    EXPECT_EQ(got.err, "");
    EXPECT_EQ(got.out, want.out);
  }
};

/// n values of a normal distribution with NaN, infinities, -0.0 and a run of ties.
std::vector<float> awkward_floats(std::size_t n, std::uint64_t seed) {
  std::vector<float> v = random_values<float>(n, seed);
  const float specials[] = {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity(),
                            -std::numeric_limits<float>::infinity(), -0.0f, 0.0f,
                            std::numeric_limits<float>::denorm_min()};
  for (std::size_t i = 0; i < n; i += 9973) v[i] = specials[(i / 9973) % std::size(specials)];
  for (std::size_t i = n / 3; i < n / 3 + n / 50; ++i) v[i] = 2.5f;
  return v;
}

TEST_F(CliGpuInput, ManyChunksMatchTheCpu) {
  // 150 MB: more 16 MiB chunks than 4 readers hold at once, the last one short.
  const std::size_t n = (std::size_t{150} << 20) / sizeof(float) + 12345;
  write_npy(path("big.npy"), awkward_floats(n, 11));
  const std::string file = path("big.npy").string();
  const std::string mid = std::to_string(n / 2), last = std::to_string(n - 1);
  expect_same_on_both({"select", "-k", "0,1," + mid + "," + last, file});
  expect_same_on_both({"quantile", "--percentiles", file});
  expect_same_on_both({"quantile", "--percentiles", "--nan-ignore", file});
  expect_same_on_both({"topk", "-k", "100", "--largest", "--sorted", "--deterministic", "--indices", file});
  expect_same_on_both({"range", "--lo", mid, "--hi", std::to_string(n / 2 + 50), "--sorted", "--deterministic", file});

  // The JSON: the staged read covers the copy, so no separate transfer.
  const tool_result r = run({"--json", "select", "--device", "cuda", "-k", mid, file});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["device"], "cuda");
  EXPECT_EQ(j["n"], n);
  EXPECT_EQ(j["time_ms"]["transfer"], 0.0);
  EXPECT_GT(j["time_ms"]["read"].get<double>(), 0.0);
}

TEST_F(CliGpuInput, SmallFilesRawFilesAndEveryKeyType) {
  for (const std::size_t n : {std::size_t{1}, std::size_t{2}, std::size_t{33}, std::size_t{100003}}) {
    SCOPED_TRACE("n=" + std::to_string(n));
    const std::string mid = std::to_string(n / 2), last = std::to_string(n - 1);
    write_npy(path("f8.npy"), random_values<double>(n, n));
    expect_same_on_both({"select", "-k", "0," + mid + "," + last, path("f8.npy").string()});
    write_npy(path("i8.npy"), random_values<std::int64_t>(n, n + 1));
    expect_same_on_both({"topk", "-k", "1", "--deterministic", "--indices", path("i8.npy").string()});
    write_bytes(path("u4.bin"), raw_bytes(random_values<std::uint32_t>(n, n + 2)));
    expect_same_on_both({"select", "--dtype", "uint32", "-k", mid, path("u4.bin").string()});
  }
}

TEST_F(CliGpuInput, StandardInputAndBadFilesAsOnTheCpu) {
  const std::vector<float> v = awkward_floats(100000, 5);
  write_npy(path("in.npy"), v);
  const tool_result piped = run_tool_at(path(""), "sh",
                                        {"-c", shell_quote(tool_path()) + " select --device cuda -k 50000 - < " +
                                                   shell_quote(path("in.npy").string())});
  ASSERT_EQ(piped.exit_code, 0) << piped.err;
  const std::vector<std::string> want =
      run_ok({"select", "--device", "cpu", "-k", "50000", path("in.npy").string()});
  EXPECT_EQ(lines_of(piped.out), want);

  // Malformed files: the same one-line errors as the host read gives.
  std::string bytes = npy_prefix(npy_dict("<f4", {1000})) + raw_bytes(std::vector<float>(999, 1.0f));
  write_bytes(path("short.npy"), bytes);
  expect_error({"select", "--device", "cuda", "-k", "0", path("short.npy").string()}, "truncated data");
  write_bytes(path("empty.npy"), npy_prefix(npy_dict("<f4", {0})));
  expect_error({"select", "--device", "cuda", "-k", "0", path("empty.npy").string()}, "holds no values");
  write_bytes(path("odd.bin"), std::string(7, 'x'));
  expect_error({"select", "--device", "cuda", "--dtype", "float32", "-k", "0", path("odd.bin").string()},
               "not a multiple");
}

// --gpu-memory-limit far below the file: select, quantile, topk and range stream it
// from host memory through the GPU and answer as the CPU does.
TEST_F(CliGpuInput, LimitBelowTheFileStreamsIt) {
  const std::size_t n = (std::size_t{24} << 20) / sizeof(float) + 7;  // 24 MiB
  write_npy(path("big.npy"), awkward_floats(n, 12));
  const std::string file = path("big.npy").string(), mid = std::to_string(n / 2);
  for (const char* limit : {"4M", "16MiB"}) {
    SCOPED_TRACE(limit);
    expect_same_on_both({"select", "--gpu-memory-limit", limit, "-k", "0,1," + mid + "," + std::to_string(n - 1), file});
    expect_same_on_both({"quantile", "--gpu-memory-limit", limit, "--percentiles", file});
    expect_same_on_both({"quantile", "--gpu-memory-limit", limit, "--percentiles", "--nan-ignore", file});
  }
  expect_same_on_both({"topk", "--gpu-memory-limit", "4M", "-k", "5", "--deterministic", "--indices", file});
  expect_same_on_both({"topk", "--gpu-memory-limit", "4M", "-k", mid, "--largest", "--sorted", "--indices", file});
  expect_same_on_both({"range", "--gpu-memory-limit", "4M", "--lo", "1000", "--hi", "3000000", "--indices", file});
  expect_error({"select", "--device", "cuda", "--approx", "--gpu-memory-limit", "4X", "-k", "5", file},
               "--gpu-memory-limit 4X");
  expect_error({"select", "--device", "cuda", "--gpu-memory-limit", "4X", "-k", "5", file},
               "--gpu-memory-limit 4X: expected a positive number of bytes");
  expect_error({"select", "--device", "cuda", "--gpu-memory-limit", "1000", "-k", "5", file},
               "is too small");
}

}  // namespace
}  // namespace kselect_cli_test
