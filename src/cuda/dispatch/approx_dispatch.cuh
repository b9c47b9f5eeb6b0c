// The device API's approximate multiselection (kselect::device::approx_multiselect,
// src/cuda/approx_api.cuh): validation, the two-phase workspace protocol, and the
// driver. One instantiation TU per key type (instantiate/approx_*.cu).
//
//   (host)               core::approx_choose_candidates: the histogram mode
//                        (splitters spread over the sample) or, for few close
//                        ranks, the window mode (splitters packed around them)
//   cudaMemcpyAsync      the ranks to the device
//   approx_sample_kernel the sample's keys, gathered by 64 blocks
//   approx_plan_kernel   1 block: the sample sorted (window mode: two keys selected,
//                        the few between sorted), splitters, the counting pass's table
//   approx_count_kernel  one read of the input: every key's bucket, counted
//                        (window mode: keys outside the window only compared
//                        and counted in registers)
//   approx_answer_kernel 1 block: each rank's nearest splitter, value, exact rank, verdict
//   then, unless no answer can exceed the bound (core::approx_error_always_within),
//   one copy of the verdicts to the host and one wait on `stream`; the ranks that
//   need it are selected by device::multiselect (exact; its own round trips) and
//   put in place by approx_scatter_kernel.
// max_rank_error = 0 is device::multiselect on every rank (a counting pass would
// answer few of them). Nothing allocates; nothing waits on other streams.
//
// Stream-ordered (approx_multiselect_async, ranks in device memory): the ranks
// checked on the device (rank_check_kernel), the histogram mode's pass as above,
// the answer kernel's verdict over all ranks to a flag, then the exact descent of
// every rank (descent_entry.hpp), which returns at once when the flag says all
// are within the bound; approx_exact_ranks_kernel then reports each rank as its
// own. No wait, no host copy.
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "cuda/common.cuh"
#include "cuda/dispatch/arguments.hpp"
#include "cuda/dispatch/approx_workspace.hpp"
#include "cuda/dispatch/descent_entry.hpp"
#include "cuda/dispatch/device_policy.hpp"
#include "cuda/dispatch/profiler.hpp"
#include "cuda/kernels/approx_answer_kernel.cuh"
#include "cuda/kernels/approx_count_kernel.cuh"
#include "cuda/kernels/approx_plan_kernel.cuh"
#include "cuda/kernels/approx_sample_kernel.cuh"
#include "cuda/kernels/rank_check_kernel.cuh"
#include "cuda/tuning.hpp"
#include "kselect/device.hpp"
#include "core/approx.hpp"
#include "core/approx_lookup.hpp"

namespace kselect::cuda {

// Both backends draw the same sample by default (the CPU backend has no seed argument).
static_assert(device::approx_config{}.seed == kselect::detail::default_seed, "default seeds differ");
// ... and the same candidates (cpu::approx_multiselect allows the window mode by default).
static_assert(device::approx_config{}.window, "the window mode is the CPU backend's default");
// The plan kernel sorts the whole sample in one block.
static_assert(tuning::compiled.approx.plan_k32.tile_items() == core::approx_sample_size &&
                  tuning::compiled.approx.plan_k64.tile_items() == core::approx_sample_size,
              "approx_plan_kernel: one block sort of the sample");

/// The exact multiselect's workspace for any number of the ranks, 1 to num_ranks,
/// from its own size query (device::multiselect, instantiated in device_api_*.cu).
/// Its size grows with the rank count except where its strategy changes: one
/// rank, and above the pre-pass's rank limit; the maximum over those points covers
/// every count. (Were that to change, device::multiselect would refuse the
/// fallback with "workspace too small", never overrun it.) The rank limit is
/// choose_multiselect_path's, with the device's policy `p`.
template <class T>
cudaError_t fallback_workspace_bytes(std::int64_t n, std::int64_t num_ranks, const tuning::policy& p,
                                     std::size_t& bytes) {
  bytes = 0;
  const std::int64_t limit = p.prepass.max_ranks;
  const std::int64_t probes[] = {1, 2, std::min(num_ranks, limit), std::min(num_ranks, limit + 1), num_ranks};
  for (const std::int64_t k : probes) {
    if (k < 1 || k > num_ranks) continue;
    std::size_t b = 0;
    KSELECT_CUDA_TRY(device::multiselect<T>(nullptr, b, nullptr, nullptr, n, nullptr, k, nullptr));
    bytes = std::max(bytes, b);
  }
  return cudaSuccess;
}

template <class T>
class approx_driver {
  using K = core::key_t<T>;

 public:
  approx_driver(const T* in, std::int64_t n, const std::int64_t* ranks, std::int64_t num_ranks,
                std::int64_t max_rank_error, T* out, std::int64_t* out_ranks, cudaStream_t stream,
                const device::approx_config& cfg, char* ws, const approx_layout& layout)
      : in_(in), n_(n), ranks_(ranks), num_ranks_(num_ranks), max_rank_error_(max_rank_error), out_(out),
        out_ranks_(out_ranks), stream_(stream), cfg_(cfg), ws_(ws), w_(layout) {}

  cudaError_t run() {
    if (max_rank_error_ == 0) return exact_all();
    auto* d_ranks = reinterpret_cast<std::int64_t*>(ws_ + w_.ranks);
    auto* d_verdicts = reinterpret_cast<std::uint8_t*>(ws_ + w_.verdicts);
    const core::approx_candidates cand = core::approx_choose_candidates(
        n_, std::span<const std::int64_t>(ranks_, static_cast<std::size_t>(num_ranks_)), max_rank_error_,
        cfg_.buckets, cfg_.window);
    KSELECT_CUDA_TRY(cudaMemcpyAsync(d_ranks, ranks_, static_cast<std::size_t>(num_ranks_) * sizeof(std::int64_t),
                                     cudaMemcpyHostToDevice, stream_));
    KSELECT_CUDA_TRY(queue_counting_pass(cand, d_ranks, d_verdicts, nullptr));

    if (core::approx_error_always_within(n_, ranks_[0], ranks_[num_ranks_ - 1], max_rank_error_)) {
      prof_.report();
      return cudaSuccess;
    }
    std::vector<std::uint8_t> verdicts(static_cast<std::size_t>(num_ranks_));
    KSELECT_CUDA_TRY(cudaMemcpyAsync(verdicts.data(), d_verdicts, verdicts.size(), cudaMemcpyDeviceToHost, stream_));
    KSELECT_CUDA_TRY(cudaStreamSynchronize(stream_));
    prof_.report();
    const core::approx_fallback fb =
        core::collect_fallback(verdicts, std::span<const std::int64_t>(ranks_, verdicts.size()));
    if (fb.index.empty()) return cudaSuccess;
    return fallback(fb, d_ranks);
  }

  /// approx_multiselect_async: d_user_ranks (device) checked on the device, the
  /// histogram mode's counting pass (the host does not know the ranks, so no
  /// window mode), then, on the device's verdict, the exact descent of every rank
  /// (skipped when all are within the bound). max_rank_error = 0: multiselect_async.
  cudaError_t run_stream_ordered(const std::int64_t* d_user_ranks, std::int32_t* status) {
    if (max_rank_error_ == 0) {
      std::size_t bytes = w_.fallback_bytes;
      KSELECT_CUDA_TRY(device::multiselect_async<T>(ws_ + w_.fallback_workspace, bytes, in_, out_, status, n_,
                                                    d_user_ranks, num_ranks_, stream_));
      return cudaMemcpyAsync(out_ranks_, d_user_ranks, static_cast<std::size_t>(num_ranks_) * sizeof(std::int64_t),
                             cudaMemcpyDeviceToDevice, stream_);
    }
    auto* d_ranks = reinterpret_cast<std::int64_t*>(ws_ + w_.ranks);
    auto* d_verdicts = reinterpret_cast<std::uint8_t*>(ws_ + w_.verdicts);
    auto* valid = reinterpret_cast<std::int32_t*>(ws_ + w_.flags);
    std::int32_t* all_within = valid + 1;
    rank_check_kernel<><<<1, rank_check_threads, 0, stream_>>>(d_user_ranks, num_ranks_, n_, d_ranks, valid);
    KSELECT_LAUNCH_CHECK();
    KSELECT_CUDA_TRY(queue_counting_pass(core::approx_histogram_candidates(cfg_.buckets), d_ranks, d_verdicts,
                                         all_within));
    KSELECT_CUDA_TRY(queue_exact_descent<T>(ws_ + w_.fallback_workspace, in_, n_, d_ranks, num_ranks_, out_,
                                            all_within, valid, status, stream_));
    constexpr tuning::launch_shape scatter = tuning::compiled.approx.scatter;
    const auto blocks = static_cast<unsigned>(
        std::min<std::int64_t>(scatter.blocks_for(num_ranks_), w_.policy->approx.scatter_max_blocks));
    approx_exact_ranks_kernel<><<<blocks, scatter.threads, 0, stream_>>>(all_within, d_ranks, num_ranks_, out_ranks_);
    KSELECT_LAUNCH_CHECK();
    return cudaSuccess;
  }

 private:
  /// The sample, the plan, the counting pass and the answers (with each rank's
  /// verdict, and with all_within, when not null, whether none needs the exact
  /// selection), for the ranks at d_ranks (device).
  cudaError_t queue_counting_pass(const core::approx_candidates& cand, const std::int64_t* d_ranks,
                                  std::uint8_t* d_verdicts, std::int32_t* all_within) {
    const int budget = core::approx_table_budget(cand);
    const approx_tables<T> tables{reinterpret_cast<core::approx_lookup<K>*>(ws_ + w_.lookup),
                                  reinterpret_cast<std::uint32_t*>(ws_ + w_.fine),
                                  reinterpret_cast<K*>(ws_ + w_.boundaries), reinterpret_cast<T*>(ws_ + w_.splitters),
                                  reinterpret_cast<unsigned long long*>(ws_ + w_.hist)};
    constexpr std::size_t plan_bytes = approx_plan_shared_bytes<T>;
    KSELECT_CUDA_TRY(cudaFuncSetAttribute(approx_plan_kernel<T>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                          static_cast<int>(plan_bytes)));
    auto* sample = reinterpret_cast<K*>(ws_ + w_.sample);
    prof_.start(stream_, "approx sample (gather)");
    approx_sample_kernel<T><<<approx_sample_blocks, approx_sample_threads, 0, stream_>>>(
        in_, n_, cfg_.seed, sample);
    KSELECT_LAUNCH_CHECK();
    prof_.stop(stream_);
    prof_.start(stream_, "approx plan (sample sort, splitters, table)");
    approx_plan_kernel<T><<<1, approx_plan_threads<K>, plan_bytes, stream_>>>(sample, cand, budget, tables);
    KSELECT_LAUNCH_CHECK();
    prof_.stop(stream_);

    if (cand.window) {
      KSELECT_CUDA_TRY(count<true>(cand, budget, tables));
    } else {
      KSELECT_CUDA_TRY(count<false>(cand, budget, tables));
    }

    prof_.start(stream_, "approx answer");
    approx_answer_kernel<T><<<1, approx_answer_threads, 0, stream_>>>(
        tables.hist, tables.lookup, tables.splitters, d_ranks, num_ranks_, max_rank_error_, out_, out_ranks_,
        d_verdicts, all_within);
    KSELECT_LAUNCH_CHECK();
    prof_.stop(stream_);
    return cudaSuccess;
  }

  /// The counting pass, in the histogram mode or the window mode.
  template <bool Window>
  cudaError_t count(const core::approx_candidates& cand, int budget, const approx_tables<T>& tables) {
    const std::size_t bytes = approx_count_shared_bytes<K, Window>(budget, cand.count + 1);
    KSELECT_CUDA_TRY(cudaFuncSetAttribute(approx_count_kernel<T, Window>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                          static_cast<int>(bytes)));
    unsigned grid = 1;
    KSELECT_CUDA_TRY(count_grid(reinterpret_cast<const void*>(approx_count_kernel<T, Window>), bytes, grid));
    prof_.start(stream_, Window ? "approx count (window, " + std::to_string(cand.count) + " candidates over " +
                                      std::to_string(cand.width + 1) + " sample keys)"
                                : "approx count (" + std::to_string(cand.count + 1) + " buckets)");
    approx_count_kernel<T, Window><<<grid, tuning::stream_threads, bytes, stream_>>>(
        in_, n_, tables.lookup, tables.fine, tables.boundaries, budget, tables.hist);
    KSELECT_LAUNCH_CHECK();
    prof_.stop(stream_);
    return cudaSuccess;
  }

  /// The ranks the pass left too far, selected exactly, then scattered into place.
  cudaError_t fallback(const core::approx_fallback& fb, const std::int64_t* d_ranks) {
    const auto k = static_cast<std::int64_t>(fb.ranks.size());
    auto* d_index = reinterpret_cast<std::int64_t*>(ws_ + w_.fallback_index);
    auto* d_exact = reinterpret_cast<T*>(ws_ + w_.fallback_out);
    std::size_t bytes = w_.fallback_bytes;
    KSELECT_CUDA_TRY(device::multiselect<T>(ws_ + w_.fallback_workspace, bytes, in_, d_exact, n_, fb.ranks.data(),
                                            k, stream_));
    KSELECT_CUDA_TRY(cudaMemcpyAsync(d_index, fb.index.data(), static_cast<std::size_t>(k) * sizeof(std::int64_t),
                                     cudaMemcpyHostToDevice, stream_));
    constexpr tuning::launch_shape scatter = tuning::compiled.approx.scatter;
    const auto blocks =
        static_cast<unsigned>(std::min<std::int64_t>(scatter.blocks_for(k), w_.policy->approx.scatter_max_blocks));
    approx_scatter_kernel<T><<<blocks, scatter.threads, 0, stream_>>>(d_exact, d_index, k, d_ranks, out_, out_ranks_);
    KSELECT_LAUNCH_CHECK();
    return cudaSuccess;
  }

  /// max_rank_error = 0: the exact multiselect, and every reported rank is its own.
  cudaError_t exact_all() {
    std::size_t bytes = w_.fallback_bytes;
    KSELECT_CUDA_TRY(device::multiselect<T>(ws_ + w_.fallback_workspace, bytes, in_, out_, n_, ranks_, num_ranks_,
                                            stream_));
    KSELECT_CUDA_TRY(cudaMemcpyAsync(out_ranks_, ranks_, static_cast<std::size_t>(num_ranks_) * sizeof(std::int64_t),
                                     cudaMemcpyHostToDevice, stream_));
    return cudaSuccess;
  }

  /// A full wave of counting blocks (as many as fit per SM with this much shared
  /// memory), more if a block would count 2^31 keys or more (32-bit counters).
  cudaError_t count_grid(const void* kernel, std::size_t shared_bytes, unsigned& grid) const {
    int device = 0, sms = 1, per_sm = 0;
    KSELECT_CUDA_TRY(cudaGetDevice(&device));
    KSELECT_CUDA_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    KSELECT_CUDA_TRY(
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, tuning::stream_threads, shared_bytes));
    grid = static_cast<unsigned>(std::max<std::int64_t>(std::int64_t(sms) * std::max(per_sm, 1), (n_ >> 31) + 1));
    return cudaSuccess;
  }

  const T* in_;
  std::int64_t n_;
  const std::int64_t* ranks_;
  std::int64_t num_ranks_;
  std::int64_t max_rank_error_;
  T* out_;
  std::int64_t* out_ranks_;
  cudaStream_t stream_;
  device::approx_config cfg_;
  char* ws_;
  approx_layout w_;
  launch_profiler prof_;
};

/// Validation and the two-phase workspace protocol around the driver.
template <class T>
cudaError_t approx_multiselect(void* d_workspace, std::size_t& workspace_bytes, const T* d_in, T* d_out,
                               std::int64_t* d_out_ranks, std::int64_t n, const std::int64_t* h_ranks,
                               std::int64_t num_ranks, std::int64_t max_rank_error, cudaStream_t stream,
                               const device::approx_config& cfg) {
  clear_rejection();
  KSELECT_CUDA_TRY(reject_if(core::approx_argument_error(n, num_ranks, max_rank_error, cfg.buckets)));
  const tuning::policy* policy = nullptr;
  KSELECT_CUDA_TRY(current_policy(policy));
  std::size_t fallback_bytes = 0;
  KSELECT_CUDA_TRY(fallback_workspace_bytes<T>(n, num_ranks, *policy, fallback_bytes));
  const approx_layout layout = plan_approx_workspace<T>(num_ranks, fallback_bytes, *policy);
  bool size_query = false;
  KSELECT_CUDA_TRY(workspace_protocol(d_workspace, workspace_bytes, layout.total, size_query));
  if (size_query || num_ranks == 0) return cudaSuccess;
  KSELECT_CUDA_TRY(check_host_ranks(h_ranks, num_ranks, n));
  KSELECT_CUDA_TRY(check_device_input(d_in));
  KSELECT_CUDA_TRY(check_device_array(d_out, "d_out"));
  KSELECT_CUDA_TRY(check_device_array(d_out_ranks, "d_out_ranks"));
  KSELECT_CUDA_TRY(check_device_array(d_workspace, "d_workspace"));
  return approx_driver<T>(d_in, n, h_ranks, num_ranks, max_rank_error, d_out, d_out_ranks, stream, cfg,
                          static_cast<char*>(d_workspace), layout)
      .run();
}

/// Validation and the two-phase workspace protocol around the driver's
/// stream-ordered run (device::approx_multiselect_async).
template <class T>
cudaError_t approx_multiselect_stream_ordered(void* d_workspace, std::size_t& workspace_bytes, const T* d_in, T* d_out,
                                              std::int64_t* d_out_ranks, std::int32_t* d_status, std::int64_t n,
                                              const std::int64_t* d_ranks, std::int64_t num_ranks,
                                              std::int64_t max_rank_error, cudaStream_t stream,
                                              const device::approx_config& cfg) {
  clear_rejection();
  KSELECT_CUDA_TRY(reject_if(core::approx_argument_error(n, num_ranks, max_rank_error, cfg.buckets)));
  KSELECT_CUDA_TRY(check_device_rank_count(num_ranks, n));
  KSELECT_CUDA_TRY(check_device_ranks_given(d_ranks, num_ranks));
  const tuning::policy* policy = nullptr;
  KSELECT_CUDA_TRY(current_policy(policy));
  std::size_t exact_bytes = 0;
  if (max_rank_error == 0)
    KSELECT_CUDA_TRY(device::multiselect_async<T>(nullptr, exact_bytes, nullptr, nullptr, nullptr, n, d_ranks,
                                                  num_ranks, nullptr));
  else
    KSELECT_CUDA_TRY(exact_descent_workspace_bytes<T>(n, num_ranks, exact_bytes));
  const approx_layout layout = plan_approx_workspace<T>(num_ranks, exact_bytes, *policy);
  bool size_query = false;
  KSELECT_CUDA_TRY(workspace_protocol(d_workspace, workspace_bytes, layout.total, size_query));
  if (size_query || num_ranks == 0) return cudaSuccess;
  KSELECT_CUDA_TRY(check_device_ranks(d_ranks));
  KSELECT_CUDA_TRY(check_device_input(d_in));
  KSELECT_CUDA_TRY(check_device_array(d_out, "d_out"));
  KSELECT_CUDA_TRY(check_device_array(d_out_ranks, "d_out_ranks"));
  KSELECT_CUDA_TRY(check_device_array(d_status, "d_status", true));
  KSELECT_CUDA_TRY(check_device_array(d_workspace, "d_workspace"));
  return approx_driver<T>(d_in, n, nullptr, num_ranks, max_rank_error, d_out, d_out_ranks, stream, cfg,
                          static_cast<char*>(d_workspace), layout)
      .run_stream_ordered(d_ranks, d_status);
}

}  // namespace kselect::cuda
