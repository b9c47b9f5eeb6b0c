// Host driver of the multiselection pre-pass: reduces many ranks of a large
// input to the same ranks of a much smaller copy, sorts the copy and reads the
// answers off it.
//
//   sorted_sample_kernel        4096 keys, sorted; copied to the host (round trip 1)
//   host: plan::build_bin_map   bins shaped by the sample; if the sample predicts
//                               that the bins holding ranks keep more than 1/16 of
//                               the input (few distinct values), stop here and run
//                               the general driver on the input
//   bin_count_kernel            one read: a histogram of ~8K bins (round trip 2)
//   host: plan::reduce_to_bins  the bins holding ranks, and each rank's rank
//                               among their keys
//   bin_filter_kernel           one read: copies those bins' keys (~2% of uniform
//                               input for 101 percentiles)
//   cub::DeviceRadixSort        sorts the copy (no host round trip; it replaced
//                               the general driver on the copy, ~0.34 ms with
//                               its round trips for 5 M keys)
//   gather_answers_kernel
//
// Why: the general driver's level 0 classifies every key against 1023 sorted
// splitters twice (count, then filter), at 90+ instructions per key; a bin here
// costs a table read and a multiply (docs/algorithms.md has the measurements).
#pragma once

#include <cub/device/device_radix_sort.cuh>

#include <cstdint>
#include <vector>

#include "cuda/common.cuh"
#include "cuda/dispatch/full_wave.hpp"
#include "cuda/dispatch/multiselect_dispatch.cuh"
#include "cuda/dispatch/profiler.hpp"
#include "cuda/dispatch/workspace.hpp"
#include "cuda/kernels/bin_pass_kernel.cuh"
#include "cuda/tuning.hpp"
#include "plan/bin_map.hpp"
#include "plan/bin_reduction.hpp"
#include "plan/key_traits.hpp"

namespace kselect::cuda_detail {

template <class T>
class bin_reduce_driver {
  using K = plan::key_t<T>;

 public:
  bin_reduce_driver(const T* in, std::int64_t n, const std::int64_t* ranks, std::int64_t num_ranks, T* out,
                    cudaStream_t stream, const device::select_config& cfg, char* ws, const workspace_layout& layout)
      : in_(in), n_(n), ranks_(ranks), num_ranks_(num_ranks), out_(out), stream_(stream), cfg_(cfg), ws_(ws),
        w_(layout) {}

  cudaError_t run() {
    auto* d_sample = reinterpret_cast<K*>(ws_ + w_.pre_sample);
    auto* d_map = reinterpret_cast<plan::bin_map<K>*>(ws_ + w_.pre_map);
    auto* d_hist = reinterpret_cast<unsigned long long*>(ws_ + w_.pre_hist);
    auto* d_selected = reinterpret_cast<std::uint32_t*>(ws_ + w_.pre_selected);
    auto* d_cursor = reinterpret_cast<unsigned long long*>(ws_ + w_.pre_cursor);
    auto* d_kept = reinterpret_cast<K*>(ws_ + w_.pre_kept);
    auto* d_alt = reinterpret_cast<K*>(ws_ + w_.pre_alt);
    auto* d_ranks = reinterpret_cast<std::int64_t*>(ws_ + w_.pre_ranks);

    prof_.start(stream_, "prepass sample");
    sorted_sample_kernel<T><<<1, tuning::sample_threads, 0, stream_>>>(in_, n_, cfg_.seed ^ 0x5eedull, d_sample);
    KSELECT_LAUNCH_CHECK();
    prof_.stop(stream_);
    std::vector<K> sample(tuning::sample_size);
    KSELECT_CUDA_TRY(cudaMemcpyAsync(sample.data(), d_sample, sample.size() * sizeof(K), cudaMemcpyDeviceToHost,
                                     stream_));
    KSELECT_CUDA_TRY(cudaStreamSynchronize(stream_));

    // The sample as pre-keys (pre_key_first is increasing in the key: still sorted).
    for (K& k : sample) k = plan::key_traits<T>::pre_key_first(k);
    map_ = plan::build_bin_map<K>(sample.data(), static_cast<int>(sample.size()), tuning::bin_target);
    std::vector<std::uint32_t> sample_bins(sample.size());
    for (std::size_t i = 0; i < sample.size(); ++i) sample_bins[i] = plan::bin_of(map_, sample[i]);
    const std::span<const std::int64_t> ranks(ranks_, static_cast<std::size_t>(num_ranks_));
    if (plan::predict_kept_fraction(sample_bins, ranks, n_) > tuning::bin_prepass_max_predicted) return general();

    const std::size_t bins = map_.num_bins;
    KSELECT_CUDA_TRY(cudaMemcpyAsync(d_map, &map_, sizeof map_, cudaMemcpyHostToDevice, stream_));
    KSELECT_CUDA_TRY(cudaMemsetAsync(d_hist, 0, bins * sizeof(unsigned long long), stream_));
    KSELECT_CUDA_TRY(grid_size());
    prof_.start(stream_, "prepass count");
    bin_count_kernel<T><<<grid_, tuning::stream_threads, 0, stream_>>>(in_, n_, d_map, d_hist);
    KSELECT_LAUNCH_CHECK();
    prof_.stop(stream_);
    hist_.resize(bins);
    KSELECT_CUDA_TRY(cudaMemcpyAsync(hist_.data(), d_hist, bins * sizeof(std::uint64_t), cudaMemcpyDeviceToHost,
                                     stream_));
    KSELECT_CUDA_TRY(cudaStreamSynchronize(stream_));

    reduction_ = plan::reduce_to_bins(hist_, ranks);
    if (reduction_.kept > w_.prepass_capacity) return general();
    reduction_.selected.resize(tuning::bin_target / 32 + plan::bin_map_slots / 32, 0u);
    KSELECT_CUDA_TRY(cudaMemcpyAsync(d_selected, reduction_.selected.data(),
                                     reduction_.selected.size() * sizeof(std::uint32_t), cudaMemcpyHostToDevice,
                                     stream_));
    KSELECT_CUDA_TRY(cudaMemsetAsync(d_cursor, 0, sizeof(unsigned long long), stream_));
    prof_.start(stream_, "prepass filter");
    bin_filter_kernel<T><<<grid_, tuning::stream_threads, 0, stream_>>>(in_, n_, d_map, d_selected, d_kept, d_cursor,
                                                                        w_.prepass_capacity);
    KSELECT_LAUNCH_CHECK();
    prof_.stop(stream_);
    used_prepass_ = true;
    cub::DoubleBuffer<K> keys(d_kept, d_alt);
    std::size_t sort_bytes = w_.pre_sort_bytes;
    prof_.start(stream_, "prepass sort of the copy");
    KSELECT_CUDA_TRY(cub::DeviceRadixSort::SortKeys(ws_ + w_.pre_sort, sort_bytes, keys, reduction_.kept, 0,
                                                    int(sizeof(K) * 8), stream_));
    prof_.stop(stream_);
    KSELECT_CUDA_TRY(cudaMemcpyAsync(d_ranks, reduction_.ranks.data(), num_ranks_ * sizeof(std::int64_t),
                                     cudaMemcpyHostToDevice, stream_));
    const int threads = 256;
    const auto blocks = static_cast<unsigned>((num_ranks_ + threads - 1) / threads);
    gather_answers_kernel<T><<<blocks, threads, 0, stream_>>>(keys.Current(), d_ranks, num_ranks_, out_);
    KSELECT_LAUNCH_CHECK();
    prof_.report();
    return cudaSuccess;
  }

  /// For tests: whether the pre-pass ran to the end (else the general driver ran on the input).
  bool used_prepass() const { return used_prepass_; }

 private:
  cudaError_t general() {
    multiselect_driver<T> driver(in_, n_, ranks_, num_ranks_, out_, stream_, cfg_, ws_, w_);
    return driver.run();
  }

  /// A full wave of blocks, more if a block would count 2^31 keys or more (its
  /// shared counters are 32-bit).
  cudaError_t grid_size() {
    KSELECT_CUDA_TRY(full_wave_blocks(bin_count_kernel<T>, grid_));
    grid_ = static_cast<unsigned>(std::max<std::int64_t>(grid_, (n_ >> 31) + 1));
    return cudaSuccess;
  }

  const T* in_;
  std::int64_t n_;
  const std::int64_t* ranks_;
  std::int64_t num_ranks_;
  T* out_;
  cudaStream_t stream_;
  device::select_config cfg_;
  char* ws_;
  workspace_layout w_;
  unsigned grid_ = 1;
  plan::bin_map<K> map_{};
  std::vector<std::uint64_t> hist_;
  plan::bin_reduction reduction_;
  bool used_prepass_ = false;
  launch_profiler prof_;
};

}  // namespace kselect::cuda_detail
