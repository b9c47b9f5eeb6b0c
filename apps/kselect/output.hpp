// Writing a command's complete output to stdout in one piece.
#pragma once

#include <string_view>

namespace kselect_cli {

/// Writes `text` to stdout and flushes; throws kselect::error when that fails.
void write_stdout(std::string_view text);

}  // namespace kselect_cli
