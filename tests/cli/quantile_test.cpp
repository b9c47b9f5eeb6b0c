// kselect quantile: NumPy's methods, --percentiles, --nan-ignore, JSON output.
#include <nlohmann/json.hpp>

#include "cli/cli_test_util.hpp"

namespace kselect_cli_test {
namespace {

/// numpy.quantile of sorted, NaN-free `s` (long double arithmetic).
template <class T>
long double numpy_quantile(const std::vector<T>& s, double q, const std::string& method) {
  const auto n = static_cast<std::int64_t>(s.size());
  const double h = q * static_cast<double>(n - 1);  // NumPy's virtual index, in double
  const auto lo = static_cast<std::int64_t>(std::floor(h));
  const auto hi = std::min(lo + 1, n - 1);
  const long double g = h - static_cast<double>(lo);
  const long double a = s[lo], b = s[hi];
  if (method == "lower") return a;
  if (method == "higher") return g > 0 ? b : a;
  if (method == "nearest") return s[static_cast<std::size_t>(std::nearbyint(h))];  // half to even
  if (method == "midpoint") return g > 0 ? (a + b) / 2 : a;
  return a + (b - a) * g;
}

template <class T>
class QuantileTypes : public CliTest {};
using key_types = ::testing::Types<float, double, std::int32_t, std::uint32_t, std::int64_t, std::uint64_t>;
TYPED_TEST_SUITE(QuantileTypes, key_types);

// Small integers and qs whose virtual indices are whole or halves: every method's
// answer is exact in every type, whatever the implementation's rounding.
TYPED_TEST(QuantileTypes, EveryMethodExact) {
  using T = TypeParam;
  using R = std::conditional_t<std::is_floating_point_v<T>, T, double>;
  const std::vector<T> v{T(9), T(2), T(40), T(7), T(3), T(3), T(100), T(0), T(15), T(1), T(8)};
  const auto s = sorted_copy(v);
  write_npy(this->path("q.npy"), v);
  const std::vector<double> qs{0.5, 0, 0.1, 0.25, 0.75, 0.9, 1, 0.05, 0.95};
  for (std::string method : {"linear", "lower", "higher", "nearest", "midpoint"}) {
    SCOPED_TRACE(method);
    const auto lines = this->run_ok({"quantile", "-q", "0.5,0,0.1,0.25", "-q", "0.75,0.9,1,0.05,0.95",
                                     "--method", method, "--device", "cpu", this->path("q.npy").string()});
    ASSERT_EQ(lines.size(), qs.size());
    for (std::size_t i = 0; i < qs.size(); ++i)
      EXPECT_EQ(parse_value<R>(lines[i]), static_cast<R>(numpy_quantile(s, qs[i], method)))
          << "q=" << qs[i] << " printed " << lines[i];
  }
}

TYPED_TEST(QuantileTypes, PercentilesOfRandomData) {
  using T = TypeParam;
  using R = std::conditional_t<std::is_floating_point_v<T>, T, double>;
  const auto v = random_values<T>(997, 3);
  const auto s = sorted_copy(v);
  write_npy(this->path("p.npy"), v);
  const auto r = this->run({"quantile", "--percentiles", "--json", "--device", "cpu", this->path("p.npy").string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["command"], "quantile");
  EXPECT_EQ(j["method"], "linear");
  EXPECT_EQ(j["nan_ignore"], false);
  EXPECT_EQ(j["dtype"], dtype_name<T>());
  EXPECT_EQ(j["n"], 997);
  ASSERT_EQ(j["quantiles"].size(), 101u);
  ASSERT_EQ(j["values"].size(), 101u);
  for (int p = 0; p <= 100; ++p) {
    const double q = j["quantiles"][p].get<double>();
    EXPECT_EQ(q, p / 100.0);
    const long double want = numpy_quantile(s, q, "linear");
    const long double got = parse_value<R>(j["values"][p].dump());
    // Interpolation may round differently; a few ulps of the result type.
    const long double tol =
        4 * std::numeric_limits<R>::epsilon() * std::max(std::fabs(want), static_cast<long double>(1));
    EXPECT_NEAR(static_cast<double>(got), static_cast<double>(want), static_cast<double>(tol)) << "p" << p;
  }
}

// Each --method name reaches its method: at these qs no two of the thirteen agree.
// (np.quantile([4, 2, 1, 3], [0.25, 0.3, 0.375, 0.625, 0.9], method=m), numpy 2.4.6.)
TEST_F(CliTest, EveryMethodByName) {
  write_npy(path("m.npy"), std::vector<std::int64_t>{4, 2, 1, 3});
  const std::vector<std::pair<std::string, std::vector<double>>> want = {
      {"linear", {1.75, 1.9, 2.125, 2.875, 3.7}},
      {"lower", {1, 1, 2, 2, 3}},
      {"higher", {2, 2, 3, 3, 4}},
      {"nearest", {2, 2, 2, 3, 4}},
      {"midpoint", {1.5, 1.5, 2.5, 2.5, 3.5}},
      {"inverted_cdf", {1, 2, 2, 3, 4}},
      {"averaged_inverted_cdf", {1.5, 2, 2, 3, 4}},
      {"closest_observation", {1, 1, 2, 2, 4}},
      {"interpolated_inverted_cdf", {1, 1.2, 1.5, 2.5, 3.6}},
      {"hazen", {1.5, 1.7, 2, 3, 4}},
      {"weibull", {1.25, 1.5, 1.875, 3.125, 4}},
      {"median_unbiased", {1.4166666666666667, 1.6333333333333333, 1.9583333333333335, 3.041666666666667, 4}},
      {"normal_unbiased", {1.4375, 1.65, 1.96875, 3.03125, 4}},
  };
  for (const auto& [method, values] : want) {
    SCOPED_TRACE(method);
    const auto r = run({"quantile", "--json", "-q", "0.25,0.3,0.375,0.625,0.9", "--method", method, "--device", "cpu",
                        path("m.npy").string()});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const nlohmann::json j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["method"], method);
    ASSERT_EQ(j["values"].size(), values.size());
    for (std::size_t i = 0; i < values.size(); ++i) EXPECT_EQ(j["values"][i].get<double>(), values[i]) << i;
  }
}

TEST_F(CliTest, NanPropagatesUnlessIgnored) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  write_npy(path("n.npy"), std::vector<double>{4, nan, 1, 3, nan, 2});
  EXPECT_EQ(run_ok({"quantile", "-q", "0,0.5,1", path("n.npy").string()}),
            (std::vector<std::string>{"nan", "nan", "nan"}));
  EXPECT_EQ(run_ok({"quantile", "--nan-ignore", "-q", "0,0.5,1", path("n.npy").string()}),
            (std::vector<std::string>{"1", "2.5", "4"}));
  const auto r = run({"quantile", "--json", "-q", "0.5", path("n.npy").string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["values"], nlohmann::json::array({"nan"}));
}

TEST_F(CliTest, AllNanIgnoredGivesNan) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  write_npy(path("n.npy"), std::vector<float>{nan, nan});
  EXPECT_EQ(run_ok({"quantile", "--nan-ignore", "-q", "0.5", path("n.npy").string()}),
            std::vector<std::string>{"nan"});
}

TEST_F(CliTest, InfinitiesInOutput) {
  const float inf = std::numeric_limits<float>::infinity();
  write_npy(path("i.npy"), std::vector<float>{inf, -inf, 1});
  EXPECT_EQ(run_ok({"quantile", "-q", "0,1", "--method", "lower", path("i.npy").string()}),
            (std::vector<std::string>{"-inf", "inf"}));
  const auto r = run({"quantile", "--json", "-q", "0,1", "--method", "lower", path("i.npy").string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["values"], nlohmann::json::array({"-inf", "inf"}));
}

TEST_F(CliTest, IntegerQuantilesAreDoubles) {
  write_npy(path("i.npy"), std::vector<std::int32_t>{1, 2});
  EXPECT_EQ(run_ok({"quantile", "-q", "0.5,0.25", path("i.npy").string()}),
            (std::vector<std::string>{"1.5", "1.25"}));
}

}  // namespace
}  // namespace kselect_cli_test
