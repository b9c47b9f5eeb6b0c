// Host driver of single-rank selection: the window levels chained on the device.
//
//   window_plan_kernel<first>  (1 block: sample, sort, window bounds)
//   window_pass_kernel<first>  (count + copy the window, one read of the input)
//   window_plan_kernel         (locate the rank; answer it or plan the next window)
//   window_pass_kernel ... and so on, for the levels the input size predicts;
//   then one device-to-host copy of the status and one stream sync.
//
// Host round trips per call: one when every prediction holds (the common case;
// a few more only if the window stays wider than predicted). When a prediction
// misses (probability ~1e-4 per level at 4 sigma) or a window overflows its
// buffer, the call reruns the general multiselection driver, which is exact
// whatever the sample did.
#pragma once

#include <cstdint>

#include "cuda/common.cuh"
#include "cuda/dispatch/full_wave.hpp"
#include "cuda/dispatch/multiselect_dispatch.cuh"
#include "cuda/dispatch/profiler.hpp"
#include "cuda/dispatch/workspace.hpp"
#include "cuda/kernels/window_pass_kernel.cuh"
#include "cuda/kernels/window_plan_kernel.cuh"
#include "cuda/tuning.hpp"
#include "core/window.hpp"

namespace kselect::cuda {

template <class T>
class window_select_driver {
  using K = core::key_t<T>;

 public:
  window_select_driver(const T* in, std::int64_t n, std::int64_t rank, T* out, cudaStream_t stream,
                       const device::select_config& cfg, char* ws, const workspace_layout& layout,
                       window_params params = {})
      : in_(in), n_(n), rank_(rank), out_(out), stream_(stream), cfg_(cfg), ws_(ws), w_(layout), params_(params) {
    params_.capacity = layout.capacity;
    state_ = reinterpret_cast<window_state<K>*>(ws + w_.window_state);
    buffers_[0] = reinterpret_cast<K*>(ws + w_.buffer_a);
    buffers_[1] = reinterpret_cast<K*>(ws + w_.buffer_b);
  }

  cudaError_t run() {
    KSELECT_CUDA_TRY(queue_predicted_levels());
    window_status status{};
    for (;;) {
      KSELECT_CUDA_TRY(cudaMemcpyAsync(&status, &state_->status, sizeof status, cudaMemcpyDeviceToHost, stream_));
      KSELECT_CUDA_TRY(cudaStreamSynchronize(stream_));
      ++round_trips_;
      if (status != window_status::running) break;
      // The window stayed wider than predicted (ties): more levels, then look again.
      KSELECT_CUDA_TRY(queue_extra_levels());
    }
    prof_.report();
    if (status == window_status::done) return cudaSuccess;
    fell_back_ = true;
    multiselect_driver<T> general(in_, n_, &rank_, 1, out_, stream_, cfg_, ws_, w_);
    return general.run();
  }

  /// The stream-ordered mode's levels: those the input size predicts, then
  /// extra_levels more for a window that stays wide, all queued without waiting.
  /// The rank is *d_rank when d_rank is not null. Whatever they leave open
  /// (state status not done) is the descent's (stream_ordered_dispatch.cuh).
  cudaError_t queue_stream_ordered(const std::int64_t* d_rank) {
    d_rank_ = d_rank;
    KSELECT_CUDA_TRY(queue_predicted_levels());
    return queue_extra_levels();
  }

  /// The window state's status word (window_status::done once answered).
  const std::int32_t* status_word() const { return reinterpret_cast<const std::int32_t*>(&state_->status); }

  /// For tests: whether the call needed the general path, and its host round trips.
  bool fell_back() const { return fell_back_; }
  int round_trips() const { return round_trips_; }

 private:
  /// The levels the input size predicts, each a plan and a pass, and the plan
  /// that reads the last pass.
  cudaError_t queue_predicted_levels() {
    KSELECT_CUDA_TRY(full_wave_blocks(window_pass_kernel<T, false>, grid_));
    KSELECT_CUDA_TRY(plan_level<true>());
    KSELECT_CUDA_TRY(pass_level<true>());
    const int queued = core::expected_window_levels(n_, tuning::sample_size, params_.sigmas, params_.margin,
                                                    tuning::base_case_max);
    for (int level = 1; level < queued; ++level) {
      KSELECT_CUDA_TRY(plan_level<false>());
      KSELECT_CUDA_TRY(pass_level<false>());
    }
    return plan_level<false>();
  }

  /// extra_levels more passes and plans, for a window that stays wide (ties).
  cudaError_t queue_extra_levels() {
    for (int extra = 0; extra < w_.policy->window.extra_levels; ++extra) {
      KSELECT_CUDA_TRY(pass_level<false>());
      KSELECT_CUDA_TRY(plan_level<false>());
    }
    return cudaSuccess;
  }

  template <bool first>
  cudaError_t plan_level() {
    prof_.start(stream_, first ? "window plan L0" : "window plan");
    window_plan_kernel<T, first><<<1, tuning::sample_threads, 0, stream_>>>(
        state_, in_, n_, rank_, d_rank_, buffers_[0], buffers_[1], params_, cfg_.seed, out_);
    KSELECT_LAUNCH_CHECK();
    prof_.stop(stream_);
    return cudaSuccess;
  }

  template <bool first>
  cudaError_t pass_level() {
    prof_.start(stream_, first ? "window pass L0" : "window pass");
    window_pass_kernel<T, first><<<grid_, tuning::stream_threads, 0, stream_>>>(state_, params_.capacity);
    KSELECT_LAUNCH_CHECK();
    prof_.stop(stream_);
    return cudaSuccess;
  }

  const T* in_;
  std::int64_t n_, rank_;
  const std::int64_t* d_rank_ = nullptr;
  T* out_;
  cudaStream_t stream_;
  device::select_config cfg_;
  char* ws_;
  workspace_layout w_;
  window_params params_;
  window_state<K>* state_;
  K* buffers_[2];
  unsigned grid_ = 1;
  bool fell_back_ = false;
  int round_trips_ = 0;
  launch_profiler prof_;
};

}  // namespace kselect::cuda
