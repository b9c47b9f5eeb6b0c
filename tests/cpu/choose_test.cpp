// The CUDA backend's tuning policies (src/cuda/tuning.hpp) and algorithm choices
// (src/cuda/dispatch/choose.hpp), and the device filters' (filter_plan.hpp): plain
// C++, so checked here without a GPU. The choices are compared with the rules the
// drivers and workspace planners applied inline before they were named, over grids
// around every threshold.
#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <vector>

#include "cuda/dispatch/choose.hpp"
#include "cuda/tuning.hpp"
#include "kselect/detail/filter_plan.hpp"

namespace kselect::cuda {
namespace {

using tuning::launch_shape;

const tuning::policy& hopper = tuning::hopper;

std::vector<launch_shape> shapes_of(const tuning::policy& p) {
  return {p.common.stream,        p.common.sample,        p.levels.base_case,    p.levels.finalize,
          p.prepass.reduce,       p.prepass.scatter_k32,  p.prepass.scatter_k64, p.prepass.finish,
          p.range.refine,         p.range.small_sort,     p.range.tie_pick,      p.range.gather,
          p.range.order_expand,   p.range.bucket,         p.range.bucket_expand, p.approx.sample,
          p.approx.plan_k32,      p.approx.plan_k64,      p.approx.answer,       p.approx.scatter,
          p.common.payload_gather};
}

TEST(TuningPolicy, PolicyForComputeCapability) {
  EXPECT_EQ(&tuning::policy_for(90), &tuning::hopper);
  EXPECT_EQ(&tuning::policy_for(91), &tuning::hopper);
  for (int cc : {0, 70, 75, 80, 86, 89, 100, 120}) EXPECT_EQ(&tuning::policy_for(cc), &tuning::generic) << cc;
  EXPECT_EQ(&tuning::compiled, &tuning::hopper);
  EXPECT_TRUE(tuning::hopper.compiled() == tuning::generic.compiled());
}

TEST(TuningPolicy, LaunchShapesAreLegal) {
  for (const tuning::policy* p : {&tuning::hopper, &tuning::generic}) {
    for (const launch_shape& s : shapes_of(*p)) {
      EXPECT_GT(s.threads, 0);
      EXPECT_LE(s.threads, 1024);
      EXPECT_EQ(s.threads % 32, 0);  // whole warps
      EXPECT_GE(s.items_per_thread, 1);
      EXPECT_GE(s.min_blocks_per_sm, 0);
      EXPECT_LE(s.threads * s.min_blocks_per_sm, 2048);  // resident threads of an SM
    }
  }
}

TEST(TuningPolicy, LaunchShapeArithmetic) {
  constexpr launch_shape s{256, 16, 3};
  static_assert(s.tile_items() == 4096);
  EXPECT_EQ(s.blocks_for(0), 1);
  EXPECT_EQ(s.blocks_for(1), 1);
  EXPECT_EQ(s.blocks_for(4096), 1);
  EXPECT_EQ(s.blocks_for(4097), 2);
  constexpr launch_shape one{256};
  for (std::int64_t count : {1, 255, 256, 257, 1 << 20, (1 << 20) + 1})
    EXPECT_EQ(one.blocks_for(count), (count + 255) / 256) << count;
}

// The values measured on the H100, as they were before the policies gathered them:
// a change here is a change of tuning, never of layout.
TEST(TuningPolicy, HopperValues) {
  const tuning::policy& p = hopper;
  EXPECT_EQ(p.common.stream, (launch_shape{256, 16, 3}));
  EXPECT_EQ(p.common.sample, (launch_shape{256, 16}));
  EXPECT_EQ(p.common.payload_gather, (launch_shape{256}));
  EXPECT_EQ(p.common.window_sigmas, 4.0);
  EXPECT_EQ(p.common.window_margin, 2.0);
  EXPECT_EQ(p.window.buffer_divisor, 8);
  EXPECT_EQ(p.window.extra_levels, 2);
  EXPECT_EQ(p.levels.base_case, (launch_shape{256, 16}));
  EXPECT_EQ(p.levels.finalize, (launch_shape{256}));
  EXPECT_EQ(p.levels.oracle_splitters, 127);
  EXPECT_EQ(p.levels.wide_splitters, 1023);
  EXPECT_EQ(p.levels.wide_above, 1 << 20);
  EXPECT_EQ(p.levels.max_tasks_per_launch, 256);
  EXPECT_EQ(p.levels.flush_tiles, 16384);
  EXPECT_EQ(p.prepass.reduce, (launch_shape{1024, 8}));
  EXPECT_EQ(p.prepass.scatter_k32, (launch_shape{256, 16}));
  EXPECT_EQ(p.prepass.scatter_k64, (launch_shape{256, 8}));
  EXPECT_EQ(p.prepass.finish, (launch_shape{1024, 4}));
  EXPECT_EQ(p.prepass.bin_target, 8191u);
  EXPECT_EQ(p.prepass.max_ranks, 512);
  EXPECT_EQ(p.prepass.min_n, 1 << 20);
  EXPECT_EQ(p.prepass.max_predicted, 1.0 / 16);
  EXPECT_EQ(p.prepass.capacity_divisor, 8);
  EXPECT_EQ(p.range.refine, (launch_shape{256, 8}));
  EXPECT_EQ(p.range.small_sort, (launch_shape{256, 16}));
  EXPECT_EQ(p.range.tie_pick, (launch_shape{512}));
  EXPECT_EQ(p.range.gather, (launch_shape{256}));
  EXPECT_EQ(p.range.order_expand, (launch_shape{128}));
  EXPECT_EQ(p.range.bucket, (launch_shape{256, 4}));
  EXPECT_EQ(p.range.bucket_expand, (launch_shape{256}));
  EXPECT_EQ(p.range.all_candidates_max, 1 << 16);
  EXPECT_EQ(p.range.refine_capacity, 4096);
  EXPECT_EQ(p.range.gather_max_blocks, 8192);
  EXPECT_EQ(p.range.sort_max, 1 << 18);
  EXPECT_EQ(p.range.max_levels, 6);
  EXPECT_EQ(p.range.refine_target_kept, 2048);
  EXPECT_EQ(p.range.refine_max_size, 1 << 18);
  EXPECT_EQ(p.range.order_bitmap_min_per_tile, 256);
  EXPECT_EQ(p.range.bucket_expand_sparse_keys, 4);
  EXPECT_EQ(p.range.bucket_expand_sparse_group, 32);
  EXPECT_EQ(p.range.bucket_expand_dense_group, 8);
  EXPECT_EQ(p.approx.sample, (launch_shape{256}));
  EXPECT_EQ(p.approx.plan_k32, (launch_shape{1024, 16}));
  EXPECT_EQ(p.approx.plan_k64, (launch_shape{512, 32}));
  EXPECT_EQ(p.approx.answer, (launch_shape{512}));
  EXPECT_EQ(p.approx.scatter, (launch_shape{256}));
  EXPECT_EQ(p.approx.scatter_max_blocks, 1024);
  // The names the kernels read.
  EXPECT_EQ(tuning::tile_keys, 4096);
  EXPECT_EQ(tuning::sample_size, 4096);
  EXPECT_EQ(tuning::base_case_max, 4096);
  EXPECT_EQ(tuning::max_splitters, 1023);
  EXPECT_EQ(tuning::max_buckets, 2047);
  EXPECT_EQ(tuning::stream_min_blocks, 3);
}

const std::vector<std::int64_t> sizes = {1, 2, 4095, 4096, 4097, (1 << 16), (1 << 16) + 1, (1 << 20) - 1,
                                         1 << 20, (1 << 20) + 1, std::int64_t(1) << 30, std::int64_t(1) << 39};
const std::vector<std::int64_t> rank_counts = {0, 1, 2, 3, 101, 256, 257, 511, 512, 513, 1000, 100000};
const algorithm algorithms[] = {algorithm::automatic, algorithm::sample_select, algorithm::window};

TEST(Choose, MultiselectPath) {
  for (const std::int64_t n : sizes) {
    for (const std::int64_t r : rank_counts) {
      for (const algorithm a : algorithms) {
        // entry.cuh's rule before the choice was named, with workspace.hpp's pre-pass condition.
        multiselect_path expected = multiselect_path::levels;
        if (r == 1 && a != algorithm::sample_select)
          expected = multiselect_path::window;
        else if (r > 1 && r <= 512 && a == algorithm::automatic && n >= (1 << 20))
          expected = multiselect_path::bin_prepass;
        EXPECT_EQ(choose_multiselect_path(n, r, a, hopper), expected) << n << " " << r << " " << int(a);
      }
    }
  }
  EXPECT_EQ(choose_multiselect_path(1 << 20, 101, algorithm::automatic, hopper), multiselect_path::bin_prepass);
  EXPECT_EQ(choose_multiselect_path((1 << 20) - 1, 101, algorithm::automatic, hopper), multiselect_path::levels);
  EXPECT_EQ(choose_multiselect_path(1 << 28, 513, algorithm::automatic, hopper), multiselect_path::levels);
  EXPECT_EQ(choose_multiselect_path(1 << 28, 1, algorithm::sample_select, hopper), multiselect_path::levels);
}

TEST(Choose, LevelsTasks) {
  EXPECT_TRUE(choose_oracles(algorithm::sample_select));
  EXPECT_FALSE(choose_oracles(algorithm::automatic));
  EXPECT_FALSE(choose_oracles(algorithm::window));
  EXPECT_EQ(choose_classifier(algorithm::sample_select), classifier_kind::tree);
  EXPECT_EQ(choose_classifier(algorithm::automatic), classifier_kind::slots);
  EXPECT_EQ(choose_classifier(algorithm::window), classifier_kind::slots);
  for (const std::int64_t count : sizes) {
    EXPECT_EQ(choose_base_case(true, count, hopper), count <= 4096) << count;
    EXPECT_FALSE(choose_base_case(false, count, hopper)) << count;
  }
  for (const bool compact : {false, true}) {
    for (const std::int64_t ranks : {1, 2, 50}) {
      for (const algorithm a : algorithms) {
        task_mode expected = task_mode::sample_buckets;
        if (!compact)
          expected = task_mode::range_buckets;
        else if (ranks == 1 && a != algorithm::sample_select)
          expected = task_mode::window;
        EXPECT_EQ(choose_task_mode(compact, ranks, a), expected);
      }
    }
  }
}

TEST(Choose, Splitters) {
  const tuning::sample_select_policy& p = hopper.levels;
  for (const algorithm a : algorithms) {
    EXPECT_EQ(choose_splitters(task_mode::window, 1000, 1, 1 << 24, a, p), 2);
    for (const std::uint64_t span : {1ull, 2ull, 126ull, 127ull, 128ull, ~0ull})
      EXPECT_EQ(choose_splitters(task_mode::range_buckets, span, 5, 1 << 24, a, p), span < 127 ? int(span) : 127);
  }
  for (const std::int64_t count : sizes) {
    for (const std::int64_t ranks : {1, 2, 101}) {
      EXPECT_EQ(choose_splitters(task_mode::sample_buckets, ~0ull, ranks, count, algorithm::sample_select, p), 127);
      const int expected = ranks > 1 && count > (1 << 20) ? 1023 : 127;
      EXPECT_EQ(choose_splitters(task_mode::sample_buckets, ~0ull, ranks, count, algorithm::automatic, p), expected)
          << ranks << " " << count;
    }
  }
}

TEST(Choose, RangeOrder) {
  const tuning::range_policy& p = hopper.range;
  const std::optional<range_order> automatic;
  for (const std::int64_t tiles : {1, 2, 65536}) {
    for (const std::int64_t m : {std::int64_t(0), std::int64_t(1), 256 * tiles - 1, 256 * tiles, 256 * tiles + 1}) {
      for (const bool sorted : {false, true}) {
        for (const bool det : {false, true}) {
          const range_order got = choose_range_order(sorted, det, m, tiles, automatic, p);
          // range_dispatch.cuh's rule before the choice was named.
          const bool post_sort = sorted || det, bucket_order = det && !sorted;
          const bool bitmap_order = bucket_order && m >= tiles * 256;
          EXPECT_EQ(got != range_order::none, post_sort);
          EXPECT_EQ(got == range_order::buckets || got == range_order::bitmap, bucket_order);
          EXPECT_EQ(got == range_order::bitmap, bitmap_order) << m << " " << tiles;
          EXPECT_EQ(got == range_order::sort, sorted);
          for (const range_order forced : {range_order::buckets, range_order::bitmap}) {
            const range_order f = choose_range_order(sorted, det, m, tiles, forced, p);
            EXPECT_EQ(f == range_order::bitmap, bucket_order && forced == range_order::bitmap);
            EXPECT_EQ(f == range_order::buckets, bucket_order && forced == range_order::buckets);
          }
        }
      }
    }
  }
}

TEST(Choose, AsyncTake) {
  const std::int64_t big = std::int64_t{1} << 28;
  EXPECT_EQ(choose_async_take(big, 1024, hopper), async_take::block);     // ~8192 candidates expected
  EXPECT_EQ(choose_async_take(big, 1 << 20, hopper), async_take::grid);   // ~280000
  EXPECT_EQ(choose_async_take(1 << 22, 1 << 20, hopper), async_take::grid);  // ~76000, n / 55
  EXPECT_EQ(choose_async_take(1 << 16, 1024, hopper), async_take::none);  // every key is a candidate
  EXPECT_EQ(choose_async_take((1 << 21) - 1, 1024, hopper), async_take::none);  // launches cost more than they save
  EXPECT_EQ(choose_async_take(1 << 21, 1024, hopper), async_take::block);
  EXPECT_EQ(choose_async_take(big, 0, hopper), async_take::none);
  EXPECT_EQ(choose_async_take(big, big, hopper), async_take::none);
  for (const std::int64_t n : {std::int64_t{1} << 21, std::int64_t{1} << 22, big, std::int64_t{1} << 32})
    for (const std::int64_t k : {std::int64_t{1}, std::int64_t{100}, std::int64_t{1024}, n / 1024, n / 2, n - 1}) {
      const std::int64_t expected = core::expected_topk_candidates(n, k, 4096, 4.0, 2.0, 1 << 16, 2048, 1 << 18);
      const async_take want = expected <= 8192 ? async_take::block
                              : expected <= n / 16 ? async_take::grid
                                                   : async_take::none;
      EXPECT_EQ(choose_async_take(n, k, hopper), want) << n << " " << k;
      // The grid finish's buffer: twice the expectation and a block's worth, within n.
      if (want == async_take::grid) {
        const std::int64_t cap = core::take_candidate_capacity(n, expected, 16384);
        EXPECT_EQ(cap, std::min(n, 2 * expected + 16384));
        EXPECT_LE(cap, n / 4);
      }
    }
}

TEST(Choose, RangeNextAndFinish) {
  const tuning::range_policy& p = hopper.range;
  const std::int64_t sort_max = 1 << 18;
  for (const std::int64_t size : {std::int64_t(1) << 19, std::int64_t(1) << 22, std::int64_t(1) << 30}) {
    for (const std::int64_t cand : {std::int64_t(1), sort_max, sort_max + 1, size / 2, size / 2 + 1}) {
      for (int level = 0; level < 8; ++level) {
        const bool sort = cand <= sort_max || 2 * cand > size || level + 1 >= 6;
        EXPECT_EQ(choose_range_next(cand, size, level, p), sort ? range_next::sort : range_next::narrow)
            << cand << " " << size << " " << level;
      }
    }
  }
  for (const std::int64_t cand : {1, 4095, 4096, 4097, 1 << 18}) {
    for (const bool sorted : {false, true}) {
      for (const std::int64_t out_at : {0, 100, 1 << 18}) {
        const std::int64_t capacity = 1 << 18;
        range_finish expected = cand <= 4096 ? range_finish::block_sort : range_finish::radix_sort;
        if (sorted && out_at + cand <= capacity) expected = range_finish::sort_with_output;
        EXPECT_EQ(choose_range_finish(cand, sorted, out_at, capacity, p), expected) << cand << " " << out_at;
      }
    }
  }
}

// The candidates' take instead of their sort: a top-k's candidates (positions
// from 0), ties in any order, from 2^20 of them, not where sorted output sorts
// them with the output so far.
TEST(Choose, CandidateTake) {
  const tuning::range_policy& p = hopper.range;
  for (const std::int64_t cand : {std::int64_t(1), (std::int64_t(1) << 20) - 1, std::int64_t(1) << 20,
                                  std::int64_t(1) << 28})
    for (const std::int64_t first : {0, 1, 5000})
      for (const bool deterministic : {false, true})
        for (const bool one_sort : {false, true}) {
          const bool want = first == 0 && !deterministic && !one_sort && cand >= (std::int64_t(1) << 20);
          EXPECT_EQ(choose_candidate_take(cand, first, deterministic, one_sort, p), want)
              << cand << " " << first << " " << deterministic << " " << one_sort;
        }
}

// The tie cut: synchronous top-k calls of sampled inputs, k below n and at least
// n / 32 (the round trip that reads the sample back stays small beside them).
TEST(Choose, TieCut) {
  const tuning::range_policy& p = hopper.range;
  const std::int64_t n = std::int64_t(1) << 28;
  EXPECT_TRUE(choose_tie_cut(n, 0, n / 2, false, p));
  EXPECT_TRUE(choose_tie_cut(n, 0, n / 32, false, p));
  EXPECT_FALSE(choose_tie_cut(n, 0, n / 32 - 1, false, p));
  EXPECT_FALSE(choose_tie_cut(n, 0, n, false, p));         // every key: no boundary
  EXPECT_FALSE(choose_tie_cut(n, 0, n / 2, true, p));      // stream-ordered: no round trip
  EXPECT_FALSE(choose_tie_cut(n, 1, n / 2, false, p));     // a rank range, not a top-k
  EXPECT_FALSE(choose_tie_cut(1 << 16, 0, 1 << 15, false, p));  // not sampled
  EXPECT_TRUE(choose_tie_cut((1 << 16) + 1, 0, 1 << 15, false, p));
}

// The cut from the selected key: synchronous deterministic top-k, k below n and
// at least n / 4.
TEST(Choose, SelectedCut) {
  const tuning::range_policy& p = hopper.range;
  const std::int64_t n = std::int64_t(1) << 28;
  EXPECT_TRUE(choose_selected_cut(n, 0, n / 4, true, false, p));
  EXPECT_TRUE(choose_selected_cut(n, 0, n - 1, true, false, p));
  EXPECT_TRUE(choose_selected_cut(1000, 0, 500, true, false, p));  // small inputs too
  EXPECT_FALSE(choose_selected_cut(n, 0, n / 4 - 1, true, false, p));
  EXPECT_FALSE(choose_selected_cut(n, 0, n / 2, false, false, p));  // not deterministic
  EXPECT_FALSE(choose_selected_cut(n, 0, n / 2, true, true, p));     // stream-ordered
  EXPECT_FALSE(choose_selected_cut(n, 1, n / 2, true, false, p));    // a rank range
  EXPECT_FALSE(choose_selected_cut(n, 0, n, true, false, p));        // every key
}

TEST(Choose, BucketExpandGroup) {
  const tuning::range_policy& p = hopper.range;
  for (const std::int64_t tiles : {1, 3, 65536})
    for (const std::int64_t m : {std::int64_t(1), 4 * tiles - 1, 4 * tiles, 4 * tiles + 1})
      EXPECT_EQ(choose_bucket_expand_group(m, tiles, p), m < 4 * tiles ? 32 : 8) << m << " " << tiles;
}

}  // namespace
}  // namespace kselect::cuda

namespace kselect::detail {
namespace {

TEST(FilterPolicy, PolicyForComputeCapability) {
  EXPECT_EQ(&filter_policy_for(90), &filter_hopper);
  for (int cc : {70, 80, 89, 100}) EXPECT_EQ(&filter_policy_for(cc), &filter_generic) << cc;
  EXPECT_EQ(&filter_compiled, &filter_hopper);
  EXPECT_TRUE(filter_hopper == filter_generic);
}

// The values measured on the H100, under the names the kernels read.
TEST(FilterPolicy, HopperValues) {
  EXPECT_EQ(filter_hopper.single_pass, (launch_shape{512, 32, 3}));
  EXPECT_EQ(filter_hopper.three_phase, (launch_shape{256, 16}));
  EXPECT_EQ(single_pass_threads, 512);
  EXPECT_EQ(single_pass_min_blocks, 3);
  EXPECT_EQ(single_pass_tile_bytes, 65536);
  EXPECT_EQ(single_pass_chunks, 4);
  EXPECT_EQ(single_pass_sparse_rounds, 4);
  EXPECT_EQ(single_pass_lookback_wait_ns, 1130u);
  EXPECT_EQ(filter_block_threads, 256);
  EXPECT_EQ(three_phase_block_items, 4096);
  EXPECT_EQ(single_pass_tile_items(1), 16384);
  EXPECT_EQ(single_pass_tile_items(4), 16384);
  EXPECT_EQ(single_pass_tile_items(8), 8192);
}

}  // namespace
}  // namespace kselect::detail
