// Carving one workspace allocation into regions: each region starts on a 256-byte
// boundary (CUB's alignment for its temporaries, and enough for 16-byte vector
// loads), in the order they are taken. Used by every layout function, so the size
// query and the call carve the same way.
#pragma once

#include <cstddef>

namespace kselect::detail {

/// The boundary every region starts on; a region takes a multiple of it.
inline constexpr std::size_t workspace_alignment = 256;

struct workspace_carver {
  std::size_t end = 0;  ///< bytes taken so far, padded: the workspace's size once all is taken

  /// The offset of a new region of `bytes` bytes.
  constexpr std::size_t take(std::size_t bytes) {
    const std::size_t here = end;
    end += (bytes + workspace_alignment - 1) / workspace_alignment * workspace_alignment;
    return here;
  }
};

}  // namespace kselect::detail
