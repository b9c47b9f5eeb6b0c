// The hot map of a round's intervals (core/hot_cells.hpp), as the GPU's refining pass
// reads it: every key inside an interval finds its byte set (the pass would otherwise
// drop a key in contention), a byte is set only where its cell meets an interval, the
// cells are as narrow as the limit allows, and a key's byte is non-decreasing in the key.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "core/bucket_table.hpp"
#include "core/hot_cells.hpp"

namespace kselect::core {
namespace {

template <class U>
class HotCells : public ::testing::Test {};
using KeyTypes = ::testing::Types<std::uint32_t, std::uint64_t>;
TYPED_TEST_SUITE(HotCells, KeyTypes);

// Spans: the whole key range, a narrow one in the middle, one of a few keys, one
// touching the top; intervals: random disjoint ranges inside and around the span
// (below it, across its ends, above it), of one key to wide ones.
TYPED_TEST(HotCells, EveryKeyOfAnIntervalIsHotAndOnlyTouchedCellsAre) {
  using U = TypeParam;
  const U max = static_cast<U>(~U(0));
  std::mt19937_64 rng(47);
  struct span {
    U base, last_offset;
  };
  const span spans[] = {{0, max}, {static_cast<U>(max / 3), static_cast<U>(1u << 20)}, {1000, 6},
                        {static_cast<U>(max - 99999), 99999}, {static_cast<U>(12345), static_cast<U>(16383)}};
  for (const span s : spans) {
    for (const std::uint32_t limit : {hot_map_max_cells, 7u, 2u}) {
      const hot_cells<U> h = hot_cells_over<U>(s.base, s.last_offset, limit);
      ASSERT_GE(h.cells, 1u);
      ASSERT_LE(h.cells, limit);
      ASSERT_EQ(h.cells, static_cast<std::uint32_t>(s.last_offset >> h.shift) + 1);
      if (h.shift > 0) ASSERT_GE(s.last_offset >> (h.shift - 1), static_cast<U>(limit)) << "cells as narrow as allowed";
      for (int trial = 0; trial < 20; ++trial) {
        // Ascending disjoint intervals: sorted random endpoints, near the span and anywhere.
        std::vector<U> ends;
        for (int e = 0; e < 2 * (1 + trial % 8); ++e) {
          const U near = static_cast<U>(s.base + static_cast<U>(rng() % (static_cast<std::uint64_t>(s.last_offset) + 3)) - 1);
          ends.push_back(rng() % 4 == 0 ? static_cast<U>(rng()) : near);
        }
        std::sort(ends.begin(), ends.end());
        ends.erase(std::unique(ends.begin(), ends.end()), ends.end());
        std::vector<bucket_interval<U>> intervals;
        for (std::size_t e = 0; e + 1 < ends.size(); e += 2) intervals.push_back({ends[e], ends[e + 1], 0, 0, 1});
        if (trial % 5 == 0 && !ends.empty()) intervals.push_back({ends.back(), ends.back(), 0, 0, 1});  // one key
        std::sort(intervals.begin(), intervals.end(), [](const auto& a, const auto& b) { return a.lo < b.lo; });
        std::vector<std::uint8_t> map(h.cells + 2u, 0);
        mark_hot_cells(h, intervals, map.data());
        const auto inside_any = [&](U key) {
          return std::any_of(intervals.begin(), intervals.end(), [&](const auto& iv) { return iv.lo <= key && key <= iv.hi; });
        };
        // Keys: the intervals' ends and middles, their neighbours, cell edges, random keys.
        std::vector<U> keys{0, max, s.base, static_cast<U>(s.base - 1), static_cast<U>(s.base + s.last_offset),
                            static_cast<U>(s.base + s.last_offset + 1)};
        for (const auto& iv : intervals)
          for (const U k : {iv.lo, iv.hi, static_cast<U>(iv.lo + (iv.hi - iv.lo) / 2), static_cast<U>(iv.lo - 1),
                            static_cast<U>(iv.hi + 1)})
            keys.push_back(k);
        for (int c = 0; c < 64; ++c) {
          const U cell_first = static_cast<U>(s.base + (static_cast<U>(rng() % h.cells) << h.shift));
          keys.push_back(cell_first);
          keys.push_back(static_cast<U>(cell_first - 1));
        }
        for (int r = 0; r < 200; ++r) keys.push_back(static_cast<U>(rng()));
        std::sort(keys.begin(), keys.end());
        std::uint32_t previous = 0;
        for (const U key : keys) {
          const std::uint32_t j = hot_cell_index(h, key);
          ASSERT_LE(j, h.cells + 1) << "key " << key;
          ASSERT_GE(j, previous) << "non-decreasing in the key";
          previous = j;
          if (inside_any(key)) ASSERT_EQ(map[j], 1) << "key " << key << " is in an interval";
        }
        // A set byte's cell (or tail) meets an interval.
        for (std::uint32_t j = 0; j < h.cells + 2; ++j) {
          if (!map[j]) continue;
          const bool below = j == 0, above = j == h.cells + 1;
          const U first = below ? U(0) : above ? static_cast<U>(s.base + s.last_offset + 1)
                                             : static_cast<U>(s.base + (static_cast<U>(j - 1) << h.shift));
          const U last = below ? static_cast<U>(s.base - 1) : above ? max
                         : j == h.cells ? static_cast<U>(s.base + s.last_offset)
                                        : static_cast<U>(first + ((U(1) << h.shift) - 1));
          ASSERT_TRUE(std::any_of(intervals.begin(), intervals.end(),
                                  [&](const auto& iv) { return iv.lo <= last && first <= iv.hi; }))
              << "byte " << j << " marked with no interval in its cell";
        }
      }
    }
  }
}

}  // namespace
}  // namespace kselect::core
