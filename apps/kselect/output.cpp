#include "output.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>

#include "errors.hpp"
#include "kselect/types.hpp"
#include "npy.hpp"

namespace kselect_cli {

void write_stdout(std::string_view text) {
  if (std::fwrite(text.data(), 1, text.size(), stdout) != text.size() || std::fflush(stdout) != 0)
    throw kselect::error(std::string("writing to stdout: ") + std::strerror(errno));
}

void write_npy_file(const std::string& path, dtype t, const void* data, std::int64_t count) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) throw input_error(path + ": cannot create: " + std::strerror(errno));
  const std::string prefix = npy::array_prefix(t, count);
  const std::size_t bytes = static_cast<std::size_t>(count) * dtype_size(t);
  const bool ok = std::fwrite(prefix.data(), 1, prefix.size(), f) == prefix.size() &&
                  (bytes == 0 || std::fwrite(data, 1, bytes, f) == bytes);
  const int write_errno = errno;
  const bool closed = std::fclose(f) == 0;
  if (ok && closed) return;
  std::remove(path.c_str());
  throw kselect::error(path + ": write error: " + std::strerror(ok ? errno : write_errno));
}

}  // namespace kselect_cli
