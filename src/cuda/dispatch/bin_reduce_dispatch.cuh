// Host driver of the multiselection pre-pass: reduces many ranks of a large
// input to the same ranks of small regions of a copy, and answers each from its
// region. Everything runs on the device; the host waits once, at the end.
//
//   bin_map_kernel       1 block: a sorted 4096-key sample, the bin map (core/bin_map.hpp),
//                        and the prediction of the copy's size: if the bins at the ranks'
//                        expected sample positions hold more than prepass.max_predicted of
//                        the sample (few distinct values), every later kernel returns at once
//   bin_count_kernel     one read: a histogram of up to 8192 bins; where the sample
//                        expects the ranks that need a copy in one narrow run of bins,
//                        also a copy of that run's keys (core/prepass_speculation.hpp);
//                        else, for 8-byte keys, a kernel of its own (the other returns
//                        at once) also writes each key's bin as a 2-byte tag
//   bin_reduce_kernel    1 block: the bins holding ranks, a region of the copy for each,
//                        each rank's place in its region, the bins as a few pre-key
//                        intervals where that spares the filter a search per key;
//                        stops if the copy would overflow its buffer
//   bin_extract_kernel   one read: copies those bins' values (~1.7% of uniform input for
//                        101 percentiles), in any order; where the bins came as
//                        intervals, bin_extract_intervals_kernel does (the others
//                        return at once), from the count pass's copy where it
//                        holds every selected bin; where the keys are tagged,
//                        bin_extract_tagged_kernel, reading the tags and the
//                        selected keys only
//   bin_scatter_kernel   moves the copy into one region per selected bin, as keys
//   bin_finish_kernel    a block per rank: selects it in its region (in L2)
//   then one device-to-host copy of the state and one stream sync; if a step
//   stopped, the general driver (multiselect_driver) runs on the input.
//
// Host round trips per call: one (plus the general driver's when it runs): the
// planning between the passes runs on the device, and per-bin regions replace a
// sort of the whole copy (docs/algorithms.md, "Many ranks: a pre-pass that shrinks the input").
#pragma once

#include <cstdint>
#include <vector>

#include "cuda/common.cuh"
#include "cuda/dispatch/full_wave.hpp"
#include "cuda/dispatch/multiselect_dispatch.cuh"
#include "cuda/dispatch/profiler.hpp"
#include "cuda/dispatch/workspace.hpp"
#include "cuda/kernels/bin_finish_kernel.cuh"
#include "cuda/kernels/bin_pass_kernel.cuh"
#include "cuda/kernels/bin_plan_kernels.cuh"
#include "cuda/tuning.hpp"
#include "core/bin_intervals.hpp"
#include "core/bin_map.hpp"
#include "core/key_traits.hpp"

namespace kselect::cuda {

static_assert(tuning::compiled.prepass.reduce.tile_items() == core::bin_map_max_bins,
              "bin_reduce_kernel: a thread takes items_per_thread of the map's bins");
static_assert(tuning::compiled.prepass.bin_target < core::bin_map_max_bins, "the map adds one bin");

template <class T>
class bin_reduce_driver {
  using K = core::key_t<T>;

 public:
  bin_reduce_driver(const T* in, std::int64_t n, const std::int64_t* ranks, std::int64_t num_ranks, T* out,
                    cudaStream_t stream, const device::select_config& cfg, char* ws, const workspace_layout& layout)
      : in_(in), n_(n), ranks_(ranks), num_ranks_(num_ranks), out_(out), stream_(stream), cfg_(cfg), ws_(ws),
        w_(layout) {
    d_map_ = reinterpret_cast<core::bin_map<K>*>(ws_ + w_.pre_map);
    d_hist_ = reinterpret_cast<unsigned long long*>(ws_ + w_.pre_hist);
    d_selected_ = reinterpret_cast<std::uint32_t*>(ws_ + w_.pre_selected);
    d_before_word_ = reinterpret_cast<std::uint32_t*>(ws_ + w_.pre_before_word);
    d_intervals_ = reinterpret_cast<core::bin_intervals<K>*>(ws_ + w_.pre_intervals);
    d_region_ = reinterpret_cast<bin_region<K>*>(ws_ + w_.pre_region);
    d_tasks_ = reinterpret_cast<bin_rank_task*>(ws_ + w_.pre_tasks);
    d_state_ = reinterpret_cast<bin_prepass_state*>(ws_ + w_.pre_state);
    d_copy_ = reinterpret_cast<T*>(ws_ + w_.pre_copy);
    d_copy_cursor_ = reinterpret_cast<unsigned long long*>(ws_ + w_.pre_copy_cursor);
    d_regions_ = reinterpret_cast<K*>(ws_ + w_.pre_regions);
    d_ranks_ = reinterpret_cast<std::int64_t*>(ws_ + w_.pre_ranks);
    d_tags_ = w_.pre_tags_bytes > 0 ? reinterpret_cast<std::uint16_t*>(ws_ + w_.pre_tags) : nullptr;
  }

  cudaError_t run() {
    // The workspace carves the pre-pass's regions only for the calls it was chosen
    // for (choose_multiselect_path); the scatter's shared memory holds max_ranks regions.
    if (w_.prepass_capacity <= 0 || num_ranks_ > tuning::bin_prepass_max_ranks) return general();
    KSELECT_CUDA_TRY(cudaMemcpyAsync(d_ranks_, ranks_, num_ranks_ * sizeof(std::int64_t), cudaMemcpyHostToDevice,
                                     stream_));
    KSELECT_CUDA_TRY(queue(d_ranks_));
    bin_prepass_state state{};
    KSELECT_CUDA_TRY(cudaMemcpyAsync(&state, d_state_, sizeof state, cudaMemcpyDeviceToHost, stream_));
    KSELECT_CUDA_TRY(cudaStreamSynchronize(stream_));
    prof_.report();
    if (state.proceed == 0) return general();
    used_prepass_ = true;
    return cudaSuccess;
  }

  /// The pre-pass's kernels for the ranks in device memory at `ranks`, queued
  /// without waiting (the stream-ordered mode; run() waits after them).
  cudaError_t queue(const std::int64_t* ranks) {
    const auto max_predicted = static_cast<std::int64_t>(tuning::sample_size * w_.policy->prepass.max_predicted);
    prof_.start(stream_, "prepass sample and map");
    bin_map_kernel<T><<<1, bin_map_threads, 0, stream_>>>(in_, n_, cfg_.seed ^ 0x5eedull, ranks, num_ranks_,
                                                           max_predicted, d_tags_ != nullptr, d_map_, d_state_,
                                                           d_hist_, d_copy_cursor_);
    KSELECT_LAUNCH_CHECK();
    prof_.stop(stream_);
    KSELECT_CUDA_TRY(grid_size());
    prof_.start(stream_, "prepass count");
    // The count pass's speculative copy goes where the scatter later writes the regions.
    bin_count_kernel<T><<<grid_, tuning::stream_threads, 0, stream_>>>(in_, n_, d_map_, d_state_, d_hist_,
                                                                       spec_copy(), w_.prepass_capacity, d_tags_);
    KSELECT_LAUNCH_CHECK();
    if constexpr (tuning::bin_tags<K>) {  // the tagging count (one of the two returns at once)
      bin_count_kernel<T, true><<<tagged_grid_, tuning::stream_threads, 0, stream_>>>(
          in_, n_, d_map_, d_state_, d_hist_, spec_copy(), w_.prepass_capacity, d_tags_);
      KSELECT_LAUNCH_CHECK();
    }
    prof_.stop(stream_);
    prof_.start(stream_, "prepass reduce");
    bin_reduce_kernel<K><<<1, bin_reduce_threads, 0, stream_>>>(
        d_hist_, d_map_, ranks, num_ranks_, w_.prepass_capacity, d_selected_, d_before_word_, d_intervals_, d_region_,
        d_tasks_, d_state_);
    KSELECT_LAUNCH_CHECK();
    prof_.stop(stream_);
    prof_.start(stream_, "prepass filter");
    bin_extract_kernel<T><<<grid_, tuning::stream_threads, 0, stream_>>>(in_, n_, d_map_, d_selected_, d_intervals_,
                                                                         d_state_, d_copy_cursor_, d_copy_);
    KSELECT_LAUNCH_CHECK();
    if constexpr (tuning::bin_tags<K>) {
      bin_extract_tagged_kernel<T><<<tagged_filter_grid_, tuning::stream_threads, 0, stream_>>>(
          in_, n_, d_selected_, d_tags_, d_state_, d_copy_cursor_, d_copy_);
      KSELECT_LAUNCH_CHECK();
    }
    prof_.stop(stream_);
    prof_.start(stream_, "prepass filter by intervals");
    bin_extract_intervals_kernel<T><<<intervals_grid_, tuning::stream_threads, 0, stream_>>>(
        in_, n_, spec_copy(), d_intervals_, d_state_, d_copy_cursor_, d_copy_);
    KSELECT_LAUNCH_CHECK();
    prof_.stop(stream_);
    prof_.start(stream_, "prepass scatter");
    bin_scatter_kernel<T><<<grid_, tuning::stream_threads, 0, stream_>>>(d_copy_, d_map_, d_selected_, d_before_word_,
                                                                         d_region_, d_state_, d_regions_);
    KSELECT_LAUNCH_CHECK();
    prof_.stop(stream_);
    prof_.start(stream_, "prepass finish");
    bin_finish_kernel<T><<<static_cast<unsigned>(num_ranks_), bin_finish_threads, 0, stream_>>>(
        d_regions_, d_region_, d_tasks_, d_state_, out_);
    KSELECT_LAUNCH_CHECK();
    prof_.stop(stream_);
    return cudaSuccess;
  }

  /// The pre-pass's state, its first word is `proceed` (1: every rank answered).
  const std::int32_t* proceed_word() const { return reinterpret_cast<const std::int32_t*>(&d_state_->proceed); }

  /// For tests: whether the pre-pass ran to the end (else the general driver ran on the input).
  bool used_prepass() const { return used_prepass_; }

 private:
  /// The regions' buffer (prepass_capacity keys), as values: the count pass's
  /// copy, read by the filter before the scatter fills the regions.
  T* spec_copy() const { return reinterpret_cast<T*>(d_regions_); }

  cudaError_t general() {
    multiselect_driver<T> driver(in_, n_, ranks_, num_ranks_, out_, stream_, cfg_, ws_, w_);
    return driver.run();
  }

  /// A full wave of blocks, more if a block would count 2^31 keys or more (its
  /// shared counters are 32-bit). The filter by intervals fits fewer blocks on an
  /// SM (registers): its own full wave, so that no block waits for a second one.
  cudaError_t grid_size() {
    KSELECT_CUDA_TRY(full_wave_blocks(bin_count_kernel<T>, grid_));
    grid_ = blocks_for_32bit_counters(grid_, n_);
    if constexpr (tuning::bin_tags<K>) {
      KSELECT_CUDA_TRY(full_wave_blocks(bin_count_kernel<T, true>, tagged_grid_));
      tagged_grid_ = blocks_for_32bit_counters(tagged_grid_, n_);
      KSELECT_CUDA_TRY(full_wave_blocks(bin_extract_tagged_kernel<T>, tagged_filter_grid_));
    }
    return full_wave_blocks(bin_extract_intervals_kernel<T>, intervals_grid_);
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
  core::bin_map<K>* d_map_;
  unsigned long long* d_hist_;
  std::uint32_t* d_selected_;
  std::uint32_t* d_before_word_;
  core::bin_intervals<K>* d_intervals_;
  bin_region<K>* d_region_;
  bin_rank_task* d_tasks_;
  bin_prepass_state* d_state_;
  T* d_copy_;
  unsigned long long* d_copy_cursor_;
  K* d_regions_;
  std::int64_t* d_ranks_;
  std::uint16_t* d_tags_;  ///< the count pass's bin tags, nullptr where the workspace has none
  unsigned grid_ = 1, intervals_grid_ = 1, tagged_grid_ = 1, tagged_filter_grid_ = 1;
  bool used_prepass_ = false;
  launch_profiler prof_;
};

}  // namespace kselect::cuda
