// A byte map of the keys in contention, for a pass over every value that keeps only a
// few of them (the round after a radix-slot first round, cuda/distributed/
// slot_kernels.cuh): the span [base, base + last_offset] cut into cells of 2^shift keys,
// one byte per cell, nonzero where the cell meets one of the round's intervals, and
// one byte each for the keys below and above the span. A key's byte is a subtraction,
// a shift and one load, so that the many keys out of contention cost no more than that;
// the few in a marked cell (a superset of those in contention) are then looked at
// closely. Plain C++ shared by the host (building) and the device (lookup).
#pragma once

#include <cstdint>

#include "hd.hpp"

namespace kselect::core {

/// Cells of a hot map at most: 16 KiB of shared memory, and cells several times
/// narrower than a first table's buckets (8192 by default over the same span), so that
/// only a few buckets' worth of keys around each interval is marked.
inline constexpr std::uint32_t hot_map_max_cells = 16384;

template <class U>
struct hot_cells {
  U base = 0;
  U last_offset = 0;        ///< the span's last key offset (key - base)
  int shift = 0;            ///< cells of 2^shift keys
  std::uint32_t cells = 0;  ///< cells inside the span (0: no map); the map has cells + 2 bytes
};

/// The cells over [base, base + last_offset]: the narrowest of 2^shift keys that need
/// at most max_cells cells (max_cells >= 2: cells of half the key range are the widest).
template <class U>
hot_cells<U> hot_cells_over(U base, U last_offset, std::uint32_t max_cells) {
  hot_cells<U> h;
  h.base = base;
  h.last_offset = last_offset;
  while (h.shift < 8 * static_cast<int>(sizeof(U)) - 1 && (last_offset >> h.shift) >= max_cells) ++h.shift;
  h.cells = static_cast<std::uint32_t>(last_offset >> h.shift) + 1;
  return h;
}

/// The byte of `key` in a hot map: 0 below the span, 1 + its cell inside (rel = key -
/// base, inside = rel <= last_offset, as the caller may have them already), cells + 1
/// above. Non-decreasing in the key.
template <class U>
KSELECT_HD std::uint32_t hot_cell_index(const hot_cells<U>& h, U key, U rel, bool inside) {
  return inside ? static_cast<std::uint32_t>(rel >> h.shift) + 1u : key < h.base ? 0u : h.cells + 1u;
}

template <class U>
KSELECT_HD std::uint32_t hot_cell_index(const hot_cells<U>& h, U key) {
  const U rel = static_cast<U>(key - h.base);
  return hot_cell_index(h, key, rel, rel <= h.last_offset);
}

/// Marks (sets to 1) every byte of a hot map (cells + 2 bytes, zeroed by the caller)
/// whose cell meets one of the ascending intervals [lo, hi].
template <class U, class Intervals>
void mark_hot_cells(const hot_cells<U>& h, const Intervals& intervals, std::uint8_t* map) {
  for (const auto& iv : intervals)
    for (std::uint32_t j = hot_cell_index(h, iv.lo), last = hot_cell_index(h, iv.hi); j <= last; ++j) map[j] = 1;
}

}  // namespace kselect::core
