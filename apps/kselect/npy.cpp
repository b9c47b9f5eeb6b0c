#include "npy.hpp"

#include <bit>
#include <cctype>
#include <limits>
#include <optional>
#include <variant>

#include "errors.hpp"

namespace kselect_cli::npy {

static_assert(std::endian::native == std::endian::little,
              "the .npy reader assumes a little-endian host");

preamble parse_preamble(std::string_view b) {
  if (b.size() < magic.size() || b.substr(0, magic.size()) != magic)
    throw input_error("not a .npy file (no \\x93NUMPY magic string)");
  if (b.size() < 10) throw input_error("truncated .npy preamble");
  preamble p;
  p.major = static_cast<unsigned char>(b[6]);
  p.minor = static_cast<unsigned char>(b[7]);
  auto byte = [&](std::size_t i) { return static_cast<std::size_t>(static_cast<unsigned char>(b[i])); };
  if (p.major == 1 && p.minor == 0) {
    p.header_offset = 10;
    p.header_bytes = byte(8) | byte(9) << 8;
  } else if ((p.major == 2 || p.major == 3) && p.minor == 0) {
    if (b.size() < 12) throw input_error("truncated .npy preamble");
    p.header_offset = 12;
    p.header_bytes = byte(8) | byte(9) << 8 | byte(10) << 16 | byte(11) << 24;
  } else {
    throw input_error("unsupported .npy format version " + std::to_string(p.major) + "." +
                      std::to_string(p.minor) + " (supported: 1.0, 2.0, 3.0)");
  }
  return p;
}

namespace {

/// A value of the header dict; `other` stands for lists, dicts and anything
/// else the tool does not use (e.g. a structured dtype's descr).
struct other {
  std::string text;
};
using value = std::variant<std::string, bool, std::vector<std::int64_t>, other>;

/// Recursive-descent parser of the Python literal subset NumPy writes.
class dict_parser {
 public:
  explicit dict_parser(std::string_view s) : s_(s) {}

  header parse() {
    std::optional<std::string> descr;
    std::optional<bool> fortran;
    std::optional<std::vector<std::int64_t>> shape;
    expect('{');
    while (!peek_is('}')) {
      std::string key = parse_string();
      expect(':');
      value v = parse_value();
      if (key == "descr") {
        if (auto* o = std::get_if<other>(&v))
          throw input_error("structured dtype " + o->text + " is not supported");
        if (!std::holds_alternative<std::string>(v)) fail("'descr' is not a string");
        descr = std::get<std::string>(v);
      } else if (key == "fortran_order") {
        if (!std::holds_alternative<bool>(v)) fail("'fortran_order' is not True or False");
        fortran = std::get<bool>(v);
      } else if (key == "shape") {
        if (!std::holds_alternative<std::vector<std::int64_t>>(v)) fail("'shape' is not a tuple");
        shape = std::get<std::vector<std::int64_t>>(v);
      } else {
        fail("unexpected key '" + key + "'");
      }
      if (!accept(',')) break;
    }
    expect('}');
    skip_space();
    if (pos_ != s_.size()) fail("unexpected text after the dict");
    if (!descr) fail("no 'descr' key");
    if (!fortran) fail("no 'fortran_order' key");
    if (!shape) fail("no 'shape' key");
    return header{*descr, *fortran, *shape};
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw input_error("malformed .npy header: " + what);
  }
  void skip_space() {
    while (pos_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[pos_]))) ++pos_;
  }
  bool peek_is(char c) {
    skip_space();
    return pos_ < s_.size() && s_[pos_] == c;
  }
  bool accept(char c) {
    if (!peek_is(c)) return false;
    ++pos_;
    return true;
  }
  void expect(char c) {
    if (!accept(c)) fail(std::string("expected '") + c + "'");
  }

  std::string parse_string() {
    skip_space();
    if (pos_ >= s_.size() || (s_[pos_] != '\'' && s_[pos_] != '"')) fail("expected a quoted string");
    const char quote = s_[pos_++];
    const auto end = s_.find(quote, pos_);
    if (end == std::string_view::npos) fail("unterminated string");
    std::string out(s_.substr(pos_, end - pos_));
    pos_ = end + 1;
    return out;
  }

  std::vector<std::int64_t> parse_shape() {
    std::vector<std::int64_t> dims;
    expect('(');
    while (!peek_is(')')) {
      if (pos_ >= s_.size() || !std::isdigit(static_cast<unsigned char>(s_[pos_])))
        fail("shape entries must be non-negative integers");
      std::int64_t d = 0;
      while (pos_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[pos_]))) {
        const int digit = s_[pos_++] - '0';
        if (d > (std::numeric_limits<std::int64_t>::max() - digit) / 10) fail("shape entry too large");
        d = d * 10 + digit;
      }
      if (pos_ < s_.size() && s_[pos_] == 'L') ++pos_;  // Python 2 long suffix
      dims.push_back(d);
      if (!accept(',')) break;
    }
    expect(')');
    return dims;
  }

  // Skips a bracketed literal ([...] or {...}), quotes aware; returns its text.
  other skip_bracketed() {
    const auto start = pos_;
    int depth = 0;
    while (pos_ < s_.size()) {
      const char c = s_[pos_];
      if (c == '\'' || c == '"') {
        parse_string();
        continue;
      }
      ++pos_;
      if (c == '[' || c == '{' || c == '(') ++depth;
      if ((c == ']' || c == '}' || c == ')') && --depth == 0)
        return other{std::string(s_.substr(start, pos_ - start))};
    }
    fail("unbalanced brackets");
  }

  value parse_value() {
    skip_space();
    if (pos_ >= s_.size()) fail("missing value");
    const char c = s_[pos_];
    if (c == '\'' || c == '"') return parse_string();
    if (c == '(') return parse_shape();
    if (c == '[' || c == '{') return skip_bracketed();
    for (auto [word, b] : {std::pair{std::string_view("True"), true}, {"False", false}}) {
      if (s_.substr(pos_, word.size()) == word) {
        pos_ += word.size();
        return b;
      }
    }
    fail("unexpected value");
  }

  std::string_view s_;
  std::size_t pos_ = 0;
};

}  // namespace

header parse_header(std::string_view text) { return dict_parser(text).parse(); }

dtype header_dtype(const header& h) {
  if (auto t = parse_dtype_descr(h.descr)) return *t;
  if (!h.descr.empty() && h.descr[0] == '>')
    throw input_error("big-endian data ('" + h.descr +
                      "') is not supported; convert it with arr.astype(arr.dtype.newbyteorder('<'))");
  throw input_error("unsupported dtype '" + h.descr + "' (supported: <f4 <f8 <i4 <u4 <i8 <u8)");
}

std::int64_t header_count(const header& h, std::size_t item_size) {
  if (h.fortran_order && h.shape.size() > 1)
    throw input_error("fortran_order arrays are supported only with one dimension, not shape " +
                      shape_string(h.shape));
  const auto limit = std::numeric_limits<std::int64_t>::max() / static_cast<std::int64_t>(item_size);
  std::int64_t n = 1;
  for (auto d : h.shape) {
    if (d != 0 && n > limit / d) throw input_error("shape " + shape_string(h.shape) + " is too large");
    n *= d;
  }
  return n;
}

std::string shape_string(const std::vector<std::int64_t>& shape) {
  std::string s = "(";
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (i) s += ", ";
    s += std::to_string(shape[i]);
  }
  if (shape.size() == 1) s += ",";
  return s + ")";
}

std::string array_prefix(dtype t, std::int64_t count) { return array_prefix(t, std::vector<std::int64_t>{count}); }

std::string array_prefix(dtype t, const std::vector<std::int64_t>& shape) {
  std::string header = "{'descr': '" + std::string(dtype_descr(t)) +
                       "', 'fortran_order': False, 'shape': " + shape_string(shape) + ", }";
  constexpr std::size_t preamble_bytes = 10;  // magic, version 1.0, 2-byte length
  header += std::string(63 - (preamble_bytes + header.size()) % 64, ' ') + '\n';
  // An input may have any number of dimensions (a 2.0 header); a result keeps them.
  if (header.size() > 0xffff)
    throw input_error("the result's shape " + shape_string(shape) + " is too long for a .npy header");
  std::string out(magic);
  out += '\x01';
  out += '\x00';
  out += static_cast<char>(header.size() & 0xff);
  out += static_cast<char>(header.size() >> 8);
  return out + header;
}

}  // namespace kselect_cli::npy
