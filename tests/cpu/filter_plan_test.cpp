// The host-side planning of the device filters (kselect/detail/filter_plan.hpp):
// tiles and blocks cover every key, workspace regions are aligned and disjoint and
// fit the reported size, and the algorithm choice.
#include <gtest/gtest.h>

#include <cstdint>
#include <utility>
#include <vector>

#include "kselect/detail/filter_plan.hpp"

namespace kselect::detail {
namespace {

/// Regions [offset, offset + bytes): 256-byte aligned, in order, disjoint, inside `total`.
void expect_regions(const std::vector<std::pair<std::size_t, std::size_t>>& regions, std::size_t total) {
  std::size_t end = 0;
  for (const auto& [offset, bytes] : regions) {
    EXPECT_EQ(offset % 256, 0u);
    EXPECT_GE(offset, end);
    end = offset + bytes;
  }
  EXPECT_LE(end, total);
}

const std::vector<std::int64_t> sizes = {0,        1,         31,        4095,          4096,
                                         4097,     8191,      8192,      8193,          (1 << 20) + 3,
                                         1 << 28,  (std::int64_t(1) << 31) + 4097, (std::int64_t(1) << 40) - 1};

TEST(FilterPlan, SinglePassTilesCoverTheInput) {
  for (const std::size_t key_bytes : {1u, 2u, 4u, 8u, 16u}) {
    const std::int64_t tile = single_pass_tile_items(key_bytes);
    EXPECT_LE(tile * static_cast<std::int64_t>(key_bytes), single_pass_tile_bytes);
    if (key_bytes >= 4) EXPECT_EQ(tile * static_cast<std::int64_t>(key_bytes), single_pass_tile_bytes);
    // The kernel's warps walk the tile 32 keys at a time, a lane keeping one round's ballot.
    EXPECT_EQ(tile % (single_pass_threads / 32 * 32), 0);
    EXPECT_LE(tile / (single_pass_threads / 32) / 32, 32);
    // The bulk copies split the tile between whole warps, in 16-byte units.
    EXPECT_EQ(single_pass_threads / 32 % single_pass_chunks, 0);
    EXPECT_EQ(tile / single_pass_chunks * static_cast<std::int64_t>(key_bytes) % 16, 0);
    // A warp's sparse write visits at most this many rounds of 32 keys (of 32 at most).
    EXPECT_GE(single_pass_sparse_rounds, 0);
    EXPECT_LE(single_pass_sparse_rounds, 32);
    for (const std::int64_t n : sizes) {
      const single_pass_layout l = plan_single_pass(n, key_bytes, 1000);
      EXPECT_GE(l.tiles * tile, n);
      EXPECT_LT((l.tiles - 1) * tile, n > 0 ? n : 1);
      expect_regions({{l.tile_state, l.tile_state_bytes}}, l.bytes);
      const single_pass_layout p = plan_single_pass(n, key_bytes, 1000, /*partition=*/true);
      expect_regions({{p.tile_state, p.tile_state_bytes}, {p.rejected_count, sizeof(std::int64_t)}}, p.bytes);
      // Tile ids are int in the kernel (cub::ScanTileState).
      EXPECT_LT(l.tiles, std::int64_t(1) << 31);
    }
  }
}

TEST(FilterPlan, ThreePhaseLayoutHoldsBitsCountsAndScan) {
  EXPECT_EQ(three_phase_block_words * 32, three_phase_block_items);
  EXPECT_EQ(three_phase_warp_words * filter_warps, three_phase_block_words);
  EXPECT_LE(three_phase_warp_words, 32);  // a lane holds one word
  for (const std::int64_t n : sizes) {
    const three_phase_layout l = plan_three_phase(n, 777);
    EXPECT_GE(l.blocks * three_phase_block_items, n);
    EXPECT_EQ(l.bits_bytes, static_cast<std::size_t>(l.blocks * three_phase_block_words * 4));
    EXPECT_EQ(l.counts_bytes, static_cast<std::size_t>(l.blocks + 1) * 8);  // + the total's slot
    expect_regions({{l.bits, l.bits_bytes}, {l.counts, l.counts_bytes}, {l.offsets, l.counts_bytes},
                    {l.scan_temp, l.scan_temp_bytes}},
                   l.bytes);
    EXPECT_LT(l.blocks, std::int64_t(1) << 31);  // a grid dimension
    // Bits cost 1/32 of 4-byte keys.
    if (n >= three_phase_block_items) EXPECT_LE(l.bits_bytes, static_cast<std::size_t>(n) / 8 + 512);
  }
}

TEST(FilterPlan, AutomaticPicksTheSinglePass) {
  EXPECT_EQ(choose_filter_algorithm(filter_algorithm::automatic), filter_algorithm::single_pass);
  EXPECT_EQ(choose_filter_algorithm(filter_algorithm::single_pass), filter_algorithm::single_pass);
  EXPECT_EQ(choose_filter_algorithm(filter_algorithm::three_phase), filter_algorithm::three_phase);
}

}  // namespace
}  // namespace kselect::detail
