// The multiselection pre-pass (bin_reduce_driver): on continuous inputs it runs
// and keeps the answers exact; on few distinct values and clusters too, through
// its dense ranges (ranks on a repeated value answered without a copy); a copy
// larger than its buffer sends the call to the general driver, exactly. The
// device builds the same bin map as the host, and the finish takes each of its
// paths (counting, block sort, histogram rounds, a single value) exactly.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <vector>

#include "common/common.hpp"
#include "common/device_data.cuh"
#include "cuda/dispatch/bin_reduce_dispatch.cuh"
#include "cuda/gpu_test_util.cuh"
#include "kselect/device.hpp"
#include "core/bin_intervals.hpp"
#include "core/bin_reduction.hpp"
#include "core/prepass_speculation.hpp"
#include "core/sampling.hpp"

namespace kselect::test {
namespace {

// Runs the pre-pass driver on `host` (past its first `skip` keys: skip 1 of
// 8-byte keys is not 16-byte aligned) for `ranks`, checks every answer, and says
// whether the pre-pass ran to the end. capacity > 0 shrinks its copy buffer.
// Where it ran, the filter's pre-key intervals are the host's for the device's
// map and selected bins (core::selected_bin_intervals), or none where the keys
// were tagged with their bins; *intervals gets their count, *state the
// pre-pass's final state.
template <class T>
bool run_prepass(const std::vector<T>& all, std::span<const std::int64_t> ranks, std::int64_t capacity = 0,
                 std::uint32_t* intervals = nullptr, cuda::bin_prepass_state* state = nullptr,
                 std::int64_t skip = 0) {
  using K = core::key_t<T>;
  const std::vector<T> host(all.begin() + skip, all.end());
  const auto n = static_cast<std::int64_t>(host.size());
  device_buffer<T> stored(all);
  const T* data = stored.data() + skip;
  const cuda::tuning::policy* policy = nullptr;
  cuda_check(cuda::current_policy(policy), "policy");
  cuda::workspace_layout layout =
      cuda::plan_workspace<K>(n, static_cast<std::int64_t>(ranks.size()), algorithm::automatic, *policy);
  EXPECT_GT(layout.prepass_capacity, 0);
  if (capacity > 0) layout.prepass_capacity = capacity;  // the regions stay as carved: only smaller
  device_buffer<char> ws(layout.total);
  device_buffer<T> out(ranks.size());
  cuda_check(cudaMemset(ws.data(), 0xA5, layout.total), "poison workspace");
  cuda::bin_reduce_driver<T> driver(data, n, ranks.data(), static_cast<std::int64_t>(ranks.size()),
                                           out.data(), nullptr, device::select_config{}, ws.data(), layout);
  EXPECT_EQ(driver.run(), cudaSuccess) << device::last_error_message();
  cuda_check(cudaDeviceSynchronize(), "sync");
  const std::vector<T> expected = reference_multiselect<T>(host, ranks);
  const std::vector<T> got = out.to_host();
  for (std::size_t i = 0; i < ranks.size(); ++i)
    EXPECT_TRUE(same_value(expected[i], got[i])) << "rank " << ranks[i] << ": expected " << +expected[i]
                                                 << ", got " << +got[i];
  if (!driver.used_prepass()) return false;
  core::bin_map<K> map{};
  std::vector<std::uint32_t> selected(core::bin_map_max_bins / 32);
  core::bin_intervals<K> got_iv{};
  cuda_check(cudaMemcpy(&map, ws.data() + layout.pre_map, sizeof map, cudaMemcpyDeviceToHost), "map");
  cuda_check(cudaMemcpy(selected.data(), ws.data() + layout.pre_selected, selected.size() * sizeof(std::uint32_t),
                        cudaMemcpyDeviceToHost),
             "selected bins");
  cuda_check(cudaMemcpy(&got_iv, ws.data() + layout.pre_intervals, sizeof got_iv, cudaMemcpyDeviceToHost),
             "intervals");
  cuda::bin_prepass_state got_state{};
  cuda_check(cudaMemcpy(&got_state, ws.data() + layout.pre_state, sizeof got_state, cudaMemcpyDeviceToHost), "state");
  const core::bin_intervals<K> expected_iv =
      got_state.tagged != 0 ? core::bin_intervals<K>{} : core::selected_bin_intervals(map, selected.data());
  EXPECT_EQ(got_iv.count, expected_iv.count);
  for (std::uint32_t i = 0; i < std::min(got_iv.count, expected_iv.count); ++i) {
    EXPECT_EQ(got_iv.first[i], expected_iv.first[i]) << "interval " << i;
    EXPECT_EQ(got_iv.last[i], expected_iv.last[i]) << "interval " << i;
  }
  if (intervals != nullptr) *intervals = got_iv.count;
  if (state != nullptr) *state = got_state;
  return true;
}

std::vector<std::int64_t> percentile_ranks(std::int64_t n) {
  std::vector<std::int64_t> r;
  for (int i = 0; i <= 100; ++i) r.push_back(static_cast<std::int64_t>(i * (n - 1) / 100));
  return r;
}

template <class T>
void every_distribution() {
  const std::int64_t n = (std::int64_t(1) << 21) + 5;
  const std::vector<std::int64_t> pct = percentile_ranks(n);
  const std::vector<std::int64_t> random = standard_ranks(n, 500, 77);  // the pre-pass takes up to 512
  for (dist d : all_dists()) {
    SCOPED_TRACE(name(d));
    const std::vector<T> host = generate<T>(d, n, 31);
    const bool ran = run_prepass<T>(host, pct);
    run_prepass<T>(host, random);
    if (d == dist::uniform || d == dist::normal || d == dist::sorted || d == dist::reversed)
      EXPECT_TRUE(ran) << "the pre-pass should run on continuous input";
    if (d == dist::all_equal || d == dist::two_values || d == dist::sixteen_values || d == dist::clustered)
      EXPECT_TRUE(ran) << "few distinct values and clusters get dense ranges: the pre-pass should run";
    if (::testing::Test::HasFailure()) return;
  }
}

TEST(GpuBinReduce, EveryDistributionFloat) { every_distribution<float>(); }
TEST(GpuBinReduce, EveryDistributionDouble) { every_distribution<double>(); }
TEST(GpuBinReduce, EveryDistributionInt32) { every_distribution<std::int32_t>(); }
TEST(GpuBinReduce, EveryDistributionUint64) { every_distribution<std::uint64_t>(); }

TEST(GpuBinReduce, CopyLargerThanItsBufferFallsBack) {
  const std::int64_t n = (std::int64_t(1) << 20) + 1;
  const std::vector<float> host = generate<float>(dist::uniform, n, 4);
  EXPECT_FALSE(run_prepass<float>(host, percentile_ranks(n), 64));
}

// bin_map_kernel builds, from the sample it draws, the map the host builds from
// the same sample (core::build_bin_map), and predicts as the host does.
template <class T>
void device_map_matches_host(dist d) {
  using K = core::key_t<T>;
  using kt = core::key_traits<T>;
  const std::int64_t n = (std::int64_t(1) << 20) + 3;
  const std::uint64_t seed = 99;
  const std::vector<T> host = generate<T>(d, n, 8);
  const std::vector<std::int64_t> ranks = percentile_ranks(n);
  device_buffer<T> data(host);
  device_buffer<std::int64_t> d_ranks(ranks);
  device_buffer<core::bin_map<K>> d_map(1);
  device_buffer<cuda::bin_prepass_state> d_state(1);
  device_buffer<unsigned long long> d_hist(core::bin_map_max_bins + 1);
  const cuda::tuning::policy* policy = nullptr;
  cuda_check(cuda::current_policy(policy), "policy");
  const auto max_predicted = static_cast<std::int64_t>(4096 * policy->prepass.max_predicted);
  cuda::bin_map_kernel<T><<<1, cuda::bin_map_threads>>>(data.data(), n, seed, d_ranks.data(),
                                             static_cast<std::int64_t>(ranks.size()), max_predicted, true,
                                             d_map.data(), d_state.data(), d_hist.data(),
                                             d_hist.data() + core::bin_map_max_bins);
  cuda_check(cudaGetLastError(), "bin_map_kernel launch");
  cuda_check(cudaDeviceSynchronize(), "bin_map_kernel");
  std::vector<K> sample;
  for (std::int64_t j = 0; j < 4096; ++j)
    sample.push_back(kt::pre_key_first(kt::to_key(host[static_cast<std::size_t>(core::sample_position(j, 4096, n, seed))])));
  std::sort(sample.begin(), sample.end());
  const auto r = static_cast<std::int64_t>(ranks.size());
  const core::bin_map<K> expected =
      core::build_bin_map_for_ranks<T>(sample.data(), 4096, cuda::tuning::bin_target, ranks.data(), r, n);
  const core::bin_map<K> got = d_map.to_host()[0];
  EXPECT_EQ(std::memcmp(&expected, &got, sizeof expected), 0)
      << "num_bins " << expected.num_bins << " vs " << got.num_bins << ", dense ranges " << expected.num_dense
      << " vs " << got.num_dense;
  std::vector<std::uint32_t> sample_bins;
  for (K p : sample) sample_bins.push_back(core::bin_of(expected, p));
  std::int64_t predicted = 0;
  for (std::int64_t k = 0; k < r; ++k)
    predicted += core::predicted_sample_keys(expected, sample_bins.data(), 4096, ranks.data(), k, n);
  const cuda::bin_prepass_state state = d_state.to_host()[0];
  EXPECT_EQ(state.proceed, predicted <= max_predicted ? 1 : 0);
  std::uint32_t spec_first = 0, spec_span = 0;
  const std::int64_t held =
      core::plan_speculation(expected, sample_bins.data(), 4096, ranks.data(), r, n, &spec_first, &spec_span);
  EXPECT_EQ(state.spec_first, spec_first);
  EXPECT_EQ(state.spec_span, spec_span);
  EXPECT_EQ(state.spec_expected, held * n / 4096);
  EXPECT_EQ(state.tagged, cuda::tuning::bin_tags<K> && predicted > 0 && spec_span == core::no_speculation ? 1u : 0u);
}

TEST(GpuBinReduce, DeviceMapMatchesHost) {
  for (dist d : all_dists()) {
    SCOPED_TRACE(name(d));
    device_map_matches_host<float>(d);
    device_map_matches_host<double>(d);
    device_map_matches_host<std::int32_t>(d);
    device_map_matches_host<std::uint64_t>(d);
    if (::testing::Test::HasFailure()) return;
  }
}

// The finish's paths: ~256 keys per region (counting), ~2048 (block sort),
// ~8192 (a histogram round first); consecutive ranks share regions; a value
// repeated in 1% of the keys leaves a bucket of one value.
TEST(GpuBinReduce, FinishPaths) {
  for (int lg : {21, 24, 26}) {
    SCOPED_TRACE("n = 2^" + std::to_string(lg));
    const std::int64_t n = std::int64_t(1) << lg;
    std::vector<float> host = generate<float>(dist::uniform, n, 12);
    std::vector<std::int64_t> ranks = percentile_ranks(n);
    EXPECT_TRUE(run_prepass<float>(host, ranks));
    std::vector<std::int64_t> run;  // 500 consecutive ranks around the median, and the extremes
    run.push_back(0);
    for (std::int64_t r = n / 2 - 250; r < n / 2 + 250; ++r) run.push_back(r);
    run.push_back(n - 1);
    EXPECT_TRUE(run_prepass<float>(host, run));
    for (std::int64_t i = 0; i < n; i += 100) host[static_cast<std::size_t>(i)] = host[0];
    std::vector<float> sorted = host;
    std::sort(sorted.begin(), sorted.end());
    const auto first = std::lower_bound(sorted.begin(), sorted.end(), host[0]) - sorted.begin();
    const auto last = std::upper_bound(sorted.begin(), sorted.end(), host[0]) - sorted.begin() - 1;
    std::vector<std::int64_t> at_run = {0, first - 1, first, (first + last) / 2, last, last + 1, n - 1};
    std::erase_if(at_run, [n](std::int64_t r) { return r < 0 || r >= n; });
    std::sort(at_run.begin(), at_run.end());
    at_run.erase(std::unique(at_run.begin(), at_run.end()), at_run.end());
    run_prepass<float>(host, at_run);
    if (::testing::Test::HasFailure()) return;
  }
  const std::int64_t n = std::int64_t(1) << 24;
  EXPECT_TRUE(run_prepass<double>(generate<double>(dist::normal, n, 13), percentile_ranks(n)));
}

// Dense ranges on the device: runs of +0.0 and -0.0 (one key, two pre-keys), a
// repeated ordinary value, NaNs, and a cluster of 40 adjacent values among
// continuous keys; ranks at every run's edges and the percentiles. Every answer
// exact, and the pre-pass runs to the end.
template <class T>
void dense_ranges_on_device() {
  const std::int64_t n = (std::int64_t(1) << 21) + 3;
  std::vector<T> host = generate<T>(dist::uniform, n, 41);
  for (std::int64_t i = 0; i < n; ++i) {
    const std::int64_t m = (i * 7919) % 100;
    T& x = host[static_cast<std::size_t>(i)];
    if (m < 25) x = T(0);
    else if (m < 35) x = -T(0);
    else if (m < 50) x = T(1.5);
    else if (m < 55) x = std::numeric_limits<T>::quiet_NaN();
    else if (m < 70) x = T(3) + T(i % 40) * (std::numeric_limits<T>::epsilon() * T(2));  // 40 adjacent values
  }
  std::vector<T> sorted = host;
  std::sort(sorted.begin(), sorted.end(), [](T a, T b) { return core::key_traits<T>::to_key(a) < core::key_traits<T>::to_key(b); });
  std::vector<std::int64_t> ranks = percentile_ranks(n);
  for (T v : {T(0), T(1.5), T(3), std::numeric_limits<T>::quiet_NaN()}) {
    const auto key = core::key_traits<T>::to_key(v);
    const auto less = [](T a, core::key_t<T> k) { return core::key_traits<T>::to_key(a) < k; };
    const auto first = std::lower_bound(sorted.begin(), sorted.end(), key, less) - sorted.begin();
    for (std::int64_t r : {first - 1, first, first + 1}) ranks.push_back(r);
  }
  std::erase_if(ranks, [n](std::int64_t r) { return r < 0 || r >= n; });
  std::sort(ranks.begin(), ranks.end());
  ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
  EXPECT_TRUE(run_prepass<T>(host, ranks)) << "the dense ranges should keep the copy small";
}

TEST(GpuBinReduce, DenseRangesFloat) { dense_ranges_on_device<float>(); }
TEST(GpuBinReduce, DenseRangesDouble) { dense_ranges_on_device<double>(); }

// 64 narrow clusters (c * 1000 + [0, 1e-3)), as the benchmarks' "clustered":
// 101 percentiles hit 63 of them, each of a few distinct floats (the one at 0 is
// continuous), so the map needs more than 63 dense ranges; exact, and in floats
// the pre-pass runs to the end, its filter testing pre-key intervals.
TEST(GpuBinReduce, SixtyFourClusters) {
  const std::int64_t n = (std::int64_t(1) << 22) + 3;
  std::vector<float> f;
  std::vector<double> d;
  for (std::int64_t i = 0; i < n; ++i) {
    const std::uint64_t h = core::mix64(0x5eedull ^ static_cast<std::uint64_t>(i));
    const double v = narrow_cluster_key(h);
    f.push_back(static_cast<float>(v));
    d.push_back(v);
  }
  const std::vector<std::int64_t> ranks = percentile_ranks(n);
  std::uint32_t intervals = 0;
  EXPECT_TRUE(run_prepass<float>(f, ranks, 0, &intervals)) << "63 dense ranges should keep the copy small";
  EXPECT_GT(intervals, 0u) << "the filter should test the few copied bins as pre-key intervals";
  run_prepass<double>(d, ranks);
}

// The count pass's copy (core/prepass_speculation.hpp) on a continuous cluster
// in [-0.001, 0.001) and 63 single values 1000, 2000, ...: 101 percentiles need a
// copy for ranks 0 and 1 only. (The negative keys make the map's slots span all
// 2^32 pre-keys, so 8 ranges start in the top slots and the count pass takes its
// searched loop, which copies, whatever the sample.) Shuffled keys: the copy
// serves the filter. The same keys with the cluster first, and slices of 13
// slots, room enough for twice what the sample expects but not for a whole tile
// of the cluster (a thread's 16 keys): some slice overflows, and the filter reads
// the input. Exact both ways.
TEST(GpuBinReduce, CountPassCopiesTheRunOfRanks) {
  const std::int64_t n = std::int64_t(1) << 25;
  std::vector<float> f;
  for (std::int64_t i = 0; i < n; ++i) {
    const std::uint64_t h = core::mix64(0xc0feull ^ static_cast<std::uint64_t>(i));
    f.push_back(h % 64 == 0 ? static_cast<float>((static_cast<double>(h >> 11) * 0x1.0p-52 - 1.0) * 1e-3)
                            : static_cast<float>(h % 64) * 1000.0f);
  }
  const std::vector<std::int64_t> ranks = percentile_ranks(n);
  cuda::bin_prepass_state state{};
  std::uint32_t intervals = 0;
  ASSERT_TRUE(run_prepass<float>(f, ranks, 0, &intervals, &state));
  EXPECT_GT(intervals, 0u);
  EXPECT_NE(state.spec_span, core::no_speculation) << "ranks 0 and 1 need a copy, in the cluster at 0";
  EXPECT_GT(state.spec_slice, 0) << "the slices have room";
  EXPECT_EQ(state.spec_ok, 1u) << "the copy should hold the selected bins";
  const long long slices = state.spec_slices;
  ASSERT_LE(state.spec_expected * 2, 12 * slices) << "slices of 13 slots should be used";
  std::stable_partition(f.begin(), f.end(), [](float x) { return x < 1.0f; });
  ASSERT_TRUE(run_prepass<float>(f, ranks, 13 * slices, &intervals, &state));
  EXPECT_EQ(state.spec_slice, 13) << "expected " << state.spec_expected << " keys in " << slices << " slices";
  EXPECT_EQ(state.spec_overflow, 1u);
  EXPECT_EQ(state.spec_ok, 0u);
}

// 8-byte keys tagged with their bins by the count pass: the filter copies the
// selected bins' keys through the tags, in the order of the count pass's walk
// (16-byte vectors in full tiles of aligned input, one key at a time otherwise,
// and in the partial last tile: 4095 keys here, about 100 of them copied).
// Continuous keys and the 64 narrow clusters, aligned and not; exact, tagged,
// and no intervals.
TEST(GpuBinReduce, TaggedFilter) {
  if constexpr (!cuda::tuning::bin_tags<std::uint64_t>) GTEST_SKIP() << "8-byte keys take no tags";
  const std::int64_t n = (std::int64_t(1) << 21) + 4095;
  std::vector<double> clusters;
  for (std::int64_t i = 0; i <= n; ++i) {
    const std::uint64_t h = core::mix64(0x7a95ull ^ static_cast<std::uint64_t>(i));
    clusters.push_back(narrow_cluster_key(h));
  }
  const std::vector<double> normal = generate<double>(dist::normal, n + 1, 21);
  const std::vector<std::int64_t> ranks = percentile_ranks(n);
  for (const std::vector<double>* keys : {&normal, static_cast<const std::vector<double>*>(&clusters)}) {
    for (std::int64_t skip : {std::int64_t{0}, std::int64_t{1}}) {
      SCOPED_TRACE(::testing::Message() << (keys == &normal ? "normal" : "clusters") << ", skip " << skip);
      cuda::bin_prepass_state state{};
      std::uint32_t intervals = 1;
      ASSERT_TRUE(run_prepass<double>(*keys, ranks, 0, &intervals, &state, skip));
      EXPECT_EQ(state.tagged, 1u);
      EXPECT_EQ(intervals, 0u);
      EXPECT_GT(state.kept, 0u);
    }
  }
  std::vector<std::int64_t> v(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i)
    v[static_cast<std::size_t>(i)] = static_cast<std::int64_t>(core::mix64(static_cast<std::uint64_t>(i)));
  cuda::bin_prepass_state state{};
  ASSERT_TRUE(run_prepass<std::int64_t>(v, ranks, 0, nullptr, &state));
  EXPECT_EQ(state.tagged, 1u);
}

// Not 16-byte aligned: the passes load one key at a time.
TEST(GpuBinReduce, UnalignedInput) {
  const std::int64_t n = (std::int64_t(1) << 20) + 7;
  const std::vector<float> host = generate<float>(dist::normal, n + 1, 6);
  device_buffer<float> data(host);
  const std::vector<float> tail(host.begin() + 1, host.end());
  const std::vector<std::int64_t> ranks = percentile_ranks(n);
  const std::vector<float> got = gpu_multiselect<float>(data.data() + 1, n, ranks, algorithm::automatic);
  const std::vector<float> expected = reference_multiselect<float>(tail, ranks);
  for (std::size_t i = 0; i < ranks.size(); ++i) ASSERT_TRUE(same_value(expected[i], got[i])) << "rank " << ranks[i];
}

}  // namespace
}  // namespace kselect::test
