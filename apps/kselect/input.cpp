#include "input.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

#include "errors.hpp"
#include "npy.hpp"

namespace kselect_cli {
namespace {

struct file_closer {
  void operator()(std::FILE* f) const noexcept { std::fclose(f); }
};
using file_ptr = std::unique_ptr<std::FILE, file_closer>;

// Errors below do not name the file; load_input() prefixes the path once.
[[noreturn]] void fail(const std::string& what) { throw input_error(what); }

/// An open input file and its size.
class input_file {
 public:
  explicit input_file(const std::string& path) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) fail(std::string("cannot open: ") + std::strerror(errno));
    if (S_ISDIR(st.st_mode)) fail("is a directory");
    file_.reset(std::fopen(path.c_str(), "rb"));
    if (!file_) fail(std::string("cannot open: ") + std::strerror(errno));
    size_ = static_cast<std::size_t>(st.st_size);
  }

  std::size_t size() const noexcept { return size_; }

  /// Reads exactly `bytes` bytes at the current position.
  void read(void* dst, std::size_t bytes) {
    if (bytes != 0 && std::fread(dst, 1, bytes, file_.get()) != bytes)
      fail(std::ferror(file_.get()) ? std::string("read error: ") + std::strerror(errno)
                                    : std::string("unexpected end of file"));
  }

  template <class T>
  any_array read_values(std::int64_t n) {
    host_array<T> values(n);
    read(values.data(), static_cast<std::size_t>(n) * sizeof(T));
    return any_array(std::move(values));
  }

  any_array read_values(dtype t, std::int64_t n) {
    return visit_dtype(t, [&](auto tag) { return read_values<typename decltype(tag)::type>(n); });
  }

 private:
  file_ptr file_;
  std::size_t size_ = 0;
};

std::string bytes_string(std::size_t n) { return std::to_string(n) + (n == 1 ? " byte" : " bytes"); }

any_array load_npy(input_file& file, const input_spec& spec) {
  std::string first(std::min(file.size(), npy::max_preamble_bytes), '\0');
  file.read(first.data(), first.size());
  const npy::preamble pre = npy::parse_preamble(first);
  const std::size_t data_offset = pre.header_offset + pre.header_bytes;
  if (data_offset > file.size()) fail("truncated .npy header");
  // The header text: what the preamble read already holds, then the rest.
  std::string text = first.substr(std::min(first.size(), pre.header_offset), pre.header_bytes);
  const std::size_t already = text.size();
  text.resize(pre.header_bytes);
  file.read(text.data() + already, text.size() - already);

  const npy::header h = npy::parse_header(text);
  const dtype t = npy::header_dtype(h);
  if (spec.requested && *spec.requested != t)
    fail("--dtype " + std::string(dtype_name(*spec.requested)) + " conflicts with the file's dtype " +
         std::string(dtype_name(t)) + " ('" + h.descr + "')");
  const std::int64_t n = npy::header_count(h, dtype_size(t));
  const std::size_t need = static_cast<std::size_t>(n) * dtype_size(t);
  const std::size_t have = file.size() - data_offset;
  if (have < need)
    fail("truncated data: shape " + npy::shape_string(h.shape) + " of " + std::string(dtype_name(t)) +
         " needs " + bytes_string(need) + ", the file holds " + bytes_string(have));
  if (have > need)
    fail(bytes_string(have - need) + " of unexpected data after the array of shape " +
         npy::shape_string(h.shape));
  return file.read_values(t, n);
}

any_array load_raw(input_file& file, const input_spec& spec) {
  if (!spec.requested)
    fail("raw input needs --dtype (one of " + std::string(dtype_names_list()) +
              "), or a .npy file");
  const dtype t = *spec.requested;
  const std::size_t item = dtype_size(t);
  if (file.size() % item != 0)
    fail("file size " + bytes_string(file.size()) + " is not a multiple of the " +
              std::string(dtype_name(t)) + " item size " + std::to_string(item));
  return file.read_values(t, static_cast<std::int64_t>(file.size() / item));
}

}  // namespace

bool is_npy_input(const input_spec& spec) {
  if (spec.force_raw || spec.path.size() < 4) return false;
  std::string ext = spec.path.substr(spec.path.size() - 4);
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return ext == ".npy";
}

any_array load_input(const input_spec& spec) {
  try {
    input_file file(spec.path);
    return is_npy_input(spec) ? load_npy(file, spec) : load_raw(file, spec);
  } catch (const input_error& e) {
    throw input_error(spec.path + ": " + e.what());
  }
}

}  // namespace kselect_cli
