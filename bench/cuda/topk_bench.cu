// Top-k with indices and rank ranges on 2^28 float32, in one run with
//   - the floor: one read of the keys (cub::DeviceReduce), plus, for the output,
//     the time to write k keys and k int32 indices at the same bandwidth;
//   - the baseline a CUDA user has: cub::DeviceRadixSort::SortPairs of (key,
//     index), then the first k (this CCCL, 3.0.1, has no cub::DeviceTopK).
// Each of our answers is checked: the k keys (sorted on the host) equal the
// sorted baseline's first k, and every index points at its key.
#include <cub/device/device_radix_sort.cuh>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <string>
#include <vector>

#include "common/device_data.cuh"
#include "cuda/range_hooks.hpp"
#include "kselect/device.hpp"
#include "topk_bench.hpp"

namespace kselect::bench {
namespace {

using test::cuda_check;
using test::device_buffer;
using test::device_dist;

__global__ void iota_kernel(std::int32_t* out, std::int64_t n) {
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < n;
       i += std::int64_t(gridDim.x) * blockDim.x)
    out[i] = static_cast<std::int32_t>(i);
}

struct topk_case {
  std::string name;
  std::int64_t lo, hi;
  bool largest, sorted, deterministic;
  /// Deterministic unsorted output's ordering forced (the crossover rows), or
  /// chosen by the library.
  cuda::range_order_method order = cuda::range_order_method::automatic;
};

}  // namespace

bool run_topk_benchmarks(const bench_options& o, cudaStream_t stream, nlohmann::json& rows) {
  if (!o.only.empty()) return true;
  bool all_ok = true;
  const int lg = 28;
  const std::int64_t n = std::int64_t(1) << lg;
  const int copies = 1;  // 1 GiB: far beyond L2
  std::printf("%-6s %-5s %-15s %-34s %9s %9s %9s %8s  %s\n", "type", "n", "dist", "top-k / range (int32 indices)",
              "ours_ms", "floor_ms", "sortpairs", "ours/flr", "check");
  const auto wanted_dist = [&](device_dist d) {
    return o.topk_case.empty() || o.topk_case.starts_with(std::string(test::device_dist_name(d)) + ":");
  };
  for (const device_dist d : {device_dist::uniform, device_dist::normal, device_dist::sixteen_values}) {
    if ((o.quick && d != device_dist::uniform) || !wanted_dist(d)) continue;
    device_buffer<float> keys(n);
    test::generate_on_device<float>(keys.data(), n, d, 2026, stream);
    device_buffer<std::int32_t> iota(n);
    iota_kernel<<<4096, 256, 0, stream>>>(iota.data(), n);
    cuda_check(cudaStreamSynchronize(stream), "generate");
    const std::vector<float> host = keys.to_host();

    const double read_ms = read_floor_ms<float>(stream, copies, o, n, [&](int) { return keys.data(); });

    device_buffer<float> sorted_keys(n);
    device_buffer<std::int32_t> sorted_idx(n);
    std::size_t sort_bytes = 0;
    cuda_check(cub::DeviceRadixSort::SortPairs(nullptr, sort_bytes, keys.data(), sorted_keys.data(), iota.data(),
                                               sorted_idx.data(), n, 0, 32, stream),
               "sort query");
    device_buffer<char> sort_ws(sort_bytes);
    const double sort_ms = time_median(stream, copies, o, [&](int) {
      std::size_t b = sort_bytes;
      cuda_check(cub::DeviceRadixSort::SortPairs(sort_ws.data(), b, keys.data(), sorted_keys.data(), iota.data(),
                                                 sorted_idx.data(), n, 0, 32, stream),
                 "sort");
    });
    std::vector<float> ascending = sorted_keys.to_host();  // no NaN or -0.0 in these inputs

    std::vector<topk_case> cases;
    for (const std::int64_t k : {std::int64_t{1024}, std::int64_t{1} << 20, n / 2}) {
      const std::string kn = k == n / 2 ? "n/2" : (k == 1024 ? "1024" : "2^20");
      cases.push_back({"topk k=" + kn, 0, k, false, false, false});
      if (d == device_dist::sixteen_values && k == n / 2) {  // the tie cut, in input order and reversed
        cases.push_back({"topk k=n/2 deterministic", 0, k, false, false, true});
        cases.push_back({"topk k=n/2 largest", 0, k, true, false, false});
      }
      if (d != device_dist::uniform) continue;
      cases.push_back({"topk k=" + kn + " sorted", 0, k, false, true, false});
      cases.push_back({"topk k=" + kn + " deterministic", 0, k, false, false, true});
      cases.push_back({"topk k=" + kn + " sorted+deterministic", 0, k, false, true, true});
      cases.push_back({"topk k=" + kn + " largest", 0, k, true, false, false});
    }
    if (d == device_dist::uniform) {
      cases.push_back({"range [n/2, n/2+2^20)", n / 2, n / 2 + (1 << 20), false, false, false});
      cases.push_back({"range [n/4, 3n/4)", n / 4, 3 * n / 4, false, false, false});
      // Deterministic unsorted output at k around n/4, where the cut from the
      // selected key takes over (tuning::range_policy::selected_cut_min_share),
      // beside the levels with each ordering forced below.
      for (const int lk : {24, 25, 26})
        cases.push_back({"topk k=2^" + std::to_string(lk) + " deterministic", 0, std::int64_t(1) << lk, false, false,
                         true});
      // Deterministic unsorted output by buckets and by bitmap at the same k:
      // where tuning::range_policy::order_bitmap_min_per_tile comes from.
      using cuda::range_order_method;
      for (const int lk : {20, 21, 22, 23, 24, 25, 26}) {
        const std::string kn = "2^" + std::to_string(lk);
        cases.push_back({"topk k=" + kn + " det. (buckets)", 0, std::int64_t(1) << lk, false, false, true,
                         range_order_method::buckets});
        cases.push_back({"topk k=" + kn + " det. (bitmap)", 0, std::int64_t(1) << lk, false, false, true,
                         range_order_method::bitmap});
      }
    }
    for (const topk_case& c : cases) {
      if (!o.topk_case.empty() && o.topk_case != std::string(test::device_dist_name(d)) + ":" + c.name) continue;
      const std::int64_t m = c.hi - c.lo;
      device::topk_config cfg;
      cfg.largest = c.largest;
      cfg.sorted = c.sorted;
      cfg.deterministic = c.deterministic;
      device_buffer<float> out(m);
      device_buffer<std::int32_t> idx(m);
      auto call = [&](void* ws, std::size_t& bytes) {
        if (c.order != cuda::range_order_method::automatic) {
          kselect::detail::range_request req;
          req.hi = m;
          req.indices_out = idx.data();
          req.index_bytes = sizeof(std::int32_t);
          return cuda::range_select_ordered(ws, bytes, keys.data(), out.data(), n, req, c.order, stream, cfg);
        }
        if (c.lo == 0) return device::topk(ws, bytes, keys.data(), out.data(), idx.data(), n, m, stream, cfg);
        return device::rank_range(ws, bytes, keys.data(), out.data(), idx.data(), n, c.lo, c.hi, stream, cfg);
      };
      std::size_t ws_bytes = 0;
      cuda_check(call(nullptr, ws_bytes), "topk workspace query");
      device_buffer<char> ws(ws_bytes);
      const double ms = time_median(stream, copies, o, [&](int) {
        std::size_t b = ws_bytes;
        const cudaError_t st = call(ws.data(), b);
        if (st != cudaSuccess) {
          std::fprintf(stderr, "kselect topk failed: %s %s\n", cudaGetErrorString(st), device::last_error_message());
          std::exit(1);
        }
      });
      // Floor: read the keys once, write m keys and m int32 indices.
      const double floor_ms = read_ms * (1.0 + 2.0 * static_cast<double>(m) / static_cast<double>(n));
      // Check: the multiset of keys, the indices, the order when sorted (input
      // order when deterministic and unsorted).
      const std::vector<float> got = out.to_host();
      const std::vector<std::int32_t> got_idx = idx.to_host();
      bool ok = true;
      for (std::int64_t i = 0; i < m && ok; ++i) ok = host[got_idx[i]] == got[i];
      if (c.sorted)
        for (std::int64_t i = 1; i < m && ok; ++i) ok = c.largest ? got[i - 1] >= got[i] : got[i - 1] <= got[i];
      if (c.deterministic && !c.sorted)  // input order
        for (std::int64_t i = 1; i < m && ok; ++i) ok = got_idx[i - 1] < got_idx[i];
      // The multiset equals the sorted baseline's run [first, first + m): as many
      // keys strictly inside its end values as the run has, the rest at the
      // ends (O(m), where sorting a copy of k = n/2 keys took seconds).
      const std::int64_t first = c.largest ? n - m : c.lo;
      const float low = ascending[first], high = ascending[first + m - 1];
      std::int64_t strictly = 0, at_low = 0, at_high = 0, want_strictly = 0, want_low = 0, want_high = 0;
      for (std::int64_t i = 0; i < m && ok; ++i) {
        const float v = got[i], w = ascending[first + i];
        ok = v >= low && v <= high;
        strictly += v > low && v < high;
        at_low += v == low;
        at_high += v == high && high != low;
        want_strictly += w > low && w < high;
        want_low += w == low;
        want_high += w == high && high != low;
      }
      ok = ok && strictly == want_strictly && at_low == want_low && at_high == want_high;
      std::vector<std::int32_t> u = got_idx;
      std::sort(u.begin(), u.end());
      ok = ok && std::adjacent_find(u.begin(), u.end()) == u.end();
      all_ok = all_ok && ok;
      std::printf("%-6s 2^%-3d %-15s %-34s %9.3f %9.3f %9.3f %8.2f  %s\n", "float", lg, test::device_dist_name(d),
                  c.name.c_str(), ms, floor_ms, sort_ms, ms / floor_ms, ok ? "ok" : "WRONG");
      std::fflush(stdout);
      rows.push_back({{"type", "float"}, {"n", n}, {"dist", test::device_dist_name(d)}, {"case", c.name},
                      {"k", m}, {"lo", c.lo}, {"hi", c.hi}, {"largest", c.largest}, {"sorted", c.sorted},
                      {"deterministic", c.deterministic}, {"ours_ms", ms}, {"floor_ms", floor_ms},
                      {"read_ms", read_ms}, {"cub_sort_pairs_ms", sort_ms}, {"correct", ok}});
    }
  }
  return all_ok;
}

}  // namespace kselect::bench
