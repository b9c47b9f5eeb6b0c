// The exact radix descent of the stream-ordered selections (core/descent.hpp has
// its rules). It answers the ranks that a sampled fast path left open (a missed
// prediction, an overflowing copy, few distinct values) without the host: the
// host queues descent_init_kernel and then core::descent_max_rounds launches of
// descent_round_kernel; rounds with nothing left to do return at once.
//
//   descent_init_kernel   1 block: is anything left open? If so, one group over
//                         every key, each open rank in it; writes the call's status
//   descent_round_kernel  one read of the keys (the input, or the copy of the
//                         groups' keys once it fits a buffer): each key in a group
//                         counted into the group's buckets, with each bucket's
//                         smallest and largest key; the last block to finish plans
//                         the next round (descent_plan)
//
// Why the buckets record their smallest and largest key: a rank's next group is
// its bucket's [min, max], so a bucket holding one distinct key (all-equal input,
// few distinct values) answers its ranks at once, and a tight cluster is not
// split over several rounds of empty buckets. The recording is a shared-memory
// read per key and an atomic only when a key extends the bucket's bounds.
#pragma once

#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>

#include <cstdint>
#include <type_traits>

#include "cuda/kernels/atomic_keys.cuh"
#include "cuda/kernels/descent_state.cuh"
#include "cuda/kernels/stream_tiles.cuh"
#include "cuda/tuning.hpp"
#include "core/descent.hpp"
#include "core/int_math.hpp"
#include "core/key_traits.hpp"
#include "kselect/device.hpp"

namespace kselect::cuda {

constexpr int descent_threads = tuning::stream_threads;
constexpr int descent_buckets = core::descent_buckets;
constexpr int descent_items = descent_buckets / descent_threads;  // buckets per thread in the plan
static_assert(descent_buckets % descent_threads == 0, "the plan gives each thread whole buckets");

/// One thread: the status of a gated selection (queue_gated_select),
/// async_answered where the gate (*skip is 1) skipped it, else async_fell_back.
template <int = 0>
__global__ void gated_status_kernel(const std::int32_t* skip, std::int32_t* status) {
  *status = skip != nullptr && *skip == 1 ? device::async_answered : device::async_fell_back;
}

/// Dynamic shared memory of descent_round_kernel.
template <class K>
constexpr std::size_t descent_shared_bytes() {
  return descent_buckets * (sizeof(unsigned) + 2 * sizeof(K)) +
         core::descent_max_ranks * (2 * sizeof(K) + sizeof(std::uint32_t));
}

/// Resets the round's global buckets (count 0, empty bounds); the whole block.
template <class K>
__device__ __forceinline__ void descent_reset_buckets(const descent_arrays<K>& a) {
  for (int c = threadIdx.x; c < descent_buckets; c += blockDim.x) {
    a.count[c] = 0;
    a.min[c] = static_cast<K>(~K(0));
    a.max[c] = 0;
  }
}

/// One block. `fast_path_done` (may be null) is the fast path's status word, 1
/// when it answered every rank; `ranks_valid` (may be null: valid) whether the
/// device-side check of the ranks passed. If the descent is needed, it starts one
/// group over every key with each of the `num_ranks` ranks (ranks[i], or
/// single_rank when ranks is null) in it. With `status` (may be null): the call's
/// device::async_status. The keys: input[0, n), or input[0, *size_on_device)
/// when that is not null (at most n, which sized the rounds' grid). The first
/// group: every key, or [first_group[0], first_group[1]] when that is not null
/// (keys, which every key lies in: a known range saves the rounds that narrow to it).
template <class K>
__global__ void __launch_bounds__(descent_threads)
    descent_init_kernel(descent_arrays<K> a, const void* input, std::int64_t n, const std::int64_t* ranks,
                        std::int64_t single_rank, std::int64_t num_ranks, const std::int32_t* fast_path_done,
                        const std::int32_t* ranks_valid, std::int32_t* status, const std::int64_t* size_on_device,
                        const unsigned long long* first_group) {
  const bool valid = ranks_valid == nullptr || *ranks_valid != 0;
  const bool needed = valid && (fast_path_done == nullptr || *fast_path_done != 1);
  if (threadIdx.x == 0) {
    descent_state<K>* st = a.state;
    st->active = needed ? 1 : 0;
    st->num_groups = 1;
    st->group_bits = core::descent_bucket_bits;
    st->src_is_input = 1;
    st->src = input;
    st->size = size_on_device ? *size_on_device : n;
    st->copy_to = nullptr;
    st->copied = 0;
    st->blocks_done = 0;
    a.group_lo[0] = first_group ? static_cast<K>(first_group[0]) : K(0);
    a.group_hi[0] = first_group ? static_cast<K>(first_group[1]) : static_cast<K>(~K(0));
    if (status)
      *status = !valid ? device::async_invalid_ranks : needed ? device::async_fell_back : device::async_answered;
  }
  if (!needed) return;
  descent_reset_buckets(a);
  for (std::int64_t i = threadIdx.x; i < num_ranks; i += blockDim.x) {
    a.rank_group[i] = 0;
    a.rank_in_group[i] = ranks != nullptr ? ranks[i] : single_rank;
  }
}

/// The last block of a round: turns the buckets into the next round's groups,
/// answers the ranks whose bucket holds one distinct key, and decides whether the
/// next round copies its groups' keys into a buffer. `smem` is the round's
/// shared memory, free again.
template <class T>
__device__ void descent_plan(const descent_arrays<core::key_t<T>>& a, std::int64_t num_ranks, T* out,
                             unsigned char* smem) {
  using K = core::key_t<T>;
  using scan_u64 = cub::BlockScan<unsigned long long, descent_threads>;
  using scan_int = cub::BlockScan<int, descent_threads>;
  using reduce_u64 = cub::BlockReduce<unsigned long long, descent_threads>;
  __shared__ union {
    typename scan_u64::TempStorage scan64;
    typename scan_int::TempStorage scan32;
    typename reduce_u64::TempStorage reduce;
  } tmp;
  constexpr int words = descent_buckets / 32;
  __shared__ std::uint32_t marked[words];
  __shared__ int marked_before[words];
  __shared__ int new_groups;
  auto* before = reinterpret_cast<unsigned long long*>(smem);  // exclusive prefix of the counts

  descent_state<K>* st = a.state;
  const int group_bits = st->group_bits;
  const int used = st->num_groups << group_bits;
  unsigned long long c[descent_items], p[descent_items];
#pragma unroll
  for (int i = 0; i < descent_items; ++i) {
    const int b = threadIdx.x * descent_items + i;
    c[i] = b < used ? __ldcg(a.count + b) : 0;
  }
  scan_u64(tmp.scan64).ExclusiveSum(c, p);
#pragma unroll
  for (int i = 0; i < descent_items; ++i) before[threadIdx.x * descent_items + i] = p[i];
  for (int w = threadIdx.x; w < words; w += blockDim.x) marked[w] = 0;
  __syncthreads();

  // Each open rank: its bucket, its rank there; answered if the bucket holds one key.
  const int buckets_per_group = 1 << group_bits;
  for (std::int64_t r = threadIdx.x; r < num_ranks; r += blockDim.x) {
    const int g = a.rank_group[r];
    if (g < 0) continue;
    const int first = g << group_bits;
    const unsigned long long target = before[first] + static_cast<unsigned long long>(a.rank_in_group[r]);
    const int j = static_cast<int>(
        core::partition_point(buckets_per_group, [&](std::int64_t k) { return before[first + k] <= target; }) - 1);
    const int b = first + j;
    const K lo = __ldcg(a.min + b), hi = __ldcg(a.max + b);
    if (lo == hi) {
      out[r] = core::key_traits<T>::from_key(lo);
      a.rank_group[r] = -1;
    } else {
      atomicOr(&marked[b / 32], 1u << (b % 32));
      a.rank_group[r] = b;  // a bucket for now; its new group's index below
      a.rank_in_group[r] = static_cast<std::int64_t>(target - before[b]);
    }
  }
  __syncthreads();
  int word_count = threadIdx.x < words ? __popc(marked[threadIdx.x]) : 0, word_before = 0, total = 0;
  scan_int(tmp.scan32).ExclusiveSum(word_count, word_before, total);
  if (threadIdx.x < words) marked_before[threadIdx.x] = word_before;
  if (threadIdx.x == 0) new_groups = total;
  __syncthreads();
  const int next_groups = new_groups;
  const int next_bits = next_groups > 0 ? core::descent_group_bits(next_groups) : core::descent_bucket_bits;
  auto group_of_bucket = [&](int b) {
    return marked_before[b / 32] + __popc(marked[b / 32] & ((1u << (b % 32)) - 1u));
  };
  unsigned long long kept = 0;
#pragma unroll
  for (int i = 0; i < descent_items; ++i) {
    const int b = threadIdx.x * descent_items + i;
    if ((marked[b / 32] >> (b % 32)) & 1u) {
      const int g = group_of_bucket(b);
      a.group_lo[g] = __ldcg(a.min + b);
      a.group_hi[g] = __ldcg(a.max + b);
      kept += c[i];
    }
  }
  __syncthreads();
  kept = reduce_u64(tmp.reduce).Sum(kept);
  for (std::int64_t r = threadIdx.x; r < num_ranks; r += blockDim.x) {
    const int b = a.rank_group[r];
    if (b >= 0) a.rank_group[r] = group_of_bucket(b);
  }
  descent_reset_buckets(a);
  if (threadIdx.x == 0) {
    if (st->copy_to != nullptr) {  // the round just ended copied its groups' keys: read them from now on
      st->src = st->copy_to;
      st->size = static_cast<std::int64_t>(st->copied);
      st->src_is_input = 0;
    }
    st->copy_to = nullptr;
    K* other = st->src == a.buffers[0] ? a.buffers[1] : a.buffers[0];
    if (next_groups > 0 && kept <= static_cast<unsigned long long>(a.capacity) &&
        kept < static_cast<unsigned long long>(st->size)) {
      st->copy_to = other;
      st->copied = 0;
    }
    st->num_groups = next_groups;
    st->group_bits = next_bits;
    st->active = next_groups > 0 ? 1 : 0;
    st->blocks_done = 0;
  }
}

/// One round: see the file comment. Launched with descent_threads threads and
/// descent_shared_bytes<K>() of dynamic shared memory.
template <class T>
__global__ void __launch_bounds__(descent_threads)
    descent_round_kernel(descent_arrays<core::key_t<T>> a, std::int64_t num_ranks, T* out) {
  using K = core::key_t<T>;
  extern __shared__ __align__(16) unsigned char descent_smem[];
  __shared__ bool last_block;
  descent_state<K>* st = a.state;
  if (st->active == 0) return;
  const int groups = st->num_groups, group_bits = st->group_bits;
  const int used = groups << group_bits;
  K* s_min = reinterpret_cast<K*>(descent_smem);
  K* s_max = s_min + descent_buckets;
  K* s_lo = s_max + descent_buckets;
  K* s_hi = s_lo + core::descent_max_ranks;
  auto* s_count = reinterpret_cast<unsigned*>(s_hi + core::descent_max_ranks);
  auto* s_shift = s_count + descent_buckets;
  for (int b = threadIdx.x; b < used; b += blockDim.x) {
    s_count[b] = 0;
    s_min[b] = static_cast<K>(~K(0));
    s_max[b] = 0;
  }
  for (int g = threadIdx.x; g < groups; g += blockDim.x) {
    const K lo = a.group_lo[g], hi = a.group_hi[g];
    s_lo[g] = lo;
    s_hi[g] = hi;
    s_shift[g] = static_cast<std::uint32_t>(core::descent_shift(lo, hi, group_bits));
  }
  K* const copy_to = st->copy_to;
  __syncthreads();

  // A tile at a time, each step over all of the thread's keys before the next
  // step, so that the keys' group searches and shared-memory round trips overlap
  // instead of running one key after another.
  using copy_scan = cub::BlockScan<int, descent_threads>;
  __shared__ typename copy_scan::TempStorage copy_tmp;
  __shared__ unsigned long long copy_base;
  constexpr int items = tuning::stream_items;
  int search_steps = 0;
  while ((1 << search_steps) < groups) ++search_steps;
  auto count_tile = [&](auto src_tag, const auto& vals, std::int64_t tail_base, std::int64_t size) {
    using Src = typename decltype(src_tag)::type;
    K x[items];
    int g[items];
#pragma unroll
    for (int i = 0; i < items; ++i) {
      x[i] = core::key_traits<Src>::to_key(vals[i]);
      g[i] = 0;
    }
    // The last group whose lo is <= x, as a branch-free binary search (groups
    // are sorted, disjoint key intervals; positions past the end read as above x).
    for (int step = search_steps - 1; step >= 0; --step) {
#pragma unroll
      for (int i = 0; i < items; ++i) {
        const int probe = g[i] + (1 << step);
        if (probe < groups && s_lo[probe] <= x[i]) g[i] = probe;
      }
    }
    int b[items], taken = 0;
#pragma unroll
    for (int i = 0; i < items; ++i) {
      const bool valid = tail_base < 0 || tail_base + i * descent_threads + threadIdx.x < size;
      const bool in = valid && x[i] >= s_lo[g[i]] && x[i] <= s_hi[g[i]];
      b[i] = in ? (g[i] << group_bits) + static_cast<int>((x[i] - s_lo[g[i]]) >> s_shift[g[i]]) : -1;
      taken += in;
    }
#pragma unroll
    for (int i = 0; i < items; ++i) {
      // One count per bucket per warp: lanes that share a bucket (ties, few
      // distinct values, a tight cluster) would otherwise queue on one counter.
      const unsigned peers = __match_any_sync(0xffffffffu, b[i]);
      if (b[i] >= 0 && (threadIdx.x & 31) == __ffs(peers) - 1)
        atomicAdd(s_count + b[i], static_cast<unsigned>(__popc(peers)));
    }
#pragma unroll
    for (int i = 0; i < items; ++i) {
      if (b[i] < 0) continue;
      if (x[i] < s_min[b[i]]) atomic_min_key(s_min + b[i], x[i]);
      if (x[i] > s_max[b[i]]) atomic_max_key(s_max + b[i], x[i]);
    }
    if (copy_to != nullptr) {  // block-uniform: one global atomic per tile
      int at = 0, total = 0;
      copy_scan(copy_tmp).ExclusiveSum(taken, at, total);
      if (threadIdx.x == 0) copy_base = atomicAdd(&st->copied, static_cast<unsigned long long>(total));
      __syncthreads();
      const unsigned long long base = copy_base;
#pragma unroll
      for (int i = 0; i < items; ++i)
        if (b[i] >= 0) copy_to[base + at++] = x[i];
      __syncthreads();  // copy_tmp and copy_base are reused by the next tile
    }
  };
  auto walk = [&](auto src_tag) {
    using Src = typename decltype(src_tag)::type;
    const std::int64_t size = st->size;
    stream_tile_batches(static_cast<const Src*>(st->src), size, [&](const Src(&vals)[items], std::int64_t tail_base) {
      count_tile(src_tag, vals, tail_base, size);
    });
  };
  if (st->src_is_input) walk(std::type_identity<T>{});
  else walk(std::type_identity<K>{});
  __syncthreads();

  for (int b = threadIdx.x; b < used; b += blockDim.x) {
    if (s_count[b] == 0) continue;
    atomicAdd(a.count + b, static_cast<unsigned long long>(s_count[b]));
    atomic_min_key(a.min + b, s_min[b]);
    atomic_max_key(a.max + b, s_max[b]);
  }
  __threadfence();
  __syncthreads();
  if (threadIdx.x == 0) last_block = atomicAdd(&st->blocks_done, 1u) == gridDim.x - 1;
  __syncthreads();
  if (!last_block) return;
  __threadfence();
  descent_plan<T>(a, num_ranks, out, descent_smem);
}

}  // namespace kselect::cuda
