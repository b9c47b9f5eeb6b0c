// The stream-ordered selections of small inputs (up to core::small_select_max
// keys): one launch, a thread-block cluster of C blocks per rank (C = 1, 2, 4 or
// 8, chosen at launch by cluster_select_dispatch.cuh). An input this small sits
// in L2 after the first read, and one launch costs less than the sampled fast
// path's and the grid descent's several.
//
// Why clusters: the answer is a radix descent that re-reads the input once per
// step (the span, each histogram round, the gather). With one block per rank,
// one SM's share of the L2 bandwidth sets the time, not the work; with C blocks,
// each reads its own 1/C of the input (its slice, 16-byte aligned but for the
// first block's head), and the blocks combine what they found through
// distributed shared memory (each block of a cluster reads and writes the shared
// memory of the others) at cluster barriers.
//
// What a cluster does for its rank:
//   span    each block reduces its slice to its smallest and largest key;
//           cluster barrier; every block combines the C spans. The descent
//           starts from the span rather than the key type's whole range: a round
//           over the whole range puts most inputs' keys into a few buckets
//           (uniform floats in [0, 1) into 8 of 4096), whose shared counters the
//           threads then queue on, and resolves few bits. Ranks 0 and n - 1 are
//           answered by the span.
//   rounds  while the rank's key range [lo, hi] holds more than one value and
//           more than small_select_gather_max keys: each block counts its
//           slice's keys in [lo, hi] into a 4096-bucket histogram of its own;
//           cluster barrier; block b sums bucket slice b (4096 / C buckets) over
//           the C histograms and writes the sums' inclusive prefix in place
//           (the other blocks read other bucket slices of block b's counts);
//           cluster barrier; every warp reads the C slices' totals to find the block
//           whose buckets hold the rank, and the block's threads search that
//           block's prefix sums for the rank's bucket. Every block so arrives at
//           the same next [lo, hi], rank and count, with two barriers a round.
//           Each round narrows the range 4096-fold: at most 3 rounds for 32-bit
//           keys, 6 for 64-bit. The histograms alternate between two buffers,
//           since a block may zero the next round's while a slower block still
//           searches this round's. Where another round would follow, [lo, hi]
//           first shrinks to the smallest and largest key in the rank's bucket
//           (a pass over the slice, one cluster barrier, as for the span): a
//           bucket of one value (few distinct values, ties) ends the descent.
//   gather  each block appends its slice's keys in [lo, hi] (at most
//           small_select_gather_max in the whole cluster) to the first block's
//           candidate list, through atomics on that block's counter (one per
//           warp step); cluster barrier; the first block finishes alone: up to
//           128 keys by comparing them pairwise, more by a radix descent over the
//           list in its shared memory, 1024 buckets a round, with block barriers
//           only.
// A block's shared memory must outlive the other blocks' reads of it, so every
// block passes that last barrier before it exits, also when the descent ended
// on one value (lo == hi) and nothing is gathered.
#pragma once

#include <cooperative_groups.h>

#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>
#include <cub/warp/warp_scan.cuh>
#include <cuda/functional>

#include <cstdint>

#include "cuda/kernels/atomic_keys.cuh"
#include "cuda/kernels/bin_finish_kernel.cuh"
#include "core/descent.hpp"
#include "core/int_math.hpp"
#include "core/key_traits.hpp"
#include "kselect/device.hpp"

namespace kselect::cuda {

/// The descent gathers the keys once at most this many are left, into the first
/// block's shared memory, and finishes there (cluster_selector::pick). On 2^16 to
/// 2^17 continuous keys the first round leaves a few hundred, so one round is
/// enough; a cluster round costs more than the gather and the block's own finish
/// (docs/performance.md, "Issue 24, the 2^16 graph replay").
constexpr int small_select_gather_max = 2048;
/// Buckets of a round of cluster_selector::pick: one per thread.
constexpr int pick_bucket_bits = 10;
/// Up to this many gathered keys, pick compares them pairwise (count^2 / threads
/// steps each) instead: cheaper than a round's barriers and scan (the gather
/// limit of 128 that the kernel had before, docs/performance.md).
constexpr int pick_compare_max = 128;
/// The largest portable cluster: bigger ones need an opt-in and may not fit.
constexpr int cluster_select_max_blocks = 8;

/// The blocks that answer one rank: the kernel's thread-block cluster. Code
/// compiled for devices without clusters (before sm_90) is launched with one
/// block per rank (cluster_select_dispatch.cuh checks the kernel's PTX version),
/// and there the cluster is the block alone.
struct rank_cluster {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
  static __device__ unsigned num_blocks() { return 1; }
  static __device__ unsigned block_rank() { return 0; }
  static __device__ void sync() { __syncthreads(); }
  template <class X>
  static __device__ X* map(X* local, unsigned) {
    return local;
  }
#else
  static __device__ unsigned num_blocks() { return cooperative_groups::this_cluster().num_blocks(); }
  static __device__ unsigned block_rank() { return cooperative_groups::this_cluster().block_rank(); }
  /// Every thread of every block; orders the shared-memory writes before it
  /// (local and remote) before the reads after it.
  static __device__ void sync() { cooperative_groups::this_cluster().sync(); }
  /// The address of `local`'s counterpart in block `block`'s shared memory.
  template <class X>
  static __device__ X* map(X* local, unsigned block) {
    return cooperative_groups::this_cluster().map_shared_rank(local, static_cast<int>(block));
  }
#endif
};

/// One block's shared memory: what the other blocks of its cluster read or
/// write remotely, and its own scratch space.
template <class K>
struct cluster_select_storage {
  static constexpr int threads = bin_finish_threads;
  static constexpr int buckets = bin_finish_buckets;
  /// A key range, reduced as one value: both bounds in one block reduction.
  struct key_bounds {
    K lo, hi;
  };
  struct widen {
    __device__ key_bounds operator()(const key_bounds& a, const key_bounds& b) const {
      return {a.lo < b.lo ? a.lo : b.lo, a.hi > b.hi ? a.hi : b.hi};
    }
  };
  using reduce_t = cub::BlockReduce<key_bounds, threads>;
  using scan_t = cub::BlockScan<unsigned, threads>;
  using warp_scan_t = cub::WarpScan<unsigned>;

  /// Two histograms, for alternate rounds (see the file comment). In a round:
  /// first this block's counts of its slice's keys, read by every block; then,
  /// in bucket slice block_rank, the inclusive prefix of the cluster's counts,
  /// read by every block. 16-byte aligned: read four buckets at a time.
  alignas(16) unsigned hist[2][buckets];
  union {
    typename reduce_t::TempStorage reduce;  // the span
    typename scan_t::TempStorage scan;      // a round's prefix sums
  } block_scratch;
  /// Each warp scans the C bucket slices' totals by itself (no block barrier),
  /// and its share of a bucket slice's totals.
  typename warp_scan_t::TempStorage warp_scan[threads / 32];
  /// Each warp's sum of its bucket slice's totals, in a round's sum.
  unsigned warp_totals[threads / 32];
  /// This block's slice's smallest and largest key (find_bounds), read by every block.
  K span[2];
  /// The rank's bucket of the round, written by the thread that finds it:
  /// its key range, the cluster's keys below it and in it.
  struct {
    K lo, hi;
    std::int64_t before, count;
  } next;
  /// The first block's only: the keys every block gathered, and their count
  /// (the other blocks add to it remotely).
  K candidates[small_select_gather_max];
  int num_candidates;
};

/// One block's share of the cluster's work for one rank (the file comment):
/// every block of the cluster calls select() with the same rank.
template <class T>
class cluster_selector {
  using K = core::key_t<T>;
  using storage_t = cluster_select_storage<K>;
  using reduce_t = typename storage_t::reduce_t;
  using scan_t = typename storage_t::scan_t;
  using key_bounds = typename storage_t::key_bounds;
  using widen = typename storage_t::widen;
  using warp_scan_t = typename storage_t::warp_scan_t;
  static constexpr int threads = storage_t::threads, buckets = storage_t::buckets;
  static constexpr int bucket_vectors = buckets / 4;  // uint4s of a histogram
  static_assert(sizeof(T) == 4 || sizeof(T) == 8, "for_each_region_key reads keys of 4 or 8 bytes");
  static_assert(bucket_vectors == threads, "each thread owns one uint4 (four buckets) of a histogram");
  static_assert((1 << pick_bucket_bits) == threads, "pick: one bucket per thread");
  static_assert(bucket_vectors % cluster_select_max_blocks == 0, "the bucket slices split the histogram evenly");
  static_assert(bucket_vectors / cluster_select_max_blocks % 32 == 0, "a bucket slice's threads are whole warps");
  static_assert(core::small_select_max <= (std::int64_t(1) << 31), "the histograms count with 32-bit counters");

 public:
  __device__ cluster_selector(storage_t& s, const T* in, std::int64_t n)
      : s_(s), blocks_(rank_cluster::num_blocks()), me_(rank_cluster::block_rank()) {
    // The slices: the head up to in's first 16-byte boundary goes to block 0,
    // the rest is cut at whole 16-byte vectors, so every other slice starts aligned.
    constexpr int per_vec = 16 / static_cast<int>(sizeof(T));
    const auto misalign = static_cast<std::int64_t>(reinterpret_cast<std::uintptr_t>(in) % 16 / sizeof(T));
    const std::int64_t head = misalign == 0 ? 0 : (per_vec - misalign < n ? per_vec - misalign : n);
    const std::int64_t vecs_per_block = ((n - head) / per_vec + blocks_ - 1) / blocks_;
    const auto bound = [&](unsigned b) {
      if (b == 0) return std::int64_t(0);
      if (b == blocks_) return n;
      const std::int64_t x = head + std::int64_t(b) * vecs_per_block * per_vec;
      return x < n ? x : n;
    };
    slice_ = in + bound(me_);
    slice_size_ = bound(me_ + 1) - bound(me_);
    if (me_ == 0 && threadIdx.x == 0) s_.num_candidates = 0;  // before the span's barrier, so before any gather
  }

  /// The key of rank `rank` among the n keys, into *answer (the first block writes it).
  __device__ void select(std::int64_t rank, std::int64_t n, T* answer) {
    K lo = 0, hi = static_cast<K>(~K(0));
    find_bounds(lo, hi);  // the span
    if (rank == 0) hi = lo;
    else if (rank == n - 1) lo = hi;
    std::int64_t count = n;
    for (int round = 0; lo != hi && count > small_select_gather_max; ++round) {
      unsigned* hist = s_.hist[round % 2];
      const int width = core::bit_width_of(static_cast<K>(hi - lo));
      const int shift = width > bin_finish_bucket_bits ? width - bin_finish_bucket_bits : 0;
      count_slice(hist, lo, hi, shift);
      rank_cluster::sync();  // every block's counts complete
      sum_bucket_slice(hist);
      rank_cluster::sync();  // every bucket slice's prefix sums complete
      find_bucket(hist, shift, lo, hi, rank, count);
      // Another round ahead: first the bucket's keys' own bounds (one value ends it).
      if (lo != hi && count > small_select_gather_max) find_bounds(lo, hi);
    }
    if (lo != hi) gather(lo, hi);
    rank_cluster::sync();  // the candidates complete; no block's shared memory is read after this
    if (me_ != 0) return;
    pick(lo, hi, rank, answer);
  }

 private:
  template <class F>
  __device__ __forceinline__ void each_key(F&& f) const {
    for_each_region_key(slice_, slice_size_, [&](T v) { f(core::key_traits<T>::to_key(v)); });
  }

  /// [lo, hi] becomes the smallest and largest of the input's keys in [lo, hi]
  /// (at least one), in every thread: the span of the whole input from the key
  /// type's whole range, or the keys' bounds in the rank's bucket. One cluster
  /// barrier. Block b's bounds (s_.span) are written again only after the next
  /// round's barriers, which every block passes after reading them.
  __device__ void find_bounds(K& lo, K& hi) {
    const K from = lo, to = hi;
    // An empty slice (n below C blocks' worth of vectors) leaves the identities.
    key_bounds b{static_cast<K>(~K(0)), 0};
    each_key([&](K x) {
      if (x < from || x > to) return;
      b.lo = x < b.lo ? x : b.lo;
      b.hi = x > b.hi ? x : b.hi;
    });
    b = reduce_t(s_.block_scratch.reduce).Reduce(b, widen{});
    if (threadIdx.x == 0) {
      s_.span[0] = b.lo;
      s_.span[1] = b.hi;
    }
    rank_cluster::sync();
    // Lane c of each warp reads block c's bounds (the C remote reads in flight
    // at once), and lanes 0..7 combine them by butterfly shuffles.
    static_assert(cluster_select_max_blocks == 8, "three butterfly steps combine the blocks' bounds");
    const unsigned lane = threadIdx.x % 32;
    b = {static_cast<K>(~K(0)), 0};
    if (lane < blocks_) {
      const K* other = rank_cluster::map(s_.span, lane);
      b = {other[0], other[1]};
    }
#pragma unroll
    for (int offset = 4; offset >= 1; offset /= 2)
      b = widen{}(b, key_bounds{__shfl_xor_sync(~0u, b.lo, offset), __shfl_xor_sync(~0u, b.hi, offset)});
    lo = __shfl_sync(~0u, b.lo, 0);
    hi = __shfl_sync(~0u, b.hi, 0);
  }

  /// This block's slice's keys in [lo, hi], counted into hist by bucket
  /// (x - lo) >> shift. Each thread adds a run of keys in one bucket at once:
  /// inputs with many equal keys would otherwise queue on one shared counter.
  __device__ void count_slice(unsigned* hist, K lo, K hi, int shift) {
    for (int b = threadIdx.x; b < buckets; b += threads) hist[b] = 0;
    __syncthreads();
    unsigned run_bucket = 0, run = 0;
    each_key([&](K x) {
      if (x < lo || x > hi) return;
      const auto b = static_cast<unsigned>((x - lo) >> shift);
      if (run != 0 && b == run_bucket) {
        ++run;
        return;
      }
      if (run != 0) atomicAdd(&hist[run_bucket], run);
      run_bucket = b;
      run = 1;
    });
    if (run != 0) atomicAdd(&hist[run_bucket], run);
  }

  /// Bucket slice me_ of the cluster's histogram: the C blocks' counts summed,
  /// their inclusive prefix written over this block's counts there.
  __device__ void sum_bucket_slice(unsigned* hist) {
    const unsigned vectors_per_slice = bucket_vectors / blocks_;
    const bool mine = threadIdx.x / vectors_per_slice == me_;
    unsigned counts[4] = {0, 0, 0, 0};
    if (mine) {
      // The cluster size as a constant: the C remote reads then go out without
      // a branch between them, all in flight at once.
      switch (blocks_) {
        case 1: add_counts<1>(hist, counts); break;
        case 2: add_counts<2>(hist, counts); break;
        case 4: add_counts<4>(hist, counts); break;
        default: add_counts<cluster_select_max_blocks>(hist, counts); break;
      }
    }
    // Only the slice's threads scan (whole warps: a slice is at least 128
    // vectors): each warp its threads' totals, then each thread adds the totals
    // of the slice's warps before its own. (A block scan of all 1024 threads,
    // most holding zeros at C = 8, took longer: docs/performance.md.)
    const unsigned warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const unsigned total = counts[0] + counts[1] + counts[2] + counts[3];
    unsigned through = 0;  // the warp's totals up to this thread's, inclusive
    if (mine) {
      warp_scan_t(s_.warp_scan[warp]).InclusiveSum(total, through);
      if (lane == 31) s_.warp_totals[warp] = through;
    }
    __syncthreads();
    if (!mine) return;
    unsigned before = through - total;
    for (unsigned w = me_ * vectors_per_slice / 32; w < warp; ++w) before += s_.warp_totals[w];
    const unsigned p0 = before + counts[0], p1 = p0 + counts[1], p2 = p1 + counts[2], p3 = p2 + counts[3];
    // Only this thread read these four counters, so no barrier before the write.
    reinterpret_cast<uint4*>(hist)[threadIdx.x] = make_uint4(p0, p1, p2, p3);
  }

  /// counts += this thread's four buckets of the histograms of blocks [0, C).
  template <unsigned C>
  __device__ __forceinline__ static void add_counts(const unsigned* hist, unsigned (&counts)[4]) {
#pragma unroll
    for (unsigned b = 0; b < C; ++b) {
      const uint4 v = reinterpret_cast<const uint4*>(rank_cluster::map(hist, b))[threadIdx.x];
      counts[0] += v.x;
      counts[1] += v.y;
      counts[2] += v.z;
      counts[3] += v.w;
    }
  }

  /// The bucket of [lo, hi] (width 2^shift each) that holds the rank, from the
  /// bucket slices' prefix sums: [lo, hi], rank and count become the bucket's.
  __device__ void find_bucket(const unsigned* hist, int shift, K& lo, K& hi, std::int64_t& rank,
                              std::int64_t& count) {
    const unsigned slice_buckets = buckets / blocks_;
    const unsigned lane = threadIdx.x % 32;
    // Lane b: bucket slice b's total (its last prefix sum) and the cluster's keys before it.
    unsigned total = 0, before = 0;
    if (lane < blocks_) total = rank_cluster::map(hist, lane)[(lane + 1) * slice_buckets - 1];
    warp_scan_t(s_.warp_scan[threadIdx.x / 32]).ExclusiveSum(total, before);
    const bool holds = lane < blocks_ && std::int64_t(before) <= rank && rank < std::int64_t(before) + total;
    const int owner = __ffs(__ballot_sync(~0u, holds)) - 1;
    const std::int64_t owner_before = __shfl_sync(~0u, before, owner);
    const std::int64_t rank_in_slice = rank - owner_before;
    const unsigned vectors_per_slice = slice_buckets / 4;
    if (threadIdx.x / vectors_per_slice == static_cast<unsigned>(owner)) {
      const unsigned* prefix = rank_cluster::map(hist, static_cast<unsigned>(owner));
      const uint4 v = reinterpret_cast<const uint4*>(prefix)[threadIdx.x];
      const unsigned through[4] = {v.x, v.y, v.z, v.w};  // the slice's keys up to each of the four buckets
      // The slice's keys before these four buckets: the previous bucket's prefix
      // sum (read unconditionally, so that both reads go out together), none at the slice's start.
      const unsigned previous = prefix[threadIdx.x == 0 ? 0 : 4 * threadIdx.x - 1];
      unsigned below = threadIdx.x % vectors_per_slice == 0 ? 0u : previous;
#pragma unroll
      for (int i = 0; i < 4; ++i) {
        if (std::int64_t(below) <= rank_in_slice && rank_in_slice < std::int64_t(through[i])) {
          const K bucket_lo = static_cast<K>(lo + (static_cast<K>(4 * threadIdx.x + i) << shift));
          s_.next.lo = bucket_lo;
          // The bucket's last key, without passing hi (or the key type's end).
          const bool last_bucket = static_cast<K>((hi - bucket_lo) >> shift) == 0;
          s_.next.hi = last_bucket ? hi : static_cast<K>(bucket_lo + ((K(1) << shift) - 1));
          s_.next.before = owner_before + below;
          s_.next.count = through[i] - below;
        }
        below = through[i];
      }
    }
    __syncthreads();
    lo = s_.next.lo;
    hi = s_.next.hi;
    rank -= s_.next.before;
    count = s_.next.count;
    // The next write of s_.next follows the next round's cluster barriers, so
    // every thread has read it by then.
  }

  /// This block's slice's keys in [lo, hi], appended to the first block's
  /// candidates: one remote atomic per warp and key step (the lanes that take
  /// part at once), not per key.
  __device__ void gather(K lo, K hi) {
    int* num = rank_cluster::map(&s_.num_candidates, 0);
    K* candidates = rank_cluster::map(s_.candidates, 0);
    const unsigned lane = threadIdx.x % 32;
    each_key([&](K x) {
      const bool in_range = x >= lo && x <= hi;
      const unsigned lanes = __activemask();
      const unsigned taking = __ballot_sync(lanes, in_range);
      if (taking == 0) return;
      const int leader = __ffs(taking) - 1;
      int first = 0;
      if (static_cast<int>(lane) == leader) first = atomicAdd(num, __popc(taking));
      first = __shfl_sync(lanes, first, leader);
      if (in_range) candidates[first + __popc(taking & ((1u << lane) - 1))] = x;
    });
  }

  /// The first block, after the gather: the key of rank `rank` among the
  /// candidates (the keys in [lo, hi]), into *answer. Up to pick_compare_max of
  /// them by comparing them pairwise; more by a radix descent over the list in
  /// this block's shared memory, 2^pick_bucket_bits buckets a round, with block
  /// barriers only: no block of the cluster reads this block's shared memory
  /// any more, so the histograms are free.
  __device__ void pick(K lo, K hi, std::int64_t rank, T* answer) {
    const int listed = s_.num_candidates;
    if (lo != hi && listed <= pick_compare_max) {
      // Few: each candidate's position is the count of keys below it plus equal
      // keys before it in the list (as bin_finish_pick).
      for (int i = threadIdx.x; i < listed; i += threads) {
        const K candidate = s_.candidates[i];
        int position = 0;
        for (int j = 0; j < listed; ++j) {
          const K x = s_.candidates[j];
          position += (x < candidate) | ((x == candidate) & (j < i));
        }
        if (position == rank) *answer = core::key_traits<T>::from_key(candidate);
      }
      return;
    }
    unsigned* hist = s_.hist[0];
    std::int64_t count = listed;
    while (lo != hi && count > 1) {
      const int width = core::bit_width_of(static_cast<K>(hi - lo));
      const int shift = width > pick_bucket_bits ? width - pick_bucket_bits : 0;
      hist[threadIdx.x] = 0;
      __syncthreads();
      for (int i = threadIdx.x; i < listed; i += threads) {
        const K x = s_.candidates[i];
        if (x >= lo && x <= hi) atomicAdd(&hist[static_cast<unsigned>((x - lo) >> shift)], 1u);
      }
      __syncthreads();
      const unsigned in_bucket = hist[threadIdx.x];
      unsigned through = 0;
      scan_t(s_.block_scratch.scan).InclusiveSum(in_bucket, through);
      const unsigned below = through - in_bucket;
      if (std::int64_t(below) <= rank && rank < std::int64_t(through)) {
        const K bucket_lo = static_cast<K>(lo + (static_cast<K>(threadIdx.x) << shift));
        const bool last_bucket = static_cast<K>((hi - bucket_lo) >> shift) == 0;
        s_.next.lo = bucket_lo;
        s_.next.hi = last_bucket ? hi : static_cast<K>(bucket_lo + ((K(1) << shift) - 1));
        s_.next.before = below;
        s_.next.count = in_bucket;
      }
      __syncthreads();
      lo = s_.next.lo;
      hi = s_.next.hi;
      rank -= s_.next.before;
      count = s_.next.count;
      __syncthreads();  // every thread has read s_.next and the scan storage before the next round
    }
    if (lo == hi) {
      if (threadIdx.x == 0) *answer = core::key_traits<T>::from_key(lo);
      return;
    }
    for (int i = threadIdx.x; i < listed; i += threads) {  // count == 1: the one candidate in [lo, hi]
      const K x = s_.candidates[i];
      if (x >= lo && x <= hi) *answer = core::key_traits<T>::from_key(x);
    }
  }

  storage_t& s_;
  const unsigned blocks_, me_;
  const T* slice_ = nullptr;
  std::int64_t slice_size_ = 0;
};

/// Dynamic shared memory of cluster_select_kernel<T>.
template <class T>
constexpr std::size_t cluster_select_smem_bytes = sizeof(cluster_select_storage<core::key_t<T>>);

/// Cluster c (of gridDim.x / C, C blocks each: a 1-D grid) answers rank ranks[c]
/// (ranks null: single_rank) of in[0, n) into out[c]. Block 0 of the grid writes
/// the status (null: none): device::async_invalid_ranks when ranks_valid (may be
/// null) says the ranks were invalid, else async_answered.
template <class T>
__global__ void __launch_bounds__(bin_finish_threads)
    cluster_select_kernel(const T* in, std::int64_t n, const std::int64_t* ranks, std::int64_t single_rank,
                          const std::int32_t* ranks_valid, std::int32_t* status, T* out) {
  // Dynamic: the histograms and bucket bounds pass the 48 KiB of static shared memory.
  extern __shared__ __align__(16) unsigned char cluster_select_smem[];
  auto& storage = *reinterpret_cast<cluster_select_storage<core::key_t<T>>*>(cluster_select_smem);
  if (status != nullptr && blockIdx.x == 0 && threadIdx.x == 0)
    *status = ranks_valid != nullptr && *ranks_valid == 0 ? device::async_invalid_ranks : device::async_answered;
  const std::int64_t which = blockIdx.x / rank_cluster::num_blocks();
  const std::int64_t rank = ranks != nullptr ? ranks[which] : single_rank;
  cluster_selector<T>(storage, in, n).select(rank, n, out + which);
}

}  // namespace kselect::cuda
