// Host driver of the multiselection: validates, carves the workspace, and runs the
// levels. Each level:
//   1. splitter_kernel (one block per task): sample, sort, splitters;
//   2. count_kernel (all tasks, one flattened grid): bucket counts [+ oracles]
//      [+ the predicted window's keys];
//   3. one device-to-host copy of the counts and splitters, one stream sync;
//   4. host planning (plain C++, core::locate_ranks): ranks in equality buckets are
//      answered, the others become next level's tasks;
//   5. extract_kernel (only if a needed bucket was not already extracted);
//   base_case_kernel sorts small tasks in one block each. finalize_kernel writes T.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "cuda/common.cuh"
#include "cuda/dispatch/choose.hpp"
#include "cuda/dispatch/full_wave.hpp"
#include "cuda/dispatch/profiler.hpp"
#include "cuda/dispatch/workspace.hpp"
#include "cuda/kernels/base_case_kernel.cuh"
#include "cuda/kernels/count_kernel.cuh"
#include "cuda/kernels/extract_kernel.cuh"
#include "cuda/kernels/splitter_kernel.cuh"
#include "cuda/task.cuh"
#include "cuda/tuning.hpp"
#include "kselect/device.hpp"
#include "core/buckets.hpp"
#include "core/key_traits.hpp"

namespace kselect::cuda {

template <class T>
class multiselect_driver {
  using K = core::key_t<T>;
  using traits = core::key_traits<T>;

  /// A task as the host plans it.
  struct host_task {
    bool from_input;        ///< keys are the original T input (else K keys in a buffer)
    bool compact;           ///< every key of [src, src+size) belongs to the task
    const void* src;
    std::int64_t size;      ///< elements in the range
    std::int64_t count;     ///< elements inside [lo, hi]
    K lo, hi;
    std::int64_t rank_base; ///< global rank of the task's smallest key
    std::int64_t r_begin, r_end;  ///< its slice of the sorted rank list
  };

 public:
  multiselect_driver(const T* in, std::int64_t n, const std::int64_t* ranks, std::int64_t num_ranks,
                     T* out, cudaStream_t stream, const device::select_config& cfg, char* ws,
                     const workspace_layout& layout)
      : in_(in), n_(n), ranks_(ranks), num_ranks_(num_ranks), out_(out), stream_(stream), cfg_(cfg),
        w_(layout) {
    d_ranks_ = reinterpret_cast<std::int64_t*>(ws + w_.ranks);
    d_answers_ = reinterpret_cast<K*>(ws + w_.answers);
    d_host_keys_ = reinterpret_cast<K*>(ws + w_.host_keys);
    d_has_host_ = reinterpret_cast<std::uint8_t*>(ws + w_.has_host);
    d_tasks_ = reinterpret_cast<task_desc<K>*>(ws + w_.tasks);
    d_base_ = reinterpret_cast<base_task*>(ws + w_.base_tasks);
    d_stats_ = ws + w_.stats;
    d_extract_at_ = reinterpret_cast<std::int64_t*>(ws + w_.extract_at);
    d_cursors_ = reinterpret_cast<unsigned long long*>(ws + w_.cursors);
    d_oracles_ = reinterpret_cast<std::uint8_t*>(ws + w_.oracles);
    d_buffers_[0] = reinterpret_cast<K*>(ws + w_.buffer_a);
    d_buffers_[1] = reinterpret_cast<K*>(ws + w_.buffer_b);
    host_keys_.assign(num_ranks, K{});
    has_host_.assign(num_ranks, 0);
  }

  cudaError_t run() {
    KSELECT_CUDA_TRY(cudaMemcpyAsync(d_ranks_, ranks_, num_ranks_ * sizeof(std::int64_t),
                                     cudaMemcpyHostToDevice, stream_));
    std::vector<host_task> current{{true, true, in_, n_, n_, K{0}, static_cast<K>(~K(0)), 0, 0, num_ranks_}};
    int tasks_buffer = -1;  // buffer holding the current compact tasks (-1: none)
    for (int level = 0; !current.empty(); ++level) {
      if (level > 64) return reject_argument("kselect: internal error: recursion did not converge");
      const int dst = tasks_buffer == 0 ? 1 : 0;
      dst_cursor_ = 0;
      std::vector<host_task> next, base_typed, base_keys, work_typed, work_keys;
      for (const host_task& t : current) {
        if (t.lo == t.hi) {
          answer_on_host(t.r_begin, t.r_end, t.lo);  // all its keys are equal
        } else if (choose_base_case(t.compact, t.count, *w_.policy)) {
          (t.from_input ? base_typed : base_keys).push_back(t);
        } else {
          (t.from_input ? work_typed : work_keys).push_back(t);
        }
      }
      KSELECT_CUDA_TRY(run_base_cases<T>(base_typed));
      KSELECT_CUDA_TRY(run_base_cases<K>(base_keys));
      KSELECT_CUDA_TRY(run_group<T>(work_typed, dst, next));
      KSELECT_CUDA_TRY(run_group<K>(work_keys, dst, next));
      current = std::move(next);
      tasks_buffer = dst;
      levels_ = level + 1;
    }
    return finalize();
  }

  int levels() const { return levels_; }

 private:
  std::string label(const std::string& kernel, std::size_t tasks, std::int64_t tiles) const {
    if (!prof_.enabled()) return {};
    return "L" + std::to_string(levels_) + " " + kernel + " tasks=" + std::to_string(tasks) +
           " keys<=" + std::to_string(tiles * tuning::tile_keys) + (sizeof(K) == 4 ? " k32" : " k64");
  }

  void answer_on_host(std::int64_t r_begin, std::int64_t r_end, K key) {
    for (std::int64_t r = r_begin; r < r_end; ++r) {
      host_keys_[r] = key;
      has_host_[r] = 1;
    }
  }

  template <class Src>
  cudaError_t run_base_cases(const std::vector<host_task>& tasks) {
    for (std::size_t first = 0; first < tasks.size(); first += w_.tasks_per_launch) {
      const std::size_t count = std::min<std::size_t>(w_.tasks_per_launch, tasks.size() - first);
      std::vector<base_task> descs(count);
      for (std::size_t i = 0; i < count; ++i) {
        const host_task& t = tasks[first + i];
        descs[i] = {t.src, t.size, t.r_begin, t.r_end, t.rank_base};
      }
      KSELECT_CUDA_TRY(cudaMemcpyAsync(d_base_, descs.data(), count * sizeof(base_task),
                                       cudaMemcpyHostToDevice, stream_));
      prof_.start(stream_, label("base_case", count, 0));
      base_case_kernel<Src, K><<<static_cast<unsigned>(count), tuning::base_threads, 0, stream_>>>(
          d_base_, d_ranks_, d_answers_);
      KSELECT_LAUNCH_CHECK();
      prof_.stop(stream_);
    }
    return cudaSuccess;
  }

  template <class Src>
  cudaError_t run_group(const std::vector<host_task>& tasks, int dst, std::vector<host_task>& next) {
    for (std::size_t first = 0; first < tasks.size(); first += w_.tasks_per_launch) {
      const std::size_t count = std::min<std::size_t>(w_.tasks_per_launch, tasks.size() - first);
      KSELECT_CUDA_TRY(run_chunk<Src>(&tasks[first], static_cast<int>(count), dst, next));
    }
    return cudaSuccess;
  }

  /// Splitters the task asks for, by its mode.
  int target_splitters(const host_task& t, task_mode mode) const {
    return choose_splitters(mode, static_cast<std::uint64_t>(t.hi - t.lo), t.r_end - t.r_begin, t.count, cfg_.algo,
                            w_.policy->levels);
  }

  task_mode mode_of(const host_task& t) const { return choose_task_mode(t.compact, t.r_end - t.r_begin, cfg_.algo); }

  template <class Src>
  cudaError_t run_chunk(const host_task* tasks, int nt, int dst, std::vector<host_task>& next) {
    K* dst_keys = d_buffers_[dst];
    std::vector<task_desc<K>> descs(nt);
    std::vector<std::int64_t> region_end(nt);
    std::int64_t tiles = 0, oracle_at = 0;
    int max_m = 2;
    for (int i = 0; i < nt; ++i) {
      const host_task& t = tasks[i];
      const task_mode mode = mode_of(t);
      task_desc<K>& d = descs[i];
      d.src = t.src;
      d.size = t.size;
      d.count = t.count;
      d.tile_begin = tiles;
      d.rank = mode == task_mode::window ? ranks_[t.r_begin] - t.rank_base : 0;
      d.lo = t.lo;
      d.hi = t.hi;
      d.mode = static_cast<std::int32_t>(mode);
      d.target_splitters = target_splitters(t, mode);
      d.stats_slot = i;
      d.compact = t.compact ? 1 : 0;
      d.classifier = static_cast<std::int32_t>(choose_classifier(cfg_.algo));
      d.oracle = -1;
      if (w_.oracles_used && mode == task_mode::sample_buckets) {
        d.oracle = oracle_at;
        oracle_at += t.size;
      }
      // Each task owns a region of the destination buffer: its window (if any) is
      // written from the start, buckets extracted later follow.
      const std::int64_t region = std::min(t.count, w_.capacity - dst_cursor_);
      d.extract_at = dst_cursor_;
      d.extract_cap = mode == task_mode::window ? region : 0;
      dst_cursor_ += region;
      region_end[i] = dst_cursor_;
      tiles += (t.size + tuning::tile_keys - 1) / tuning::tile_keys;
      max_m = std::max(max_m, d.target_splitters);
    }
    const stats_view<K> stats{d_stats_, stats_view<K>::stride_for(max_m), max_m};
    KSELECT_CUDA_TRY(cudaMemcpyAsync(d_tasks_, descs.data(), nt * sizeof(task_desc<K>),
                                     cudaMemcpyHostToDevice, stream_));
    prof_.start(stream_, label("splitters", nt, 0));
    splitter_kernel<Src, K><<<nt, tuning::sample_threads, 0, stream_>>>(d_tasks_, stats, cfg_.seed + levels_ * 7919);
    KSELECT_LAUNCH_CHECK();
    prof_.stop(stream_);
    unsigned grid = 1;
    KSELECT_CUDA_TRY(full_wave_blocks(count_kernel<Src, K>, grid));
    grid = static_cast<unsigned>(std::min<std::int64_t>(tiles, grid));
    prof_.start(stream_, label("count m<=" + std::to_string(max_m), nt, tiles));
    count_kernel<Src, K><<<grid, tuning::stream_threads, 0, stream_>>>(d_tasks_, nt, tiles, stats,
                                                                        d_oracles_, dst_keys);
    KSELECT_LAUNCH_CHECK();
    prof_.stop(stream_);
    stats_host_.resize(static_cast<std::size_t>(nt * stats.stride));
    KSELECT_CUDA_TRY(cudaMemcpyAsync(stats_host_.data(), d_stats_, stats_host_.size(),
                                     cudaMemcpyDeviceToHost, stream_));
    KSELECT_CUDA_TRY(cudaStreamSynchronize(stream_));
    const stats_view<K> host_stats{stats_host_.data(), stats.stride, max_m};

    // Plan the children.
    const int nb_cap = stats.max_buckets();
    std::vector<std::int64_t> extract_at;  // filled lazily: nt * nb_cap, -1 = not extracted
    std::vector<int> filtered;             // tasks that need a filter pass
    int most_extracted = 0;                // buckets a filtered task extracts, at most
    std::vector<std::int64_t> local_ranks;
    for (int i = 0; i < nt; ++i) {
      const host_task& t = tasks[i];
      const task_desc<K>& d = descs[i];
      const std::int64_t* header = host_stats.header(i);
      const int m = static_cast<int>(header[0]);
      const int window_bucket = static_cast<int>(header[1]);
      const auto window_keys = static_cast<std::int64_t>(header[2]);
      const K* splitters = host_stats.splitters(i);
      const std::span<const std::uint64_t> hist(reinterpret_cast<const std::uint64_t*>(host_stats.hist(i)),
                                                core::num_buckets(m));
      local_ranks.assign(ranks_ + t.r_begin, ranks_ + t.r_end);
      for (auto& r : local_ranks) r -= t.rank_base;
      const bool window_ok = window_bucket >= 0 && window_keys <= d.extract_cap;
      std::int64_t used = d.extract_at + (window_bucket >= 0 ? std::min(window_keys, d.extract_cap) : 0);
      bool needs_filter = false;
      int extracted = 0;
      for (const core::bucket_ranks& g : core::locate_ranks(hist, local_ranks)) {
        const std::int64_t rb = t.r_begin + g.first_rank, re = t.r_begin + g.end_rank;
        const int j = g.bucket / 2;  // splitter index above a range bucket / of an equality bucket
        if (core::is_equality_bucket(g.bucket)) {
          answer_on_host(rb, re, splitters[j]);
          continue;
        }
        const K clo = j == 0 ? t.lo : static_cast<K>(splitters[j - 1] + 1);
        const K chi = j == m ? t.hi : static_cast<K>(splitters[j] - 1);
        host_task child{false, true, nullptr, g.size, g.size, clo, chi, t.rank_base + g.offset, rb, re};
        if (clo == chi) {
          answer_on_host(rb, re, clo);
          continue;
        }
        if (window_ok && g.bucket == window_bucket) {
          child.src = dst_keys + d.extract_at;
        } else if (used + g.size <= region_end[i]) {
          if (extract_at.empty()) extract_at.assign(static_cast<std::size_t>(nt) * nb_cap, -1);
          extract_at[static_cast<std::size_t>(i) * nb_cap + g.bucket] = used;
          child.src = dst_keys + used;
          used += g.size;
          needs_filter = true;
          ++extracted;
        } else {
          // No room: narrow the bucket in place, reading the input with its key interval.
          child = {true, false, in_, n_, g.size, clo, chi, t.rank_base + g.offset, rb, re};
        }
        next.push_back(child);
      }
      if (needs_filter) filtered.push_back(i);
      most_extracted = std::max(most_extracted, extracted);
    }
    if (filtered.empty()) return cudaSuccess;

    std::vector<task_desc<K>> fdescs;
    std::int64_t ftiles = 0;
    for (int i : filtered) {
      task_desc<K> d = descs[i];
      d.tile_begin = ftiles;
      ftiles += (d.size + tuning::tile_keys - 1) / tuning::tile_keys;
      fdescs.push_back(d);
    }
    KSELECT_CUDA_TRY(cudaMemcpyAsync(d_tasks_, fdescs.data(), fdescs.size() * sizeof(task_desc<K>),
                                     cudaMemcpyHostToDevice, stream_));
    KSELECT_CUDA_TRY(cudaMemcpyAsync(d_extract_at_, extract_at.data(), extract_at.size() * sizeof(std::int64_t),
                                     cudaMemcpyHostToDevice, stream_));
    KSELECT_CUDA_TRY(cudaMemsetAsync(d_cursors_, 0, extract_at.size() * sizeof(unsigned long long), stream_));
    // Launches that extract many buckets stage them (extract_kernel.cuh).
    const auto launch = [&](auto kernel, std::size_t dynamic_smem) -> cudaError_t {
      unsigned fgrid = 1;
      KSELECT_CUDA_TRY(full_wave_blocks(kernel, fgrid, dynamic_smem));
      fgrid = static_cast<unsigned>(std::min<std::int64_t>(ftiles, fgrid));
      prof_.start(stream_, label("filter", fdescs.size(), ftiles));
      kernel<<<fgrid, tuning::stream_threads, dynamic_smem, stream_>>>(
          d_tasks_, static_cast<int>(fdescs.size()), ftiles, stats, d_oracles_, d_extract_at_, d_cursors_, dst_keys);
      KSELECT_LAUNCH_CHECK();
      prof_.stop(stream_);
      return cudaSuccess;
    };
    if (most_extracted >= extract_stage_min_buckets) {
      KSELECT_CUDA_TRY(cudaFuncSetAttribute(extract_staged_kernel<Src, K>,
                                            cudaFuncAttributeMaxDynamicSharedMemorySize, int(extract_stage_bytes<K>)));
      KSELECT_CUDA_TRY(launch(extract_staged_kernel<Src, K>, extract_stage_bytes<K>));
    } else {
      KSELECT_CUDA_TRY(launch(extract_kernel<Src, K>, 0));
    }
    return cudaSuccess;
  }

  cudaError_t finalize() {
    KSELECT_CUDA_TRY(cudaMemcpyAsync(d_host_keys_, host_keys_.data(), num_ranks_ * sizeof(K),
                                     cudaMemcpyHostToDevice, stream_));
    KSELECT_CUDA_TRY(cudaMemcpyAsync(d_has_host_, has_host_.data(), num_ranks_, cudaMemcpyHostToDevice, stream_));
    constexpr tuning::launch_shape shape = tuning::compiled.levels.finalize;
    const auto blocks = static_cast<unsigned>(shape.blocks_for(num_ranks_));
    finalize_kernel<T, K><<<blocks, shape.threads, 0, stream_>>>(d_answers_, d_host_keys_, d_has_host_, num_ranks_,
                                                                 out_);
    KSELECT_LAUNCH_CHECK();
    prof_.report();
    return cudaSuccess;
  }

  const T* in_;
  std::int64_t n_;
  const std::int64_t* ranks_;
  std::int64_t num_ranks_;
  T* out_;
  cudaStream_t stream_;
  device::select_config cfg_;
  workspace_layout w_;
  int levels_ = 0;
  std::int64_t dst_cursor_ = 0;

  std::int64_t* d_ranks_;
  K* d_answers_;
  K* d_host_keys_;
  std::uint8_t* d_has_host_;
  task_desc<K>* d_tasks_;
  base_task* d_base_;
  char* d_stats_;
  std::int64_t* d_extract_at_;
  unsigned long long* d_cursors_;
  std::uint8_t* d_oracles_;
  K* d_buffers_[2];

  std::vector<K> host_keys_;
  std::vector<std::uint8_t> has_host_;
  std::vector<char> stats_host_;
  launch_profiler prof_;
};

}  // namespace kselect::cuda
