// kselect --distributed on bad input: one clear message from the whole job (not one
// per process), nothing on stdout, a non-zero exit of the job, and never a hang
// (each run is under `timeout`; a process that failed alone would leave the others
// waiting in a collective).
#include "mpi_cli/mpi_cli_test_util.hpp"

namespace kselect_cli_test {
namespace {

class DistributedErrors : public MpiCliTest {
 protected:
  void SetUp() override {
    MpiCliTest::SetUp();
    write_npy(path("f.npy"), test_values<float>(100, 1));
    file = path("f.npy").string();
  }
  std::string file;
};

TEST_F(DistributedErrors, MissingShardNamesTheProcessAndFile) {
  write_npy(path("part-0.npy"), std::vector<float>{1, 2});
  write_npy(path("part-2.npy"), std::vector<float>{3});
  const std::string line = expect_job_error(3, {"--shards", path("part-{rank}.npy").string(), "select", "-k", "0"},
                                            "process 1: " + path("part-1.npy").string() + ": cannot open: ");
  EXPECT_EQ(line.find("other process"), std::string::npos) << "only process 1 failed";
  // Two missing: the first is named, the other counted.
  expect_job_error(4, {"--shards", path("part-{rank}.npy").string(), "quantile", "-q", "0.5"},
                   "process 1: " + path("part-1.npy").string() + ": cannot open: No such file or directory (and 1 "
                   "other process failed)");
}

TEST_F(DistributedErrors, ShardsOfDifferentDtypes) {
  write_npy(path("s0.npy"), std::vector<float>{1, 2});
  write_npy(path("s1.npy"), std::vector<float>{3});
  write_npy(path("s2.npy"), std::vector<std::int32_t>{4, 5});
  expect_job_error(3, {"--shards", path("s{rank}.npy").string(), "topk", "-k", "1"},
                   "--shards: process 0's file " + path("s0.npy").string() + " holds float32 values, process 2's " +
                       path("s2.npy").string() + " int32 values (every shard must have the same dtype)");
}

TEST_F(DistributedErrors, MalformedShardOnOneProcess) {
  write_npy(path("s0.npy"), std::vector<double>{1, 2});
  write_bytes(path("s1.npy"), npy_prefix(npy_dict("<f8", {5})) + raw_bytes(std::vector<double>{1, 2}));
  expect_job_error(2, {"--shards", path("s{rank}.npy").string(), "select", "-k", "0"},
                   "process 1: " + path("s1.npy").string() + ": truncated data: shape (5,) of float64 needs 40 bytes");
}

TEST_F(DistributedErrors, MalformedFileOnceWithoutProcess) {
  // Every process finds the same fault in the shared file: reported once, as the local tool does.
  write_bytes(path("bad.npy"), "not a numpy file at all");
  const std::string line = expect_job_error(3, {"select", "-k", "0", path("bad.npy").string()},
                                            path("bad.npy").string() + ": not a .npy file");
  EXPECT_EQ(line.find("process"), std::string::npos) << line;
  write_bytes(path("short.npy"), npy_prefix(npy_dict("<i4", {10})) + raw_bytes(std::vector<std::int32_t>{1, 2}));
  expect_job_error(2, {"quantile", "-q", "0.5", path("short.npy").string()},
                   ": truncated data: shape (10,) of int32 needs 40 bytes, the file holds 8 bytes");
  expect_job_error(2, {"select", "-k", "0", path("missing.npy").string()},
                   path("missing.npy").string() + ": cannot open: No such file or directory");
  write_bytes(path("odd.bin"), std::string(7, 'x'));
  expect_job_error(2, {"--dtype", "int32", "select", "-k", "0", path("odd.bin").string()},
                   "file size 7 bytes is not a multiple of the int32 item size 4");
  expect_job_error(3, {"select", "-k", "0", path("odd.bin").string()}, "raw input needs --dtype");
}

TEST_F(DistributedErrors, GlobalRankOrCountOutOfRange) {
  // 100 values over 3 processes: the ranks are global.
  for (const int p : {1, 3}) {
    expect_job_error(p, {"select", "-k", "0,100", file}, "-k: rank 100 is out of range [0, 100) for 100 values");
    expect_job_error(p, {"topk", "-k", "101", file}, "-k: 101 is more than the number of values (100)");
  }
  expect_job_error(2, {"select", "--rank", "-1", file}, "--rank: -1 is negative");
  expect_job_error(2, {"quantile", "-q", "1.5", file}, "-q: 1.5 is not in [0, 1]");
}

TEST_F(DistributedErrors, NoValueAnywhere) {
  write_npy(path("empty.npy"), std::vector<float>{});
  expect_job_error(2, {"select", "-k", "0", path("empty.npy").string()},
                   path("empty.npy").string() + ": holds no values");
  write_npy(path("e0.npy"), std::vector<float>{});
  write_npy(path("e1.npy"), std::vector<float>{});
  expect_job_error(2, {"--shards", path("e{rank}.npy").string(), "topk", "-k", "0"}, "no process's file holds any value");
}

TEST_F(DistributedErrors, StandardInputAndStreamsRefused) {
  expect_job_error(2, {"select", "-k", "0", "-"}, "--distributed: standard input cannot be split among processes");
  expect_job_error(1, {"quantile", "-q", "0.5", "/dev/stdin"}, "standard input cannot be split");
  // A character device is no regular file either: it cannot be read at an offset.
  expect_job_error(2, {"--dtype", "float32", "select", "-k", "0", "/dev/null"},
                   "/dev/null: only a regular file can be read in parts");
}

TEST_F(DistributedErrors, WhatDoesNotRunDistributed) {
  for (const std::string command : {"range", "filter"})
    expect_job_error(2, {command, "--lo", "0", "--hi", "1", file},
                     command + " does not run distributed (--distributed is for select, quantile and topk)");
  expect_job_error(2, {"demo"}, "demo does not run distributed");
  expect_job_error(1, {"bench"}, "bench does not run distributed");
  // --distributed after the subcommand's name too.
  const tool_result r = run_tool_at(dir_, "timeout", {"-k", "10", std::to_string(kHangSeconds), KSELECT_CLI_PATH,
                                                      "range", "--distributed", "--lo", "0", "--hi", "1", file});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "kselect: error: range does not run distributed (--distributed is for select, quantile and topk)\n");
  expect_job_error(2, {"select", "-k", "0", "--axis", "-1", file}, "--axis is not available with --distributed");
  expect_job_error(2, {"select", "-k", "0", "--approx", file}, "--approx is not available with --distributed");
  expect_job_error(2, {"select", "--ks-file", file, "--offsets", file, file},
                   "is not available with --distributed");
  expect_job_error(2, {"quantile", "-q", "0.5", "-o", path("o.npy").string(), file},
                   "-o is not available with --distributed");
  expect_job_error(2, {"topk", "-k", "1", "--indices-output", path("i.npy").string(), file},
                   "--indices-output is not available with --distributed");
}

TEST_F(DistributedErrors, ShardsOptions) {
  expect_job_error(2, {"--shards", path("same.npy").string(), "select", "-k", "0"},
                   "--shards: '" + path("same.npy").string() + "' has no {rank}");
  expect_job_error(2, {"select", "--shards", path("p{rank}.npy").string(), "-k", "0", file},
                   "select: give either FILE or --shards, not both");
  expect_job_error(2, {"select", "-k", "0"}, "select: FILE is required");
  expect_job_error(2, {"--algorithm", "fast", "select", "-k", "0", file},
                   "--algorithm: 'fast' is not one of dibms, dbms, distributed_bms, sort, sort_and_choose");
  // The local tool: the job's options need --distributed.
  expect_exact({"select", "--shards", path("p{rank}.npy").string(), "-k", "0"}, "--shards needs --distributed");
  expect_exact({"--algorithm", "sort", "select", "-k", "0", file}, "--algorithm needs --distributed");
}

TEST_F(DistributedErrors, TransportOptions) {
  expect_job_error(2, {"--transport", "tcp", "select", "-k", "0", file}, "--transport: 'tcp' is not one of mpi, nccl");
  // NCCL all-reduces the counts on the GPUs: a process on the CPU is refused before any work.
  expect_job_error(2, {"--transport", "nccl", "--device", "cpu", "select", "-k", "0", file},
                   "--transport nccl: this process runs on the CPU (--device cpu); nccl needs every process on its "
                   "own GPU (--device cuda)");
  expect_exact({"--transport", "nccl", "select", "-k", "0", file}, "--transport needs --distributed");
}

TEST_F(DistributedErrors, ProcessesGivenDifferentArguments) {
  // mpirun's MPMD form starts processes with different command lines: refused, not a hang.
  std::vector<std::string> args{"-k", "10", std::to_string(kHangSeconds)};
  args.insert(args.end(), {KSELECT_MPIEXEC_ARGS});
  args.insert(args.end(), {"-np", "2", KSELECT_CLI_PATH, "--distributed", "select", "-k", "0", file, ":", "-np", "1",
                           KSELECT_CLI_PATH, "--distributed", "quantile", "-q", "0.5", file});
  const tool_result r = run_tool_at(dir_, "timeout", args);
  EXPECT_FALSE(timed_out(r.exit_code)) << "hung";
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_NE(r.err.find("kselect: error: process 2 was given other arguments than process 0"), std::string::npos)
      << r.err;
}

TEST_F(DistributedErrors, HelpOnceFromTheJob) {
  const tool_result r = run_np(3, {"select", "--help"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::size_t usages = 0;
  for (const auto& line : lines_of(r.out)) usages += line.find("Usage:") != std::string::npos ? 1 : 0;
  EXPECT_EQ(usages, 1u) << r.out;
  EXPECT_NE(r.out.find("--shards"), std::string::npos);
}

TEST_F(DistributedErrors, MpiFailureEndsTheJob) {
  // The library's fault injection: that process's second collective throws as an MPI
  // failure would, leaving the others inside it. The job must end, non-zero.
  for (const auto& [processes, failing] : std::vector<std::pair<int, int>>{{2, 1}, {3, 0}, {4, 2}}) {
    SCOPED_TRACE("process " + std::to_string(failing) + " of " + std::to_string(processes));
    const std::string env = "KSELECT_MPI_INJECT_FAILURE=" + std::to_string(failing);
    const tool_result r = run_np(processes, {"select", "-k", "0,50", file}, env);
    EXPECT_FALSE(timed_out(r.exit_code)) << "hung";
    EXPECT_NE(r.exit_code, 0);
    EXPECT_EQ(r.out, "");
    EXPECT_NE(r.err.find("kselect: error: process " + std::to_string(failing) + ": "), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("injected MPI failure"), std::string::npos) << r.err;
  }
}

}  // namespace
}  // namespace kselect_cli_test
