// Selection over an array in host memory on the GPU, streamed through it in chunks,
// so that an array larger than the GPU is answered exactly (owning API, options::
// device = cuda with host input). The plan is core/stream_plan.hpp's; this file runs
// its passes: host threads copy each chunk into pinned staging (unless the array is
// pinned itself), the copy engine moves it to the device, and stream_count.cu counts
// it and keeps the kept intervals' elements. The kept elements are then selected on
// the device with device::multiselect.
#include "cuda/streamed/streamed_select.hpp"

#include <cuda_runtime_api.h>
#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/key_traits.hpp"
#include "core/phase_clock.hpp"
#include "core/stream_plan.hpp"
#include "cuda/owning_support.hpp"
#include "cuda/streamed/chunk_pump.hpp"
#include "cuda/streamed/host_sample.hpp"
#include "cuda/streamed/stream_count.hpp"
#include "cuda/streamed/stream_memory.hpp"
#include "kselect/device.hpp"

namespace kselect::cuda_backend {
namespace {

/// How the call's device memory is shared out.
struct stream_layout {
  std::int64_t chunk_keys = 0;
  std::int64_t capacity = 0;  ///< kept keys
  std::size_t select_workspace = 0;
};

/// The workspace of device::multiselect over n kept keys for any number of the
/// call's ranks: one rank takes another path than several, so both are asked.
template <class T>
std::size_t select_workspace_bytes(std::int64_t n, std::int64_t num_ranks) {
  std::size_t most = 0;
  for (const std::int64_t m : {std::int64_t{1}, std::min(num_ranks, n)}) {
    std::size_t bytes = 0;
    check(device::multiselect<T>(nullptr, bytes, nullptr, nullptr, n, nullptr, m), "workspace query");
    most = std::max(most, bytes);
  }
  return most;
}

template <class T>
stream_layout plan_layout(std::int64_t n, std::int64_t num_ranks, std::size_t limit, const options& opt) {
  // The pass's table and counts: at most 2 r + 1 intervals and 8192 + 4 r buckets.
  const std::size_t table_bytes = static_cast<std::size_t>(2 * num_ranks + 1) *
                                      sizeof(core::stream_interval<core::key_t<T>>) +
                                  static_cast<std::size_t>(core::stream_max_buckets + 4 * num_ranks + 1) * 8 + 4096;
  const std::size_t one_key = sizeof(T) + select_workspace_bytes<T>(1, 1);
  const std::size_t least = 2 * min_chunk_bytes + table_bytes + one_key;
  const auto n_bytes = static_cast<std::size_t>(n) * sizeof(T);
  if (limit < least && limit < n_bytes + table_bytes + one_key) throw_limit_too_small(opt, limit, least);
  stream_layout layout;
  layout.chunk_keys = stream_chunk_keys(limit, n, sizeof(T));
  const std::size_t rest = limit - std::min(limit, 2 * layout.chunk_keys * sizeof(T) + table_bytes);  // two chunks
  // The largest buffer whose keys and their selection's workspace fit the rest.
  const std::int64_t lo =
      largest_fitting(std::min<std::int64_t>(n, static_cast<std::int64_t>(rest / sizeof(T))), rest, [&](std::int64_t m) {
        return static_cast<std::size_t>(m) * sizeof(T) + select_workspace_bytes<T>(m, num_ranks);
      });
  if (lo < 1) throw_limit_too_small(opt, limit, least);
  layout.capacity = lo;
  layout.select_workspace = select_workspace_bytes<T>(lo, num_ranks);
  return layout;
}

}  // namespace

template <class T>
bool streamed_multiselect(const T* h_values, std::int64_t n, const std::int64_t* ranks, std::int64_t num_ranks,
                          T* h_out, const options& opt, stream_stats* stats) {
  using U = core::key_t<T>;
  using traits = core::key_traits<T>;
  core::phase_clock clock;
  auto stream = static_cast<cudaStream_t>(opt.stream);
  const int threads = opt.cpu_threads > 0 ? opt.cpu_threads : omp_get_max_threads();
  const std::size_t limit = stream_memory_limit(opt);
  const stream_layout layout = plan_layout<T>(n, num_ranks, limit, opt);
  core::stream_planner<U> plan(n, std::span<const std::int64_t>(ranks, static_cast<std::size_t>(num_ranks)),
                               layout.capacity);
  const int sms = current_device_sms();

  chunk_pump pump(h_values, n, sizeof(T), layout.chunk_keys, stream, threads);
  clock.mark("allocate");

  const std::vector<U> sample = host_sample(h_values, n, plan.sample_keys(), threads);
  clock.mark("sample");
  std::vector<core::stream_interval<U>> table = plan.first_table(sample);
  std::vector<T> answers(static_cast<std::size_t>(num_ranks));
  std::vector<bool> from_kept_value(static_cast<std::size_t>(num_ranks), false);
  std::int64_t noncanonical = 0;  // elements whose bits are not their key's value's
  int passes = 0;
  while (true) {
    if (++passes > 8 * static_cast<int>(sizeof(U)) + 2)
      throw error("kselect: streamed selection made no progress (internal error)");
    // The table, then its counts, the kept count and the non-canonical count.
    const std::uint32_t buckets = core::stream_table_buckets<U>(table);
    const pass_table<U> pass(table, static_cast<std::size_t>(buckets) + 2, stream);
    unsigned long long* d_counts = pass.counters();
    // The kept buffer: what this table may keep (plan.room()), not the capacity, since
    // an allocation maps its memory, in time that grows with its size.
    const std::int64_t room = plan.room();
    stream_buffer kept(static_cast<std::size_t>(room) * sizeof(T), stream);
    pump.pass([&](const void* chunk, std::int64_t, std::int64_t count) {
      check(launch_stream_count<T>(static_cast<const T*>(chunk), count, pass.table(), pass.intervals(), buckets,
                                   d_counts, static_cast<T*>(kept.get()), nullptr, 0, d_counts + buckets,
                                   d_counts + buckets + 1, room, stream_count_blocks(count, sms), stream),
            "the count kernel");
    });
    std::vector<std::uint64_t> counts = pass.read(stream);
    clock.mark("pass");
    const auto kept_keys = static_cast<std::int64_t>(counts[buckets]);
    if (passes == 1) noncanonical = static_cast<std::int64_t>(counts[buckets + 1]);
    counts.resize(buckets);
    std::vector<core::kept_answer> from_kept;
    try {
      from_kept = plan.apply(table, counts, kept_keys);
    } catch (const std::logic_error& e) {
      throw error(std::string("kselect: streamed selection: ") + e.what());
    }
    if (stats) {
      ++stats->passes;
      stats->kept_keys = std::max(stats->kept_keys, kept_keys);
      stats->capacity = layout.capacity;
      stats->overflowed |= kept_keys > room;
    }
    if (!from_kept.empty()) {
      std::vector<std::int64_t> kept_ranks;
      for (const core::kept_answer& a : from_kept) kept_ranks.push_back(a.kept_rank);
      const auto m = static_cast<std::int64_t>(kept_ranks.size());
      std::size_t bytes = layout.select_workspace;
      check(device::multiselect<T>(nullptr, bytes, static_cast<const T*>(kept.get()), nullptr, kept_keys,
                                   kept_ranks.data(), m, stream),
            "workspace query");
      stream_buffer workspace(bytes, stream);
      stream_buffer out(static_cast<std::size_t>(m) * sizeof(T), stream);
      check(device::multiselect<T>(workspace.get(), bytes, static_cast<const T*>(kept.get()),
                                   static_cast<T*>(out.get()), kept_keys, kept_ranks.data(), m, stream),
            "selecting among the kept elements");
      std::vector<T> values(static_cast<std::size_t>(m));
      check(cudaMemcpyAsync(values.data(), out.get(), values.size() * sizeof(T), cudaMemcpyDeviceToHost, stream),
            "copying results");
      check(cudaStreamSynchronize(stream), "selecting among the kept elements");
      for (std::size_t j = 0; j < from_kept.size(); ++j) {
        plan.answer(from_kept[j].index, traits::to_key(values[j]));
        answers[from_kept[j].index] = values[j];
        from_kept_value[from_kept[j].index] = true;
      }
      clock.mark("select kept");
    }
    if (plan.done()) break;
    table = plan.next_table();
  }
  for (std::size_t i = 0; i < answers.size(); ++i)
    h_out[i] = from_kept_value[i] ? answers[i] : traits::from_key(plan.ranks()[i].key);
  clock.report("streamed multiselect (" + std::to_string(passes) + " passes, " +
               (pump.pinned_input() ? "pinned input" : "pageable input, staged") + ")");
  return noncanonical == 0;
}

#define KSELECT_INSTANTIATE_STREAMED(T)                                                                       \
  template bool streamed_multiselect<T>(const T*, std::int64_t, const std::int64_t*, std::int64_t, T*, \
                                        const options&, stream_stats*);
KSELECT_FOR_EACH_KEY_TYPE(KSELECT_INSTANTIATE_STREAMED)
#undef KSELECT_INSTANTIATE_STREAMED

}  // namespace kselect::cuda_backend
