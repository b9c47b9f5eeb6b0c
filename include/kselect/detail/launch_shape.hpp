// The shape of a kernel launch, as the tuning policies name it (the CUDA
// backend's src/cuda/tuning.hpp, the device filters' filter_plan.hpp). Plain C++.
#pragma once

#include <cstdint>

namespace kselect::detail {

/// Threads of a block, keys each thread takes per tile (1 for kernels that
/// take one element per thread, or none), and the resident blocks per SM the
/// kernel's __launch_bounds__ asks for (0: none asked; the compiler's choice).
struct launch_shape {
  int threads = 0;
  int items_per_thread = 1;
  int min_blocks_per_sm = 0;

  /// Keys one block takes per tile.
  constexpr std::int64_t tile_items() const { return std::int64_t(threads) * items_per_thread; }
  /// Blocks that cover `count` keys, a tile each (at least one block).
  constexpr std::int64_t blocks_for(std::int64_t count) const {
    return count <= 0 ? 1 : (count + tile_items() - 1) / tile_items();
  }
  constexpr bool operator==(const launch_shape&) const = default;
};

}  // namespace kselect::detail
