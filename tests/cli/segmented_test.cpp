// Segmented select, quantile and topk, end to end: rows of a 2-D .npy (--axis),
// ragged segments (--offsets), text, JSON and -o output against references sorted
// per segment with std::sort; --ks-file, --indices-output; every mistake with its
// exit code and message; outputs that would replace an input refused.
#include <nlohmann/json.hpp>

#include "cli/io_test_util.hpp"
#include "kselect/types.hpp"

namespace kselect_cli_test {
namespace {

/// Splits a text line at single spaces.
std::vector<std::string> fields_of(const std::string& line) {
  std::vector<std::string> out;
  std::istringstream in(line);
  for (std::string f; in >> f;) out.push_back(f);
  return out;
}

/// A .npy file as kselect writes it: header fields and data bytes.
struct npy_file {
  std::string descr;
  std::string shape;  // as written, e.g. "(7, 3)"
  std::string data;
};

npy_file read_npy(const fs::path& p) {
  const std::string bytes = read_text(p);
  npy_file f;
  EXPECT_GE(bytes.size(), 10u);
  if (bytes.size() < 10) return f;
  EXPECT_EQ(bytes.substr(0, 8), std::string("\x93NUMPY\x01\x00", 8));
  const std::size_t len = static_cast<unsigned char>(bytes[8]) | static_cast<unsigned char>(bytes[9]) << 8;
  const std::string header = bytes.substr(10, len);
  EXPECT_EQ((10 + len) % 64, 0u) << "header not padded to 64 bytes";
  const auto field = [&](const std::string& key, char open, char close) {
    const auto at = header.find("'" + key + "': ");
    if (at == std::string::npos) return std::string();
    const auto start = header.find(open, at + key.size() + 4);
    return header.substr(start, header.find(close, start + 1) - start + 1);
  };
  f.descr = field("descr", '\'', '\'');
  f.shape = field("shape", '(', ')');
  EXPECT_NE(header.find("'fortran_order': False"), std::string::npos) << header;
  f.data = bytes.substr(10 + len);
  return f;
}

template <class T>
std::vector<T> values_of(const npy_file& f) {
  std::vector<T> v(f.data.size() / sizeof(T));
  std::memcpy(v.data(), f.data.data(), v.size() * sizeof(T));
  return v;
}

/// Values with repeats (and for floats the special values) spread over the rows.
template <class T>
std::vector<T> segment_values(std::size_t n, std::uint64_t seed) {
  std::vector<T> v = random_values<T>(n, seed);
  for (std::size_t i = 0; i < n; i += 6) v[i] = T(5);
  if constexpr (std::is_floating_point_v<T>) {
    const std::vector<T> specials = {std::numeric_limits<T>::quiet_NaN(), -std::numeric_limits<T>::infinity(),
                                     std::numeric_limits<T>::infinity(), T(-0.0), T(0.0)};
    for (std::size_t i = 0; i < specials.size(); ++i) v[(11 * i + 3) % n] = specials[i];
  } else {
    v[1] = std::numeric_limits<T>::min();
    v[2] = std::numeric_limits<T>::max();
  }
  return v;
}

/// Segment i of v, sorted (NaN last): the reference every check reads.
template <class T>
std::vector<std::vector<T>> sorted_segments(const std::vector<T>& v, const std::vector<std::int64_t>& offsets) {
  std::vector<std::vector<T>> out;
  for (std::size_t i = 0; i + 1 < offsets.size(); ++i)
    out.push_back(sorted_copy(std::vector<T>(v.begin() + offsets[i], v.begin() + offsets[i + 1])));
  return out;
}

std::vector<std::int64_t> row_offsets(std::int64_t m, std::int64_t cols) {
  std::vector<std::int64_t> o;
  for (std::int64_t i = 0; i <= m; ++i) o.push_back(i * cols);
  return o;
}

template <class T>
class SegmentedTypes : public CliTest {
 protected:
  /// Writes an (m, cols) array of segment_values to in.npy; keeps it and its rows sorted.
  void write_rows(std::int64_t m, std::int64_t cols, std::uint64_t seed) {
    values_ = segment_values<T>(static_cast<std::size_t>(m * cols), seed);
    file_ = this->path("in.npy").string();
    write_npy(file_, values_, {m, cols});
    sorted_ = sorted_segments(values_, row_offsets(m, cols));
  }
  std::vector<T> values_;
  std::string file_;
  std::vector<std::vector<T>> sorted_;
};
using key_types = ::testing::Types<float, double, std::int32_t, std::uint32_t, std::int64_t, std::uint64_t>;
TYPED_TEST_SUITE(SegmentedTypes, key_types);

// Each row of a (7, 13) array is a segment: one line per row, its ranks in the order asked.
TYPED_TEST(SegmentedTypes, SelectAlongTheLastAxis) {
  using T = TypeParam;
  constexpr std::int64_t m = 7, cols = 13;
  this->write_rows(m, cols, 21);
  const std::string& file = this->file_;
  const auto& want = this->sorted_;
  const std::vector<std::int64_t> ranks{12, 0, 6, 6};
  for (const std::string axis : {"-1", "1"}) {
    SCOPED_TRACE("--axis " + axis);
    const auto lines = this->run_ok({"select", "--device", "cpu", "--axis", axis, "-k", "12,0,6,6", file});
    ASSERT_EQ(lines.size(), static_cast<std::size_t>(m));
    for (std::int64_t i = 0; i < m; ++i) {
      const auto f = fields_of(lines[i]);
      ASSERT_EQ(f.size(), ranks.size()) << lines[i];
      for (std::size_t j = 0; j < ranks.size(); ++j)
        EXPECT_TRUE(same_value(parse_value<T>(f[j]), want[i][ranks[j]])) << "row " << i << ": " << lines[i];
    }
  }
  // One rank: one value per line.
  const auto one = this->run_ok({"select", "--device", "cpu", "--axis", "-1", "-k", "3", file});
  ASSERT_EQ(one.size(), static_cast<std::size_t>(m));
  for (std::int64_t i = 0; i < m; ++i) EXPECT_TRUE(same_value(parse_value<T>(one[i]), want[i][3])) << one[i];
}

// -o writes the result in the input's dtype: (m,) for one rank, (m, r) for several.
TYPED_TEST(SegmentedTypes, SelectToNpy) {
  using T = TypeParam;
  constexpr std::int64_t m = 5, cols = 9;
  this->write_rows(m, cols, 22);
  const std::string& file = this->file_;
  const auto& want = this->sorted_;
  EXPECT_EQ(this->run_ok({"select", "--axis", "-1", "-k", "4", file, "-o", this->path("one.npy").string()}).size(),
            0u);
  const npy_file one = read_npy(this->path("one.npy"));
  EXPECT_EQ(one.descr, "'" + npy_descr<T>() + "'");
  EXPECT_EQ(one.shape, "(5,)");
  const auto got = values_of<T>(one);
  ASSERT_EQ(got.size(), static_cast<std::size_t>(m));
  for (std::int64_t i = 0; i < m; ++i) EXPECT_TRUE(same_value(got[i], want[i][4])) << i;

  this->run_ok({"select", "--axis", "-1", "-k", "8,0", file, "-o", this->path("two.npy").string()});
  const npy_file two = read_npy(this->path("two.npy"));
  EXPECT_EQ(two.shape, "(5, 2)");
  const auto got2 = values_of<T>(two);
  ASSERT_EQ(got2.size(), static_cast<std::size_t>(2 * m));
  for (std::int64_t i = 0; i < m; ++i) {
    EXPECT_TRUE(same_value(got2[2 * i], want[i][8])) << i;
    EXPECT_TRUE(same_value(got2[2 * i + 1], want[i][0])) << i;
  }
}

TYPED_TEST(SegmentedTypes, TopkRowsWithIndicesFile) {
  using T = TypeParam;
  constexpr std::int64_t m = 6, cols = 11, k = 4;
  this->write_rows(m, cols, 23);
  const std::string& file = this->file_;
  const std::string idx = this->path("idx.npy").string();
  const auto& v = this->values_;
  const auto& want = this->sorted_;
  for (const bool largest : {false, true}) {
    SCOPED_TRACE(largest ? "largest" : "smallest");
    std::vector<std::string> args = {"topk",       "--device", "cpu", "--axis", "-1", "-k", std::to_string(k),
                                     "--sorted",   "--deterministic", "--indices-output", idx, file};
    if (largest) args.push_back("--largest");
    const auto lines = this->run_ok(args);
    ASSERT_EQ(lines.size(), static_cast<std::size_t>(m));
    const npy_file indices = read_npy(idx);
    EXPECT_EQ(indices.descr, "'<i8'");
    EXPECT_EQ(indices.shape, "(6, 4)");
    const auto ix = values_of<std::int64_t>(indices);
    ASSERT_EQ(ix.size(), static_cast<std::size_t>(m * k));
    for (std::int64_t i = 0; i < m; ++i) {
      const auto f = fields_of(lines[i]);
      ASSERT_EQ(f.size(), static_cast<std::size_t>(k)) << lines[i];
      for (std::int64_t j = 0; j < k; ++j) {
        const T expected = largest ? want[i][cols - 1 - j] : want[i][j];
        const T got = parse_value<T>(f[j]);
        EXPECT_TRUE(same_value(got, expected)) << "row " << i << ": " << lines[i];
        // The index is local to the row and points at the value printed.
        const std::int64_t at = ix[i * k + j];
        ASSERT_TRUE(at >= 0 && at < cols) << at;
        EXPECT_TRUE(same_value(v[i * cols + at], expected)) << "row " << i << " index " << at;
      }
    }
  }
}

// Quantiles of rows whose median is an element (odd lengths), lower and higher: exact in every type.
TYPED_TEST(SegmentedTypes, QuantileRowsToNpy) {
  using T = TypeParam;
  using R = std::conditional_t<std::is_floating_point_v<T>, T, double>;
  constexpr std::int64_t m = 4, cols = 9;
  std::vector<T> v = random_values<T>(m * cols, 24);
  if constexpr (std::is_floating_point_v<T>)
    for (auto& x : v) x = std::round(x);  // no NaN: the quantiles are the sorted elements
  const std::string file = this->path("in.npy").string();
  write_npy(file, v, {m, cols});
  const auto want = sorted_segments(v, row_offsets(m, cols));
  this->run_ok(
      {"quantile", "--axis", "-1", "-q", "0.5", "--method", "lower", file, "-o", this->path("q.npy").string()});
  const npy_file one = read_npy(this->path("q.npy"));
  EXPECT_EQ(one.descr, "'" + npy_descr<R>() + "'");
  EXPECT_EQ(one.shape, "(4,)");
  const auto q = values_of<R>(one);
  ASSERT_EQ(q.size(), static_cast<std::size_t>(m));
  for (std::int64_t i = 0; i < m; ++i) EXPECT_EQ(q[i], static_cast<R>(want[i][4])) << i;

  this->run_ok(
      {"quantile", "--axis", "-1", "-q", "0,1", "--method", "higher", file, "-o", this->path("q2.npy").string()});
  const npy_file two = read_npy(this->path("q2.npy"));
  EXPECT_EQ(two.shape, "(4, 2)");
  const auto q2 = values_of<R>(two);
  ASSERT_EQ(q2.size(), static_cast<std::size_t>(2 * m));
  for (std::int64_t i = 0; i < m; ++i) {
    EXPECT_EQ(q2[2 * i], static_cast<R>(want[i][0])) << i;
    EXPECT_EQ(q2[2 * i + 1], static_cast<R>(want[i][cols - 1])) << i;
  }
}

// Ragged segments of the flat values, offsets as int64 or int32.
TEST_F(CliTest, SegmentedRaggedSelect) {
  const auto v = segment_values<double>(40, 25);
  write_npy(path("v.npy"), v);
  const std::vector<std::int64_t> offsets{0, 1, 9, 9 + 17, 40};
  write_npy(path("o64.npy"), offsets);
  write_npy(path("o32.npy"), std::vector<std::int32_t>(offsets.begin(), offsets.end()));
  const auto want = sorted_segments(v, offsets);
  for (const std::string o : {"o64.npy", "o32.npy"}) {
    SCOPED_TRACE(o);
    const auto lines = run_ok({"select", "--offsets", path(o).string(), "-k", "0", path("v.npy").string()});
    ASSERT_EQ(lines.size(), 4u);
    for (std::size_t i = 0; i < 4; ++i) EXPECT_TRUE(same_value(parse_value<double>(lines[i]), want[i][0])) << i;
  }
}

// Short and empty segments: quantile answers nan, topk pads with index -1.
TEST_F(CliTest, SegmentedRaggedShortSegments) {
  write_npy(path("v.npy"), std::vector<float>{4, 1, 3, 2, 9, std::nanf("")});
  write_npy(path("o.npy"), std::vector<std::int64_t>{0, 4, 4, 5, 6});
  EXPECT_EQ(run_ok({"quantile", "-q", "0.5", "--offsets", path("o.npy").string(), path("v.npy").string()}),
            (std::vector<std::string>{"2.5", "nan", "9", "nan"}));
  EXPECT_EQ(run_ok({"quantile", "-q", "0.5", "--nan-ignore", "--offsets", path("o.npy").string(),
                    path("v.npy").string()}),
            (std::vector<std::string>{"2.5", "nan", "9", "nan"}));
  EXPECT_EQ(run_ok({"topk", "-k", "2", "--sorted", "--indices", "--offsets", path("o.npy").string(),
                    path("v.npy").string()}),
            (std::vector<std::string>{"1:1 3:2", "-1:nan -1:nan", "0:9 -1:nan", "0:nan -1:nan"}));
  EXPECT_EQ(run_ok({"topk", "-k", "2", "--largest", "--sorted", "--offsets", path("o.npy").string(),
                    path("v.npy").string()}),
            (std::vector<std::string>{"4 3", "-inf -inf", "9 -inf", "nan -inf"}));
}

TEST_F(CliTest, SegmentedJsonNestsOneListPerSegment) {
  write_npy(path("a.npy"), std::vector<std::int32_t>{5, 1, 4, 2, 8, 0, 7, 3, 6}, {3, 3});
  auto json = [&](const std::vector<std::string>& args) {
    const tool_result r = run(args);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return nlohmann::json::parse(r.out);
  };
  const auto j = json({"--json", "select", "--axis", "-1", "-k", "0,2", path("a.npy").string()});
  EXPECT_EQ(j["command"], "select");
  EXPECT_EQ(j["axis"], -1);
  EXPECT_EQ(j["segments"], 3);
  EXPECT_EQ(j["shape"], nlohmann::json::array({3, 2}));
  EXPECT_EQ(j["ranks"], nlohmann::json::array({0, 2}));
  EXPECT_EQ(j["values"], nlohmann::json::parse("[[1,5],[0,8],[3,7]]"));
  for (const char* key : {"read", "transfer", "select"}) EXPECT_TRUE(j["time_ms"][key].is_number()) << key;

  // One rank: one value per segment, as the .npy's shape (m,).
  const auto one = json({"--json", "select", "--axis", "-1", "-k", "1", path("a.npy").string()});
  EXPECT_EQ(one["shape"], nlohmann::json::array({3}));
  EXPECT_EQ(one["values"], nlohmann::json::parse("[4,2,6]"));

  write_npy(path("o.npy"), std::vector<std::int64_t>{0, 2, 2, 9});
  const auto t = json({"--json", "topk", "-k", "2", "--sorted", "--indices", "--offsets", path("o.npy").string(),
                       path("a.npy").string()});
  EXPECT_EQ(t["offsets"], path("o.npy").string());
  EXPECT_EQ(t["values"], nlohmann::json::parse("[[1,5],[2147483647,2147483647],[0,2]]"));
  EXPECT_EQ(t["indices"], nlohmann::json::parse("[[1,0],[-1,-1],[3,1]]"));

  const auto q = json({"--json", "quantile", "-q", "0.5", "--offsets", path("o.npy").string(),
                       path("a.npy").string()});
  EXPECT_EQ(q["values"], nlohmann::json::parse("[3,\"nan\",4]"));
  EXPECT_EQ(q["shape"], nlohmann::json::array({3}));

  // k = 0: an empty list per segment.
  const auto none = json({"--json", "topk", "-k", "0", "--axis", "-1", path("a.npy").string()});
  EXPECT_EQ(none["values"], nlohmann::json::parse("[[],[],[]]"));
  EXPECT_EQ(none["shape"], nlohmann::json::array({3, 0}));
}

// A 3-D input: the segments are its rows along the last axis, the result keeps the others.
TEST_F(CliTest, SegmentedThreeDimensionalKeepsTheLeadingAxes) {
  std::vector<std::int64_t> v(2 * 3 * 4);
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<std::int64_t>((i * 7) % 24) - 10;
  write_npy(path("c.npy"), v, {2, 3, 4});
  run_ok({"select", "--axis", "2", "-k", "0", path("c.npy").string(), "-o", path("min.npy").string()});
  const npy_file f = read_npy(path("min.npy"));
  EXPECT_EQ(f.descr, "'<i8'");
  EXPECT_EQ(f.shape, "(2, 3)");
  const auto got = values_of<std::int64_t>(f);
  ASSERT_EQ(got.size(), 6u);
  for (std::size_t i = 0; i < 6; ++i)
    EXPECT_EQ(got[i], *std::min_element(v.begin() + 4 * i, v.begin() + 4 * (i + 1))) << i;
  const tool_result r = run({"--json", "topk", "-k", "1", "--axis", "-1", path("c.npy").string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["shape"], nlohmann::json::array({2, 3, 1}));
  EXPECT_EQ(nlohmann::json::parse(r.out)["values"].size(), 2u);
}

// -o without segments: the whole input's result, () for one q as numpy.quantile(a, q).
TEST_F(CliTest, SegmentedOutputOfTheWholeInput) {
  write_npy(path("a.npy"), std::vector<double>{4, 1, 3, 2, 9});
  EXPECT_EQ(run_ok({"quantile", "-q", "0.5", path("a.npy").string(), "-o", path("q.npy").string()}).size(), 0u);
  npy_file f = read_npy(path("q.npy"));
  EXPECT_EQ(f.shape, "()");
  EXPECT_EQ(values_of<double>(f), std::vector<double>{3});
  run_ok({"topk", "-k", "2", "--sorted", path("a.npy").string(), "-o", path("t.npy").string(), "--indices-output",
          path("i.npy").string()});
  f = read_npy(path("t.npy"));
  EXPECT_EQ(f.shape, "(2,)");
  EXPECT_EQ(values_of<double>(f), (std::vector<double>{1, 2}));
  EXPECT_EQ(values_of<std::int64_t>(read_npy(path("i.npy"))), (std::vector<std::int64_t>{1, 3}));
}

// --ks-file: a rank per segment.
TEST_F(CliTest, SegmentedRankPerSegment) {
  write_npy(path("a.npy"), std::vector<float>{5, 1, 4, 2, 8, 0, 7, 3, 6}, {3, 3});
  write_npy(path("ks.npy"), std::vector<std::int64_t>{0, 2, 1});
  EXPECT_EQ(run_ok({"select", "--axis", "-1", "--ks-file", path("ks.npy").string(), path("a.npy").string()}),
            (std::vector<std::string>{"1", "8", "6"}));
  write_npy(path("ks2.npy"), std::vector<std::int64_t>{0, 2});
  expect_error({"select", "--axis", "-1", "--ks-file", path("ks2.npy").string(), path("a.npy").string()},
               "--ks-file " + path("ks2.npy").string() + ": holds 2 ranks for 3 segments");
  write_npy(path("ks3.npy"), std::vector<std::int64_t>{0, 3, 0});
  expect_error({"select", "--axis", "-1", "--ks-file", path("ks3.npy").string(), path("a.npy").string()},
               "for segment 1");
  expect_error({"select", "--axis", "-1", "--ks-file", path("ks.npy").string(), "-k", "1", path("a.npy").string()},
               "select: give either -k or --ks-file, not both");
}

// float16 .npy data ('<f2'): selected as floats, printed as their float values, written back as '<f2'
// (select, topk) or '<f4' (quantile).
TEST_F(CliTest, SegmentedFloat16) {
  constexpr std::int64_t m = 3, cols = 10;
  std::vector<std::uint16_t> bits(m * cols);
  std::mt19937 rng(26);
  for (auto& b : bits) b = kselect::to_float16(std::normal_distribution<float>(0, 100)(rng)).bits;
  bits[4] = 0x7e00;   // NaN
  bits[12] = 0x8000;  // -0.0
  bits[13] = 0x7c00;  // +inf
  write_bytes(path("h.npy"), npy_prefix(npy_dict("<f2", {m, cols})) + raw_bytes(bits));
  std::vector<float> widened;
  for (const auto b : bits) widened.push_back(kselect::to_float(kselect::float16{b}));
  const auto want = sorted_segments(widened, row_offsets(m, cols));

  const auto lines = run_ok({"select", "--axis", "-1", "-k", "0,5,9", path("h.npy").string()});
  ASSERT_EQ(lines.size(), static_cast<std::size_t>(m));
  for (std::int64_t i = 0; i < m; ++i) {
    const auto f = fields_of(lines[i]);
    ASSERT_EQ(f.size(), 3u) << lines[i];
    for (std::size_t j = 0; j < 3; ++j)
      EXPECT_TRUE(same_value(parse_value<float>(f[j]), want[i][std::vector<std::size_t>{0, 5, 9}[j]])) << lines[i];
  }

  run_ok({"topk", "-k", "2", "--sorted", "--axis", "-1", path("h.npy").string(), "-o", path("t.npy").string()});
  const npy_file t = read_npy(path("t.npy"));
  EXPECT_EQ(t.descr, "'<f2'");
  EXPECT_EQ(t.shape, "(3, 2)");
  const auto top = values_of<std::uint16_t>(t);
  ASSERT_EQ(top.size(), static_cast<std::size_t>(2 * m));
  for (std::int64_t i = 0; i < m; ++i)
    for (std::int64_t j = 0; j < 2; ++j)
      EXPECT_TRUE(same_value(kselect::to_float(kselect::float16{top[2 * i + j]}), want[i][j])) << i << " " << j;

  run_ok({"quantile", "-q", "0", "--axis", "-1", path("h.npy").string(), "-o", path("q.npy").string()});
  const npy_file q = read_npy(path("q.npy"));
  EXPECT_EQ(q.descr, "'<f4'");
  EXPECT_EQ(q.shape, "(3,)");
  const auto mins = values_of<float>(q);
  ASSERT_EQ(mins.size(), static_cast<std::size_t>(m));
  // Row 0 holds a NaN: its quantiles are NaN, as NumPy's.
  for (std::int64_t i = 0; i < m; ++i)
    EXPECT_TRUE(same_value(mins[i], i == 0 ? std::numeric_limits<float>::quiet_NaN() : want[i][0])) << i;

  const tool_result r = run({"--json", "select", "--axis", "-1", "-k", "0", path("h.npy").string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["dtype"], "float16");
  // The flat commands take the six types of kselect.hpp only.
  expect_error({"select", "-k", "0", path("h.npy").string()}, "unsupported dtype '<f2' here");
  expect_error({"filter", "--lt", "0", path("h.npy").string()}, "unsupported dtype '<f2' here");
}

TEST_F(CliTest, SegmentedHelpNamesTheOptions) {
  for (const std::string command : {"select", "quantile", "topk"}) {
    SCOPED_TRACE(command);
    const tool_result r = run({command, "--help"});
    EXPECT_EQ(r.exit_code, 0);
    for (const std::string part : {"--axis A", "--offsets OFFSETS.npy", "-o,--output OUT.npy", "Segments: --axis -1",
                                   "(m, r) for r of them"})
      EXPECT_NE(r.out.find(part), std::string::npos) << part << "\n" << r.out;
  }
  EXPECT_NE(run({"topk", "--help"}).out.find("--indices-output IDX.npy"), std::string::npos);
  EXPECT_NE(run({"select", "--help"}).out.find("--ks-file KS.npy"), std::string::npos);
  EXPECT_EQ(run({"range", "--help"}).out.find("--axis"), std::string::npos);
}

class SegmentedErrors : public IoTest {
 protected:
  void SetUp() override {
    IoTest::SetUp();
    write_npy(path("m.npy"), std::vector<float>{3, 1, 2, 6, 5, 4}, {2, 3});
    write_npy(path("flat.npy"), std::vector<float>{3, 1, 2, 6, 5, 4});
    write_npy(path("o.npy"), std::vector<std::int64_t>{0, 2, 6});
  }
  std::string p(const std::string& name) const { return path(name).string(); }
};

TEST_F(SegmentedErrors, Axis) {
  expect_error({"select", "-k", "0", "--axis", "0", p("m.npy")},
               "--axis: only the last axis is supported (-1 or 1 for " + p("m.npy") + " of shape (2, 3)), not axis 0");
  expect_error({"select", "-k", "0", "--axis", "-2", p("m.npy")}, "only the last axis is supported");
  for (const std::string axis : {"2", "-3", "9223372036854775807"})
    expect_error({"quantile", "-q", "0.5", "--axis", axis, p("m.npy")},
                 "--axis: axis " + axis + " is out of range for " + p("m.npy") + " of shape (2, 3) (axes -2 to 1)");
  expect_error({"topk", "-k", "1", "--axis", "-1", p("flat.npy")},
               "--axis: " + p("flat.npy") + " of shape (6,) is one-dimensional");
  expect_error({"topk", "-k", "1", "--axis", "1", p("flat.npy")}, "axis 1 is out of range");
  expect_error({"select", "-k", "0", "--axis", "x", p("m.npy")}, "--axis: 'x' is not an integer");
  expect_error({"select", "-k", "0", "--axis", "-1", "--offsets", p("o.npy"), p("m.npy")},
               "give --axis or --offsets, not both");
}

TEST_F(SegmentedErrors, Offsets) {
  auto offsets = [&](const std::string& name, const auto& values, std::vector<std::int64_t> shape = {}) {
    write_npy(path(name), values, shape);
    return p(name);
  };
  const std::string bad_start = offsets("start.npy", std::vector<std::int64_t>{1, 6});
  expect_error({"select", "-k", "0", "--offsets", bad_start, p("flat.npy")},
               "--offsets " + bad_start + ": offsets[0] = 1 but the first offset must be 0");
  const std::string decreasing = offsets("dec.npy", std::vector<std::int64_t>{0, 4, 3, 6});
  expect_error({"select", "-k", "0", "--offsets", decreasing, p("flat.npy")},
               "offsets[2] = 3 is less than offsets[1] = 4 (offsets must not decrease)");
  const std::string short_end = offsets("end.npy", std::vector<std::int32_t>{0, 2, 5});
  expect_error({"quantile", "-q", "0.5", "--offsets", short_end, p("flat.npy")},
               "offsets[2] = 5 but n = 6 (the last offset must equal the number of values)");
  const std::string floats = offsets("f.npy", std::vector<double>{0, 6});
  expect_error({"topk", "-k", "1", "--offsets", floats, p("flat.npy")},
               "--offsets " + floats + ": must hold int64 or int32 values, not float64");
  const std::string two_d = offsets("2d.npy", std::vector<std::int64_t>{0, 3, 3, 6}, {2, 2});
  expect_error({"select", "-k", "0", "--offsets", two_d, p("flat.npy")},
               "--offsets " + two_d + ": must be one-dimensional, not shape (2, 2)");
  const std::string one = offsets("one.npy", std::vector<std::int64_t>{0});
  expect_error({"select", "-k", "0", "--offsets", one, p("flat.npy")}, "holds 1 offset, no segment");
  write_bytes(path("raw.bin"), raw_bytes(std::vector<std::int64_t>{0, 6}));
  expect_error({"select", "-k", "0", "--offsets", p("raw.bin"), p("flat.npy")}, "not a .npy file");
  expect_error({"select", "-k", "0", "--offsets", p("missing.npy"), p("flat.npy")},
               "--offsets: " + p("missing.npy") + ": cannot open");
}

TEST_F(SegmentedErrors, RankOutsideASegment) {
  expect_error({"select", "-k", "2", "--offsets", p("o.npy"), p("flat.npy")},
               "-k: k = 2 is outside [0, 2) for segment 0 (length 2)");
  expect_error({"select", "--rank", "0,3", "--axis", "-1", p("m.npy")}, "--rank: ");
  expect_error({"select", "--rank", "0,3", "--axis", "-1", p("m.npy")}, "for segment 0");
}

TEST_F(SegmentedErrors, OptionCombinations) {
  expect_error({"select", "--approx", "-k", "0", "--axis", "-1", p("m.npy")}, "--approx selects from the whole input");
  expect_error({"select", "--max-rank-error", "1", "-k", "0", "--axis", "-1", p("m.npy")},
               "--max-rank-error needs --approx");
  expect_error({"topk", "-k", "1", "--indices", "--axis", "-1", p("m.npy"), "-o", p("t.npy")},
               "with -o write them to a file with --indices-output IDX.npy");
  expect_error({"topk", "-k", "1", "--axis", "-1", p("m.npy"), "-o", p("t.npy"), "--indices-output",
                dir_.string() + "/./t.npy"},
               "-o and --indices-output name the same file");
  expect_error({"topk", "-k", "1", "--axis", "-1", p("m.npy"), "--indices-output", "-"},
               "--indices-output: standard output carries the values");
  expect_error({"quantile", "-q", "0.5", "--axis", "-1", p("m.npy"), "-o", ""}, "-o: the output file name is empty");
  expect_error({"range", "--lo", "0", "--hi", "1", "--axis", "-1", p("m.npy")}, "range has no option --axis");
  EXPECT_FALSE(fs::exists(path("t.npy")));
}

// An output that is an input (the values, the offsets, --ks-file) is refused before
// any work, and the input is left as it was.
TEST_F(SegmentedErrors, OutputThatIsAnInputIsRefused) {
  const std::string m_before = read_text(path("m.npy")), o_before = read_text(path("o.npy"));
  write_npy(path("ks.npy"), std::vector<std::int64_t>{0, 1});
  const std::string ks_before = read_text(path("ks.npy"));
  expect_error({"select", "-k", "0", "--axis", "-1", p("m.npy"), "-o", p("m.npy")},
               p("m.npy") + ": is the same file as the input " + p("m.npy") + " (give -o another file)");
  const auto before = listing(dir_);  // with the captured stdout.txt and stderr.txt
  expect_error({"select", "-k", "0", "--offsets", p("o.npy"), p("flat.npy"), "-o", dir_.string() + "/./o.npy"},
               "is the same file as the input " + p("o.npy"));
  expect_error({"topk", "-k", "1", "--offsets", p("o.npy"), p("flat.npy"), "--indices-output", p("o.npy")},
               "(give --indices-output another file)");
  expect_error({"select", "--ks-file", p("ks.npy"), "--axis", "-1", p("m.npy"), "-o", p("ks.npy")},
               "is the same file as the input " + p("ks.npy"));
  fs::create_hard_link(path("m.npy"), path("link.npy"));
  expect_error({"quantile", "-q", "0.5", "--axis", "-1", p("m.npy"), "-o", p("link.npy")},
               "is the same file as the input");
  fs::remove(path("link.npy"));
  EXPECT_EQ(read_text(path("m.npy")), m_before);
  EXPECT_EQ(read_text(path("o.npy")), o_before);
  EXPECT_EQ(read_text(path("ks.npy")), ks_before);
  EXPECT_EQ(listing(dir_), before);  // no temporary file left behind
}

// -o - writes the .npy to stdout and the --json report to stderr.
TEST_F(SegmentedErrors, OutputToStandardOutput) {
  const tool_result r = sh("\"$K\" --json select -k 0 --axis -1 m.npy -o - > out.npy");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.err);
  EXPECT_EQ(j["output"], "standard output");
  const npy_file f = read_npy(path("out.npy"));
  EXPECT_EQ(f.shape, "(2,)");
  EXPECT_EQ(values_of<float>(f), (std::vector<float>{1, 4}));
}

}  // namespace
}  // namespace kselect_cli_test
