// One number syntax for every numeric option: decimal only, no '+', no hex;
// negative values reach the parser (not mistaken for options) and are called
// negative where a count is wanted; nan and inf only as float filter constants.
#include <nlohmann/json.hpp>

#include "cli/cli_test_util.hpp"

namespace kselect_cli_test {
namespace {

class CliNumbers : public CliTest {
 protected:
  void SetUp() override {
    CliTest::SetUp();
    f32_ = path("f.npy").string();
    i32_ = path("i.npy").string();
    u64_ = path("u.npy").string();
    write_npy(f32_, std::vector<float>{3, -1, 2, 0.5f});
    write_npy(i32_, std::vector<std::int32_t>{3, -7, 5, 0, -2147483647 - 1});
    write_npy(u64_, std::vector<std::uint64_t>{1, 18446744073709551615u});
  }
  std::string f32_, i32_, u64_;
};

TEST_F(CliNumbers, HexIsRejectedEverywhere) {
  const std::string hex = "is hexadecimal (write numbers in decimal)";
  expect_error({"select", "-k", "0x10", f32_}, "-k: '0x10' " + hex);
  expect_error({"select", "-k", "1,0x1", f32_}, "-k: '0x1' " + hex);
  expect_error({"topk", "-k", "0x2", f32_}, "-k: '0x2' " + hex);
  expect_error({"range", "--lo", "0X0", "--hi", "1", f32_}, "--lo: '0X0' " + hex);
  expect_error({"range", "--lo", "0", "--hi", "0x1", f32_}, "--hi: '0x1' " + hex);
  expect_error({"quantile", "-q", "0x0.8", f32_}, "-q: '0x0.8' " + hex);
  expect_error({"filter", "--lt", "0x10", f32_}, "--lt: '0x10' " + hex);
  expect_error({"filter", "--lt", "0x10", i32_}, "--lt: '0x10' " + hex);
  expect_error({"filter", "--range", "-0x1", "1", i32_}, "--range: '-0x1' " + hex);
  expect_error({"select", "--approx", "--max-rank-error", "0x5", "-k", "0", f32_}, "--max-rank-error: '0x5' " + hex);
  expect_error({"demo", "--n", "0x10"}, "--n: '0x10' " + hex);
  expect_error({"demo", "--seed", "0x10"}, "--seed: '0x10' " + hex);
}

TEST_F(CliNumbers, PlusSignIsRejectedEverywhere) {
  const std::string plus = "has a '+' sign (write numbers without one)";
  expect_error({"select", "-k", "+5", f32_}, "-k: '+5' " + plus);
  expect_error({"topk", "-k", "+1", f32_}, "-k: '+1' " + plus);
  expect_error({"range", "--lo", "+0", "--hi", "1", f32_}, "--lo: '+0' " + plus);
  expect_error({"quantile", "-q", "+0.5", f32_}, "-q: '+0.5' " + plus);
  expect_error({"filter", "--gt", "+1", f32_}, "--gt: '+1' " + plus);
  expect_error({"filter", "--gt", "+1", i32_}, "--gt: '+1' " + plus);
  expect_error({"filter", "--eq", "+-1", i32_}, plus);
  expect_error({"select", "--approx", "--max-rank-error", "+5%", "-k", "0", f32_}, plus);
  expect_error({"demo", "--n", "+5"}, "--n: '+5' " + plus);
  expect_error({"demo", "--seed", "+1"}, "--seed: '+1' " + plus);
}

TEST_F(CliNumbers, NegativeCountsAreNegative) {
  // Each negative value must reach the number parser, not be taken for an option.
  expect_error({"select", "-k", "-1", f32_}, "-k: -1 is negative");
  expect_error({"select", "-k", "0,-2", f32_}, "-k: -2 is negative");
  expect_error({"topk", "-k", "-1", f32_}, "-k: -1 is negative");
  expect_error({"range", "--lo", "-1", "--hi", "1", f32_}, "--lo: -1 is negative");
  expect_error({"select", "--approx", "--max-rank-error", "-3", "-k", "0", f32_}, "--max-rank-error: -3 is negative");
  expect_error({"select", "--approx", "--max-rank-error", "-0.5%", "-k", "0", f32_},
               "--max-rank-error: -0.5% is negative");
  expect_error({"demo", "--n", "-5"}, "--n: -5 is negative");
  expect_error({"demo", "--seed", "-1"}, "--seed: -1 is negative");
  expect_error({"demo", "--seed", "-99999999999999999999"}, "--seed: -99999999999999999999 is negative");
}

TEST_F(CliNumbers, OutOfRangeAndMalformed) {
  expect_error({"select", "-k", "9223372036854775808", f32_}, "-k: 9223372036854775808 is out of range");
  expect_error({"topk", "-k", "99999999999999999999", f32_}, "-k: 99999999999999999999 is out of range");
  expect_error({"demo", "--seed", "18446744073709551616"}, "--seed: 18446744073709551616 is out of range");
  expect_error({"demo", "--n", "0"}, "--n: 0 is not in [1, 2147483647]");
  expect_error({"demo", "--n", "2147483648"}, "--n: 2147483648 is not in [1, 2147483647]");
  expect_error({"demo", "--n", "1e3"}, "--n: '1e3' is not an integer");
  expect_error({"demo", "--n", " 5"}, "--n: ' 5' is not an integer");
  expect_error({"demo", "--seed", "1_000"}, "--seed: '1_000' is not an integer");
  expect_error({"topk", "-k", "1.0", f32_}, "-k: '1.0' is not an integer");
  expect_error({"topk", "-k", "-", f32_}, "-k: '-' is not an integer");
  expect_error({"select", "-k", "", f32_}, "-k needs a value");
  expect_error({"quantile", "-q", "", f32_}, "-q needs a value");
  expect_error({"quantile", "-q", "0.5,", f32_}, "-q: empty entry in '0.5,'");
  expect_error({"quantile", "-q", "1e", f32_}, "-q: '1e' is not a number");
  expect_error({"quantile", "-q", ".", f32_}, "-q: '.' is not a number");
  expect_error({"quantile", "-q", "0.5 ", f32_}, "-q: '0.5 ' is not a number");
  expect_error({"quantile", "-q", "1e999", f32_}, "-q: 1e999 is not in [0, 1]");
  expect_error({"quantile", "-q", "-0.5", f32_}, "-q: -0.5 is not in [0, 1]");
}

TEST_F(CliNumbers, QuantileRejectsNanAndInf) {
  for (const std::string q : {"nan", "NaN", "inf", "-inf", "Infinity"})
    expect_error({"quantile", "-q", q, f32_}, "-q: " + q + " is not in [0, 1]");
  expect_error({"quantile", "-q", "-nan", f32_}, "-q: '-nan' is not a number");
}

TEST_F(CliNumbers, RealSyntaxAccepted) {
  // 0.5 in the spellings the syntax allows (sorted data: -1, 0.5, 2, 3).
  for (const std::string q : {"0.5", ".5", "5e-1", "5E-1", "0.05e+1", "50e-2", "-0"})
    EXPECT_EQ(run_ok({"quantile", "-q", q, f32_}).size(), 1u) << q;
  EXPECT_EQ(run_ok({"quantile", "-q", "1.", f32_}), std::vector<std::string>{"3"});
  EXPECT_EQ(run_ok({"quantile", "-q", "0e0", f32_}), std::vector<std::string>{"-1"});
}

TEST_F(CliNumbers, NegativeFilterConstantsReachTheParser) {
  EXPECT_EQ(run_ok({"filter", "--lt", "-5", i32_}), std::vector<std::string>{"2"});  // -7, INT32_MIN
  EXPECT_EQ(run_ok({"filter", "--range", "-1", "1", f32_}), std::vector<std::string>{"2"});  // -1, 0.5
  EXPECT_EQ(run_ok({"filter", "--range", "-7", "-1", i32_}), std::vector<std::string>{"1"});
  EXPECT_EQ(run_ok({"filter", "--eq", "-2147483648", i32_}), std::vector<std::string>{"1"});
  EXPECT_EQ(run_ok({"filter", "--ge", "-0", u64_}), std::vector<std::string>{"2"});
  EXPECT_EQ(run_ok({"filter", "--eq", "18446744073709551615", u64_}), std::vector<std::string>{"1"});
  expect_error({"filter", "--eq", "-2147483649", i32_}, "--eq: -2147483649 is out of range for int32");
  expect_error({"filter", "--ge", "-1", u64_}, "--ge: -1 is out of range for uint64");
}

TEST_F(CliNumbers, NanAndInfOnlyForFloatInputs) {
  EXPECT_EQ(run_ok({"filter", "--lt", "inf", f32_}), std::vector<std::string>{"4"});
  EXPECT_EQ(run_ok({"filter", "--gt", "-inf", f32_}), std::vector<std::string>{"4"});
  EXPECT_EQ(run_ok({"filter", "--lt", "Infinity", f32_}), std::vector<std::string>{"4"});
  EXPECT_EQ(run_ok({"filter", "--ne", "NAN", f32_}), std::vector<std::string>{"4"});
  EXPECT_EQ(run_ok({"filter", "--range", "-INF", "0", f32_}), std::vector<std::string>{"1"});
  expect_error({"filter", "--lt", "-nan", f32_}, "--lt: '-nan' is not a float32 value");
  expect_error({"filter", "--lt", "inf", i32_}, "--lt: 'inf' is not an integer (the input is int32)");
  expect_error({"filter", "--lt", "nan", u64_}, "--lt: 'nan' is not an integer (the input is uint64)");
  expect_error({"filter", "--lt", "1e3", i32_}, "--lt: '1e3' is not an integer (the input is int32)");
  expect_error({"filter", "--lt", "1e39", f32_}, "--lt: 1e39 is out of range for float32");
}

TEST_F(CliNumbers, SeedTakesTheFullUnsignedRange) {
  const auto r = run({"demo", "--n", "10", "--seed", "18446744073709551615", "--json", "--device", "cpu"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["seed"].get<std::uint64_t>(), 18446744073709551615u);
}

}  // namespace
}  // namespace kselect_cli_test
