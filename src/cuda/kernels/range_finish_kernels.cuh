// The small kernels that finish a rank-range selection: the chosen candidates
// into the output, the output's ordered keys for a sort, and the gather of the
// final values (the input's elements bit for bit, and the paired payload) by
// index.
#pragma once

#include <cub/block/block_radix_sort.cuh>

#include <cstdint>
#include <type_traits>

#include "cuda/kernels/load_tile.cuh"
#include "cuda/kernels/range_pass_kernel.cuh"
#include "core/int_math.hpp"
#include "core/key_traits.hpp"
#include "core/range_plan.hpp"

namespace kselect::cuda {

__device__ __forceinline__ std::int64_t load_index(const void* indices, int index_bytes, std::int64_t at) {
  if (index_bytes == 4) return static_cast<const std::int32_t*>(indices)[at];
  return static_cast<const std::int64_t*>(indices)[at];
}

/// Whether the run of keys equal to keys[at] also holds keys[at - 1]: it
/// straddles position `at` of the sorted keys[0, count) (deterministic ties:
/// range_tie_kernels.cuh).
template <class K>
__device__ __forceinline__ bool run_straddles(const K* keys, std::int64_t count, std::int64_t at) {
  return at > 0 && at < count && keys[at - 1] == keys[at];
}

/// out[at + j] = input[cand_idx[first + j]] for j < count, with the index.
/// tie_keys (deterministic ties, else null): the candidates' sorted keys, of
/// which there are cand_count; positions in a run of equal keys that straddles
/// `first` or `first + count` are left to range_tie_pick_kernel
/// (range_tie_kernels.cuh).
template <class T>
__global__ void range_pick_kernel(const T* input, const std::uint64_t* cand_idx, std::int64_t first,
                                  std::int64_t count, T* out_keys, void* out_indices, int index_bytes, std::int64_t at,
                                  const core::key_t<T>* tie_keys, std::int64_t cand_count) {
  using K = core::key_t<T>;
  const bool lo_tie = tie_keys && run_straddles(tie_keys, cand_count, first);
  const bool hi_tie = tie_keys && run_straddles(tie_keys, cand_count, first + count);
  const K lo_key = lo_tie ? tie_keys[first] : K{}, hi_key = hi_tie ? tie_keys[first + count] : K{};
  for (std::int64_t j = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; j < count;
       j += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    if (lo_tie || hi_tie) {
      const K k = tie_keys[first + j];
      if ((lo_tie && k == lo_key) || (hi_tie && k == hi_key)) continue;
    }
    const auto pos = static_cast<std::int64_t>(cand_idx[first + j]);
    out_keys[at + j] = load_readonly(input + pos);
    if (out_indices) store_index(out_indices, index_bytes, at + j, pos);
  }
}

/// Few candidates (at most threads x items): sorted in one block by key (and by
/// index first when deterministic: BlockRadixSort is stable), then sorted
/// positions [first, last) copied to out_at. A device-wide radix sort costs
/// ~40-70 us of launches even for a few thousand pairs.
template <class T, int threads, int items>
__global__ void __launch_bounds__(threads)
    range_small_finish_kernel(const T* input, const T* cand_vals, const std::uint64_t* cand_idx, std::int64_t count,
                              core::key_t<T> flip, bool deterministic, int index_bits, std::int64_t first,
                              std::int64_t last, T* out_keys, void* out_indices, int index_bytes, std::int64_t out_at) {
  using K = core::key_t<T>;
  using by_key_t = cub::BlockRadixSort<K, threads, items, std::uint64_t>;
  using by_index_t = cub::BlockRadixSort<std::uint64_t, threads, items, K>;
  __shared__ union {
    typename by_key_t::TempStorage by_key;
    typename by_index_t::TempStorage by_index;
  } smem;
  K keys[items];
  std::uint64_t idx[items];
#pragma unroll
  for (int i = 0; i < items; ++i) {
    const std::int64_t j = static_cast<std::int64_t>(threadIdx.x) * items + i;
    const bool valid = j < count;  // padding sorts last: largest key and index
    keys[i] = valid ? core::range_key(cand_vals[j], flip) : static_cast<K>(~K(0));
    idx[i] = valid ? cand_idx[j] : ~std::uint64_t(0);
  }
  if (deterministic) {
    by_index_t(smem.by_index).Sort(idx, keys, 0, index_bits + 1);  // +1: the padding's index sorts last
    __syncthreads();
  }
  by_key_t(smem.by_key).Sort(keys, idx);
#pragma unroll
  for (int i = 0; i < items; ++i) {
    const std::int64_t j = static_cast<std::int64_t>(threadIdx.x) * items + i;
    if (j >= first && j < last) {
      const auto pos = static_cast<std::int64_t>(idx[i]);
      out_keys[out_at + j - first] = load_readonly(input + pos);
      if (out_indices) store_index(out_indices, index_bytes, out_at + j - first, pos);
    }
  }
}

/// Sorted output's one sort (range_driver::sort_with_candidates): the output's
/// keys so far, then the last level's candidates, as ordered keys and 64-bit
/// indices side by side (count = out_count + cand_count).
template <class T>
__global__ void range_union_keys_kernel(const T* out, const void* out_idx, int index_bytes, std::int64_t out_count,
                                        const T* cand_vals, const std::uint64_t* cand_idx, std::int64_t count,
                                        core::key_t<T> flip, core::key_t<T>* keys, std::uint64_t* idx) {
  for (std::int64_t j = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; j < count;
       j += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    if (j < out_count) {
      keys[j] = core::range_key(out[j], flip);
      idx[j] = static_cast<std::uint64_t>(load_index(out_idx, index_bytes, j));
    } else {
      keys[j] = core::range_key(cand_vals[j - out_count], flip);
      idx[j] = cand_idx[j - out_count];
    }
  }
}

/// keys[j] = flipped ordered key of out[j] (the output's or the candidates' values).
template <class T>
__global__ void range_output_keys_kernel(const T* out, std::int64_t count, core::key_t<T> flip,
                                         core::key_t<T>* keys) {
  for (std::int64_t j = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; j < count;
       j += static_cast<std::int64_t>(gridDim.x) * blockDim.x)
    keys[j] = core::range_key(out[j], flip);
}

/// Sorted output from the sorted keys and their indices: out_keys[j] is keys[j]'s
/// value (the flip undone, from_key), read from the input by index only where the
/// key stands for several bit patterns (zeros, NaNs: key_traits::restores_bits),
/// so that the output costs no gather of scattered input elements (one scattered
/// read per output element: docs/performance.md, "Issue 25, sorted and tied
/// top-k"); the index copied to idx_out when not null. An index is read only where
/// one of the two needs it.
template <class T>
__global__ void range_sorted_output_kernel(const T* input, const core::key_t<T>* keys, const void* idx,
                                           int index_bytes, std::int64_t count, core::key_t<T> flip, T* out_keys,
                                           void* idx_out) {
  using traits = core::key_traits<T>;
  for (std::int64_t j = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; j < count;
       j += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    const auto key = static_cast<core::key_t<T>>(keys[j] ^ flip);
    const bool exact = traits::restores_bits(key);
    const std::int64_t pos = exact && !idx_out ? 0 : load_index(idx, index_bytes, j);
    out_keys[j] = exact ? traits::from_key(key) : load_readonly(input + pos);
    if (idx_out) store_index(idx_out, index_bytes, j, pos);
  }
}

/// Whether CUB's radix order puts x elsewhere than kselect's: a NaN whose sign
/// bit is set sorts below -inf in CUB's order, where kselect ties every NaN
/// above +inf.
template <class T>
__device__ __forceinline__ bool negative_nan(T x) {
  using traits = core::key_traits<T>;
  if constexpr (std::is_floating_point_v<T>)
    return (traits::bits_of(x) & traits::sign_bit) != 0 && traits::to_key(x) == traits::nan_key;
  else
    return false;
}

/// After the values' own sort (sort_values): the negative NaNs, which CUB put
/// at the start (ascending) or the end (descending), to *count. One thread: a
/// binary search over the sorted values where the first (last) one is such a NaN.
template <class T>
__global__ void range_negative_nans_kernel(const T* sorted, std::int64_t m, bool descending,
                                           unsigned long long* count) {
  const auto nans = descending ? m - core::partition_point(m, [&](std::int64_t i) { return !negative_nan(sorted[i]); })
                               : core::partition_point(m, [&](std::int64_t i) { return negative_nan(sorted[i]); });
  *count = static_cast<unsigned long long>(nans);
}

/// dst[j] = src[(j + shift) mod m], values and indices, where shift moves
/// range_negative_nans_kernel's *count negative NaNs to the NaN end of the order
/// (all NaNs are one key, so they then tie after +inf, or before it when
/// descending). With `rotate` false the shift is 0 (a copy). Returns at once
/// where *count is 0, unless `always` (the data must move anyway).
template <class T, class I>
__global__ void range_rotate_nans_kernel(const T* src, const I* src_idx, T* dst, I* dst_idx, std::int64_t m,
                                         const unsigned long long* count, bool descending, bool rotate,
                                         bool always) {
  const auto nans = static_cast<std::int64_t>(*count);
  if (nans == 0 && !always) return;
  const std::int64_t shift = !rotate || nans == 0 ? 0 : descending ? m - nans : nans;
  for (std::int64_t j = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; j < m;
       j += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    const std::int64_t from = j + shift < m ? j + shift : j + shift - m;
    dst[j] = src[from];
    dst_idx[j] = src_idx[from];
  }
}

/// By index: out_keys[j] = input[idx[j]], optionally the index copied to
/// idx_out and the payload gathered (value_bytes 4 or 8).
template <class T>
__global__ void range_gather_kernel(const T* input, const void* idx, int index_bytes, std::int64_t count,
                                    T* out_keys, void* idx_out, const void* values_in, void* values_out,
                                    int value_bytes) {
  for (std::int64_t j = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; j < count;
       j += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    const std::int64_t pos = load_index(idx, index_bytes, j);
    if (out_keys) out_keys[j] = load_readonly(input + pos);
    if (idx_out) store_index(idx_out, index_bytes, j, pos);
    if (values_in) {
      if (value_bytes == 4)
        static_cast<std::uint32_t*>(values_out)[j] = static_cast<const std::uint32_t*>(values_in)[pos];
      else
        static_cast<std::uint64_t*>(values_out)[j] = static_cast<const std::uint64_t*>(values_in)[pos];
    }
  }
}

}  // namespace kselect::cuda
