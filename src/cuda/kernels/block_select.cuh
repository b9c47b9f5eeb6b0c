// One block finds the keys at two sorted positions of threads x items keys held
// in registers, without sorting them: a most-significant-digit radix selection,
// 8 bits a pass, each pass a shared-memory histogram of the keys that still
// match the prefix found so far (one histogram while the two prefixes agree).
// approx_plan_kernel's window mode needs two order statistics of its
// 16384-key sample and the few keys between them, not the whole sample sorted
// (sorting all 16384 keys with cub::BlockRadixSort costs more than this selection).
//
// Each lane counts into its own column of the histogram (word digit * 32 +
// lane, bank = lane), so the adds of a warp never collide, however skewed the
// digits: uniform floats share their top byte by the thousand, and one word per
// digit would serialise those adds.
#pragma once

#include <cstdint>

namespace kselect::cuda {

template <class K, int threads, int items>
struct block_radix_select {
  static_assert(threads % 32 == 0 && threads >= 2 * 256, "whole warps; a thread per bin and histogram");
  static constexpr int digit_bits = 8;
  static constexpr int bins = 1 << digit_bits;
  static constexpr int passes = static_cast<int>(8 * sizeof(K)) / digit_bits;
  static constexpr int bins_per_lane = bins / 32;

  struct storage {
    std::uint32_t columns[2][bins * 32];  ///< per histogram: digit * 32 + lane
    std::uint32_t hist[2][bins];          ///< the columns summed
    std::uint32_t digit[2];               ///< the digit each position falls in, this pass
    std::uint32_t below_digit[2];         ///< matching keys with a smaller digit, this pass
  };

  /// For each of the two positions: the key there, the number of keys below it
  /// and the number equal to it.
  struct result {
    K key;
    std::uint32_t below;
    std::uint32_t equal;
  };

  /// Positions rank[0], rank[1] in [0, threads * items). All threads call it
  /// with the same ranks; every thread gets both results.
  static __device__ void select(const K (&keys)[items], const std::uint32_t (&rank_in)[2], result (&out)[2],
                                storage& s) {
    const int tid = static_cast<int>(threadIdx.x);
    const unsigned lane = threadIdx.x % 32u;
    K prefix[2] = {0, 0}, mask = 0;
    std::uint32_t rank[2] = {rank_in[0], rank_in[1]}, below[2] = {0, 0}, equal[2] = {0, 0};
#pragma unroll 1
    for (int pass = 0; pass < passes; ++pass) {
      const int shift = static_cast<int>(8 * sizeof(K)) - digit_bits * (pass + 1);
      const int histograms = prefix[0] == prefix[1] ? 1 : 2;  // the same in every thread
      for (int w = tid; w < histograms * bins * 32; w += threads) s.columns[w / (bins * 32)][w % (bins * 32)] = 0;
      __syncthreads();
#pragma unroll
      for (int i = 0; i < items; ++i) {
        const auto digit = static_cast<std::uint32_t>((keys[i] >> shift) & (bins - 1));
        for (int h = 0; h < histograms; ++h)
          if ((keys[i] & mask) == prefix[h]) atomicAdd(&s.columns[h][digit * 32 + lane], 1u);
      }
      __syncthreads();
      // A thread per bin sums its 32 columns, starting at its own bank.
      for (int t = tid; t < histograms * bins; t += threads) {
        const int h = t / bins, b = t % bins;
        std::uint32_t sum = 0;
#pragma unroll 8
        for (int j = 0; j < 32; ++j) sum += s.columns[h][b * 32 + ((j + b) & 31)];
        s.hist[h][b] = sum;
      }
      __syncthreads();
      // Warp h: the digit whose bin holds position rank[h] among the matching keys.
      const int warp = tid / 32;
      if (warp < 2) {
        const std::uint32_t* hist = s.hist[histograms == 1 ? 0 : warp];
        const std::uint32_t r = rank[warp];
        std::uint32_t own[bins_per_lane], sum = 0;
#pragma unroll
        for (int j = 0; j < bins_per_lane; ++j) {
          own[j] = hist[lane * bins_per_lane + j];
          sum += own[j];
        }
        std::uint32_t inclusive = sum;
#pragma unroll
        for (int d = 1; d < 32; d *= 2) {
          const std::uint32_t up = __shfl_up_sync(0xffffffffu, inclusive, d);
          if (lane >= static_cast<unsigned>(d)) inclusive += up;
        }
        std::uint32_t before = inclusive - sum;
        if (r >= before && r < inclusive) {
#pragma unroll
          for (int j = 0; j < bins_per_lane; ++j) {
            if (r < before + own[j]) {
              s.digit[warp] = lane * bins_per_lane + j;
              s.below_digit[warp] = before;
              break;
            }
            before += own[j];
          }
        }
      }
      __syncthreads();
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const std::uint32_t digit = s.digit[h], below_digit = s.below_digit[h];
        equal[h] = s.hist[histograms == 1 ? 0 : h][digit];
        prefix[h] |= static_cast<K>(static_cast<K>(digit) << shift);
        below[h] += below_digit;
        rank[h] -= below_digit;
      }
      mask |= static_cast<K>(static_cast<K>(bins - 1) << shift);
      __syncthreads();  // the next pass clears the histograms
    }
#pragma unroll
    for (int h = 0; h < 2; ++h) out[h] = {prefix[h], below[h], equal[h]};
  }
};

}  // namespace kselect::cuda
