// kselect filter, end to end: every dtype and predicate against std::copy_if, the
// written .npy read back bit for bit (NaN payloads and -0.0 included), --indices,
// the count on stdout, JSON, and bad arguments.
#include <charconv>
#include <cstring>
#include <functional>
#include <nlohmann/json.hpp>

#include "cli/cli_test_util.hpp"
#include "kselect/kselect.hpp"

namespace kselect_cli_test {
namespace {

/// A one-dimensional .npy file as kselect writes it: its descr and its elements.
template <class T>
struct npy_array {
  std::string descr;
  std::vector<T> values;
};

/// Reads a version 1.0 .npy file of shape (n,): checks the preamble, the 64-byte
/// alignment of the data and the header's fields.
template <class T>
npy_array<T> read_npy(const fs::path& p) {
  const std::string bytes = read_text(p);
  npy_array<T> a;
  EXPECT_GE(bytes.size(), 10u);
  if (bytes.size() < 10) return a;
  EXPECT_EQ(bytes.substr(0, 8), std::string("\x93NUMPY\x01\x00", 8));
  const std::size_t header_bytes =
      static_cast<unsigned char>(bytes[8]) | static_cast<std::size_t>(static_cast<unsigned char>(bytes[9])) << 8;
  EXPECT_EQ((10 + header_bytes) % 64, 0u);
  const std::string header = bytes.substr(10, header_bytes);
  EXPECT_EQ(header.back(), '\n');
  const auto descr_at = header.find("'descr': '");
  EXPECT_NE(descr_at, std::string::npos) << header;
  a.descr = header.substr(descr_at + 10, 3);
  EXPECT_NE(header.find("'fortran_order': False"), std::string::npos) << header;
  const auto shape_at = header.find("'shape': (");
  EXPECT_NE(shape_at, std::string::npos) << header;
  const std::size_t n = std::stoull(header.substr(shape_at + 10));
  EXPECT_NE(header.find("'shape': (" + std::to_string(n) + ",)"), std::string::npos) << header;
  const std::string data = bytes.substr(10 + header_bytes);
  EXPECT_EQ(data.size(), n * sizeof(T));
  a.values.resize(data.size() / sizeof(T));
  if (!a.values.empty()) std::memcpy(a.values.data(), data.data(), a.values.size() * sizeof(T));
  return a;
}

/// The shortest text that reads back as v (what a user would type).
template <class T>
std::string text_of(T v) {
  if constexpr (std::is_floating_point_v<T>) {
    if (std::isnan(v)) return "nan";
    if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  }
  char buf[64];
  return std::string(buf, std::to_chars(buf, buf + sizeof buf, v).ptr);
}

template <class T>
bool same_bits(const std::vector<T>& a, const std::vector<T>& b) {
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0);
}

/// Values with repeats, the type's extremes and, for floats, NaNs of both signs,
/// infinities, both zeros and denormals.
template <class T>
std::vector<T> filter_input(std::size_t n, std::uint64_t seed) {
  std::vector<T> v = random_values<T>(n, seed);
  for (std::size_t i = 0; i < n; i += 6) v[i] = T(3);
  using lim = std::numeric_limits<T>;
  std::vector<T> specials = {lim::lowest(), lim::max(), T(0)};
  if constexpr (std::is_floating_point_v<T>)
    specials.insert(specials.end(), {lim::quiet_NaN(), -lim::quiet_NaN(), lim::infinity(), -lim::infinity(), T(-0.0),
                                     lim::denorm_min(), -lim::denorm_min()});
  for (std::size_t i = 0; i < specials.size() && 7 * i + 1 < n; ++i) v[7 * i + 1] = specials[i];
  return v;
}

template <class T>
class FilterTypes : public CliTest {};
using key_types = ::testing::Types<float, double, std::int32_t, std::uint32_t, std::int64_t, std::uint64_t>;
TYPED_TEST_SUITE(FilterTypes, key_types);

TYPED_TEST(FilterTypes, EveryPredicateMatchesCopyIf) {
  using T = TypeParam;
  const std::vector<T> v = filter_input<T>(1000, 11);
  const std::string in = this->path("in.npy").string(), out = this->path("out.npy").string();
  write_npy(in, v);
  struct pred {
    std::string option;
    std::vector<T> constants;
    std::function<bool(T)> keep;
  };
  std::vector<T> constants = {T(3), v[500], std::numeric_limits<T>::lowest(), std::numeric_limits<T>::max()};
  if constexpr (std::is_floating_point_v<T>)
    constants.insert(constants.end(),
                     {T(-0.0), std::numeric_limits<T>::quiet_NaN(), std::numeric_limits<T>::infinity()});
  for (const T c : constants) {
    const std::vector<pred> preds = {
        {"--lt", {c}, [c](T x) { return x < c; }},  {"--le", {c}, [c](T x) { return x <= c; }},
        {"--gt", {c}, [c](T x) { return x > c; }},  {"--ge", {c}, [c](T x) { return x >= c; }},
        {"--eq", {c}, [c](T x) { return x == c; }}, {"--ne", {c}, [c](T x) { return x != c; }},
    };
    std::vector<pred> all = preds;
    if constexpr (std::is_floating_point_v<T>) {
      if (!std::isnan(c) && c <= T(3)) all.push_back({"--range", {c, T(3)}, [c](T x) { return c <= x && x < T(3); }});
    } else {
      if (c <= T(3)) all.push_back({"--range", {c, T(3)}, [c](T x) { return c <= x && x < T(3); }});
    }
    for (const pred& p : all) {
      std::vector<std::string> args = {"filter", p.option};
      for (const T k : p.constants) args.push_back(text_of(k));
      SCOPED_TRACE("kselect filter " + p.option + " " + text_of(p.constants[0]));
      std::vector<T> want;
      std::vector<std::int64_t> want_indices;
      std::copy_if(v.begin(), v.end(), std::back_inserter(want), p.keep);
      for (std::size_t i = 0; i < v.size(); ++i)
        if (p.keep(v[i])) want_indices.push_back(static_cast<std::int64_t>(i));

      std::vector<std::string> write = args;
      write.insert(write.end(), {in, "-o", out});
      EXPECT_EQ(this->run_ok(write), std::vector<std::string>{std::to_string(want.size())});
      const npy_array<T> got = read_npy<T>(out);
      EXPECT_EQ(got.descr, npy_descr<T>());
      EXPECT_TRUE(same_bits(got.values, want));

      write.push_back("--indices");
      EXPECT_EQ(this->run_ok(write), std::vector<std::string>{std::to_string(want.size())});
      const npy_array<std::int64_t> positions = read_npy<std::int64_t>(out);
      EXPECT_EQ(positions.descr, "<i8");
      EXPECT_EQ(positions.values, want_indices);

      args.push_back(in);  // without -o: the count alone
      EXPECT_EQ(this->run_ok(args), std::vector<std::string>{std::to_string(want.size())});
    }
  }
}

TYPED_TEST(FilterTypes, RawInputAndJson) {
  using T = TypeParam;
  const std::vector<T> v = filter_input<T>(300, 5);
  const std::string in = this->path("in.bin").string(), out = this->path("out.npy").string();
  write_bytes(in, raw_bytes(v));
  std::vector<T> want;
  std::copy_if(v.begin(), v.end(), std::back_inserter(want), [](T x) { return x >= T(3); });
  const auto r =
      this->run({"--json", "filter", "--dtype", dtype_name<T>(), "--ge", "3", "--device", "cpu", in, "-o", out});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["command"], "filter");
  EXPECT_EQ(j["dtype"], dtype_name<T>());
  EXPECT_EQ(j["n"], 300);
  EXPECT_EQ(j["device"], "cpu");
  EXPECT_EQ(j["predicate"], "ge");
  EXPECT_EQ(j["value"], 3);
  EXPECT_EQ(j["indices"], false);
  EXPECT_EQ(j["output"], out);
  EXPECT_EQ(j["count"], want.size());
  for (const char* key : {"read", "transfer", "filter", "write"}) EXPECT_TRUE(j["time_ms"][key].is_number()) << key;
  EXPECT_TRUE(same_bits(read_npy<T>(out).values, want));
}

TEST_F(CliTest, FilterJsonWithoutOutputAndRanges) {
  const std::string in = path("x.npy").string();
  write_npy(in, std::vector<double>{1.5, -2, std::nan(""), 0.0, -0.0, 3, -5});
  auto r = run({"filter", "--json", "--range", "-2", "0.5", in});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["predicate"], "range");
  EXPECT_EQ(j["lo"], -2);
  EXPECT_EQ(j["hi"], 0.5);
  EXPECT_TRUE(j["output"].is_null());
  EXPECT_EQ(j["count"], 3);  // -2, 0.0, -0.0
  r = run({"--json", "filter", "--ne", "nan", in});
  j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["value"], "nan");
  EXPECT_EQ(j["count"], 7);  // NaN != NaN
  EXPECT_EQ(run_ok({"filter", "--eq", "nan", in}), std::vector<std::string>{"0"});
  EXPECT_EQ(run_ok({"filter", "--eq", "0", in}), std::vector<std::string>{"2"});
  EXPECT_EQ(run_ok({"filter", "--lt=-1", in}), std::vector<std::string>{"2"});
  EXPECT_EQ(run_ok({"filter", "--range", "1", "1", in}), std::vector<std::string>{"0"});
}

TEST_F(CliTest, FilterSelectingNothingWritesAnEmptyArray) {
  const std::string in = path("x.npy").string(), out = path("out.npy").string();
  write_npy(in, std::vector<std::int32_t>{1, 2, 3});
  EXPECT_EQ(run_ok({"filter", "--gt", "3", in, "-o", out}), std::vector<std::string>{"0"});
  const npy_array<std::int32_t> got = read_npy<std::int32_t>(out);
  EXPECT_EQ(got.descr, "<i4");
  EXPECT_TRUE(got.values.empty());
}

// Enough values for the CPU backend's parallel path (2^17 and more).
TEST_F(CliTest, FilterLargeInput) {
  const std::vector<float> v = random_values<float>(300000, 9);
  const std::string in = path("x.npy").string(), out = path("out.npy").string();
  write_npy(in, v);
  std::vector<std::int64_t> want;
  for (std::size_t i = 0; i < v.size(); ++i)
    if (v[i] < 100.0f) want.push_back(static_cast<std::int64_t>(i));
  EXPECT_EQ(run_ok({"filter", "--lt", "100", "--indices", in, "-o", out}),
            std::vector<std::string>{std::to_string(want.size())});
  EXPECT_EQ(read_npy<std::int64_t>(out).values, want);
}

TEST_F(CliTest, FilterBadArguments) {
  const std::string f32 = path("f.npy").string(), u64 = path("u.npy").string(), i32 = path("i.npy").string();
  write_npy(f32, std::vector<float>{1, 2, 3});
  write_npy(u64, std::vector<std::uint64_t>{1, 2, 3});
  write_npy(i32, std::vector<std::int32_t>{1, 2, 3});
  expect_error({"filter", f32}, "give a predicate: one of --lt, --le, --gt, --ge, --eq, --ne, --range");
  expect_error({"filter", "--lt", "1", "--gt", "0", f32}, "give one predicate, not --lt and --gt");
  expect_error({"filter", "--lt", "1", "--range", "0", "2", f32}, "give one predicate");
  expect_error({"filter", "--lt", "x", f32}, "--lt: 'x' is not a float32 value");
  expect_error({"filter", "--lt", "1.5x", f32}, "not a float32 value");
  expect_error({"filter", "--lt", " 1", f32}, "not a float32 value");
  expect_error({"filter", "--le", "1e39", f32}, "--le: 1e39 is out of range for float32");
  expect_error({"filter", "--gt", "2.5", i32}, "--gt: '2.5' is not an integer (the input is int32)");
  expect_error({"filter", "--gt", "3000000000", i32}, "--gt: 3000000000 is out of range for int32");
  expect_error({"filter", "--ge", "-1", u64}, "--ge: -1 is out of range for uint64");
  expect_error({"filter", "--eq", "+-1", i32}, "has a '+' sign");
  expect_error({"filter", "--eq", "18446744073709551616", u64}, "out of range for uint64");
  const std::string out = path("out.npy").string();
  expect_error({"filter", "--range", "3", "1", f32, "-o", out}, "--range: A = 3 is greater than B = 1");
  expect_error({"filter", "--lt", "y", f32, "-o", out}, "not a float32 value");
  expect_error({"filter", "--range", "2", "-7", i32}, "A = 2 is greater than B = -7");
  expect_error({"filter", "--range", "nan", "1", f32}, "--range: a bound is NaN");
  expect_error({"filter", "--range", "0", "nan", f32}, "a bound is NaN");
  expect_error({"filter", "--range", "1", f32}, "--range");
  expect_error({"filter", "--lt", "1"}, "FILE");
  expect_error({"filter", "--lt", "1", f32, "-o", path("missing/out.npy").string()}, "cannot create");
  expect_error({"filter", "--lt", "1", path("nope.npy").string()}, "nope.npy: cannot open");
  expect_error({"filter", "--lt", "1", "--dtype", "float64", f32}, "conflicts with the file's dtype float32");
  const std::string empty = path("e.npy").string();
  write_bytes(empty, npy_prefix(npy_dict("<f4", {0})));
  expect_error({"filter", "--lt", "1", empty, "-o", out}, "holds no values");
  EXPECT_FALSE(fs::exists(out));  // no output file after an error
}

// --device cuda is a usage error without a CUDA device; with one, the GPU's output
// file is the CPU's, byte for byte (values, then positions).
TEST_F(CliTest, FilterDeviceCuda) {
  const std::string f32 = path("f.npy").string();
  std::vector<float> v(100000);
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>((i * 7919) % 1000) - 500.0f;
  write_npy(f32, v);
  if (!kselect::cuda_available()) {
    expect_error({"filter", "--lt", "1", "--device", "cuda", f32}, "--device cuda");
    return;
  }
  for (const bool indices : {false, true}) {
    const std::string cpu_out = path("cpu.npy").string(), gpu_out = path("gpu.npy").string();
    std::vector<std::string> args{"filter", "--range", "-100", "250", f32};
    if (indices) args.push_back("--indices");
    auto with = [&](const std::string& device, const std::string& out) {
      auto a = args;
      a.insert(a.end(), {"--device", device, "-o", out});
      return a;
    };
    const std::vector<std::string> cpu_count = run_ok(with("cpu", cpu_out));
    EXPECT_EQ(run_ok(with("cuda", gpu_out)), cpu_count);
    EXPECT_EQ(read_text(gpu_out), read_text(cpu_out)) << "indices " << indices;
  }
}

}  // namespace
}  // namespace kselect_cli_test
