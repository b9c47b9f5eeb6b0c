// segmented_run (kselect/device_segmented.hpp) for one key type: checks the
// arguments, turns the request into the kernels' launch parameter (ranks and qs
// sorted and unique), carves the workspace and makes the fixed sequence of launches:
// plan, the three register tiers, the large tier's rounds, then the finish.
#pragma once

#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include <algorithm>
#include <cmath>
#include <cub/device/device_segmented_radix_sort.cuh>
#include <numeric>
#include <string>
#include <vector>

#include "cuda/common.cuh"
#include "cuda/segmented/finish_kernels.cuh"
#include "cuda/segmented/large_kernels.cuh"
#include "cuda/segmented/plan_kernels.cuh"
#include "cuda/segmented/segment_kernels.cuh"

namespace kselect::cuda::segmented {

/// The argument problems the host can see, as a message ("" when none). The size
/// query (query = true) needs no pointers, as CUB's.
inline std::string check_request(const device::segment_layout& segs, const void* d_in, const void* d_out,
                                 const kselect::detail::segmented_request& rq, bool query) {
  using kind = op_kind;
  if (segs.count < 1) return "kselect: segment_layout.count = " + std::to_string(segs.count) + " (need at least 1)";
  if (segs.count > INT32_MAX) return "kselect: segment_layout.count = " + std::to_string(segs.count) +
                                     " is above 2^31 - 1";
  if (segs.num_items < 0) return "kselect: segment_layout.num_items is negative";
  if (!segs.d_offsets) {
    if (segs.row_length < 0) return "kselect: segment_layout.row_length is negative";
    if (segs.row_length != 0 && segs.count > segs.num_items / segs.row_length)
      return "kselect: segment_layout: count * row_length is more than num_items";
    if (segs.count * segs.row_length != segs.num_items)
      return "kselect: segment_layout: count * row_length = " + std::to_string(segs.count * segs.row_length) +
             " but num_items = " + std::to_string(segs.num_items);
  }
  if (!query) {
    if (segs.num_items > 0 && !d_in) return "kselect: d_in is null";
    if (!d_out) return "kselect: d_out is null";
    if (segs.num_items > 0 && !is_device_accessible(d_in))
      return "kselect: d_in points to host memory; the device API needs device memory";
    if (!is_device_accessible(d_out))
      return "kselect: d_out points to host memory; the device API needs device memory";
    if (rq.op == op_kind::topk && rq.d_indices_out && !is_device_accessible(rq.d_indices_out))
      return "kselect: d_indices_out points to host memory; the device API needs device memory";
  }
  switch (rq.op) {
    case kind::select_each:
      if (!rq.d_ks) return "kselect: d_ks is null";
      break;
    case kind::multiselect:
    case kind::quantile: {
      const char* what = rq.op == kind::multiselect ? "num_ranks" : "num_qs";
      if (rq.count < 1 || rq.count > device::max_segmented_ranks)
        return std::string("kselect: ") + what + " = " + std::to_string(rq.count) + " is outside [1, " +
               std::to_string(device::max_segmented_ranks) + "]";
      if (rq.op == kind::multiselect) {
        if (!rq.h_ranks) return "kselect: h_ranks is null";
        for (int i = 0; i < rq.count; ++i)
          if (rq.h_ranks[i] < 0) return "kselect: h_ranks[" + std::to_string(i) + "] is negative";
      } else {
        if (!rq.h_qs) return "kselect: h_qs is null";
        for (int i = 0; i < rq.count; ++i)
          if (!(rq.h_qs[i] >= 0.0 && rq.h_qs[i] <= 1.0))
            return "kselect: h_qs[" + std::to_string(i) + "] is outside [0, 1]";
        if (!core::is_quantile_method(rq.method))
          return "kselect: unknown quantile_method value " + std::to_string(static_cast<int>(rq.method));
      }
      break;
    }
    case kind::topk:
      if (rq.k < 0) return "kselect: k = " + std::to_string(rq.k) + " is negative";
      if (rq.topk.sorted && rq.k > 0 && segs.count > (INT32_MAX - 1) / rq.k)
        return "kselect: sorted segmented top-k needs count * k < 2^31";
      // An int32 index must hold every local position. With rows the host knows the
      // length; with ragged segments only num_items bounds it without reading d_offsets.
      if (rq.index_bytes == 4 && !segs.d_offsets && segs.row_length > INT32_MAX)
        return "kselect: int32_t indices need rows shorter than 2^31 (row_length = " +
               std::to_string(segs.row_length) + "); use int64_t indices";
      if (rq.index_bytes == 4 && segs.d_offsets && segs.num_items > INT32_MAX)
        return "kselect: int32_t indices of ragged segments need num_items < 2^31 (num_items = " +
               std::to_string(segs.num_items) + ", and the longest segment is not known without reading "
               "d_offsets); use int64_t indices";
      break;
    default:
      break;
  }
  return "";
}

/// The kernels' launch parameter: ranks or qs sorted and unique, with each caller
/// column's entry.
template <class K>
request make_request(const device::segment_layout& segs, const kselect::detail::segmented_request& rq) {
  request r{};
  r.offsets = segs.d_offsets;
  r.row_length = segs.row_length;
  r.m = segs.count;
  r.op = rq.op;
  r.k = rq.k;
  r.ks = rq.d_ks;
  r.method = rq.method;
  r.ignore_nan = rq.ignore_nan && is_floating_key_v<K>;  // integers hold no NaN
  r.numpy_median = rq.numpy_median;
  r.few_segments = segs.count <= few_segments_max;
  r.floating = is_floating_key_v<K>;
  r.topk_largest = rq.topk.largest;
  if (rq.op == op_kind::multiselect || rq.op == op_kind::quantile) {
    std::vector<int> order(rq.count);
    std::iota(order.begin(), order.end(), 0);
    auto value = [&](int i) { return rq.op == op_kind::multiselect ? double(rq.h_ranks[i]) : rq.h_qs[i]; };
    auto less = [&](int a, int b) {
      return rq.op == op_kind::multiselect ? rq.h_ranks[a] < rq.h_ranks[b] : rq.h_qs[a] < rq.h_qs[b];
    };
    std::stable_sort(order.begin(), order.end(), less);
    int entries = 0;
    for (int i = 0; i < rq.count; ++i) {
      const int c = order[i];
      const bool repeat = i > 0 && !less(order[i - 1], c);
      if (!repeat) {
        if (rq.op == op_kind::multiselect) r.list.ranks[entries] = rq.h_ranks[c];
        else r.list.qs[entries] = value(c);
        ++entries;
      }
      r.list.entry_of_column[c] = static_cast<std::int16_t>(entries - 1);
    }
    r.list.entries = entries;
    r.list.columns = rq.count;
  }
  r.rank_width = rank_width_of(r);
  return r;
}

inline int sm_count() {
  static const int count = [] {
    int device = 0, sms = 132;
    if (cudaGetDevice(&device) == cudaSuccess) cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
    return sms;
  }();
  return count;
}

inline unsigned grid_for(std::int64_t work, std::int64_t per_block, std::int64_t cap) {
  const std::int64_t blocks = (work + per_block - 1) / per_block;
  return static_cast<unsigned>(std::max<std::int64_t>(1, std::min(blocks, cap)));
}

/// A block tier's launch with its dynamic shared memory (allowed above 48 KiB once per
/// kernel, on the first call).
template <class K, int THREADS, int ITEMS, int MIN_BLOCKS, tier TIER>
cudaError_t launch_block_tier(unsigned grid, const K* d_in, const request& r, const tables<core::key_t<K>>& t,
                              cudaStream_t stream) {
  using storage = block_storage<THREADS, ITEMS, block_ranks_per_round, core::key_t<K>>;
  constexpr auto kernel = block_tier_kernel<K, THREADS, ITEMS, MIN_BLOCKS, TIER>;
  static const cudaError_t allowed =
      cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(sizeof(storage)));
  KSELECT_CUDA_TRY(allowed);
  kernel<<<grid, THREADS, sizeof(storage), stream>>>(d_in, r, t);
  KSELECT_LAUNCH_CHECK();
  return cudaSuccess;
}

/// The sort query (top-k with sorted output): bytes of DeviceSegmentedRadixSort's temporaries.
template <class U>
cudaError_t sort_bytes(const request& r, std::size_t& bytes) {
  bytes = 0;
  if (r.op != op_kind::topk || r.k <= warp_sort_max) return cudaSuccess;
  auto begins = thrust::make_transform_iterator(thrust::counting_iterator<std::int64_t>(0), row_begin{r.k});
  auto ends = thrust::make_transform_iterator(thrust::counting_iterator<std::int64_t>(0),
                                              chosen_end{r.offsets, r.row_length, r.k});
  return cub::DeviceSegmentedRadixSort::SortPairs(nullptr, bytes, static_cast<const U*>(nullptr),
                                                  static_cast<U*>(nullptr), static_cast<const std::int64_t*>(nullptr),
                                                  static_cast<std::int64_t*>(nullptr), static_cast<int>(r.m * r.k),
                                                  static_cast<int>(r.m), begins, ends);
}

/// The large tier's rounds of radix passes.
template <class K>
cudaError_t run_large(const K* d_in, const request& r, const tables<core::key_t<K>>& t, cudaStream_t stream) {
  using U = core::key_t<K>;
  constexpr int passes = sizeof(U) * 8 / radix_bits;
  const int sms = sm_count();
  const unsigned entries = grid_for(t.large_max, 1, 4 * sms);
  const unsigned tiles = grid_for(t.tiles_max, 1, 4 * sms);
  const int rounds = (t.width + large_ranks_per_round - 1) / large_ranks_per_round;
  for (int round = 0; round < rounds; ++round) {
    const int base = round * large_ranks_per_round;
    large_round_kernel<U><<<entries, 256, 0, stream>>>(t, base);
    KSELECT_LAUNCH_CHECK();
    for (int pass = 0; pass < passes; ++pass) {
      large_count_kernel<K><<<tiles, block_threads, 0, stream>>>(d_in, r, t, pass, pass & 1);
      KSELECT_LAUNCH_CHECK();
      large_choose_kernel<U><<<entries, 32 * large_ranks_per_round, 0, stream>>>(t, pass, pass & 1, base,
                                                                                 pass == passes - 1);
      KSELECT_LAUNCH_CHECK();
    }
  }
  if (r.op == op_kind::topk) {
    large_topk_count_kernel<K><<<tiles, block_threads, 0, stream>>>(d_in, r, t);
    KSELECT_LAUNCH_CHECK();
    large_topk_scan_kernel<U><<<entries, block_threads, 0, stream>>>(t);
    KSELECT_LAUNCH_CHECK();
    large_topk_write_kernel<K><<<tiles, block_threads, 0, stream>>>(d_in, r, t);
    KSELECT_LAUNCH_CHECK();
  }
  return cudaSuccess;
}

/// Top-k's last steps: sort the chosen rows when asked, then gather keys and indices.
template <class K, class IndexT>
cudaError_t finish_topk(const K* d_in, const request& r, const tables<core::key_t<K>>& t, K* keys_out,
                        IndexT* indices_out, bool sorted, cudaStream_t stream) {
  using U = core::key_t<K>;
  const U* keys = t.topk_keys;
  const std::int64_t* index = t.topk_index;
  if (sorted && r.k <= warp_sort_max) {
    sort_rows_kernel<U><<<grid_for(r.m, 8, 16 * sm_count()), 256, 0, stream>>>(r, t.topk_keys, t.topk_index,
                                                                             t.topk_keys_alt, t.topk_index_alt);
    KSELECT_LAUNCH_CHECK();
    keys = t.topk_keys_alt;
    index = t.topk_index_alt;
  } else if (sorted) {
    auto begins = thrust::make_transform_iterator(thrust::counting_iterator<std::int64_t>(0), row_begin{r.k});
    auto ends = thrust::make_transform_iterator(thrust::counting_iterator<std::int64_t>(0),
                                                chosen_end{r.offsets, r.row_length, r.k});
    std::size_t bytes = t.sort_temp_bytes;
    KSELECT_CUDA_TRY(cub::DeviceSegmentedRadixSort::SortPairs(
        t.sort_temp, bytes, t.topk_keys, t.topk_keys_alt, t.topk_index, t.topk_index_alt, static_cast<int>(r.m * r.k),
        static_cast<int>(r.m), begins, ends, 0, static_cast<int>(sizeof(U) * 8), stream));
    keys = t.topk_keys_alt;
    index = t.topk_index_alt;
  }
  topk_gather_kernel<K, IndexT><<<grid_for(r.m * r.k, 256, 8 * sm_count()), 256, 0, stream>>>(
      d_in, r, keys, index, keys_out, indices_out);
  KSELECT_LAUNCH_CHECK();
  return cudaSuccess;
}

template <class K>
cudaError_t run(void* d_workspace, std::size_t& workspace_bytes, const K* d_in, void* d_out,
                const device::segment_layout& segs, const kselect::detail::segmented_request& rq,
                cudaStream_t stream) {
  using U = core::key_t<K>;
  clear_rejection();
  if (std::string problem = check_request(segs, d_in, d_out, rq, d_workspace == nullptr); !problem.empty())
    return reject_argument(problem);
  const request r = make_request<K>(segs, rq);
  const std::int64_t m = segs.count, n = segs.num_items;
  const bool topk = r.op == op_kind::topk;
  const bool nan_counts = r.op == op_kind::quantile && r.ignore_nan && r.floating;
  std::size_t sort_temp = 0;
  if (topk && rq.topk.sorted) KSELECT_CUDA_TRY(sort_bytes<U>(r, sort_temp));
  tables<U> t;
  const std::size_t table_bytes = carve(t, nullptr, m, n, r.rank_width, nan_counts, topk ? r.k : 0,
                                       topk && rq.topk.sorted, sort_temp);
  const std::size_t needed = table_bytes + kselect::detail::workspace_alignment;  // + first_invalid
  bool answered = false;
  KSELECT_CUDA_TRY(workspace_protocol(d_workspace, workspace_bytes, needed, answered));
  if (answered) return cudaSuccess;
  char* base = static_cast<char*>(d_workspace);
  carve(t, base, m, n, r.rank_width, nan_counts, topk ? r.k : 0, topk && rq.topk.sorted, sort_temp);
  auto* first_invalid = reinterpret_cast<std::int64_t*>(base + table_bytes);
  if (topk && r.k == 0) return cudaSuccess;

  const int sms = sm_count();
  KSELECT_CUDA_TRY(cudaMemsetAsync(t.counters, 0, (tier_count + 1) * sizeof(int), stream));
  KSELECT_CUDA_TRY(cudaMemsetAsync(first_invalid, no_invalid_byte, sizeof(std::int64_t), stream));
  if (nan_counts) {
    KSELECT_CUDA_TRY(cudaMemsetAsync(t.nan_count, 0, m * sizeof(std::int64_t), stream));
    if constexpr (is_floating_key_v<K>) {
      if (n > 0) {
        count_nan_kernel<K><<<grid_for(n, 256, 8 * sms), 256, 0, stream>>>(d_in, n, r, t.nan_count);
        KSELECT_LAUNCH_CHECK();
      }
    }
  }
  plan_kernel<U><<<grid_for(m, 256, 16 * sms), 256, 0, stream>>>(r, t, first_invalid);
  KSELECT_LAUNCH_CHECK();
  // Equal rows all fall in one tier: the others are not launched. Ragged segments may
  // fall in any tier whose shortest segment the total can hold.
  const bool rows = segs.d_offsets == nullptr;
  auto may_hold = [&](std::int64_t shortest, std::int64_t longest) {
    return rows ? segs.row_length >= shortest && segs.row_length <= longest : n >= shortest;
  };
  const bool large = t.large_max > 0 && may_hold(block_max<U> + 1, INT64_MAX);
  if (large) {
    tile_owner_kernel<U><<<grid_for(t.large_max, 1, 4 * sms), 256, 0, stream>>>(t);
    KSELECT_LAUNCH_CHECK();
  }
  if (may_hold(1, tiny_max)) {
    tiny_tier_kernel<K><<<grid_for(m, 8, 16 * sms), 256, 0, stream>>>(d_in, r, t);
    KSELECT_LAUNCH_CHECK();
  }
  // A call of few segments sends the warp tiers' segments to the small block tier
  // (plan_kernel's tier_of), which then starts at tiny_max + 1.
  if (!r.few_segments && may_hold(tiny_max + 1, warp_max)) {
    warp_tier_kernel<K, warp_items, 4, tier_warp>
        <<<grid_for(std::min(m, n / (tiny_max + 1)), 8, 8 * sms), 256, 0, stream>>>(d_in, r, t);
    KSELECT_LAUNCH_CHECK();
  }
  if (!r.few_segments && may_hold(warp_max + 1, wide_warp_max)) {
    warp_tier_kernel<K, wide_warp_items, 1, tier_wide_warp>
        <<<grid_for(std::min(m, n / (warp_max + 1)), 8, 8 * sms), 256, 0, stream>>>(d_in, r, t);
    KSELECT_LAUNCH_CHECK();
  }
  const std::int64_t small_block_shortest = (r.few_segments ? tiny_max : wide_warp_max) + 1;
  if (may_hold(small_block_shortest, small_block_max))
    KSELECT_CUDA_TRY((launch_block_tier<K, small_block_threads, small_block_items, small_block_min_blocks, tier_small_block>(
        grid_for(std::min(m, n / small_block_shortest), 1, 8 * sms), d_in, r, t, stream)));
  if (may_hold(small_block_max + 1, block_max<U>))
    KSELECT_CUDA_TRY((launch_block_tier<K, block_threads, block_items<U>, 1, tier_block>(
        grid_for(std::min(m, n / (small_block_max + 1)), 1, 2 * sms), d_in, r, t, stream)));
  if (large) KSELECT_CUDA_TRY(run_large(d_in, r, t, stream));
  if (topk) {
    auto* keys_out = static_cast<K*>(d_out);
    if (rq.index_bytes == 4)
      return finish_topk(d_in, r, t, keys_out, static_cast<std::int32_t*>(rq.d_indices_out), rq.topk.sorted, stream);
    return finish_topk(d_in, r, t, keys_out, static_cast<std::int64_t*>(rq.d_indices_out), rq.topk.sorted, stream);
  }
  const std::int64_t columns = r.op == op_kind::multiselect || r.op == op_kind::quantile ? r.list.columns : 1;
  finish_kernel<K><<<grid_for(m * columns, 256, 16 * sms), 256, 0, stream>>>(r, t, d_out, columns, first_invalid,
                                                                             rq.d_invalid_segment);
  KSELECT_LAUNCH_CHECK();
  return cudaSuccess;
}

}  // namespace kselect::cuda::segmented

namespace kselect::detail {

template <class K>
cudaError_t segmented_run(void* d_workspace, std::size_t& workspace_bytes, const K* d_in, void* d_out,
                          const device::segment_layout& segs, const segmented_request& req, cudaStream_t stream) {
  return cuda::segmented::run<K>(d_workspace, workspace_bytes, d_in, d_out, segs, req, stream);
}

}  // namespace kselect::detail

#define KSELECT_INSTANTIATE_SEGMENTED(K)                                                                        \
  template cudaError_t kselect::detail::segmented_run<K>(void*, std::size_t&, const K*, void*,                  \
                                                         const kselect::device::segment_layout&,                \
                                                         const kselect::detail::segmented_request&, cudaStream_t);
