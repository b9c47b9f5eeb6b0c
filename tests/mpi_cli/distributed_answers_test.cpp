// kselect --distributed against the local tool: select, quantile and topk under
// mpirun with 1 to 4 processes print, byte for byte, what the local tool prints for
// the whole input, for every dtype, slices of one file (uneven, empty when there are
// more processes than values, raw data) and shards (uneven, empty), in text and JSON.
#include <cstring>

#include "mpi_cli/mpi_cli_test_util.hpp"

namespace kselect_cli_test {
namespace {

template <class T>
class DistributedTypes : public MpiCliTest {};
using key_types = ::testing::Types<float, double, std::int32_t, std::uint32_t, std::int64_t, std::uint64_t>;
TYPED_TEST_SUITE(DistributedTypes, key_types);

TYPED_TEST(DistributedTypes, SelectManyRanks) {
  using T = TypeParam;
  write_npy(this->path("in.npy"), test_values<T>(1001, 3));
  // Unordered, repeated, the first and the last.
  const std::string ks = "1000,0,500,3,3,999,1,250,7";
  const std::string file = this->path("in.npy").string();
  this->expect_same_as_local({"select", "--device", "cpu", "-k", ks, file}, {"select", "--device", "cpu", "-k", ks, file});
}

TYPED_TEST(DistributedTypes, QuantilesAndPercentiles) {
  using T = TypeParam;
  // NaN-free data: the answers are numbers (with a NaN, NaN; see NanQuantiles).
  std::vector<T> v = test_values<T>(777, 5);
  if constexpr (std::is_floating_point_v<T>)
    for (T& x : v)
      if (std::isnan(x)) x = T(1);
  write_npy(this->path("in.npy"), v);
  const std::string file = this->path("in.npy").string();
  this->expect_same_as_local({"quantile", "--percentiles", file}, {"quantile", "--percentiles", file});
  for (const char* method : {"lower", "midpoint", "median_unbiased"})
    this->expect_same_as_local({"quantile", "-q", "0,0.001,0.25,0.5,0.9,1", "--method", method, file},
                               {"quantile", "-q", "0,0.001,0.25,0.5,0.9,1", "--method", method, file}, {3});
}

TYPED_TEST(DistributedTypes, TopkWithTiesIndicesSorted) {
  using T = TypeParam;
  std::vector<T> v = test_values<T>(500, 9);
  // Many ties at the boundary of the 40 largest and of the 40 smallest.
  for (std::size_t i = 0; i < v.size(); i += 7) v[i] = std::is_floating_point_v<T> ? T(3) : T(7);
  write_npy(this->path("in.npy"), v);
  const std::string file = this->path("in.npy").string();
  // Distributed top-k takes tied values by the lowest global index: the local --deterministic.
  for (const std::string k : {"40", "123"}) {
    this->expect_same_as_local({"topk", "-k", k, "--largest", "--indices", "--sorted", file},
                               {"topk", "-k", k, "--largest", "--indices", "--sorted", "--deterministic", file});
    this->expect_same_as_local({"topk", "-k", k, "--indices", file},
                               {"topk", "-k", k, "--indices", "--deterministic", file}, {2, 4});
  }
  this->expect_same_as_local({"topk", "-k", "500", "--sorted", file},
                             {"topk", "-k", "500", "--sorted", "--deterministic", file}, {3});
}

TYPED_TEST(DistributedTypes, RawFileSlicedWithDtype) {
  using T = TypeParam;
  write_bytes(this->path("in.bin"), raw_bytes(test_values<T>(203, 17)));
  const std::vector<std::string> args{"select", "--dtype", dtype_name<T>(), "-k", "0,101,202",
                                      this->path("in.bin").string()};
  this->expect_same_as_local(args, args, {1, 4});
}

TYPED_TEST(DistributedTypes, JsonMatchesLocalAndAddsTheJob) {
  using T = TypeParam;
  write_npy(this->path("in.npy"), test_values<T>(301, 21), {7, 43});
  const std::string file = this->path("in.npy").string();
  const std::vector<std::string> args{"--json", "topk", "-k", "17", "--indices", "--sorted", "--largest", file};
  std::vector<std::string> local = args;
  local.insert(local.end() - 1, "--deterministic");
  const nlohmann::json want = comparable_json(this->local_output(local));
  const std::string out = this->job_output(3, args);
  ASSERT_FALSE(out.empty());
  EXPECT_EQ(comparable_json(out), want) << out;
  const nlohmann::json j = nlohmann::json::parse(out);
  EXPECT_EQ(j["n"], 301);
  EXPECT_EQ(j["processes"], 3);
  EXPECT_EQ(j["input"], "slices");
  EXPECT_EQ(j["process_n"], nlohmann::json::array({100, 100, 101}));
  EXPECT_EQ(j["algorithm"], "dibms");
  EXPECT_EQ(j["transport"], "mpi");
  EXPECT_EQ(j["bytes_sent"].size(), 3u);
  for (const auto& b : j["bytes_sent"]) EXPECT_GT(b.get<std::int64_t>(), 0);
  EXPECT_GE(j["rounds"].get<int>(), 1);
  EXPECT_GT(j["collectives"].get<int>(), 0);
  for (const char* key : {"read", "transfer", "select"}) EXPECT_TRUE(j["time_ms"][key].is_number()) << key;
}

// --- slices --------------------------------------------------------------------

TEST_F(MpiCliTest, FewerValuesThanProcesses) {
  // 1 and 3 values over up to 4 processes: some slices are empty.
  write_npy(path("one.npy"), std::vector<double>{2.5});
  write_npy(path("three.npy"), std::vector<std::int64_t>{9, -4, 9});
  const std::string one = path("one.npy").string(), three = path("three.npy").string();
  expect_same_as_local({"select", "-k", "0", one}, {"select", "-k", "0", one});
  expect_same_as_local({"quantile", "-q", "0.3", one}, {"quantile", "-q", "0.3", one});
  expect_same_as_local({"select", "-k", "2,0,1", three}, {"select", "-k", "2,0,1", three});
  expect_same_as_local({"topk", "-k", "2", "--largest", "--indices", three},
                       {"topk", "-k", "2", "--largest", "--indices", "--deterministic", three});
  expect_same_as_local({"quantile", "--percentiles", three}, {"quantile", "--percentiles", three}, {4});
}

TEST_F(MpiCliTest, NanQuantilesAndNanIgnore) {
  std::vector<float> v = test_values<float>(400, 2);
  for (std::size_t i = 0; i < v.size(); i += 9) v[i] = std::numeric_limits<float>::quiet_NaN();
  write_npy(path("in.npy"), v);
  const std::string file = path("in.npy").string();
  expect_same_as_local({"quantile", "-q", "0,0.5,1", "--nan-ignore", file},
                       {"quantile", "-q", "0,0.5,1", "--nan-ignore", file});
  expect_same_as_local({"quantile", "-q", "0,0.5", file}, {"quantile", "-q", "0,0.5", file}, {2});
  // JSON: the same but for the times (and the job's own fields).
  const nlohmann::json want =
      comparable_json(local_output({"--json", "quantile", "--percentiles", "--nan-ignore", "--method", "hazen", file}));
  for (const int p : {1, 3})
    EXPECT_EQ(comparable_json(job_output(p, {"--json", "quantile", "--percentiles", "--nan-ignore", "--method",
                                             "hazen", file})),
              want);
}

TEST_F(MpiCliTest, EveryAlgorithmAnswersAlike) {
  write_npy(path("in.npy"), test_values<double>(5000, 8));
  const std::string file = path("in.npy").string();
  const std::string want = local_output({"select", "-k", "0,17,2500,4999", file});
  for (const char* algorithm : {"dibms", "dbms", "distributed_bms", "sort", "sort_and_choose"}) {
    SCOPED_TRACE(algorithm);
    EXPECT_EQ(job_output(3, {"--algorithm", algorithm, "select", "-k", "0,17,2500,4999", file}), want);
  }
  const nlohmann::json j = nlohmann::json::parse(job_output(2, {"--json", "--algorithm", "sort", "select", "-k", "1", file}));
  EXPECT_EQ(j["algorithm"], "sort_and_choose");
  EXPECT_EQ(j["gathered_keys"], 5000);
}

// -0.0 beside 0.0 and a negative NaN: select, quantile and topk print the input's
// elements bit for bit, as the local tool does.
TEST_F(MpiCliTest, NanSignsAndSignedZeros) {
  float negative_nan;
  const std::uint32_t bits = 0xffc00000u;
  std::memcpy(&negative_nan, &bits, sizeof bits);
  write_npy(path("in.npy"), std::vector<float>{-0.0f, 1.0f, negative_nan, -0.0f, 0.0f, 2.0f});
  const std::string file = path("in.npy").string();
  // Elements equal in key but not in bits: the job prints the element the stable sort
  // holds at each rank (-0, 0, -nan), as the local tool does.
  expect_same_as_local({"select", "-k", "0,1,2,5", file}, {"select", "-k", "0,1,2,5", file}, {1, 2, 3});
  expect_same_as_local({"quantile", "-q", "0.3,1", file}, {"quantile", "-q", "0.3,1", file}, {1, 2, 3});
  EXPECT_EQ(local_output({"select", "-k", "0,1,2,5", file}), "-0\n-0\n0\n-nan\n");
  expect_same_as_local({"topk", "-k", "6", "--indices", "--sorted", file},
                       {"topk", "-k", "6", "--indices", "--sorted", "--deterministic", file}, {2, 3});
}

TEST_F(MpiCliTest, WithoutMpirunOneProcess) {
  // Open MPI runs a program that calls MPI_Init without mpirun as a job of one process.
  write_npy(path("in.npy"), test_values<std::int32_t>(99, 4));
  const std::string file = path("in.npy").string();
  const tool_result r = run_tool_at(dir_, "timeout", {"-k", "10", std::to_string(kHangSeconds), KSELECT_CLI_PATH,
                                                      "--distributed", "select", "-k", "0,50,98", file});
  ASSERT_FALSE(timed_out(r.exit_code)) << "hung";
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, local_output({"select", "-k", "0,50,98", file}));
}

// --- shards --------------------------------------------------------------------

TEST_F(MpiCliTest, ShardsUnevenAndEmpty) {
  // Four shards of 37, 0, 5 and 101 values; the local tool reads their concatenation.
  const std::vector<std::size_t> sizes{37, 0, 5, 101};
  std::vector<float> all;
  for (std::size_t r = 0; r < sizes.size(); ++r) {
    std::vector<float> part = test_values<float>(std::max<std::size_t>(sizes[r], 1), 100 + r);
    part.resize(sizes[r]);
    for (std::size_t i = 0; i < part.size(); i += 4) part[i] = 1.5f;  // ties across shards
    write_npy(path("part-" + std::to_string(r) + ".npy"), part);
    all.insert(all.end(), part.begin(), part.end());
  }
  write_npy(path("all.npy"), all);
  const std::string pattern = path("part-{rank}.npy").string(), whole = path("all.npy").string();
  const std::vector<int> four{4};
  expect_same_as_local({"--shards", pattern, "select", "-k", "0,1,70,142"}, {"select", "-k", "0,1,70,142", whole},
                       four);
  expect_same_as_local({"quantile", "--shards", pattern, "--percentiles", "--nan-ignore"},
                       {"quantile", "--percentiles", "--nan-ignore", whole}, four);
  expect_same_as_local({"topk", "--shards", pattern, "-k", "20", "--indices", "--sorted"},
                       {"topk", "-k", "20", "--indices", "--sorted", "--deterministic", whole}, four);
  expect_same_as_local({"topk", "--shards", pattern, "-k", "9", "--largest", "--indices"},
                       {"topk", "-k", "9", "--largest", "--indices", "--deterministic", whole}, four);
  // JSON: the same fields, "file" the pattern, the shards' sizes.
  const nlohmann::json want = comparable_json(local_output({"--json", "select", "-k", "3", whole}), {"file"});
  const std::string out = job_output(4, {"--json", "--shards", pattern, "select", "-k", "3"});
  ASSERT_FALSE(out.empty());
  EXPECT_EQ(comparable_json(out, {"file"}), want);
  const nlohmann::json j = nlohmann::json::parse(out);
  EXPECT_EQ(j["file"], pattern);
  EXPECT_EQ(j["input"], "shards");
  EXPECT_EQ(j["process_n"], nlohmann::json::array({37, 0, 5, 101}));
}

TEST_F(MpiCliTest, RawShardsWithDtype) {
  write_bytes(path("s0.bin"), raw_bytes(std::vector<std::uint64_t>{5, 1, 9}));
  write_bytes(path("s1.bin"), raw_bytes(std::vector<std::uint64_t>{18446744073709551615ull, 0}));
  write_npy(path("all.npy"), std::vector<std::uint64_t>{5, 1, 9, 18446744073709551615ull, 0});
  expect_same_as_local({"--dtype", "uint64", "--shards", path("s{rank}.bin").string(), "select", "-k", "0,2,4"},
                       {"select", "-k", "0,2,4", path("all.npy").string()}, {2});
}

// --- reading only the slice ----------------------------------------------------

/// Bytes of `file` each traced process read (read and pread64 calls, from
/// strace -y output), with the (offset, count) of its pread64 calls.
struct traced_reads {
  std::uint64_t read_bytes = 0;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> preads;
};

TEST_F(MpiCliTest, EachProcessReadsOnlyItsSlice) {
  if (std::system("strace -o /dev/null true >/dev/null 2>&1") != 0) GTEST_SKIP() << "strace is not usable here";
  const std::size_t n = 100000;  // 400 kB of int32 after a 128-byte header
  write_npy(path("in.npy"), test_values<std::int32_t>(n, 6));
  const std::string file = path("in.npy").string();
  const int processes = 3;
  std::vector<std::string> args{"-k", "10", std::to_string(kHangSeconds)};
  args.insert(args.end(), {KSELECT_MPIEXEC_ARGS});
  args.insert(args.end(), {"-np", std::to_string(processes), "strace", "-f", "-y", "-e", "trace=read,pread64",
                           "-o", path("trace").string(), "-ff", KSELECT_CLI_PATH, "--distributed", "select", "-k",
                           "0", file});
  const tool_result r = run_tool_at(dir_, "timeout", args);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // Every trace file is one thread; a process's preads cover [header + first, header + last).
  std::vector<traced_reads> found;
  for (const auto& entry : fs::directory_iterator(dir_)) {
    if (entry.path().filename().string().rfind("trace.", 0) != 0) continue;
    traced_reads t;
    for (const auto& line : lines_of(read_text(entry.path()))) {
      if (line.find("<" + file + ">") == std::string::npos) continue;
      const auto eq = line.rfind("= ");
      ASSERT_NE(eq, std::string::npos) << line;
      const std::uint64_t got = std::stoull(line.substr(eq + 2));
      if (line.rfind("pread64(", 0) == 0) {
        // pread64(3</path>, "..."..., COUNT, OFFSET) = GOT
        const auto close = line.rfind(')', eq);
        const auto last_comma = line.rfind(',', close);
        t.preads.emplace_back(std::stoull(line.substr(last_comma + 1, close - last_comma - 1)), got);
      }
      t.read_bytes += got;
    }
    if (t.read_bytes > 0) found.push_back(t);
  }
  // Each process: the 12-byte preamble and the header by read(), then its slice by pread.
  std::uint64_t sliced = 0;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> all_preads;
  std::uint64_t all_read = 0;
  for (const auto& t : found) {
    all_read += t.read_bytes;
    for (const auto& p : t.preads) {
      sliced += p.second;
      all_preads.push_back(p);
    }
  }
  EXPECT_EQ(sliced, n * 4) << "the slices together are the data, once";
  EXPECT_EQ(all_read, n * 4 + processes * 128u) << "nothing but the headers and the slices";
  std::sort(all_preads.begin(), all_preads.end());
  std::uint64_t next = 128;
  for (const auto& [offset, bytes] : all_preads) {
    EXPECT_EQ(offset, next) << "the slices follow each other without overlap";
    next = offset + bytes;
  }
}

}  // namespace
}  // namespace kselect_cli_test
