#include "input.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <utility>

#include "byte_reader.hpp"
#include "errors.hpp"
#include "npy.hpp"
#include "progress.hpp"

namespace kselect_cli {
namespace {

// Errors below do not name the input; input_source::read() prefixes its name once.
[[noreturn]] void fail(const std::string& what) { throw input_error(what); }

std::string bytes_string(std::uint64_t n) { return std::to_string(n) + (n == 1 ? " byte" : " bytes"); }

/// The input being read: its bytes, and its size where it is known in advance
/// (a regular file: the bytes from where reading started to its end).
struct reading {
  byte_reader& in;
  progress& shown;
  std::optional<std::uint64_t> size;
  const input_spec& spec;
  std::vector<std::int64_t> shape;  // set by load_npy and load_raw

  const char* holder() const { return size ? "the file" : "the input"; }
};

any_array as_array(dtype t, host_buffer bytes, std::uint64_t byte_count) {
  return visit_dtype(t, [&](auto tag) {
    using T = typename decltype(tag)::type;
    return any_array(host_array<T>(std::move(bytes), static_cast<std::int64_t>(byte_count / sizeof(T))));
  });
}

/// A .npy input's header, checked: what the data is and where it starts.
struct npy_layout {
  dtype type{};
  std::vector<std::int64_t> shape;
  std::int64_t count = 0;         // elements (the product of the shape)
  std::uint64_t data_offset = 0;  // bytes before the data
  std::uint64_t data_bytes = 0;   // count * the item size

  [[noreturn]] void fail_truncated(const char* holder, std::uint64_t have) const {
    fail("truncated data: shape " + npy::shape_string(shape) + " of " + std::string(dtype_name(type)) + " needs " +
         bytes_string(data_bytes) + ", " + holder + " holds " + bytes_string(have));
  }
  [[noreturn]] void fail_extra(std::uint64_t bytes) const {
    fail(bytes_string(bytes) + " of unexpected data after the array of shape " + npy::shape_string(shape));
  }
};

/// Reads and checks the header (dtype against --dtype and half_keys; when the
/// input's size is known, that it holds exactly the data the shape promises).
/// `first`: the bytes already read from the start of the input (at most
/// npy::max_preamble_bytes; fewer only when the input is that short).
npy_layout read_npy_header(reading& r, const std::string& first) {
  const npy::preamble pre = npy::parse_preamble(first);
  const std::size_t data_offset = pre.header_offset + pre.header_bytes;
  if (r.size && data_offset > *r.size) fail("truncated .npy header");
  // The header text: what `first` already holds, then the rest.
  std::string text = first.substr(std::min(first.size(), pre.header_offset), pre.header_bytes);
  const std::size_t already = text.size();
  text.resize(pre.header_bytes);
  if (r.in.read_up_to(text.data() + already, text.size() - already) != text.size() - already)
    fail("truncated .npy header");

  const npy::header h = npy::parse_header(text);
  npy_layout l;
  l.type = npy::header_dtype(h);
  if (l.type == dtype::float16 && !r.spec.half_keys)
    fail("unsupported dtype '" + h.descr + "' here (float16 data is taken by select, quantile and topk with " +
         "--axis, --offsets or -o; otherwise: <f4 <f8 <i4 <u4 <i8 <u8)");
  if (r.spec.requested && *r.spec.requested != l.type)
    fail("--dtype " + std::string(dtype_name(*r.spec.requested)) + " conflicts with the file's dtype " +
         std::string(dtype_name(l.type)) + " ('" + h.descr + "')");
  l.count = npy::header_count(h, dtype_size(l.type));
  l.shape = h.shape;
  l.data_offset = data_offset;
  l.data_bytes = static_cast<std::uint64_t>(l.count) * dtype_size(l.type);
  if (r.size) {  // a file's size tells before any allocation
    const std::uint64_t have = *r.size - data_offset;
    if (have < l.data_bytes) l.fail_truncated(r.holder(), have);
    if (have > l.data_bytes) l.fail_extra(have - l.data_bytes);
  }
  return l;
}

any_array load_npy(reading& r, const std::string& first) {
  const npy_layout l = read_npy_header(r, first);
  r.shape = l.shape;
  const std::uint64_t need = l.data_bytes;
  if (!r.size) r.shown.set_total(l.data_offset + need);
  if (need > SIZE_MAX) fail("the array does not fit in memory");
  // A file's array is allocated at once; a stream's grows as its bytes arrive,
  // so a header that promises more than comes never costs the whole allocation.
  host_buffer data(r.size ? static_cast<std::size_t>(need) : 0);
  const std::size_t got = r.size ? r.in.read_file_up_to(data.data(), static_cast<std::size_t>(need))
                                 : r.in.append_up_to(data, 0, static_cast<std::size_t>(need));
  if (got < need) l.fail_truncated(r.holder(), got);
  if (const std::uint64_t rest = r.in.skip_to_end(); rest != 0) l.fail_extra(rest);
  return as_array(l.type, std::move(data), need);
}

/// The --dtype of raw input; fails when it was not given.
dtype raw_dtype(const reading& r, bool sniffed) {
  if (!r.spec.requested) {
    const std::string need_dtype = "raw input needs --dtype (one of " + std::string(dtype_names_list()) + ")";
    if (sniffed) fail("not .npy data (no \\x93NUMPY magic string at the start), and " + need_dtype);
    fail(need_dtype + ", or a .npy file");
  }
  return *r.spec.requested;
}

/// Checks that a raw file of `total` bytes holds whole items of type t.
void check_raw_file_size(dtype t, std::uint64_t total) {
  if (total % dtype_size(t) != 0)
    fail("file size " + bytes_string(total) + " is not a multiple of the " + std::string(dtype_name(t)) +
         " item size " + std::to_string(dtype_size(t)));
}

/// `first`: bytes already read from the start of the input (standard input's
/// format check), the first bytes of the data.
any_array load_raw(reading& r, const std::string& first, bool sniffed) {
  const dtype t = raw_dtype(r, sniffed);
  const std::size_t item = dtype_size(t);
  std::size_t got = first.size();
  host_buffer data;
  if (r.size) {
    const std::uint64_t total = *r.size;  // counted from the start, `first` included
    check_raw_file_size(t, total);
    if (total > SIZE_MAX) fail("the data does not fit in memory");
    data = host_buffer(static_cast<std::size_t>(total));
    std::memcpy(data.data(), first.data(), first.size());
    got += r.in.read_file_up_to(static_cast<char*>(data.data()) + got, static_cast<std::size_t>(total) - got);
    if (got < total) fail("unexpected end of file (the file shrank while it was read)");
  } else {
    data.resize(first.size());
    std::memcpy(data.data(), first.data(), first.size());
    got = r.in.append_up_to(data, got, SIZE_MAX);
    if (got % item != 0)
      fail("read " + bytes_string(got) + ", not a multiple of the " + std::string(dtype_name(t)) +
           " item size " + std::to_string(item));
    data.resize(got);  // give back the unused end of the last growth
  }
  r.shape = {static_cast<std::int64_t>(got / item)};
  return as_array(t, std::move(data), got);
}

std::string read_first_bytes(byte_reader& in) {
  std::string first(npy::max_preamble_bytes, '\0');
  first.resize(in.read_up_to(first.data(), first.size()));
  return first;
}

}  // namespace

bool is_stdin_path(const std::string& path) { return path == "-" || path == "/dev/stdin"; }

bool has_npy_extension(const std::string& path) {
  if (path.size() < 4) return false;
  std::string ext = path.substr(path.size() - 4);
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return ext == ".npy";
}

std::string input_display_name(const std::string& path) { return path == "-" ? "standard input" : path; }

input_source::input_source(input_spec spec) : spec_(std::move(spec)) {
  const std::string name = input_display_name(spec_.path);
  if (is_stdin_path(spec_.path)) {
    fd_ = STDIN_FILENO;  // /dev/stdin too: reopening it fails for sockets and loses a file's offset
  } else {
    // Opening a FIFO waits for its writer, as reading it would anyway.
    fd_ = ::open(spec_.path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY);
    if (fd_ < 0) throw input_error(name + ": cannot open: " + std::strerror(errno));
    owns_fd_ = true;
  }
  if (::fstat(fd_, &st_) != 0) {
    const int e = errno;
    if (owns_fd_) ::close(fd_);
    throw input_error(name + ": cannot open: " + std::strerror(e));
  }
  if (S_ISDIR(st_.st_mode)) {
    if (owns_fd_) ::close(fd_);
    throw input_error(name + ": is a directory");
  }
#ifdef F_SETPIPE_SZ
  // A pipe's default 64 KiB makes writer and reader take turns every 64 KiB; a
  // larger one (1 MiB is what an unprivileged process may ask) lets each run
  // longer. Best effort: the pipe works the same without it.
  if (S_ISFIFO(st_.st_mode)) (void)::fcntl(fd_, F_SETPIPE_SZ, 1 << 20);
#endif
}

input_source::~input_source() {
  if (owns_fd_) ::close(fd_);
}

any_array input_source::read() {
  const std::string name = input_display_name(spec_.path);
  try {
    std::optional<std::uint64_t> size;
    if (S_ISREG(st_.st_mode)) {
      // Standard input may be a file that was partly read already.
      const off_t pos = owns_fd_ ? 0 : ::lseek(fd_, 0, SEEK_CUR);
      const off_t at = std::clamp<off_t>(pos, 0, st_.st_size);
      size = static_cast<std::uint64_t>(st_.st_size - at);
    }
    progress shown("reading " + name, progress::kind::bytes, size.value_or(0));
    byte_reader in(fd_, shown);
    reading r{in, shown, size, spec_, {}};
    any_array values = [&] {
      if (spec_.force_raw) return load_raw(r, "", false);
      if (!is_stdin_path(spec_.path)) {
        if (has_npy_extension(spec_.path)) return load_npy(r, read_first_bytes(in));
        return load_raw(r, "", false);
      }
      // Standard input has no name to tell its format: its first bytes do.
      const std::string first = read_first_bytes(in);
      if (first.empty()) fail("holds no values");
      if (first.starts_with(npy::magic)) return load_npy(r, first);
      return load_raw(r, first, true);
    }();
    shape_ = std::move(r.shape);
    return values;
  } catch (const input_error& e) {
    throw input_error(name + ": " + e.what());
  }
}

std::optional<file_layout> input_source::positioned_layout() {
  // Only a regular file can be read at an offset; a stream only from its start.
  if (!S_ISREG(st_.st_mode) || !owns_fd_) return std::nullopt;
  const std::string name = input_display_name(spec_.path);
  try {
    const auto size = static_cast<std::uint64_t>(st_.st_size);
    progress shown("reading " + name, progress::kind::bytes);
    byte_reader in(fd_, shown);
    reading r{in, shown, size, spec_, {}};
    file_layout l;
    if (!spec_.force_raw && has_npy_extension(spec_.path)) {
      const npy_layout h = read_npy_header(r, read_first_bytes(in));  // the file's size checked too
      l = {h.type, h.count, h.data_offset, h.shape};
    } else {
      l.type = raw_dtype(r, false);
      check_raw_file_size(l.type, size);
      l.count = static_cast<std::int64_t>(size / dtype_size(l.type));
      l.shape = {l.count};
    }
    shape_ = l.shape;
    return l;
  } catch (const input_error& e) {
    throw input_error(name + ": " + e.what());
  }
}

void input_source::read_data_at(const file_layout& l, void* dst, std::size_t len, std::uint64_t offset,
                                progress& shown) const {
  auto* out = static_cast<char*>(dst);
  const std::uint64_t start = l.data_offset + offset;
  for (std::size_t done = 0; done < len;) {
    const ssize_t got = ::pread(fd_, out + done, len - done, static_cast<off_t>(start + done));
    if (got < 0 && errno == EINTR) continue;
    if (got < 0)
      throw input_error(input_display_name(spec_.path) + ": read error: " + std::strerror(errno));
    if (got == 0)
      throw input_error(input_display_name(spec_.path) +
                        ": unexpected end of file (the file shrank while it was read)");
    done += static_cast<std::size_t>(got);
    shown.add_done(static_cast<std::uint64_t>(got));
  }
}

input_part input_source::read_part(std::int64_t index, std::int64_t parts) {
  if (parts < 1 || index < 0 || index >= parts)
    throw std::logic_error("input_source::read_part: part " + std::to_string(index) + " of " +
                           std::to_string(parts));
  const std::string name = input_display_name(spec_.path);
  const std::optional<file_layout> l = positioned_layout();
  if (!l) throw input_error(name + ": only a regular file can be read in parts, not a stream");
  try {
    const std::size_t item = dtype_size(l->type);
    const std::int64_t count = l->count;
    // floor(count * i / parts) without the product, which can exceed 2^63.
    const auto bound = [&](std::int64_t i) { return count / parts * i + count % parts * i / parts; };
    const std::int64_t begin = bound(index), end = bound(index + 1);
    const std::uint64_t bytes = static_cast<std::uint64_t>(end - begin) * item;
    if (bytes > SIZE_MAX) fail("the part does not fit in memory");
    progress shown("reading " + name, progress::kind::bytes, bytes);
    byte_reader in(fd_, shown);
    host_buffer data(static_cast<std::size_t>(bytes));
    const std::uint64_t offset = l->data_offset + static_cast<std::uint64_t>(begin) * item;
    if (in.read_file_at(data.data(), static_cast<std::size_t>(bytes), offset) < bytes)
      fail("unexpected end of file (the file shrank while it was read)");
    return input_part{as_array(l->type, std::move(data), bytes), begin, count};
  } catch (const input_error& e) {
    throw input_error(name + ": " + e.what());
  }
}

any_array load_input(const input_spec& spec) { return input_source(spec).read(); }

}  // namespace kselect_cli
