// The baseline of the segmented benchmark (segmented_bench.cu): what a CUDA user
// does without kselect. Sort every segment with CUB (DeviceSegmentedRadixSort for
// equal rows, DeviceSegmentedSort for ragged segments; with int32 positions as the
// values for top-k), then read the answers off the sorted segments with one small
// kernel: a rank per segment, NumPy's quantiles (core/quantile_math.hpp, the recipe
// kselect follows, so the answers compare exactly), or the first k keys and their
// positions local to the segment. CUB's sorts are stable, so ties at the k-th key
// go to the smaller position, as kselect's top-k.
#pragma once

#include <cub/device/device_segmented_radix_sort.cuh>
#include <cub/device/device_segmented_sort.cuh>

#include <algorithm>
#include <cstdint>
#include <limits>

#include "common/device_data.cuh"
#include "core/quantile_math.hpp"

namespace kselect::bench {

namespace detail {

inline unsigned grid_for(std::int64_t work) {
  return static_cast<unsigned>(std::min<std::int64_t>((work + 255) / 256, 132 * 32));
}

template <class I>
__global__ void iota_kernel(I* out, std::int64_t n) {
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < n;
       i += std::int64_t(gridDim.x) * blockDim.x)
    out[i] = static_cast<I>(i);
}

// out[i] = rank (ks ? ks[i] : k) of segment i.
template <class T>
__global__ void pick_rank_kernel(const T* sorted, const std::int64_t* offsets, std::int64_t m, std::int64_t k,
                                 const std::int64_t* ks, T* out) {
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < m;
       i += std::int64_t(gridDim.x) * blockDim.x)
    out[i] = sorted[offsets[i] + (ks ? ks[i] : k)];
}

// out[i * nq + j] = numpy.quantile(segment i, qs[j], method="linear"); NaN when empty.
template <class T>
__global__ void pick_quantiles_kernel(const T* sorted, const std::int64_t* offsets, std::int64_t m, const double* qs,
                                      int nq, quantile_value_t<T>* out) {
  for (std::int64_t e = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; e < m * nq;
       e += std::int64_t(gridDim.x) * blockDim.x) {
    const std::int64_t i = e / nq, begin = offsets[i], length = offsets[i + 1] - begin;
    if (length == 0) {
      out[e] = std::numeric_limits<quantile_value_t<T>>::quiet_NaN();
      continue;
    }
    const core::quantile_point p = core::quantile_point_of(length, qs[e % nq], quantile_method::linear);
    out[e] = core::combine(p, sorted[begin + p.lo], sorted[begin + p.hi]);
  }
}

// The first k keys of every sorted segment and their positions in the segment.
template <class T>
__global__ void first_k_kernel(const T* sorted, const std::int32_t* positions, const std::int64_t* offsets,
                               std::int64_t m, std::int64_t k, T* keys, std::int64_t* indices) {
  for (std::int64_t e = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; e < m * k;
       e += std::int64_t(gridDim.x) * blockDim.x) {
    const std::int64_t begin = offsets[e / k], at = begin + e % k;
    keys[e] = sorted[at];
    indices[e] = positions[at] - begin;
  }
}

}  // namespace detail

/// Segmented sort of n keys in m segments (d_offsets: m + 1 device offsets), its
/// buffers and CUB's temporary storage allocated once, at construction.
template <class T>
class cub_segmented_sort {
 public:
  /// rows: the segments are equal rows (DeviceSegmentedRadixSort), else ragged
  /// (DeviceSegmentedSort). pairs: also sort int32 positions; descending: largest first.
  cub_segmented_sort(std::int64_t n, std::int64_t m, const std::int64_t* d_offsets, bool rows, bool pairs,
                     bool descending, cudaStream_t stream)
      : n_(n),
        m_(m),
        offsets_(d_offsets),
        rows_(rows),
        descending_(descending),
        stream_(stream),
        sorted_(static_cast<std::size_t>(n)) {
    if (pairs) {
      positions_ = test::device_buffer<std::int32_t>(static_cast<std::size_t>(n));
      sorted_positions_ = test::device_buffer<std::int32_t>(static_cast<std::size_t>(n));
      detail::iota_kernel<std::int32_t><<<detail::grid_for(n), 256, 0, stream>>>(positions_.data(), n);
      test::cuda_check(cudaPeekAtLastError(), "iota");
    }
    test::cuda_check(run(nullptr, temp_bytes_, nullptr), "CUB segmented sort query");
    temp_ = test::device_buffer<char>(temp_bytes_);
  }

  /// Sorts the segments of d_in on the stream.
  void sort(const T* d_in) {
    std::size_t bytes = temp_bytes_;
    test::cuda_check(run(temp_.data(), bytes, d_in), "CUB segmented sort");
  }

  /// out[i] = rank k (or d_ks[i], when not null) of segment i, after sort().
  void pick_ranks(std::int64_t k, const std::int64_t* d_ks, T* out) const {
    detail::pick_rank_kernel<T><<<detail::grid_for(m_), 256, 0, stream_>>>(sorted_.data(), offsets_, m_, k, d_ks, out);
    test::cuda_check(cudaPeekAtLastError(), "pick ranks");
  }

  /// out (m, nq) = the linear quantiles at d_qs (nq device values), after sort().
  void pick_quantiles(const double* d_qs, int nq, quantile_value_t<T>* out) const {
    detail::pick_quantiles_kernel<T>
        <<<detail::grid_for(m_ * nq), 256, 0, stream_>>>(sorted_.data(), offsets_, m_, d_qs, nq, out);
    test::cuda_check(cudaPeekAtLastError(), "pick quantiles");
  }

  /// The first k keys of every segment and their positions, (m, k), after sort() with pairs.
  void first_k(std::int64_t k, T* keys, std::int64_t* indices) const {
    detail::first_k_kernel<T><<<detail::grid_for(m_ * k), 256, 0, stream_>>>(sorted_.data(), sorted_positions_.data(),
                                                                             offsets_, m_, k, keys, indices);
    test::cuda_check(cudaPeekAtLastError(), "first k");
  }

 private:
  cudaError_t run(void* temp, std::size_t& bytes, const T* in) {
    const std::int64_t* end = offsets_ + 1;
    T* out = sorted_.data();
    if (positions_.size() == 0) {
      if (rows_ && descending_)
        return cub::DeviceSegmentedRadixSort::SortKeysDescending(temp, bytes, in, out, static_cast<int>(n_),
                                                                 static_cast<int>(m_), offsets_, end, 0,
                                                                 int(sizeof(T) * 8), stream_);
      if (rows_)
        return cub::DeviceSegmentedRadixSort::SortKeys(temp, bytes, in, out, static_cast<int>(n_), static_cast<int>(m_),
                                                       offsets_, end, 0, int(sizeof(T) * 8), stream_);
      if (descending_)
        return cub::DeviceSegmentedSort::SortKeysDescending(temp, bytes, in, out, n_, m_, offsets_, end, stream_);
      return cub::DeviceSegmentedSort::SortKeys(temp, bytes, in, out, n_, m_, offsets_, end, stream_);
    }
    const std::int32_t* pos = positions_.data();
    std::int32_t* pos_out = sorted_positions_.data();
    if (rows_ && descending_)
      return cub::DeviceSegmentedRadixSort::SortPairsDescending(temp, bytes, in, out, pos, pos_out,
                                                                static_cast<int>(n_), static_cast<int>(m_), offsets_,
                                                                end, 0, int(sizeof(T) * 8), stream_);
    if (rows_)
      return cub::DeviceSegmentedRadixSort::SortPairs(temp, bytes, in, out, pos, pos_out, static_cast<int>(n_),
                                                      static_cast<int>(m_), offsets_, end, 0, int(sizeof(T) * 8),
                                                      stream_);
    if (descending_)
      return cub::DeviceSegmentedSort::SortPairsDescending(temp, bytes, in, out, pos, pos_out, n_, m_, offsets_, end,
                                                           stream_);
    return cub::DeviceSegmentedSort::SortPairs(temp, bytes, in, out, pos, pos_out, n_, m_, offsets_, end, stream_);
  }

  std::int64_t n_, m_;
  const std::int64_t* offsets_;
  bool rows_, descending_;
  cudaStream_t stream_;
  test::device_buffer<T> sorted_;
  test::device_buffer<std::int32_t> positions_, sorted_positions_;
  test::device_buffer<char> temp_;
  std::size_t temp_bytes_ = 0;
};

}  // namespace kselect::bench
