#include "output.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>

#include "kselect/types.hpp"

namespace kselect_cli {

void write_stdout(std::string_view text) {
  if (std::fwrite(text.data(), 1, text.size(), stdout) != text.size() || std::fflush(stdout) != 0)
    throw kselect::error(std::string("writing to stdout: ") + std::strerror(errno));
}

}  // namespace kselect_cli
