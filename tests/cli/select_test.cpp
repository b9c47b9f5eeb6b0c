// kselect select: every dtype, .npy versions and shapes, raw files, JSON output.
#include <nlohmann/json.hpp>

#include "cli/cli_test_util.hpp"

namespace kselect_cli_test {
namespace {

template <class T>
class SelectTypes : public CliTest {};
using key_types = ::testing::Types<float, double, std::int32_t, std::uint32_t, std::int64_t, std::uint64_t>;
TYPED_TEST_SUITE(SelectTypes, key_types);

template <class T>
std::vector<T> values_with_specials(std::size_t n, std::uint64_t seed) {
  std::vector<T> v = random_values<T>(n, seed);
  const std::vector<T> specials = [] {
    if constexpr (std::is_floating_point_v<T>)
      return std::vector<T>{std::numeric_limits<T>::infinity(), -std::numeric_limits<T>::infinity(),
                            std::numeric_limits<T>::quiet_NaN(), std::numeric_limits<T>::lowest(),
                            std::numeric_limits<T>::denorm_min(), T(0.1), T(0.1), T(-0.5)};
    else
      return std::vector<T>{std::numeric_limits<T>::min(), std::numeric_limits<T>::max(), T(0), T(7), T(7)};
  }();
  for (std::size_t i = 0; i < specials.size() && i < n; ++i) v[(i * 37) % n] = specials[i];
  return v;
}

TYPED_TEST(SelectTypes, RanksInRequestedOrderMatchSort) {
  using T = TypeParam;
  const auto v = values_with_specials<T>(1001, 7);
  const auto s = sorted_copy(v);
  write_npy(this->path("in.npy"), v);
  const std::vector<std::int64_t> ranks{1000, 0, 500, 3, 3, 999, 1, 250};
  std::string k;
  for (auto r : ranks) k += (k.empty() ? "" : ",") + std::to_string(r);
  const auto lines = this->run_ok({"select", "--device", "cpu", "-k", k, this->path("in.npy").string()});
  ASSERT_EQ(lines.size(), ranks.size());
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    SCOPED_TRACE("rank " + std::to_string(ranks[i]) + " printed as " + lines[i]);
    EXPECT_TRUE(same_value(parse_value<T>(lines[i]), s[static_cast<std::size_t>(ranks[i])]));
  }
}

TYPED_TEST(SelectTypes, SingleRankOfRawFile) {
  using T = TypeParam;
  const auto v = values_with_specials<T>(64, 11);
  const auto s = sorted_copy(v);
  write_bytes(this->path("in.bin"), raw_bytes(v));
  for (std::int64_t k : {0, 31, 63}) {
    const auto lines = this->run_ok({"select", "-k", std::to_string(k), "--dtype", dtype_name<T>(),
                                     "--device", "cpu", this->path("in.bin").string()});
    ASSERT_EQ(lines.size(), 1u);
    EXPECT_TRUE(same_value(parse_value<T>(lines[0]), s[static_cast<std::size_t>(k)])) << lines[0];
  }
}

TYPED_TEST(SelectTypes, JsonOutput) {
  using T = TypeParam;
  const auto v = values_with_specials<T>(100, 5);
  const auto s = sorted_copy(v);
  write_npy(this->path("in.npy"), v, {4, 25});
  const auto r = this->run({"--json", "select", "-k", "99,0", "-k", "50", "--device", "cpu",
                            this->path("in.npy").string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["command"], "select");
  EXPECT_EQ(j["device"], "cpu");
  EXPECT_EQ(j["dtype"], dtype_name<T>());
  EXPECT_EQ(j["n"], 100);
  EXPECT_EQ(j["ranks"], nlohmann::json::array({99, 0, 50}));
  EXPECT_EQ(j["file"], this->path("in.npy").string());
  for (const char* key : {"read", "transfer", "select"}) EXPECT_TRUE(j["time_ms"][key].is_number()) << key;
  const std::vector<std::size_t> ranks{99, 0, 50};
  ASSERT_EQ(j["values"].size(), ranks.size());
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    const nlohmann::json& jv = j["values"][i];
    const T want = s[ranks[i]];
    if constexpr (std::is_floating_point_v<T>) {
      if (!std::isfinite(want)) {
        EXPECT_EQ(jv, std::isnan(want) ? "nan" : (want > 0 ? "inf" : "-inf"));
        continue;
      }
      EXPECT_EQ(parse_value<T>(jv.dump()), want) << jv.dump();  // shortest round-trip digits
    } else {
      EXPECT_EQ(jv.get<T>(), want);
    }
  }
}

TEST_F(CliTest, NpyVersionsAndShapes) {
  const std::vector<double> v{3.5, -1, 2, 8, 0.25, 7};
  struct variant {
    std::string name;
    std::vector<std::int64_t> shape;
    int major;
    bool fortran;
  };
  for (const auto& c : std::vector<variant>{{"v1.npy", {6}, 1, false},
                                            {"v2.npy", {2, 3}, 2, false},
                                            {"v3.npy", {1, 2, 3}, 3, false},
                                            {"f1.npy", {6}, 1, true},
                                            {"UPPER.NPY", {3, 2}, 1, false}}) {
    SCOPED_TRACE(c.name);
    write_npy(path(c.name), v, c.shape, c.major, c.fortran);
    const auto lines = run_ok({"select", "-k", "0,5,2", path(c.name).string()});
    EXPECT_EQ(lines, (std::vector<std::string>{"-1", "8", "2"}));
  }
}

TEST_F(CliTest, ScalarNpyHasOneValue) {
  write_bytes(path("s.npy"), npy_prefix(npy_dict("<i4", {})) + raw_bytes(std::vector<std::int32_t>{-42}));
  EXPECT_EQ(run_ok({"select", "-k", "0", path("s.npy").string()}), std::vector<std::string>{"-42"});
}

TEST_F(CliTest, HeaderVariantsNumPyMayWrite) {
  // Double quotes, another key order, no trailing comma, Python 2 long suffix.
  const std::string dict = "{\"shape\": (3L,), \"fortran_order\": False, \"descr\": \"<u8\"}";
  write_bytes(path("h.npy"), npy_prefix(dict) + raw_bytes(std::vector<std::uint64_t>{5, 1, 3}));
  EXPECT_EQ(run_ok({"select", "-k", "1", path("h.npy").string()}), std::vector<std::string>{"3"});
}

TEST_F(CliTest, RawFlagReadsNpyNamedFileAsRaw) {
  write_bytes(path("raw.npy"), raw_bytes(std::vector<std::int32_t>{9, -3, 4}));
  EXPECT_EQ(run_ok({"select", "--raw", "--dtype", "int32", "-k", "0,2", path("raw.npy").string()}),
            (std::vector<std::string>{"-3", "9"}));
}

TEST_F(CliTest, FloatOutputRoundTrips) {
  const std::vector<float> v{0.1f, 1.0f / 3.0f, 16777217.0f, 1e-40f, -3.4e38f};
  write_npy(path("f.npy"), v);
  const auto lines = run_ok({"select", "-k", "0,1,2,3,4", path("f.npy").string()});
  const auto s = sorted_copy(v);
  ASSERT_EQ(lines.size(), 5u);
  for (std::size_t i = 0; i < 5; ++i) EXPECT_EQ(parse_value<float>(lines[i]), s[i]) << lines[i];
  EXPECT_EQ(lines[2], "0.1");  // shortest form, not 0.100000001
}

TEST_F(CliTest, OptionsMayComeBeforeOrAfterTheSubcommand) {
  write_npy(path("a.npy"), std::vector<std::int64_t>{4, 2, 9});
  EXPECT_EQ(run_ok({"--device", "cpu", "select", "-k", "2", path("a.npy").string()}),
            std::vector<std::string>{"9"});
  EXPECT_EQ(run_ok({"select", path("a.npy").string(), "--rank", "1", "--device=cpu"}),
            std::vector<std::string>{"4"});
}

TEST_F(CliTest, DeviceAutoRunsWhereAvailable) {
  write_npy(path("a.npy"), std::vector<float>{4, 2, 9});
  const auto r = run({"--json", "select", "-k", "1", path("a.npy").string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_TRUE(j["device"] == "cpu" || j["device"] == "cuda");
  EXPECT_EQ(j["values"], nlohmann::json::array({4}));
}

}  // namespace
}  // namespace kselect_cli_test
