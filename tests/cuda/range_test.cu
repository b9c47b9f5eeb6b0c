// Top-k and rank ranges on the GPU (device::topk, topk_pairs, rank_range, and
// their stream-ordered forms topk_async, topk_pairs_async, rank_range_async),
// against the stable-sort reference of tests/common/range_reference.hpp with the
// tie-aware checks of range_check.hpp: every distribution and key type, the
// DEVELOPERS.md sizes, k in {0, 1, 32, 1000, n/2, n-1, n}, both directions, every
// output mode; the exact path (heavy ties), determinism from run to run, paired
// payloads, bad arguments, and an input of more than 2^31 keys.
#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

#include "common/common.hpp"
#include "common/device_data.cuh"
#include "common/graph_replay.cuh"
#include "common/range_check.hpp"
#include "common/sizes.hpp"
#include "cuda/dispatch/range_dispatch.cuh"
#include "cuda/range_hooks.hpp"
#include "kselect/device.hpp"

namespace kselect::test {
namespace {

/// How a call asks for its output.
struct mode {
  bool sorted = false, deterministic = false;
  int index_bytes = 8;  ///< 0: keys only, 4: int32_t, 8: int64_t
  /// Deterministic unsorted output's ordering forced (through
  /// cuda::range_select_ordered), or the library's choice.
  cuda::range_order_method order = cuda::range_order_method::automatic;
  /// The *_async entry points (topk_async, rank_range_async).
  bool stream_ordered = false;
};

struct range_output {
  std::vector<std::int64_t> indices;  ///< empty when not asked for
  bool ok = false;
  std::int32_t status = -1;  ///< the stream-ordered call's status word (else -1)
};

/// The stream-ordered call of gpu_range: topk_async for the largest or lo = 0,
/// else rank_range_async; the indices asked for by md.index_bytes.
template <class T>
cudaError_t call_async(void* ws, std::size_t& bytes, const T* d_in, std::int64_t n, std::int64_t lo, std::int64_t hi,
                       bool largest, const mode& md, const device::topk_config& cfg, T* out, std::int32_t* idx32,
                       std::int64_t* idx64, std::int32_t* status, cudaStream_t stream) {
  if (largest || lo == 0) {
    const std::int64_t k = hi - lo;
    if (md.index_bytes == 4) return device::topk_async(ws, bytes, d_in, out, idx32, status, n, k, stream, cfg);
    if (md.index_bytes == 8) return device::topk_async(ws, bytes, d_in, out, idx64, status, n, k, stream, cfg);
    return device::topk_async(ws, bytes, d_in, out, status, n, k, stream, cfg);
  }
  if (md.index_bytes == 4) return device::rank_range_async(ws, bytes, d_in, out, idx32, status, n, lo, hi, stream, cfg);
  if (md.index_bytes == 8) return device::rank_range_async(ws, bytes, d_in, out, idx64, status, n, lo, hi, stream, cfg);
  return device::rank_range_async(ws, bytes, d_in, out, static_cast<std::int64_t*>(nullptr), status, n, lo, hi,
                                  stream, cfg);
}

/// Runs device::rank_range / topk the way a user does (workspace query, poisoned
/// workspace and output, a non-default stream); values into `values`.
template <class T>
range_output gpu_range(const T* d_in, std::int64_t n, std::int64_t lo, std::int64_t hi, bool largest, mode md,
                       std::vector<T>& values) {
  cudaStream_t stream;
  cuda_check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "stream");
  device::topk_config cfg;
  cfg.largest = largest;
  cfg.sorted = md.sorted;
  cfg.deterministic = md.deterministic;
  const std::int64_t m = hi - lo;
  device_buffer<T> out(static_cast<std::size_t>(m));
  device_buffer<std::int32_t> idx32(md.index_bytes == 4 ? static_cast<std::size_t>(m) : 0);
  device_buffer<std::int64_t> idx64(md.index_bytes == 8 ? static_cast<std::size_t>(m) : 0);
  device_buffer<std::int32_t> status(1);
  auto call = [&](void* ws, std::size_t& bytes) -> cudaError_t {
    if (md.stream_ordered) return call_async(ws, bytes, d_in, n, lo, hi, largest, md, cfg, out.data(), idx32.data(),
                                             idx64.data(), status.data(), stream);
    if (md.order != cuda::range_order_method::automatic) {
      kselect::detail::range_request req;
      req.lo = largest ? 0 : lo;
      req.hi = largest ? m : hi;
      req.descending = largest;
      req.index_bytes = md.index_bytes;
      req.indices_out = md.index_bytes == 4 ? static_cast<void*>(idx32.data())
                                            : (md.index_bytes == 8 ? static_cast<void*>(idx64.data()) : nullptr);
      return cuda::range_select_ordered(ws, bytes, d_in, out.data(), n, req, md.order, stream, cfg);
    }
    if (largest || lo == 0) {  // top-k (the only way to ask for the largest)
      const std::int64_t k = largest ? m : hi;
      if (md.index_bytes == 4) return device::topk(ws, bytes, d_in, out.data(), idx32.data(), n, k, stream, cfg);
      if (md.index_bytes == 8) return device::topk(ws, bytes, d_in, out.data(), idx64.data(), n, k, stream, cfg);
      return device::topk(ws, bytes, d_in, out.data(), n, k, stream, cfg);
    }
    if (md.index_bytes == 4)
      return device::rank_range(ws, bytes, d_in, out.data(), idx32.data(), n, lo, hi, stream, cfg);
    if (md.index_bytes == 8)
      return device::rank_range(ws, bytes, d_in, out.data(), idx64.data(), n, lo, hi, stream, cfg);
    return device::rank_range(ws, bytes, d_in, out.data(), nullptr, n, lo, hi, stream, cfg);
  };
  range_output r;
  std::size_t bytes = 0;
  cudaError_t st = call(nullptr, bytes);
  EXPECT_EQ(st, cudaSuccess) << device::last_error_message();
  device_buffer<char> ws(bytes);
  cuda_check(cudaMemsetAsync(ws.data(), 0xA5, bytes, stream), "poison workspace");
  if (m) cuda_check(cudaMemsetAsync(out.data(), 0x5A, m * sizeof(T), stream), "poison output");
  st = call(ws.data(), bytes);
  EXPECT_EQ(st, cudaSuccess) << device::last_error_message();
  cuda_check(cudaStreamSynchronize(stream), "sync");
  cuda_check(cudaStreamDestroy(stream), "stream destroy");
  values = out.to_host();
  if (md.index_bytes == 4) {
    const std::vector<std::int32_t> i32 = idx32.to_host();
    r.indices.assign(i32.begin(), i32.end());
  } else if (md.index_bytes == 8) {
    r.indices = idx64.to_host();
  }
  r.ok = st == cudaSuccess;
  if (md.stream_ordered && m > 0) {
    const std::int32_t word = status.to_host()[0];
    EXPECT_TRUE(word == device::async_answered || word == device::async_fell_back) << "status " << word;
    r.ok = r.ok && (word == device::async_answered || word == device::async_fell_back);
    r.status = word;
  }
  return r;
}

/// What range_driver, run directly, reports of a call (the tests that assert
/// which path it took).
struct driver_output {
  std::vector<std::int64_t> indices;
  bool ok = false, exact = false, one_sort = false, tied_boundary = false, kept_ties = false,
       took_candidates = false, cut = false;
  core::range_counts counts;
};

/// Runs range_driver on positions [lo, hi) of d_in (int64 indices, the
/// descending order if asked), as range_select does after its checks; values
/// into `values`. `tie_cut` false: without the cut from two sampled keys
/// (range_driver::try_tie_cut), so that the paths it would take over stay tested.
template <class T>
driver_output run_driver(const T* d_in, std::int64_t n, std::int64_t lo, std::int64_t hi, bool descending,
                         const device::topk_config& cfg, std::vector<T>& values, bool tie_cut = true) {
  kselect::detail::range_request req;
  req.lo = lo;
  req.hi = hi;
  req.descending = descending;
  const std::int64_t m = hi - lo;
  device_buffer<std::int64_t> idx(static_cast<std::size_t>(m));
  req.indices_out = idx.data();
  req.index_bytes = 8;
  driver_output r;
  cuda::range_layout layout;
  const cudaError_t planned = cuda::plan_range_layout<T>(n, req, cfg, layout);
  EXPECT_EQ(planned, cudaSuccess);
  if (planned != cudaSuccess) return r;
  layout.tie_cut = layout.tie_cut && tie_cut;  // (the selected cut shapes the layout: it stays)
  device_buffer<char> ws(layout.total);
  device_buffer<T> out(static_cast<std::size_t>(m));
  cuda::range_driver<T> driver(d_in, n, req, out.data(), nullptr, cfg, ws.data(), layout);
  const cudaError_t st = driver.run();
  EXPECT_EQ(st, cudaSuccess) << device::last_error_message();
  cuda_check(cudaDeviceSynchronize(), "sync");
  r.ok = st == cudaSuccess;
  r.exact = driver.took_exact_path();
  r.tied_boundary = driver.took_tied_boundary();
  r.kept_ties = driver.took_kept_ties();
  r.one_sort = driver.sorted_with_candidates();
  r.took_candidates = driver.took_candidates();
  r.cut = driver.took_cut();
  r.counts = driver.counts();
  values = out.to_host();
  r.indices = idx.to_host();
  return r;
}

/// gpu_range for the top-k [0, k) of `host` (on the device at d_in) in mode md,
/// checked against `order` (stable_order of host in the direction asked); `what`
/// names the case in a failure. The output, for the caller's further checks.
template <class T>
range_output checked_topk(const std::vector<T>& host, const T* d_in, std::span<const std::int64_t> order,
                          std::int64_t k, bool largest, const mode& md, const std::string& what) {
  const auto n = static_cast<std::int64_t>(host.size());
  std::vector<T> values;
  const range_output r = gpu_range(d_in, n, 0, k, largest, md, values);
  EXPECT_TRUE(r.ok) << what;
  EXPECT_TRUE(check_range_result(host.data(), n, order, 0, k, largest, md.sorted, md.deterministic, values.data(),
                                 r.indices.empty() ? nullptr : r.indices.data()))
      << what << ", k = " << k << " largest " << largest << " sorted " << md.sorted << " deterministic "
      << md.deterministic << " index bytes " << md.index_bytes;
  return r;
}

std::vector<std::int64_t> k_values(std::int64_t n) {
  std::vector<std::int64_t> ks;
  for (const std::int64_t k : {std::int64_t{0}, std::int64_t{1}, std::int64_t{32}, std::int64_t{1000}, n / 2, n - 1, n})
    if (k >= 0 && k <= n) ks.push_back(k);
  std::sort(ks.begin(), ks.end());
  ks.erase(std::unique(ks.begin(), ks.end()), ks.end());
  return ks;
}

const mode modes[] = {{false, false, 8}, {true, false, 4}, {false, true, 8}, {true, true, 0},
                      {false, false, 0}, {true, true, 8},  {false, true, 4}, {true, false, 8}};

/// One input: top-k smallest and largest for every k, and a few inner ranges,
/// each in a mode that rotates through `modes`.
template <class T>
void check_input(const std::vector<T>& host, const std::string& what, bool stream_ordered = false) {
  const auto n = static_cast<std::int64_t>(host.size());
  device_buffer<T> d(host);
  int turn = 0;
  for (const bool largest : {false, true}) {
    const std::vector<std::int64_t> order = stable_order(host.data(), n, largest);
    auto check = [&](std::int64_t lo, std::int64_t hi) {
      mode md = modes[turn++ % std::size(modes)];
      md.stream_ordered = stream_ordered;
      if (std::getenv("KSELECT_TEST_TRACE"))
        std::fprintf(stderr, "%s n=%lld [%lld, %lld) largest=%d sorted=%d det=%d idx=%d\n", what.c_str(),
                     static_cast<long long>(n), static_cast<long long>(lo), static_cast<long long>(hi), largest,
                     md.sorted, md.deterministic, md.index_bytes);
      std::vector<T> values;
      const range_output r = gpu_range(d.data(), n, lo, hi, largest, md, values);
      ASSERT_TRUE(r.ok);
      EXPECT_TRUE(check_range_result(host.data(), n, std::span<const std::int64_t>(order), lo, hi, largest, md.sorted,
                                     md.deterministic, values.data(), r.indices.empty() ? nullptr : r.indices.data()))
          << what << ", n = " << n << ", sorted " << md.sorted << ", deterministic " << md.deterministic
          << ", index bytes " << md.index_bytes;
    };
    for (const std::int64_t k : k_values(n)) check(0, k);
    if (!largest && n >= 4)
      for (const auto& [lo, hi] : {std::pair{n / 4, 3 * n / 4}, std::pair{std::int64_t{1}, n - 1},
                                   std::pair{n / 2, n / 2 + 1}, std::pair{n - 1, n}})
        check(lo, hi);
  }
}

template <class T>
void sweep(std::int64_t max_n, bool stream_ordered = false) {
  for (const dist d : all_dists())
    for (const std::int64_t n : test_sizes(max_n)) {
      if (n == 0) continue;
      check_input(generate<T>(d, n, 7 + static_cast<std::uint64_t>(n)), name(d), stream_ordered);
      if (::testing::Test::HasFailure()) return;
    }
}

TEST(RangeGpu, SweepFloat) { sweep<float>((1 << 17) + 1); }
TEST(RangeGpu, SweepDouble) { sweep<double>((1 << 17) + 1); }
TEST(RangeGpu, SweepInt32) { sweep<std::int32_t>(1 << 12); }
TEST(RangeGpu, SweepUint32) { sweep<std::uint32_t>(1 << 12); }
TEST(RangeGpu, SweepInt64) { sweep<std::int64_t>(1 << 12); }
TEST(RangeGpu, SweepUint64) { sweep<std::uint64_t>((1 << 17) + 1); }

// The stream-ordered forms (topk_async, rank_range_async) on the same sweep.
TEST(RangeGpuStreamOrdered, SweepFloat) { sweep<float>((1 << 17) + 1, true); }
TEST(RangeGpuStreamOrdered, SweepDouble) { sweep<double>(1 << 12, true); }
TEST(RangeGpuStreamOrdered, SweepInt32) { sweep<std::int32_t>(1 << 12, true); }
TEST(RangeGpuStreamOrdered, SweepUint32) { sweep<std::uint32_t>(1 << 12, true); }
TEST(RangeGpuStreamOrdered, SweepInt64) { sweep<std::int64_t>(1 << 12, true); }
TEST(RangeGpuStreamOrdered, SweepUint64) { sweep<std::uint64_t>((1 << 17) + 1, true); }

// Inputs where the sample windows run (above 2^16 keys) and the targets' k.
void check_large_inputs(bool stream_ordered) {
  for (const dist d : {dist::uniform, dist::normal, dist::sorted, dist::all_equal, dist::sixteen_values,
                       dist::clustered, dist::special}) {
    const std::int64_t n = (std::int64_t{1} << 22) + 3;
    const std::vector<float> host = generate<float>(d, n, 11);
    device_buffer<float> dev(host);
    for (const bool largest : {false, true}) {
      const std::vector<std::int64_t> order = stable_order(host.data(), n, largest);
      int turn = 0;
      for (const std::int64_t k : {std::int64_t{1024}, std::int64_t{1} << 20, n / 2, n / 3}) {
        mode md = modes[turn++ % std::size(modes)];
        md.stream_ordered = stream_ordered;
        checked_topk(host, dev.data(), order, k, largest, md, name(d));
      }
    }
  }
}
TEST(RangeGpu, LargeInputs) { check_large_inputs(false); }
TEST(RangeGpuStreamOrdered, LargeInputs) { check_large_inputs(true); }

// The stream-ordered top-k's one-pass path (choose_async_take: small k of
// a large input, ties in any order): its block answers where the windows hold
// the boundary and few candidates (the status word says answered); where ties
// at the boundary overflow its 16384 keys with one key (all equal, 16 values)
// the take with that key as the boundary answers (answered too). Both exact,
// both key widths (the block's two shapes).
template <class T>
void check_one_pass_topk() {
  const std::int64_t n = (std::int64_t{1} << 21) + 5;
  for (const dist d : {dist::uniform, dist::normal, dist::special, dist::clustered, dist::all_equal,
                       dist::sixteen_values}) {
    const std::vector<T> host = generate<T>(d, n, 13);
    device_buffer<T> dev(host);
    for (const bool largest : {false, true}) {
      const std::vector<std::int64_t> order = stable_order(host.data(), n, largest);
      for (const std::int64_t k : {std::int64_t{1}, std::int64_t{1000}, std::int64_t{4096}}) {
        ASSERT_EQ(cuda::choose_async_take(n, k, cuda::tuning::hopper), cuda::async_take::block);
        for (const int index_bytes : {0, 4, 8}) {
          mode md;
          md.index_bytes = index_bytes;
          md.stream_ordered = true;
          const range_output r = checked_topk(host, dev.data(), order, k, largest, md, name(d));
          if (d == dist::uniform || d == dist::normal || d == dist::all_equal || d == dist::sixteen_values)
            EXPECT_EQ(r.status, device::async_answered) << name(d) << " k = " << k;
        }
      }
    }
  }
}
TEST(RangeGpuStreamOrdered, OnePassTopkFloat) { check_one_pass_topk<float>(); }
TEST(RangeGpuStreamOrdered, OnePassTopkDouble) { check_one_pass_topk<double>(); }

// The one-pass path's grid finish (choose_async_take: more candidates expected
// than the block holds, at most n / 16): the exact descent over the candidates,
// then their write. It answers uniform and normal keys (status answered); all
// equal keys overflow its buffer with one key, which the take then uses as the
// boundary (answered too). Every answer exact, smallest and largest, both key
// widths, ranks near both ends of what it takes.
template <class T>
void check_grid_take_topk() {
  const std::int64_t n = (std::int64_t{1} << 21) + 5;
  for (const dist d : {dist::uniform, dist::normal, dist::special, dist::clustered, dist::sorted, dist::all_equal,
                       dist::sixteen_values}) {
    const std::vector<T> host = generate<T>(d, n, 17);
    device_buffer<T> dev(host);
    for (const bool largest : {false, true}) {
      const std::vector<std::int64_t> order = stable_order(host.data(), n, largest);
      for (const std::int64_t k : {std::int64_t{65536}, std::int64_t{1} << 18, n / 2}) {
        ASSERT_EQ(cuda::choose_async_take(n, k, cuda::tuning::hopper), cuda::async_take::grid) << k;
        for (const int index_bytes : {0, 4, 8}) {
          mode md;
          md.index_bytes = index_bytes;
          md.stream_ordered = true;
          md.sorted = index_bytes == 4;  // the output ordered after the grid finish too
          const range_output r = checked_topk(host, dev.data(), order, k, largest, md, name(d));
          if (d == dist::uniform || d == dist::normal)
            EXPECT_EQ(r.status, device::async_answered) << name(d) << " k = " << k;
          if (d == dist::all_equal) EXPECT_EQ(r.status, device::async_answered) << name(d) << " k = " << k;
        }
      }
    }
  }
}
TEST(RangeGpuStreamOrdered, GridTakeTopkFloat) { check_grid_take_topk<float>(); }
TEST(RangeGpuStreamOrdered, GridTakeTopkDouble) { check_grid_take_topk<double>(); }

// The one-pass path's misses, each answered exactly by the exact path behind it
// (status fell back): the grid finish's buffer forced down to 1000 slots, so
// that distinct keys overflow it (no tied boundary to take: the exact descent
// selects it); and keys 1 and 2 interleaved with k - 1 at the first 2 or the
// last 1, where a key the overflowing buffer holds throughout may be taken as
// the boundary and the take's counts refute it (or confirm it: answered).
template <class T>
void check_one_pass_misses() {
  const std::int64_t n = (std::int64_t{1} << 21) + 5, k = 65536;
  cudaStream_t stream;
  cuda_check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "stream");
  device_buffer<std::int32_t> status(1);
  auto run = [&](const std::vector<T>& host, std::int64_t kk, bool largest, std::int64_t grid_capacity) {
    device_buffer<T> dev(host);
    kselect::detail::range_request req;
    req.hi = kk;
    req.descending = largest;
    req.stream_ordered = true;
    req.status = status.data();
    device_buffer<std::int64_t> idx(static_cast<std::size_t>(kk));
    req.indices_out = idx.data();
    req.index_bytes = 8;
    const device::topk_config cfg;
    cuda::range_layout layout;
    EXPECT_EQ(cuda::plan_range_layout<T>(n, req, cfg, layout), cudaSuccess);
    if (grid_capacity > 0) {
      EXPECT_TRUE(layout.take_grid);
      layout.grid_capacity = std::min(layout.grid_capacity, grid_capacity);  // its buffers stay as planned
    }
    device_buffer<char> ws(layout.total);
    device_buffer<T> out(static_cast<std::size_t>(kk));
    cuda::range_driver<T> driver(dev.data(), n, req, out.data(), stream, cfg, ws.data(), layout);
    EXPECT_EQ(driver.run(), cudaSuccess) << device::last_error_message();
    cuda_check(cudaStreamSynchronize(stream), "sync");
    const std::vector<T> values = out.to_host();
    const std::vector<std::int64_t> indices = idx.to_host();
    EXPECT_TRUE(check_range_result(host.data(), n, 0, kk, largest, false, false, values.data(), indices.data()));
    return status.to_host()[0];
  };
  for (const bool largest : {false, true}) {
    SCOPED_TRACE(largest ? "largest" : "smallest");
    EXPECT_EQ(run(generate<T>(dist::uniform, n, 23), k, largest, 1000), device::async_fell_back);
    std::vector<T> two(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i) two[i] = static_cast<T>(1 + (i % 2));
    const std::int64_t ones = (n + 1) / 2;
    for (const std::int64_t kk : {ones, ones + 1}) {
      const std::int32_t s = run(two, kk, largest, 0);
      EXPECT_TRUE(s == device::async_answered || s == device::async_fell_back) << s;
    }
  }
  cudaStreamDestroy(stream);
}
TEST(RangeGpuStreamOrdered, OnePassMissesFloat) { check_one_pass_misses<float>(); }
TEST(RangeGpuStreamOrdered, OnePassMissesDouble) { check_one_pass_misses<double>(); }

// The driver's two paths: continuous data takes the fused pass; every key equal
// (all candidates at the boundary) takes the exact path; both exact.
TEST(RangeGpu, FastAndExactPaths) {
  for (const dist d : {dist::uniform, dist::all_equal, dist::two_values}) {
    const std::int64_t n = std::int64_t{1} << 20;
    const std::vector<double> host = generate<double>(d, n, 5);
    device_buffer<double> dev(host);
    device::topk_config cfg;
    cfg.deterministic = true;
    std::vector<double> values;
    const driver_output r = run_driver(dev.data(), n, n / 3, n / 3 + 5000, false, cfg, values);
    ASSERT_TRUE(r.ok);
    EXPECT_EQ(r.exact, d != dist::uniform) << name(d);
    // Every key is a candidate, far more than the buffer holds: those past it
    // are counted, not copied (range_pass_agent::cand_full).
    if (d == dist::all_equal) EXPECT_EQ(r.counts.cand, static_cast<std::uint64_t>(n));
    EXPECT_TRUE(check_range_result(host.data(), n, n / 3, n / 3 + 5000, false, false, true, values.data(),
                                   r.indices.data()))
        << name(d);
  }
}

// The synchronous top-k's exact path when ties may come in any order: where k
// fits candidate buffer 0 the take writes its ties there (nothing added to the
// workspace), else the count, scan and write. All equal keys force the exact
// path; both exact, both key widths.
/// The layout a synchronous top-k of k of n keys with int64 indices plans (an
/// empty one, after a failed expectation, where planning fails).
template <class T>
cuda::range_layout sync_topk_layout(std::int64_t n, std::int64_t k, const device::topk_config& cfg, void* indices) {
  kselect::detail::range_request req;
  req.hi = k;
  req.index_bytes = 8;
  req.indices_out = indices;  // only its presence matters to the layout
  cuda::range_layout layout;
  EXPECT_EQ(cuda::plan_range_layout<T>(n, req, cfg, layout), cudaSuccess);
  return layout;
}

template <class T>
void check_exact_take_workspace() {
  const std::int64_t n = std::int64_t{1} << 22;
  device::topk_config cfg;  // ties in any order
  for (const dist d : {dist::all_equal, dist::sixteen_values}) {
    const std::vector<T> host = generate<T>(d, n, 11);
    device_buffer<T> dev(host);
    for (const std::int64_t k : {std::int64_t{1000}, n / 2}) {
      const cuda::range_layout layout = sync_topk_layout<T>(n, k, cfg, dev.data());
      ASSERT_GT(layout.total, 0u);
      EXPECT_EQ(layout.take, k <= layout.cand_capacity) << name(d) << " k " << k;
      EXPECT_EQ(layout.take_capacity, layout.take ? k : 0);
      if (layout.take) {
        EXPECT_EQ(layout.take_vals, layout.cand_vals[0]);
        EXPECT_EQ(layout.take_idx, layout.cand_idx[0]);
      }
      std::vector<T> values;
      const driver_output r = run_driver(dev.data(), n, 0, k, false, cfg, values);
      ASSERT_TRUE(r.ok);
      // All equal keys overflow every window (16 values only where a value's run straddles k - 1).
      if (d == dist::all_equal) EXPECT_TRUE(r.exact) << name(d) << " k " << k;
      EXPECT_TRUE(
          check_range_result(host.data(), n, 0, k, false, false, false, values.data(), r.indices.data()))
          << name(d) << " k " << k;
    }
  }
}

TEST(RangeGpu, ExactTakeWorkspaceFloat) { check_exact_take_workspace<float>(); }
TEST(RangeGpu, ExactTakeWorkspaceDouble) { check_exact_take_workspace<double>(); }

// Heavy ties at a top-k's boundary (ties in any order): the window overflows and
// every key it copied is one key, which the take then uses as the boundary
// without the exact selection (take_tied_boundary), where the take fits the
// candidate buffer (else the count, scan and write); where the sample's window
// was that key alone (k <= 1024 here), level 0's own ties complete the output
// (take_kept_ties); continuous keys never do; all exact, smallest and largest.
TEST(RangeGpu, TiedBoundaryWithoutTheSelection) {
  const std::int64_t n = (std::int64_t{1} << 22) + 9;
  for (const dist d : {dist::all_equal, dist::sixteen_values, dist::two_values, dist::uniform}) {
    const std::vector<float> host = generate<float>(d, n, 17);
    device_buffer<float> dev(host);
    for (const bool descending : {false, true}) {
      for (const std::int64_t k : {std::int64_t{1}, std::int64_t{1024}, std::int64_t{1} << 18, n / 2}) {
        device::topk_config cfg;
        const cuda::range_layout layout = sync_topk_layout<float>(n, k, cfg, dev.data());
        ASSERT_GT(layout.total, 0u);
        std::vector<float> values;
        const driver_output r = run_driver(dev.data(), n, 0, k, descending, cfg, values);
        ASSERT_TRUE(r.ok);
        EXPECT_TRUE(check_range_result(host.data(), n, 0, k, descending, false, false, values.data(),
                                       r.indices.data()))
            << name(d) << " k = " << k << " descending " << descending;
        if (d == dist::uniform || !layout.take) EXPECT_FALSE(r.tied_boundary) << name(d) << " k = " << k;
        if (layout.take && (d == dist::all_equal || (d == dist::sixteen_values && k <= 1024)))
          EXPECT_TRUE(r.tied_boundary) << name(d) << " k = " << k << " descending " << descending;
        // The sample's window was the tied key alone: level 0's ties complete the output (one read).
        if (layout.take && (d == dist::all_equal || d == dist::sixteen_values) && k <= 1024)
          EXPECT_TRUE(r.kept_ties) << name(d) << " k = " << k << " descending " << descending;
        if (d == dist::uniform) EXPECT_FALSE(r.kept_ties);
      }
    }
  }
}

// The tie cut: a top-k whose position k - 1 lies where one value's run ends and
// the next begins (16 and 2 distinct values), at the edge itself, next to it and
// inside either run; both directions, every output mode (deterministic ones take
// the cut from the selected key), the driver (which path ran) and the public call
// (int32 indices and none). Where the two keys' counts refute the sample (the
// boundary among rare keys between them), the usual pass.
TEST(RangeGpu, TieCutTakesTheBoundaryRun) {
  const std::int64_t n = (std::int64_t{1} << 24) + 3;
  for (const dist d : {dist::sixteen_values, dist::two_values}) {
    const std::vector<float> host = generate<float>(d, n, 31);
    device_buffer<float> dev(host);
    int cuts = 0;
    for (const bool descending : {false, true}) {
      const std::vector<std::int64_t> order = stable_order(host.data(), n, descending);
      // The run edge nearest n/2 in this order: position p holds a key other
      // than position p - 1's.
      const auto is_edge = [&](std::int64_t p) { return host[order[p]] != host[order[p - 1]]; };
      std::int64_t up = n / 2, down = n / 2;
      while (up < n && !is_edge(up)) ++up;
      while (down > 1 && !is_edge(down)) --down;
      const std::int64_t edge = up < n && (up - n / 2 <= n / 2 - down || !is_edge(down)) ? up : down;
      ASSERT_TRUE(is_edge(edge)) << name(d);
      int turn = 0;
      for (const std::int64_t k : {edge, edge + 1, edge - 1, edge - 5000, edge + 5000, n / 2}) {
        const mode md = modes[turn++ % std::size(modes)];
        device::topk_config cfg;
        cfg.sorted = md.sorted;
        cfg.deterministic = md.deterministic;
        std::vector<float> values;
        const driver_output r = run_driver(dev.data(), n, 0, k, descending, cfg, values);
        ASSERT_TRUE(r.ok);
        SCOPED_TRACE(testing::Message() << name(d) << " k = " << k << " (edge " << edge << ") descending "
                                        << descending << " sorted " << md.sorted << " deterministic "
                                        << md.deterministic);
        EXPECT_TRUE(check_range_result(host.data(), n, std::span<const std::int64_t>(order), 0, k, descending,
                                       md.sorted, md.deterministic, values.data(), r.indices.data()));
        // The cut writes in input order: unsorted output comes out so, deterministic or not.
        if (r.cut && !md.sorted)
          EXPECT_TRUE(std::is_sorted(r.indices.begin(), r.indices.end()));
        cuts += r.cut;
        if (k == edge || k == edge + 1 || k == edge - 1) {
          for (const int index_bytes : {4, 0}) {
            mode pub = md;
            pub.index_bytes = index_bytes;
            std::vector<float> pub_values;
            const range_output p = gpu_range(dev.data(), n, 0, k, descending, pub, pub_values);
            ASSERT_TRUE(p.ok);
            EXPECT_TRUE(check_range_result(host.data(), n, std::span<const std::int64_t>(order), 0, k, descending,
                                           pub.sorted, pub.deterministic, pub_values.data(),
                                           p.indices.empty() ? nullptr : p.indices.data()))
                << "public call, index bytes " << index_bytes;
          }
        }
      }
    }
    // Next to a run's edge the sample's window holds both runs' keys.
    EXPECT_GE(cuts, 6) << name(d);
  }
  // Refuted: 7s, 64 keys of 7.5 at the edge, then 8s; k - 1 among the 7.5s, which
  // a 4096-key sample of 2^24 keys almost never holds.
  std::vector<float> host(static_cast<std::size_t>(n));
  std::uint64_t x = 17;
  for (auto& v : host) v = (x = core::mix64(x)) % 2 ? 7.0f : 8.0f;
  std::int64_t sevens = std::count(host.begin(), host.end(), 7.0f);
  for (std::int64_t i = 0, changed = 0; changed < 64; ++i)
    if (host[static_cast<std::size_t>(i)] == 8.0f) host[static_cast<std::size_t>(i)] = 7.5f, ++changed;
  device_buffer<float> dev(host);
  const std::vector<std::int64_t> order = stable_order(host.data(), n, false);
  for (const std::int64_t k : {sevens + 1, sevens + 32, sevens + 64, sevens + 65}) {
    device::topk_config cfg;
    std::vector<float> values;
    const driver_output r = run_driver(dev.data(), n, 0, k, false, cfg, values);
    ASSERT_TRUE(r.ok);
    EXPECT_TRUE(check_range_result(host.data(), n, std::span<const std::int64_t>(order), 0, k, false, false, false,
                                   values.data(), r.indices.data()))
        << "k = " << k;
    if (k <= sevens + 64) EXPECT_FALSE(r.cut) << "k = " << k;  // the boundary is 7.5: not one of the two keys
  }
}

// The cut from the selected boundary key: deterministic top-k of k >= n/4 on
// every distribution (ties at the boundary or not, NaN and signed zeros in
// `special`), sorted or not, both directions, int64 indices through the driver
// (which path ran) and int32 and none through the public call; the output comes
// in input order, or sorted with ties by index.
TEST(RangeGpu, SelectedCutForDeterministicOutput) {
  const std::int64_t n = (std::int64_t{1} << 20) + 7;
  for (const dist d : all_dists()) {
    const std::vector<float> host = generate<float>(d, n, 41);
    device_buffer<float> dev(host);
    for (const bool descending : {false, true}) {
      const std::vector<std::int64_t> order = stable_order(host.data(), n, descending);
      for (const std::int64_t k : {n / 4, n / 2 + 3, n - 1}) {
        for (const bool sorted : {false, true}) {
          device::topk_config cfg;
          cfg.sorted = sorted;
          cfg.deterministic = true;
          std::vector<float> values;
          const driver_output r = run_driver(dev.data(), n, 0, k, descending, cfg, values);
          ASSERT_TRUE(r.ok);
          SCOPED_TRACE(testing::Message() << name(d) << " k = " << k << " descending " << descending << " sorted "
                                          << sorted);
          EXPECT_TRUE(r.cut);
          EXPECT_TRUE(check_range_result(host.data(), n, std::span<const std::int64_t>(order), 0, k, descending,
                                         sorted, true, values.data(), r.indices.data()));
          if (!sorted) EXPECT_TRUE(std::is_sorted(r.indices.begin(), r.indices.end()));
        }
        for (const int index_bytes : {4, 0}) {
          mode md;
          md.deterministic = true;
          md.sorted = index_bytes == 0;
          md.index_bytes = index_bytes;
          std::vector<float> values;
          const range_output p = gpu_range(dev.data(), n, 0, k, descending, md, values);
          ASSERT_TRUE(p.ok);
          EXPECT_TRUE(check_range_result(host.data(), n, std::span<const std::int64_t>(order), 0, k, descending,
                                         md.sorted, true, values.data(),
                                         p.indices.empty() ? nullptr : p.indices.data()))
              << name(d) << " public call, index bytes " << index_bytes;
        }
      }
    }
  }
}

// Heavy ties among the last candidates (16 values, 2 values: a level no longer
// narrows a window of two values): a top-k whose ties may come in any order
// selects the candidates' boundary key and takes, instead of sorting them
// (take_candidates), from 2^20 candidates; smallest and largest, unsorted and
// sorted, int64 and int32 indices and none (deterministic output takes the cut
// from the selected key).
// Against the stable sort, tie-aware; without the cut from two keys, which would
// answer these calls first.
TEST(RangeGpu, TiedCandidatesTakenWithoutASort) {
  const std::int64_t n = (std::int64_t{1} << 24) + 3;
  for (const dist d : {dist::sixteen_values, dist::two_values}) {
    const std::vector<float> host = generate<float>(d, n, 29);
    device_buffer<float> dev(host);
    int taken = 0;
    for (const bool descending : {false, true}) {
      const std::vector<std::int64_t> order = stable_order(host.data(), n, descending);
      for (const std::int64_t k : {n / 2 + 12345, 3 * n / 8}) {
        for (const bool sorted : {false, true}) {
          for (const bool deterministic : {false, true}) {
            if (deterministic && (!sorted || k != 3 * n / 8)) continue;  // one deterministic case: it sorts
            device::topk_config cfg;
            cfg.sorted = sorted;
            cfg.deterministic = deterministic;
            std::vector<float> values;
            const driver_output r = run_driver(dev.data(), n, 0, k, descending, cfg, values, false);
            ASSERT_TRUE(r.ok);
            SCOPED_TRACE(testing::Message() << name(d) << " k = " << k << " descending " << descending << " sorted "
                                            << sorted << " deterministic " << deterministic);
            EXPECT_TRUE(check_range_result(host.data(), n, std::span<const std::int64_t>(order), 0, k, descending,
                                           sorted, deterministic, values.data(), r.indices.data()));
            if (deterministic) EXPECT_FALSE(r.took_candidates);
            taken += r.took_candidates;
          }
        }
      }
    }
    // Which k meet a level that no longer narrows depends on the sample; near n/2
    // of 16 values (a window of two values' runs) most calls do.
    if (d == dist::sixteen_values) EXPECT_GE(taken, 4);
    // The public call, int32 indices and none (the take writes the indices at the
    // output's offset in either width).
    for (const int index_bytes : {4, 0}) {
      std::vector<float> values;
      mode md;
      md.index_bytes = index_bytes;
      const range_output r = gpu_range(dev.data(), n, 0, n / 2 + 7, false, md, values);
      ASSERT_TRUE(r.ok);
      EXPECT_TRUE(check_range_result(host.data(), n, 0, n / 2 + 7, false, false, false, values.data(),
                                     r.indices.empty() ? nullptr : r.indices.data()))
          << name(d) << " index bytes " << index_bytes;
    }
  }
}

// Sorted output: where the output so far and the last candidates fit a
// candidate buffer (k = 2^15 of 2^22 here), one sort of both
// (sort_with_candidates); else (k = n/2: the output is larger than the buffer)
// the candidates' sort, then the output's. Both deterministic and not, top-k
// and an inner range (two windows), against the stable sort.
TEST(RangeGpu, SortedOutputWithAndWithoutTheCandidates) {
  const std::int64_t n = (std::int64_t{1} << 22) + 3;
  const std::vector<float> host = generate<float>(dist::uniform, n, 17);
  device_buffer<float> dev(host);
  const std::vector<std::int64_t> order = stable_order(host.data(), n, false);
  struct range_case {
    std::int64_t lo, hi;
    bool one_sort;
  };
  for (const range_case rc : {range_case{0, std::int64_t{1} << 15, true}, range_case{0, n / 2, false},
                              range_case{n / 2, n / 2 + 100000, true}}) {
    for (const bool deterministic : {false, true}) {
      device::topk_config cfg;
      cfg.sorted = true;
      cfg.deterministic = deterministic;
      std::vector<float> values;
      const driver_output r = run_driver(dev.data(), n, rc.lo, rc.hi, false, cfg, values);
      ASSERT_TRUE(r.ok);
      SCOPED_TRACE(testing::Message() << "[" << rc.lo << ", " << rc.hi << "), deterministic " << deterministic);
      EXPECT_FALSE(r.exact);
      EXPECT_EQ(r.one_sort, rc.one_sort);
      EXPECT_TRUE(check_range_result(host.data(), n, std::span<const std::int64_t>(order), rc.lo, rc.hi, false, true,
                                     deterministic, values.data(), r.indices.data()));
    }
  }
}

// Sorted output too large for the candidates' one sort takes its values from the
// sorted keys, and from the input only for the keys of several bit patterns
// (range_sorted_output_kernel): -0.0 beside +0.0, NaNs of both signs and payloads,
// infinities, denormals, in float and double, both directions, deterministic
// (input order first, then a stable key sort) and not, with int64 indices, int32
// and none; the bits checked against the input.
template <class T>
void check_sorted_output_bits() {
  const std::int64_t n = (std::int64_t{1} << 21) + 7;
  const std::vector<T> host = generate<T>(dist::special, n, 31);
  device_buffer<T> dev(host);
  for (const bool largest : {false, true}) {
    const std::vector<std::int64_t> order = stable_order(host.data(), n, largest);
    for (const std::int64_t k : {n / 2, n - 3}) {
      for (const bool deterministic : {false, true}) {
        for (const int index_bytes : {8, 4, 0}) {
          mode md;
          md.sorted = true;
          md.deterministic = deterministic;
          md.index_bytes = index_bytes;
          checked_topk(host, dev.data(), order, k, largest, md, "special");
        }
      }
    }
  }
}

TEST(RangeGpu, SortedOutputKeepsEveryBitPatternFloat) { check_sorted_output_bits<float>(); }
TEST(RangeGpu, SortedOutputKeepsEveryBitPatternDouble) { check_sorted_output_bits<double>(); }

// Deterministic ties after the candidates' sort by key alone
// (range_tie_kernels.cuh): integer keys of few distinct values, so the run of
// keys equal to an end's key straddles it among thousands of candidates (not
// the one-block finish): runs of ~64 and ~4096 keys, top-k at both ends of the
// order, an inner range whose both ends lie in one run, int32 and int64 keys
// (index ranks selected over 3 and 8 radix rounds: n is 2^22, int64 indices
// are 64 bits wide only in the kernel's loop bound), sorted and unsorted output;
// the fast path asserted, against the stable order exactly.
TEST(RangeGpu, DeterministicTiesAfterTheKeySort) {
  const std::int64_t n = (std::int64_t{1} << 22) + 9;
  for (const std::int64_t distinct : {std::int64_t{1} << 16, std::int64_t{1} << 10}) {
    std::vector<std::int32_t> host(static_cast<std::size_t>(n));
    std::mt19937_64 rng(static_cast<std::uint64_t>(distinct));
    for (auto& x : host) x = static_cast<std::int32_t>(rng() % distinct) - static_cast<std::int32_t>(distinct / 2);
    device_buffer<std::int32_t> dev(host);
    for (const bool largest : {false, true}) {
      const std::vector<std::int64_t> order = stable_order(host.data(), n, largest);
      struct range_case {
        std::int64_t lo, hi;
      };
      for (const range_case rc : {range_case{0, 100000}, range_case{0, n / 2}, range_case{n / 3, n / 3 + 7}}) {
        if (largest && rc.lo != 0) continue;
        for (const bool sorted : {false, true}) {
          device::topk_config cfg;
          cfg.sorted = sorted;
          cfg.deterministic = true;
          std::vector<std::int32_t> values;
          const driver_output r = run_driver(dev.data(), n, rc.lo, rc.hi, largest, cfg, values);
          ASSERT_TRUE(r.ok);
          SCOPED_TRACE(testing::Message() << distinct << " values, [" << rc.lo << ", " << rc.hi << ") largest "
                                          << largest << " sorted " << sorted);
          EXPECT_FALSE(r.exact);
          // (k = n/2 takes the cut from the selected key: no candidates.)
          if (!r.one_sort && !r.cut) EXPECT_GT(r.counts.cand, 4096u);
          EXPECT_EQ(r.cut, rc.lo == 0 && rc.hi == n / 2);
          EXPECT_TRUE(check_range_result(host.data(), n, std::span<const std::int64_t>(order), rc.lo, rc.hi, largest,
                                         sorted, true, values.data(), r.indices.data()));
        }
      }
    }
  }
}

// Deterministic unsorted output by bitmap (range_order_kernels.cuh): the
// level-0 pass's words from vector loads (aligned input) and from scalar loads
// (input one key off 16-byte alignment), sparse (most words skipped) and dense,
// later levels' keys and the pick marked after, ties; against the stable order
// exactly.
TEST(RangeGpu, DeterministicBitmapOrder) {
  for (const dist d : {dist::uniform, dist::sixteen_values, dist::clustered}) {
    const std::int64_t n = (std::int64_t{1} << 20) + 5;
    const std::vector<float> host = generate<float>(d, n, 23);
    device_buffer<float> dev(host);
    for (const std::int64_t skip : {0, 1}) {
      const std::int64_t size = n - skip;
      const std::vector<float> sub(host.begin() + skip, host.end());
      for (const bool largest : {false, true}) {
        const std::vector<std::int64_t> order = stable_order(sub.data(), size, largest);
        // size / 15: just above the bitmap's threshold (256 keys a 4096-key
        // tile); size / 2: dense, forced (the library's choice there is the cut
        // from the selected key). (Sparser bitmaps, most words skipped:
        // DeterministicBucketOrder forces them.)
        for (const std::int64_t k : {size / 15, size / 2}) {
          mode md{false, true, 4};
          md.order = k == size / 2 ? cuda::range_order_method::bitmap : cuda::range_order_method::automatic;
          kselect::detail::range_request req;
          req.hi = k;
          req.descending = largest;
          device::topk_config cfg;
          cfg.deterministic = true;
          cuda::range_layout layout;
          ASSERT_EQ(cuda::plan_range_layout<float>(size, req, cfg, layout, md.order), cudaSuccess);
          EXPECT_TRUE(layout.bitmap_order) << "k = " << k;
          checked_topk(sub, dev.data() + skip, order, k, largest, md, name(d) + " offset " + std::to_string(skip));
        }
      }
    }
  }
}

// Deterministic unsorted output by buckets (range_order_kernels.cuh), forced
// also where the library takes the bitmap: sparse and dense top-k, an inner
// range, all keys; ties (sixteen values), sorted and reversed input (runs of
// the output in one bucket, lanes of a warp adding to one counter), clustered;
// int32 and int64 indices and none. And the bitmap forced where the output is
// sparse. Against the stable order exactly.
TEST(RangeGpu, DeterministicBucketOrder) {
  using cuda::range_order_method;
  const std::int64_t n = (std::int64_t{1} << 20) + 3;
  for (const dist d : {dist::uniform, dist::sixteen_values, dist::sorted, dist::reversed, dist::clustered}) {
    const std::vector<float> host = generate<float>(d, n, 29);
    device_buffer<float> dev(host);
    for (const bool largest : {false, true}) {
      const std::vector<std::int64_t> order = stable_order(host.data(), n, largest);
      struct range_case {
        std::int64_t lo, hi;
        range_order_method method;
        int index_bytes;
      };
      const range_case cases[] = {{0, 1000, range_order_method::buckets, 4},
                                  {0, n / 60, range_order_method::buckets, 8},
                                  {0, n / 2, range_order_method::buckets, 0},
                                  {0, n, range_order_method::buckets, 4},
                                  {n / 3, n / 3 + 5000, range_order_method::buckets, 8},
                                  {0, 1000, range_order_method::bitmap, 8},
                                  {0, n / 200, range_order_method::bitmap, 4}};
      for (const range_case& rc : cases) {
        if (largest && rc.lo != 0) continue;  // only top-k asks for the largest
        const mode md{false, true, rc.index_bytes, rc.method};
        std::vector<float> values;
        const range_output r = gpu_range(dev.data(), n, rc.lo, rc.hi, largest, md, values);
        ASSERT_TRUE(r.ok);
        EXPECT_TRUE(check_range_result(host.data(), n, std::span<const std::int64_t>(order), rc.lo, rc.hi, largest,
                                       false, true, values.data(), r.indices.empty() ? nullptr : r.indices.data()))
            << name(d) << " [" << rc.lo << ", " << rc.hi << ") largest " << largest << " "
            << (rc.method == range_order_method::buckets ? "buckets" : "bitmap") << " index bytes " << rc.index_bytes;
      }
    }
  }
}

// Deterministic output is the same from run to run, bit for bit, with many ties.
TEST(RangeGpu, DeterministicRepeats) {
  const std::int64_t n = (std::int64_t{1} << 22) + 17;
  const std::vector<float> host = generate<float>(dist::sixteen_values, n, 3);
  device_buffer<float> dev(host);
  for (const bool sorted : {false, true}) {
    std::vector<float> first, again;
    const range_output a = gpu_range(dev.data(), n, 0, n / 3, true, {sorted, true, 8}, first);
    for (int run = 0; run < 3; ++run) {
      const range_output b = gpu_range(dev.data(), n, 0, n / 3, true, {sorted, true, 8}, again);
      EXPECT_EQ(a.indices, b.indices) << "run " << run;
      EXPECT_EQ(0, std::memcmp(first.data(), again.data(), first.size() * sizeof(float))) << "run " << run;
    }
  }
}

// topk_pairs carries any 4- or 8-byte payload: here the index itself, as uint32
// and as a two-float struct, so the payload can be checked as indices.
struct two_floats {
  float a, b;
};

/// topk_pairs, or topk_pairs_async (its status checked).
template <class V>
cudaError_t call_pairs(bool stream_ordered, void* ws, std::size_t& bytes, const float* keys, const V* vin,
                       float* out, V* vout, std::int64_t n, std::int64_t k, const device::topk_config& cfg) {
  if (!stream_ordered) return device::topk_pairs(ws, bytes, keys, vin, out, vout, n, k, nullptr, cfg);
  device_buffer<std::int32_t> status(1);
  const cudaError_t st = device::topk_pairs_async(ws, bytes, keys, vin, out, vout, status.data(), n, k, nullptr, cfg);
  if (ws != nullptr && st == cudaSuccess) {
    cuda_check(cudaDeviceSynchronize(), "sync");
    const std::int32_t word = status.to_host()[0];
    EXPECT_TRUE(word == device::async_answered || word == device::async_fell_back) << word;
  }
  return st;
}

void check_pairs(bool so) {
  const std::int64_t n = 300001;
  const std::vector<float> host = generate<float>(dist::normal, n, 9);
  std::vector<std::uint32_t> payload32(n);
  std::vector<two_floats> payload64(n);
  for (std::int64_t i = 0; i < n; ++i) {
    payload32[i] = static_cast<std::uint32_t>(i);
    payload64[i] = {static_cast<float>(i), -static_cast<float>(i)};
  }
  device_buffer<float> keys(host);
  device_buffer<std::uint32_t> v32(payload32);
  device_buffer<two_floats> v64(payload64);
  for (const std::int64_t k : {std::int64_t{1}, std::int64_t{1000}, n / 2}) {
    for (const bool sorted : {false, true}) {
      device::topk_config cfg;
      cfg.largest = true;
      cfg.sorted = sorted;
      device_buffer<float> out(k);
      device_buffer<std::uint32_t> out32(k);
      device_buffer<two_floats> out64(k);
      std::size_t bytes = 0;
      ASSERT_EQ(call_pairs(so, nullptr, bytes, keys.data(), v32.data(), out.data(), out32.data(), n, k, cfg),
                cudaSuccess);
      device_buffer<char> ws(bytes);
      ASSERT_EQ(call_pairs(so, ws.data(), bytes, keys.data(), v32.data(), out.data(), out32.data(), n, k, cfg),
                cudaSuccess)
          << device::last_error_message();
      std::vector<float> values = out.to_host();
      std::vector<std::int64_t> idx;
      for (const std::uint32_t i : out32.to_host()) idx.push_back(i);
      EXPECT_TRUE(check_range_result(host.data(), n, 0, k, true, sorted, false, values.data(), idx.data())) << "k " << k;

      bytes = 0;
      ASSERT_EQ(call_pairs(so, nullptr, bytes, keys.data(), v64.data(), out.data(), out64.data(), n, k, cfg),
                cudaSuccess);
      device_buffer<char> ws2(bytes);
      ASSERT_EQ(call_pairs(so, ws2.data(), bytes, keys.data(), v64.data(), out.data(), out64.data(), n, k, cfg),
                cudaSuccess)
          << device::last_error_message();
      values = out.to_host();
      idx.clear();
      for (const two_floats& p : out64.to_host()) {
        EXPECT_EQ(p.a, -p.b);
        idx.push_back(static_cast<std::int64_t>(p.a));
      }
      EXPECT_TRUE(check_range_result(host.data(), n, 0, k, true, sorted, false, values.data(), idx.data())) << "k " << k;
    }
  }
}
TEST(RangeGpu, Pairs) { check_pairs(false); }
TEST(RangeGpuStreamOrdered, Pairs) { check_pairs(true); }

TEST(RangeGpu, BadArguments) {
  device_buffer<float> dev(std::vector<float>(1000, 1.0f));
  device_buffer<float> out(1000);
  std::size_t bytes = 0;
  EXPECT_EQ(device::topk(nullptr, bytes, dev.data(), out.data(), 1000, 1001), cudaErrorInvalidValue);
  EXPECT_NE(std::string(device::last_error_message()).find("k must be in [0, n]"), std::string::npos);
  EXPECT_EQ(device::topk(nullptr, bytes, dev.data(), out.data(), 0, 0), cudaErrorInvalidValue);
  EXPECT_EQ(device::rank_range(nullptr, bytes, dev.data(), out.data(), nullptr, 1000, 600, 500), cudaErrorInvalidValue);
  EXPECT_EQ(device::rank_range(nullptr, bytes, dev.data(), out.data(), nullptr, 1000, -1, 500), cudaErrorInvalidValue);
  std::int32_t* idx32 = nullptr;
  EXPECT_EQ(device::topk(nullptr, bytes, dev.data(), out.data(), idx32 + 1, std::int64_t{1} << 31, 10),
            cudaErrorInvalidValue);
  EXPECT_NE(std::string(device::last_error_message()).find("int32_t indices need n < 2^31"), std::string::npos);
  // Host memory where device memory is required; a workspace too small.
  ASSERT_EQ(device::topk(nullptr, bytes, dev.data(), out.data(), 1000, 10), cudaSuccess);
  device_buffer<char> ws(bytes);
  std::vector<float> host(1000, 2.0f);
  EXPECT_EQ(device::topk(ws.data(), bytes, host.data(), out.data(), 1000, 10), cudaErrorInvalidValue);
  EXPECT_NE(std::string(device::last_error_message()).find("not device memory"), std::string::npos);
  std::size_t small = bytes - 1;
  EXPECT_EQ(device::topk(ws.data(), small, dev.data(), out.data(), 1000, 10), cudaErrorInvalidValue);
  EXPECT_NE(std::string(device::last_error_message()).find(std::to_string(bytes) + " needed"), std::string::npos);
}

TEST(RangeGpuStreamOrdered, BadArguments) {
  device_buffer<float> dev(std::vector<float>(1000, 1.0f));
  device_buffer<float> out(1000);
  device_buffer<std::int32_t> status(1);
  std::size_t bytes = 0;
  EXPECT_EQ(device::topk_async(nullptr, bytes, dev.data(), out.data(), status.data(), 1000, 1001),
            cudaErrorInvalidValue);
  EXPECT_NE(std::string(device::last_error_message()).find("k must be in [0, n]"), std::string::npos);
  EXPECT_EQ(device::rank_range_async(nullptr, bytes, dev.data(), out.data(), static_cast<std::int64_t*>(nullptr),
                                     status.data(), 1000, 600, 500),
            cudaErrorInvalidValue);
  ASSERT_EQ(device::topk_async(nullptr, bytes, dev.data(), out.data(), status.data(), 1000, 10), cudaSuccess);
  device_buffer<char> ws(bytes);
  std::int32_t host_status = -1;
  EXPECT_EQ(device::topk_async(ws.data(), bytes, dev.data(), out.data(), &host_status, 1000, 10),
            cudaErrorInvalidValue);
  EXPECT_NE(std::string(device::last_error_message()).find("d_status is not device memory"), std::string::npos);
  std::size_t small = bytes - 1;
  EXPECT_EQ(device::topk_async(ws.data(), small, dev.data(), out.data(), status.data(), 1000, 10),
            cudaErrorInvalidValue);
  EXPECT_NE(std::string(device::last_error_message()).find(std::to_string(bytes) + " needed"), std::string::npos);
  // k = 0: nothing to select, the status still written.
  cuda_check(cudaMemset(status.data(), 0x7f, sizeof(std::int32_t)), "poison status");
  EXPECT_EQ(device::topk_async(ws.data(), bytes, dev.data(), out.data(), status.data(), 1000, 0), cudaSuccess);
  cuda_check(cudaDeviceSynchronize(), "sync");
  EXPECT_EQ(status.to_host()[0], device::async_answered);
}

// topk_async, topk_pairs_async and rank_range_async captured once in a CUDA
// graph (global capture mode: a wait or a host copy inside a call fails the
// capture) and replayed 100 times on new data of the same size, every answer
// checked: the largest 1024 with int64 indices, the smallest n/2 sorted with a
// payload (the index as uint32), the middle half deterministic with int32
// indices; distributions where the synchronous calls take their exact path
// (all equal, 16 values) or narrow twice (clustered).
TEST(RangeGpuStreamOrdered, GraphReplayOnNewData) {
  for (const std::int64_t n : {std::int64_t(1) << 16, (std::int64_t(1) << 20) + 3}) {
    cudaStream_t stream;
    cuda_check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "stream");
    device_buffer<float> d_in(n);
    std::vector<std::uint32_t> positions(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i) positions[static_cast<std::size_t>(i)] = static_cast<std::uint32_t>(i);
    device_buffer<std::uint32_t> payload(positions);
    const std::int64_t k1 = 1024, k2 = n / 2, lo = n / 4, hi = 3 * n / 4;
    device_buffer<float> out1(k1), out2(k2), out3(hi - lo);
    device_buffer<std::int64_t> idx1(k1);
    device_buffer<std::uint32_t> val2(k2);
    device_buffer<std::int32_t> idx3(hi - lo);
    device_buffer<std::int32_t> status(3);
    device::topk_config largest, sorted, deterministic;
    largest.largest = true;
    sorted.sorted = true;
    deterministic.deterministic = true;
    std::size_t b1 = 0, b2 = 0, b3 = 0;
    auto queue = [&](char* w1, char* w2, char* w3) {
      const cudaError_t e[3] = {
          device::topk_async(w1, b1, d_in.data(), out1.data(), idx1.data(), status.data(), n, k1, stream, largest),
          device::topk_pairs_async(w2, b2, d_in.data(), payload.data(), out2.data(), val2.data(), status.data() + 1, n,
                                   k2, stream, sorted),
          device::rank_range_async(w3, b3, d_in.data(), out3.data(), idx3.data(), status.data() + 2, n, lo, hi, stream,
                                   deterministic)};
      for (const cudaError_t x : e) EXPECT_EQ(x, cudaSuccess) << device::last_error_message();
    };
    queue(nullptr, nullptr, nullptr);
    device_buffer<char> ws1(b1), ws2(b2), ws3(b3);
    const captured_graph graph(stream, [&] { queue(ws1.data(), ws2.data(), ws3.data()); });
    ASSERT_FALSE(::testing::Test::HasFailure());

    int fell_back = 0;
    graph.replay_on_new_data(stream, d_in.data(), n, 2000, [&](device_dist d, int replay) {
      const std::vector<float> host = d_in.to_host();
      SCOPED_TRACE(testing::Message() << device_dist_name(d) << " n=" << n << " replay " << replay);
      const std::vector<float> v1 = out1.to_host(), v2 = out2.to_host(), v3 = out3.to_host();
      const std::vector<std::int64_t> i1 = idx1.to_host();
      std::vector<std::int64_t> i2, i3;
      for (const std::uint32_t x : val2.to_host()) i2.push_back(x);
      for (const std::int32_t x : idx3.to_host()) i3.push_back(x);
      ASSERT_TRUE(check_range_result(host.data(), n, 0, k1, true, false, false, v1.data(), i1.data()));
      ASSERT_TRUE(check_range_result(host.data(), n, 0, k2, false, true, false, v2.data(), i2.data()));
      ASSERT_TRUE(check_range_result(host.data(), n, lo, hi, false, false, true, v3.data(), i3.data()));
      for (const std::int32_t s : status.to_host()) {
        ASSERT_TRUE(s == device::async_answered || s == device::async_fell_back) << s;
        fell_back += s;
      }
    });
    if (::testing::Test::HasFatalFailure()) return;
    std::printf("[          ] n=%lld: %d of 300 boundary selections needed the descent\n", static_cast<long long>(n),
                fell_back);
    cudaStreamDestroy(stream);
  }
}

// The one-pass top-k (choose_async_take: k = 1024 and 1000 of 2^21 + 3 keys in
// one block, k = 65536 by the grid finish) captured once in a CUDA graph and
// replayed 100 times on new data, every answer checked: the one-pass path
// answers uniform and normal keys, and all equal and 16 values by taking the
// one key its overflowing buffer holds as the boundary; the exact path, which
// the graph also holds, answers the rest.
TEST(RangeGpuStreamOrdered, GraphReplayOnePassTopk) {
  const std::int64_t n = (std::int64_t(1) << 21) + 3, k1 = 1024, k2 = 1000, k3 = 65536;
  ASSERT_EQ(cuda::choose_async_take(n, k1, cuda::tuning::hopper), cuda::async_take::block);
  ASSERT_EQ(cuda::choose_async_take(n, k2, cuda::tuning::hopper), cuda::async_take::block);
  ASSERT_EQ(cuda::choose_async_take(n, k3, cuda::tuning::hopper), cuda::async_take::grid);
  cudaStream_t stream;
  cuda_check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "stream");
  device_buffer<float> d_in(n), out1(k1), out2(k2), out3(k3);
  device_buffer<std::int64_t> idx1(k1), idx3(k3);
  device_buffer<std::int32_t> status(3);
  device::topk_config largest, largest_sorted;
  largest.largest = largest_sorted.largest = true;
  largest_sorted.sorted = true;
  std::size_t b1 = 0, b2 = 0, b3 = 0;
  auto queue = [&](char* w1, char* w2, char* w3) {
    EXPECT_EQ(device::topk_async(w1, b1, d_in.data(), out1.data(), idx1.data(), status.data(), n, k1, stream, largest),
              cudaSuccess)
        << device::last_error_message();
    EXPECT_EQ(device::topk_async(w2, b2, d_in.data(), out2.data(), status.data() + 1, n, k2, stream, largest_sorted),
              cudaSuccess)
        << device::last_error_message();
    EXPECT_EQ(device::topk_async(w3, b3, d_in.data(), out3.data(), idx3.data(), status.data() + 2, n, k3, stream,
                                 device::topk_config{}),
              cudaSuccess)
        << device::last_error_message();
  };
  queue(nullptr, nullptr, nullptr);
  device_buffer<char> ws1(b1), ws2(b2), ws3(b3);
  const captured_graph graph(stream, [&] { queue(ws1.data(), ws2.data(), ws3.data()); });
  ASSERT_FALSE(::testing::Test::HasFailure());
  int answered = 0;
  graph.replay_on_new_data(stream, d_in.data(), n, 3000, [&](device_dist d, int replay) {
    const std::vector<float> host = d_in.to_host();
    SCOPED_TRACE(testing::Message() << device_dist_name(d) << " replay " << replay);
    const std::vector<std::int64_t> order = stable_order(host.data(), n, true);
    const std::vector<float> v1 = out1.to_host(), v2 = out2.to_host(), v3 = out3.to_host();
    const std::vector<std::int64_t> i1 = idx1.to_host(), i3 = idx3.to_host();
    const std::vector<std::int64_t> ascending = stable_order(host.data(), n, false);
    ASSERT_TRUE(check_range_result(host.data(), n, std::span<const std::int64_t>(order), 0, k1, true, false, false,
                                   v1.data(), i1.data()));
    ASSERT_TRUE(check_range_result(host.data(), n, std::span<const std::int64_t>(order), 0, k2, true, true, false,
                                   v2.data(), nullptr));
    ASSERT_TRUE(check_range_result(host.data(), n, std::span<const std::int64_t>(ascending), 0, k3, false, false,
                                   false, v3.data(), i3.data()));
    for (const std::int32_t s : status.to_host()) {
      if (d == device_dist::uniform || d == device_dist::normal || d == device_dist::all_equal ||
          d == device_dist::sixteen_values)
        ASSERT_EQ(s, device::async_answered);
      answered += s == device::async_answered;
    }
  });
  std::printf("[          ] %d of 300 top-k answered by the one-pass path\n", answered);
  cudaStreamDestroy(stream);
}

// More than 2^31 keys: the k largest with int64 indices (topk and topk_async),
// checked by counting on the host (a stable sort of 2^31 keys would take minutes).
TEST(RangeGpu, MoreThan2Pow31Keys) {
  const std::int64_t n = (std::int64_t{1} << 31) + 4099;
  device_buffer<float> dev(static_cast<std::size_t>(n));
  generate_on_device(dev.data(), n, device_dist::uniform, 77);
  const std::vector<float> host = dev.to_host();
  const std::int64_t k = 1000;
  for (const bool stream_ordered : {false, true}) {  // topk, then topk_async
    SCOPED_TRACE(stream_ordered ? "topk_async" : "topk");
    std::vector<float> values;
    mode md{true, true, 8};
    md.stream_ordered = stream_ordered;
    const range_output r = gpu_range(dev.data(), n, 0, k, true, md, values);
    ASSERT_TRUE(r.ok);
    const float kth = values[k - 1];
    std::int64_t greater = 0, at_least = 0;
#pragma omp parallel for reduction(+ : greater, at_least)
    for (std::int64_t i = 0; i < n; ++i) {
      greater += host[i] > kth;
      at_least += host[i] >= kth;
    }
    EXPECT_LT(greater, k);
    EXPECT_GE(at_least, k);
    std::vector<std::int64_t> unique = r.indices;
    std::sort(unique.begin(), unique.end());
    EXPECT_EQ(std::adjacent_find(unique.begin(), unique.end()), unique.end()) << "an index is reported twice";
    for (std::int64_t i = 0; i < k; ++i) {
      ASSERT_TRUE(r.indices[i] >= 0 && r.indices[i] < n);
      EXPECT_EQ(host[r.indices[i]], values[i]);
      if (i > 0) EXPECT_GE(values[i - 1], values[i]);
      if (i > 0 && values[i - 1] == values[i]) EXPECT_LT(r.indices[i - 1], r.indices[i]);
    }
  }
}

}  // namespace
}  // namespace kselect::test
