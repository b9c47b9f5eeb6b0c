// Bad input and bad arguments: exit code 2, nothing on stdout, one line on
// stderr starting "kselect: error: ".
#include "cli/cli_test_util.hpp"
#include "kselect/kselect.hpp"

namespace kselect_cli_test {
namespace {

class CliErrors : public CliTest {
 protected:
  void SetUp() override {
    CliTest::SetUp();
    good_ = path("good.npy").string();
    write_npy(good_, std::vector<float>{3, 1, 2});
  }
  std::string write(const std::string& name, const std::string& bytes) {
    write_bytes(path(name), bytes);
    return path(name).string();
  }
  std::string good_;
};

TEST_F(CliErrors, MissingFile) {
  expect_error({"select", "-k", "0", path("nope.npy").string()}, "nope.npy: cannot open");
  expect_error({"select", "-k", "0", "--dtype", "float32", path("nope.bin").string()}, "cannot open");
}

// --gpu-memory-limit takes a positive byte count with an optional K, M, G or T; the
// CPU backend accepts and ignores a valid one.
TEST_F(CliErrors, GpuMemoryLimit) {
  for (const char* bad : {"4X", "0", "M", "-5", "1.5G", "99999999999999999"})
    expect_error({"select", "--device", "cpu", "--gpu-memory-limit", bad, "-k", "0", good_},
                 std::string("--gpu-memory-limit ") + bad + ": expected a positive number of bytes");
  for (const char* good : {"4096", "512K", "64MiB", "8G", "1T"})
    EXPECT_EQ(run_ok({"select", "--device", "cpu", "--gpu-memory-limit", good, "-k", "0", good_}),
              std::vector<std::string>{"1"})
        << good;
}

TEST_F(CliErrors, DirectoryAsInput) {
  expect_error({"select", "-k", "0", "--dtype", "int32", dir_.string()}, "is a directory");
}

TEST_F(CliErrors, UnsupportedDtypes) {
  const std::string data(16, '\0');
  expect_error({"select", "-k", "0", write("be.npy", npy_prefix(npy_dict(">f4", {4})) + data)},
               "big-endian");
  expect_error({"select", "-k", "0", write("half.npy", npy_prefix(npy_dict("<f2", {8})) + data)},
               "unsupported dtype '<f2'");
  expect_error({"select", "-k", "0", write("u1.npy", npy_prefix(npy_dict("|u1", {16})) + data)},
               "unsupported dtype '|u1'");
  expect_error({"select", "-k", "0", write("c8.npy", npy_prefix(npy_dict("<c8", {2})) + data)},
               "unsupported dtype '<c8'");
  const std::string structured =
      "{'descr': [('a', '<f4'), ('b', '<f4')], 'fortran_order': False, 'shape': (2,), }";
  expect_error({"select", "-k", "0", write("st.npy", npy_prefix(structured) + data)}, "structured dtype");
}

TEST_F(CliErrors, FortranOrderMultiDimensional) {
  const std::string data(24, '\0');
  expect_error({"select", "-k", "0", write("f.npy", npy_prefix(npy_dict("<f4", {2, 3}, true)) + data)},
               "fortran_order");
}

TEST_F(CliErrors, MalformedNpy) {
  const std::string data(12, '\0');
  const std::string ok_prefix = npy_prefix(npy_dict("<f4", {3}));
  struct bad {
    std::string name, bytes, needle;
  };
  const std::vector<bad> cases{
      {"empty_file.npy", "", "not a .npy file"},
      {"magic.npy", "NUMPY\x01\x00" + std::string(100, ' '), "not a .npy file"},
      {"short.npy", std::string("\x93NUMPY\x01", 7), "truncated"},
      {"version.npy", std::string("\x93NUMPY\x04\x00", 8) + ok_prefix.substr(8) + data, "version 4.0"},
      {"header_cut.npy", ok_prefix.substr(0, 40), "truncated .npy header"},
      {"data_cut.npy", ok_prefix + data.substr(0, 10), "truncated data"},
      {"data_extra.npy", ok_prefix + data + "xx", "unexpected data"},
      {"not_dict.npy", npy_prefix("['descr', '<f4']") + data, "malformed .npy header"},
      {"no_shape.npy", npy_prefix("{'descr': '<f4', 'fortran_order': False, }") + data, "no 'shape'"},
      {"no_descr.npy", npy_prefix("{'fortran_order': False, 'shape': (3,), }") + data, "no 'descr'"},
      {"bad_shape.npy", npy_prefix("{'descr': '<f4', 'fortran_order': False, 'shape': (-3,), }") + data,
       "malformed .npy header"},
      {"shape_str.npy", npy_prefix("{'descr': '<f4', 'fortran_order': False, 'shape': '3', }") + data,
       "'shape' is not a tuple"},
      {"fortran_str.npy", npy_prefix("{'descr': '<f4', 'fortran_order': 0, 'shape': (3,), }") + data,
       "malformed .npy header"},
      {"extra_key.npy",
       npy_prefix("{'descr': '<f4', 'fortran_order': False, 'shape': (3,), 'x': 'y', }") + data,
       "unexpected key 'x'"},
      {"unterminated.npy", npy_prefix("{'descr': '<f4, 'fortran_order': False, 'shape': (3,), }") + data,
       "malformed .npy header"},
      {"huge_shape.npy",
       npy_prefix("{'descr': '<f8', 'fortran_order': False, 'shape': (4294967296, 4294967296), }") + data,
       "too large"},
  };
  for (const auto& c : cases) expect_error({"select", "-k", "0", write(c.name, c.bytes)}, c.needle);
}

TEST_F(CliErrors, EmptyArray) {
  expect_error({"select", "-k", "0", write("e.npy", npy_prefix(npy_dict("<f8", {0})))}, "holds no values");
  expect_error({"quantile", "-q", "0.5", write("e2.npy", npy_prefix(npy_dict("<i4", {3, 0})))},
               "holds no values");
  expect_error({"select", "-k", "0", "--dtype", "float64", write("e.bin", "")}, "holds no values");
}

TEST_F(CliErrors, RawFiles) {
  const std::string raw = write("r.bin", std::string(10, '\0'));
  expect_error({"select", "-k", "0", raw}, "needs --dtype");
  expect_error({"select", "-k", "0", "--dtype", "float32", raw}, "not a multiple");
  expect_error({"select", "-k", "0", "--dtype", "float16", raw}, "--dtype");
}

TEST_F(CliErrors, WrongDtypeForNpy) {
  expect_error({"select", "-k", "0", "--dtype", "float64", good_}, "conflicts with the file's dtype float32");
  expect_error({"select", "-k", "0", "--dtype", "int32", good_}, "conflicts");
}

TEST_F(CliErrors, RanksOutOfRangeOrMalformed) {
  expect_error({"select", "-k", "3", good_}, "out of range [0, 3)");
  expect_error({"select", "-k", "0,1,5", good_}, "rank 5 is out of range");
  expect_error({"select", "-k", "-1", good_}, "-k: -1 is negative");
  expect_error({"select", "-k", "x", good_}, "not an integer");
  expect_error({"select", "-k", "1.5", good_}, "not an integer");
  expect_error({"select", "-k", "1,,2", good_}, "empty entry");
  expect_error({"select", "-k", "99999999999999999999", good_}, "out of range");
}

TEST_F(CliErrors, QuantilesOutOfRangeOrMalformed) {
  expect_error({"quantile", "-q", "1.5", good_}, "1.5 is not in [0, 1]");
  expect_error({"quantile", "-q", "-0.1", good_}, "not in [0, 1]");
  expect_error({"quantile", "-q", "nan", good_}, "nan is not in [0, 1]");
  expect_error({"quantile", "-q", "inf", good_}, "not in [0, 1]");
  expect_error({"quantile", "-q", "half", good_}, "not a number");
  expect_error({"quantile", "-q", "0.5x", good_}, "not a number");
  expect_error({"quantile", good_}, "quantile: -q is required (give -q Q[,Q...] or --percentiles)");
  expect_error({"quantile", "-q", "0.5", "--percentiles", good_}, "give either -q or --percentiles, not both");
  expect_error({"quantile", "-q", "0.5", "--method", "cubic", good_}, "--method");
}

TEST_F(CliErrors, UsageErrors) {
  expect_error({}, "subcommand");
  expect_error({"frobnicate"}, "frobnicate");
  expect_error({"select", good_}, "select: -k is required (give -k K[,K...] or --ks-file)");
  expect_error({"select", "-k", "0"}, "FILE");
  expect_error({"select", "-k", "0", good_, "extra"}, "extra");
  expect_error({"select", "-k", "0", "--device", "tpu", good_}, "--device");
  expect_error({"select", "-k", "0", "--nope", good_}, "--nope");
  expect_error({"demo", "--n", "-5"}, "--n");
  expect_error({"demo", "--n", "many"}, "--n");
}

TEST_F(CliErrors, CudaDeviceWithoutCuda) {
  if (kselect::cuda_available()) GTEST_SKIP() << "a CUDA device is available";
  expect_error({"select", "-k", "0", "--device", "cuda", good_}, "--device cuda");
  expect_error({"--device", "cuda", "demo", "--n", "10"}, "--device cuda");
}

TEST_F(CliErrors, HelpAndVersionExitZero) {
  auto r = run({"--help"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("select"), std::string::npos);
  r = run({"select", "--help"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("-k"), std::string::npos);
  r = run({"--version"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.out.rfind("kselect ", 0), 0u) << r.out;
}

}  // namespace
}  // namespace kselect_cli_test
