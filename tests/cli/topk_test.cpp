// kselect topk, kselect range and kselect select --approx, end to end: every dtype,
// text and JSON output, against the stable-sort reference; bad arguments.
#include <algorithm>
#include <nlohmann/json.hpp>

#include "cli/cli_test_util.hpp"
#include "common/range_reference.hpp"

namespace kselect_cli_test {
namespace {

template <class T>
std::vector<T> values_with_ties_and_specials(std::size_t n, std::uint64_t seed) {
  std::vector<T> v = random_values<T>(n, seed);
  for (std::size_t i = 0; i < n; i += 5) v[i] = T(3);  // a value tied many times
  if constexpr (std::is_floating_point_v<T>) {
    const std::vector<T> specials = {std::numeric_limits<T>::quiet_NaN(), -std::numeric_limits<T>::infinity(),
                                     std::numeric_limits<T>::infinity(), T(-0.0), T(0.0),
                                     std::numeric_limits<T>::quiet_NaN(), std::numeric_limits<T>::denorm_min()};
    for (std::size_t i = 0; i < specials.size() && 7 * i + 1 < n; ++i) v[7 * i + 1] = specials[i];
  } else {
    v[1] = std::numeric_limits<T>::min();
    v[2] = std::numeric_limits<T>::max();
  }
  return v;
}

/// A printed value equals the input element: bit for bit, except that NaN prints
/// as "nan" (sign and payload not shown).
template <class T>
::testing::AssertionResult printed_is(const std::string& text, T want) {
  const T got = parse_value<T>(text);
  if constexpr (std::is_floating_point_v<T>) {
    if (std::isnan(want)) {
      if (text == "nan") return ::testing::AssertionSuccess();
      return ::testing::AssertionFailure() << "printed " << text << ", expected nan";
    }
    if (std::signbit(got) != std::signbit(want))
      return ::testing::AssertionFailure() << "printed " << text << ", expected " << want << " (sign)";
  }
  if (got == want) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "printed " << text << ", expected " << want;
}

/// Checks text output lines against the reference answer: "value" or "index value".
template <class T>
void expect_lines(const std::vector<std::string>& lines, const kselect::test::range_answer<T>& want,
                  bool with_indices) {
  ASSERT_EQ(lines.size(), want.values.size());
  for (std::size_t i = 0; i < lines.size(); ++i) {
    SCOPED_TRACE("line " + std::to_string(i) + ": " + lines[i]);
    std::string value = lines[i];
    if (with_indices) {
      const auto space = lines[i].find(' ');
      ASSERT_NE(space, std::string::npos);
      EXPECT_EQ(lines[i].substr(0, space), std::to_string(want.indices[i]));
      value = lines[i].substr(space + 1);
    }
    EXPECT_TRUE(printed_is(value, want.values[i]));
  }
}

template <class T>
class TopkTypes : public CliTest {};
using key_types = ::testing::Types<float, double, std::int32_t, std::uint32_t, std::int64_t, std::uint64_t>;
TYPED_TEST_SUITE(TopkTypes, key_types);

TYPED_TEST(TopkTypes, TextMatchesTheStableSort) {
  using T = TypeParam;
  const auto v = values_with_ties_and_specials<T>(1000, 3);
  const auto n = static_cast<std::int64_t>(v.size());
  const std::string file = this->path("in.npy").string();
  write_npy(file, v);
  for (const bool largest : {false, true}) {
    const std::vector<std::int64_t> order = kselect::test::stable_order(v.data(), n, largest);
    for (const std::int64_t k : {std::int64_t{1}, std::int64_t{250}, n}) {
      for (const bool sorted : {false, true}) {
        SCOPED_TRACE("k " + std::to_string(k) + (largest ? " largest" : "") + (sorted ? " sorted" : ""));
        std::vector<std::string> args = {"topk", "--device", "cpu", "-k", std::to_string(k), "--deterministic",
                                         "--indices", file};
        if (largest) args.push_back("--largest");
        if (sorted) args.push_back("--sorted");
        expect_lines(this->run_ok(args), kselect::test::reference_range(v.data(), order, 0, k, sorted), true);
      }
    }
  }
  // Without --indices: values only (the CPU is deterministic even when not asked).
  const std::vector<std::int64_t> asc = kselect::test::stable_order(v.data(), n, false);
  expect_lines(this->run_ok({"topk", "-k", "100", "--device", "cpu", file}),
               kselect::test::reference_range(v.data(), asc, 0, 100, false), false);
}

TYPED_TEST(TopkTypes, RangeTextMatchesTheStableSort) {
  using T = TypeParam;
  const auto v = values_with_ties_and_specials<T>(777, 4);
  const auto n = static_cast<std::int64_t>(v.size());
  const std::string file = this->path("in.bin").string();
  write_bytes(file, raw_bytes(v));
  const std::vector<std::int64_t> order = kselect::test::stable_order(v.data(), n, false);
  for (const auto& [lo, hi] : std::vector<std::pair<std::int64_t, std::int64_t>>{{0, n}, {300, 500}, {776, 777}}) {
    for (const bool sorted : {false, true}) {
      SCOPED_TRACE("[" + std::to_string(lo) + ", " + std::to_string(hi) + ")" + (sorted ? " sorted" : ""));
      std::vector<std::string> args = {"range", "--lo", std::to_string(lo), "--hi", std::to_string(hi), "--dtype",
                                       dtype_name<T>(), "--device", "cpu", "--indices", file};
      if (sorted) args.push_back("--sorted");
      expect_lines(this->run_ok(args), kselect::test::reference_range(v.data(), order, lo, hi, sorted), true);
    }
  }
}

TYPED_TEST(TopkTypes, JsonOutput) {
  using T = TypeParam;
  const auto v = values_with_ties_and_specials<T>(100, 5);
  const auto n = static_cast<std::int64_t>(v.size());
  const std::string file = this->path("in.npy").string();
  write_npy(file, v, {4, 25});
  const auto r = this->run({"--json", "topk", "-k", "10", "--largest", "--sorted", "--indices", "--device", "cpu", file});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["command"], "topk");
  EXPECT_EQ(j["file"], file);
  EXPECT_EQ(j["dtype"], dtype_name<T>());
  EXPECT_EQ(j["n"], 100);
  EXPECT_EQ(j["device"], "cpu");
  EXPECT_EQ(j["k"], 10);
  EXPECT_EQ(j["largest"], true);
  EXPECT_EQ(j["sorted"], true);
  for (const char* key : {"read", "transfer", "select"}) EXPECT_TRUE(j["time_ms"][key].is_number()) << key;
  const auto want = kselect::test::reference_range(v.data(), n, 0, 10, true, true);
  ASSERT_EQ(j["values"].size(), 10u);
  ASSERT_EQ(j["indices"].size(), 10u);
  for (std::size_t i = 0; i < 10; ++i) {
    EXPECT_EQ(j["indices"][i].get<std::int64_t>(), want.indices[i]) << i;
    const nlohmann::json& jv = j["values"][i];
    if constexpr (std::is_floating_point_v<T>) {
      if (!std::isfinite(want.values[i])) {
        EXPECT_EQ(jv, std::isnan(want.values[i]) ? "nan" : (want.values[i] > 0 ? "inf" : "-inf"));
        continue;
      }
      EXPECT_TRUE(printed_is(jv.dump(), want.values[i]));
    } else {
      EXPECT_EQ(jv.get<T>(), want.values[i]);
    }
  }

  // range: lo and hi, and no "indices" without --indices.
  const auto rr = this->run({"range", "--json", "--lo", "20", "--hi", "25", "--device", "cpu", file});
  ASSERT_EQ(rr.exit_code, 0) << rr.err;
  const nlohmann::json jr = nlohmann::json::parse(rr.out);
  EXPECT_EQ(jr["command"], "range");
  EXPECT_EQ(jr["lo"], 20);
  EXPECT_EQ(jr["hi"], 25);
  EXPECT_EQ(jr["sorted"], false);
  EXPECT_FALSE(jr.contains("indices"));
  EXPECT_EQ(jr["values"].size(), 5u);
}

TEST_F(CliTest, TopkNanCountsAsTheLargest) {
  write_npy(path("n.npy"), std::vector<float>{1.5f, std::nanf(""), -2.0f, INFINITY, -0.0f});
  EXPECT_EQ(run_ok({"topk", "-k", "2", "--largest", "--sorted", "--indices", path("n.npy").string()}),
            (std::vector<std::string>{"1 nan", "3 inf"}));
  // Unsorted output is in index order only when deterministic (a GPU run of the
  // plain call may order it otherwise).
  EXPECT_EQ(run_ok({"topk", "-k", "3", "--deterministic", path("n.npy").string()}),
            (std::vector<std::string>{"1.5", "-2", "-0"}));
  std::vector<std::string> any_order = run_ok({"topk", "-k", "3", path("n.npy").string()});
  std::sort(any_order.begin(), any_order.end());
  EXPECT_EQ(any_order, (std::vector<std::string>{"-0", "-2", "1.5"}));
  EXPECT_EQ(run_ok({"topk", "-k", "0", path("n.npy").string()}), std::vector<std::string>{});
  EXPECT_EQ(run_ok({"range", "--lo", "2", "--hi", "2", path("n.npy").string()}), std::vector<std::string>{});
}

// select --approx: "value rank" lines, each value the element of that exact rank and
// the rank within the allowed error of the one asked.
TEST_F(CliTest, ApproxSelectReportsExactRanksWithinTheError) {
  const auto v = random_values<double>(20000, 8);
  const auto s = sorted_copy(v);
  write_npy(path("a.npy"), v);
  const std::vector<std::int64_t> ranks = {19999, 0, 10000, 5, 10000};
  // "0.3%" of 20000 is 60 exactly (a double product would give 59.99...).
  for (const auto& [error_arg, error] : std::vector<std::pair<std::string, std::int64_t>>{
           {"0", 0}, {"25", 25}, {"0.3%", 60}, {"1%", 200}, {"100%", 20000}}) {
    SCOPED_TRACE("--max-rank-error " + error_arg);
    const auto lines =
        run_ok({"select", "--approx", "--max-rank-error", error_arg, "-k", "19999,0,10000,5,10000", path("a.npy").string()});
    ASSERT_EQ(lines.size(), ranks.size());
    for (std::size_t i = 0; i < ranks.size(); ++i) {
      const auto space = lines[i].find(' ');
      ASSERT_NE(space, std::string::npos) << lines[i];
      const auto rank = parse_value<std::int64_t>(lines[i].substr(space + 1));
      EXPECT_LE(std::llabs(rank - ranks[i]), error) << lines[i];
      ASSERT_GE(rank, 0);
      ASSERT_LT(rank, 20000);
      EXPECT_EQ(parse_value<double>(lines[i].substr(0, space)), s[static_cast<std::size_t>(rank)]) << lines[i];
      if (error == 0) EXPECT_EQ(rank, ranks[i]);
    }
    const auto r = run({"--json", "select", "--approx", "--max-rank-error", error_arg, "-k", "0,10000", path("a.npy").string()});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const nlohmann::json j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["max_rank_error"], error);
    EXPECT_EQ(j["ranks"], nlohmann::json::array({0, 10000}));
    ASSERT_EQ(j["exact_ranks"].size(), 2u);
    ASSERT_EQ(j["values"].size(), 2u);
    for (std::size_t i = 0; i < 2; ++i)
      EXPECT_EQ(j["values"][i].get<double>(), s[j["exact_ranks"][i].get<std::size_t>()]);
  }
  // --approx alone is exact.
  const auto exact = run_ok({"select", "--approx", "-k", "5", path("a.npy").string()});
  ASSERT_EQ(exact.size(), 1u);
  ASSERT_TRUE(exact[0].ends_with(" 5")) << exact[0];
  EXPECT_EQ(parse_value<double>(exact[0].substr(0, exact[0].size() - 2)), s[5]);
}

TEST_F(CliTest, TopkRangeAndApproxBadArguments) {
  const std::string good = path("good.npy").string();
  write_npy(good, std::vector<float>{3, 1, 2});
  expect_error({"topk", "-k", "4", good}, "-k: 4 is more than the number of values (3)");
  expect_error({"topk", "-k", "-1", good}, "-k: -1 is negative");
  expect_error({"topk", "-k", "two", good}, "-k: 'two' is not an integer");
  expect_error({"topk", "-k", "99999999999999999999", good}, "out of range");
  expect_error({"topk", "-k", "1", path("missing.npy").string()}, "missing.npy: cannot open");
  expect_error({"topk", good}, "-k");
  expect_error({"range", "--lo", "2", "--hi", "1", good}, "--lo 2 is greater than --hi 1");
  expect_error({"range", "--lo", "0", "--hi", "4", good}, "--hi: 4 is more than the number of values (3)");
  expect_error({"range", "--lo", "-1", "--hi", "2", good}, "--lo: -1 is negative");
  expect_error({"range", "--lo", "0", "--hi", "1.5", good}, "--hi: '1.5' is not an integer");
  expect_error({"range", "--hi", "1", good}, "--lo");
  expect_error({"range", "--lo", "0", "--hi", "1", path("missing.npy").string()}, "cannot open");
  expect_error({"select", "--max-rank-error", "3", "-k", "0", good}, "--max-rank-error needs --approx");
  expect_error({"select", "--approx", "--max-rank-error", "-3", "-k", "0", good}, "--max-rank-error: -3 is negative");
  expect_error({"select", "--approx", "--max-rank-error", "abc", "-k", "0", good}, "not an integer");
  expect_error({"select", "--approx", "--max-rank-error", "x%", "-k", "0", good}, "is not a count or a percent");
  expect_error({"select", "--approx", "--max-rank-error", "-1%", "-k", "0", good}, "negative");
  expect_error({"select", "--approx", "--max-rank-error", "%", "-k", "0", good}, "is not a count or a percent");
  expect_error({"select", "--approx", "--max-rank-error", "101%", "-k", "0", good}, "more than 100%");
  expect_error({"select", "--approx", "--max-rank-error", "1.2.3%", "-k", "0", good}, "not a count or a percent");
  expect_error({"select", "--approx", "-k", "3", good}, "-k: rank 3 is out of range");
}

}  // namespace
}  // namespace kselect_cli_test
