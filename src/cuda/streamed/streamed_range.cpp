// Rank ranges (top-k) of an array in host memory on the GPU, streamed through it in
// chunks, so that an array larger than the GPU is answered exactly (owning API,
// options::device = cuda with host input).
//
// One pass where the range's candidates fit the device: a sample of the host array
// predicts a key interval holding positions [lo, hi) (core::range_candidate_keys);
// the count kernel keeps every element in it, with its position, and counts those
// below and above. When the counts show the range inside the kept elements, these are
// put in index order (a radix sort by position) and selected by the in-memory range
// selection, deterministic, so that ties go by position as the stable sort's do.
//
// Otherwise (a top-k of a large part of the array, or a prediction that failed)
// three passes, cpu::range_select's steps (src/cpu/range_select.cpp) with the array's
// chunks in place of its threads' parts, sharing its planning (core/range_chunks.hpp):
//   1. the boundary keys, those of positions lo and hi - 1, by streamed_multiselect;
//   2. a pass of the count kernel (stream_count.cu) with a table of one bucket per
//      class (before, equal to the first key, between, equal to the last, after), per
//      chunk; core::plan_range_chunks then gives each chunk its output position and
//      the boundary-key elements it takes;
//   3. the take pass: a chunk that takes all or none of each boundary key's elements
//      is compacted on the device in index order (stream_take.cu) into an output
//      buffer, copied back to the host whenever the next chunk's output would not fit.
//      A chunk that takes some of them (at most two per boundary key) is taken by the
//      host, which reads it in index order;
//   4. sorted output: the host's stable radix sort by key, as the CPU backend.
// Either way the output is the CPU backend's, element for element.
#include "cuda/streamed/streamed_range.hpp"

#include <cuda_runtime_api.h>
#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/int_math.hpp"
#include "core/key_traits.hpp"
#include "core/phase_clock.hpp"
#include "core/range_chunks.hpp"
#include "core/range_plan.hpp"
#include "core/stream_plan.hpp"
#include "cpu/radix_sort.hpp"
#include "cuda/owning_support.hpp"
#include "cuda/streamed/chunk_pump.hpp"
#include "cuda/streamed/host_sample.hpp"
#include "cuda/streamed/stream_count.hpp"
#include "cuda/streamed/stream_memory.hpp"
#include "cuda/streamed/stream_take.hpp"
#include "cuda/streamed/streamed_select.hpp"
#include "kselect/device.hpp"

namespace kselect::cuda_backend {
namespace {

/// Room for the allocator's rounding of each of the call's device buffers.
constexpr std::size_t allocation_slack = std::size_t{64} << 10;

/// How the take pass's device memory is shared out.
struct range_layout {
  std::size_t limit = 0;  ///< the call's device memory (stream_memory_limit)
  std::int64_t chunk_keys = 0, chunks = 0;
  std::int64_t capacity = 0;  ///< elements of the output buffer
  std::size_t take_workspace = 0;
};

template <class T>
range_layout plan_range_layout(std::int64_t n, std::int64_t taken, const options& opt) {
  const std::size_t limit = stream_memory_limit(opt);
  range_layout l;
  l.limit = limit;
  l.chunk_keys = stream_chunk_keys(limit, n, sizeof(T));
  l.chunks = (n + l.chunk_keys - 1) / l.chunk_keys;
  check(stream_take_workspace<T>(l.take_workspace, l.chunk_keys), "workspace query");
  const std::size_t table_bytes = core::range_classes * sizeof(core::stream_interval<core::key_t<T>>);
  const std::size_t fixed = 2 * static_cast<std::size_t>(l.chunk_keys) * sizeof(T) +
                            static_cast<std::size_t>(l.chunks) * (core::range_classes + 1) * 8 + table_bytes +
                            l.take_workspace + 8 * allocation_slack;
  // An element of the output buffer: its value and its position. The buffer holds at
  // least one chunk's output.
  const std::size_t per_element = sizeof(T) + sizeof(std::int64_t);
  const std::int64_t least = std::min(l.chunk_keys, taken);
  const std::size_t least_bytes = fixed + static_cast<std::size_t>(least) * per_element;
  if (limit < least_bytes) throw_limit_too_small(opt, limit, least_bytes);
  l.capacity = std::min<std::int64_t>(taken, static_cast<std::int64_t>((limit - fixed) / per_element));
  return l;
}

/// Workspace of the in-memory range selection `req` (its indices int64_t) over m
/// kept elements. A size query reads no pointer, and the layout depends on whether
/// indices are asked for, so the query names a placeholder for them.
template <class T>
std::size_t kept_range_workspace(std::int64_t m, const kselect::detail::range_request& req,
                                 const device::topk_config& cfg) {
  static std::int64_t placeholder;
  std::size_t bytes = 0;
  const kselect::detail::range_request query = kselect::detail::with_indices(req, &placeholder);
  check(kselect::detail::range_select<T>(nullptr, bytes, nullptr, nullptr, m, query, nullptr, cfg), "workspace query");
  return bytes;
}

/// The one-pass form (the file comment). Returns false, having written nothing, when
/// the candidates would not fit the device or the pass showed the prediction wrong;
/// the caller then runs the three passes.
template <class T>
bool one_pass_range(const T* h_values, std::int64_t n, std::int64_t lo, std::int64_t hi, bool descending,
                    bool sorted, T* h_out_values, std::int64_t* h_out_indices, const range_layout& layout,
                    const options& opt, int threads, core::phase_clock& clock) {
  using U = core::key_t<T>;
  auto stream = static_cast<cudaStream_t>(opt.stream);
  const std::int64_t taken = hi - lo;
  const std::size_t limit = layout.limit;
  const std::int64_t chunk_keys = layout.chunk_keys;
  // Two chunks, the table and its three counts, the output (values, positions among
  // the kept, input positions), and per kept element its value and position twice
  // (the sort's double buffer) with the sort's and the selection's workspace.
  const std::size_t output_bytes = static_cast<std::size_t>(taken) * (sizeof(T) + 2 * sizeof(std::int64_t));
  const std::size_t fixed = 2 * static_cast<std::size_t>(chunk_keys) * sizeof(T) + output_bytes + 8 * allocation_slack;
  if (limit <= fixed) return false;
  kselect::detail::range_request req;
  req.descending = descending;
  const device::topk_config cfg{false, sorted, /*deterministic=*/true};
  const int bits = core::position_bits(n);
  const auto needs = [&](std::int64_t m) {
    std::size_t sort_bytes = 0;
    check(sort_by_index<T>(nullptr, sort_bytes, nullptr, nullptr, nullptr, nullptr, m, bits, nullptr, nullptr),
          "workspace query");
    kselect::detail::range_request r = req;
    r.lo = 0;
    r.hi = std::min(taken, m);
    return 2 * static_cast<std::size_t>(m) * (sizeof(T) + sizeof(std::int64_t)) + sort_bytes +
           kept_range_workspace<T>(m, r, cfg);
  };
  // The most elements the kept buffer may hold.
  const std::int64_t capacity = largest_fitting(n, limit - fixed, needs);
  if (capacity < taken) return false;

  // The candidates' keys: the whole array when it fits and is small (as the streamed
  // selection keeps it), else from a sample, so that the buffers, whose allocation
  // maps device memory, hold the candidates only.
  const core::boundary_ranks b = core::range_boundary_ranks(n, lo, hi, descending);
  const core::stream_sampling sampling;
  core::candidate_keys<U> keys{U(0), static_cast<U>(~U(0)), static_cast<double>(n), n};
  if (n > capacity || n > sampling.keep_whole_max) {
    const std::vector<U> sample = host_sample(h_values, n, core::stream_sample_keys(n, b.count, sampling), threads);
    keys = core::range_candidate_keys<U>(sample, n, b.ranks[0], b.ranks[b.count - 1], sampling);
    clock.mark("sample");
    if (keys.room > capacity) return false;
  }
  const std::int64_t room = std::min(capacity, keys.room);

  // The pass: below the interval (bucket 0), kept (1), above (2).
  std::vector<core::stream_interval<U>> table;
  if (keys.lo > 0) table.push_back({U(0), static_cast<U>(keys.lo - 1), 0, 1, 0, false});
  table.push_back({keys.lo, keys.hi, 1, 1, 0, true});
  if (keys.hi < static_cast<U>(~U(0)))
    table.push_back({static_cast<U>(keys.hi + 1), static_cast<U>(~U(0)), 2, 1, 0, false});
  // Three buckets, then the kept and non-canonical counts.
  const pass_table<U> pass(table, 5, stream);
  unsigned long long* d_counts = pass.counters();
  stream_buffer kept_values(static_cast<std::size_t>(room) * sizeof(T), stream);
  stream_buffer kept_positions(static_cast<std::size_t>(room) * sizeof(std::int64_t), stream);
  {
    const int sms = current_device_sms();
    chunk_pump pump(h_values, n, sizeof(T), chunk_keys, stream, threads);
    pump.pass([&](const void* chunk, std::int64_t first_index, std::int64_t count) {
      check(launch_stream_count<T>(static_cast<const T*>(chunk), count, pass.table(), pass.intervals(), 3, d_counts,
                                   static_cast<T*>(kept_values.get()),
                                   static_cast<std::int64_t*>(kept_positions.get()), first_index, d_counts + 3,
                                   d_counts + 4, room, stream_count_blocks(count, sms), stream),
            "the count kernel");
    });
    const std::vector<std::uint64_t> counts = pass.read(stream);
    clock.mark("candidate pass");
    const auto kept = static_cast<std::int64_t>(counts[3]);
    // Positions before the kept elements in the range's order.
    const auto before = static_cast<std::int64_t>(descending ? counts[2] : counts[0]);
    if (kept > room || before > lo || before + kept < hi) return false;

    // The kept elements in index order, then the range among them.
    std::size_t sort_bytes = 0;
    check(sort_by_index<T>(nullptr, sort_bytes, nullptr, nullptr, nullptr, nullptr, kept, bits, nullptr, nullptr),
          "workspace query");
    stream_buffer alt_values(static_cast<std::size_t>(kept) * sizeof(T), stream);
    stream_buffer alt_positions(static_cast<std::size_t>(kept) * sizeof(std::int64_t), stream);
    stream_buffer sort_workspace(sort_bytes, stream);
    bool in_alt = false;
    check(sort_by_index<T>(sort_workspace.get(), sort_bytes, static_cast<T*>(kept_values.get()),
                           static_cast<std::int64_t*>(kept_positions.get()), static_cast<T*>(alt_values.get()),
                           static_cast<std::int64_t*>(alt_positions.get()), kept, bits, &in_alt, stream),
          "sorting the candidates by position");
    const T* by_index = static_cast<const T*>(in_alt ? alt_values.get() : kept_values.get());
    const auto* positions = static_cast<const std::int64_t*>(in_alt ? alt_positions.get() : kept_positions.get());
    stream_buffer out_values(static_cast<std::size_t>(taken) * sizeof(T), stream);
    stream_buffer out_kept(static_cast<std::size_t>(taken) * sizeof(std::int64_t), stream);
    stream_buffer out_positions(static_cast<std::size_t>(taken) * sizeof(std::int64_t), stream);
    req.lo = lo - before;
    req.hi = hi - before;
    std::size_t range_bytes = kept_range_workspace<T>(kept, req, cfg);
    req = kselect::detail::with_indices(req, static_cast<std::int64_t*>(out_kept.get()));
    stream_buffer range_workspace(range_bytes, stream);
    check(kselect::detail::range_select<T>(range_workspace.get(), range_bytes, by_index,
                                            static_cast<T*>(out_values.get()), kept, req, stream, cfg),
          "selecting among the candidates");
    check(launch_gather<std::int64_t>(positions, 0, static_cast<const std::int64_t*>(out_kept.get()), taken,
                                      static_cast<std::int64_t*>(out_positions.get()), stream),
          "gathering positions");
    download(h_out_values, out_values.get(), static_cast<std::size_t>(taken) * sizeof(T), stream, threads);
    if (h_out_indices)
      download(h_out_indices, out_positions.get(), static_cast<std::size_t>(taken) * sizeof(std::int64_t), stream,
               threads);
  }
  clock.mark("select candidates");
  return true;
}

}  // namespace

template <class T>
void streamed_range_select(const T* h_values, std::int64_t n, std::int64_t lo, std::int64_t hi, bool descending,
                           bool sorted, T* h_out_values, std::int64_t* h_out_indices, const options& opt,
                           range_stream_stats* stats) {
  using U = core::key_t<T>;
  core::phase_clock clock;
  auto stream = static_cast<cudaStream_t>(opt.stream);
  const int threads = opt.cpu_threads > 0 ? opt.cpu_threads : omp_get_max_threads();
  const core::range_order_key<T> key{descending};
  const range_layout layout = plan_range_layout<T>(n, hi - lo, opt);
  if (one_pass_range(h_values, n, lo, hi, descending, sorted, h_out_values, h_out_indices, layout, opt, threads,
                     clock)) {
    if (stats) stats->one_pass = true;
    clock.report("streamed range (one pass)");
    return;
  }

  // 1. The boundary keys.
  const core::boundary_ranks b = core::range_boundary_ranks(n, lo, hi, descending);
  T bounds[2];
  streamed_multiselect<T>(h_values, n, b.ranks, b.count, bounds, opt);
  const U first = key(bounds[b.lo_slot]);
  const U last = key(bounds[b.hi_slot]);
  const bool one_key = first == last;
  clock.mark("boundary keys");

  const int sms = current_device_sms();
  chunk_pump pump(h_values, n, sizeof(T), layout.chunk_keys, stream, threads);
  const auto chunk_of = [&](std::int64_t first_index) {
    return static_cast<std::size_t>(first_index / layout.chunk_keys);
  };

  // 2. Counts per chunk: the table, the chunks' class counts, and the count kernel's
  //    kept and non-canonical counters (unused here), in one allocation.
  const std::size_t count_words = static_cast<std::size_t>(layout.chunks) * core::range_classes;
  std::vector<std::uint64_t> words;
  {
    const pass_table<U> pass(core::range_class_table<U>(first, last, descending), count_words + 2, stream);
    unsigned long long* d_counts = pass.counters();
    pump.pass([&](const void* chunk, std::int64_t first_index, std::int64_t count) {
      check(launch_stream_count<T>(static_cast<const T*>(chunk), count, pass.table(), pass.intervals(),
                                   core::range_classes, d_counts + chunk_of(first_index) * core::range_classes,
                                   nullptr, nullptr, 0, d_counts + count_words, d_counts + count_words + 1, 0,
                                   stream_count_blocks(count, sms), stream),
            "the count kernel");
    });
    words = pass.read(stream);
  }
  std::vector<core::range_chunk_counts> counts(static_cast<std::size_t>(layout.chunks));
  for (std::size_t c = 0; c < counts.size(); ++c) {
    const std::uint64_t* w = words.data() + c * core::range_classes;
    counts[c] = {static_cast<std::int64_t>(w[core::class_before]), static_cast<std::int64_t>(w[core::class_first]),
                 static_cast<std::int64_t>(w[core::class_between]), static_cast<std::int64_t>(w[core::class_last])};
    const std::int64_t chunk_size = std::min(layout.chunk_keys, n - static_cast<std::int64_t>(c) * layout.chunk_keys);
    const auto counted = static_cast<std::int64_t>(w[0] + w[1] + w[2] + w[3] + w[4]);
    if (counted != chunk_size)
      throw error("kselect: streamed range: chunk " + std::to_string(c) + " counted " + std::to_string(counted) +
                  " of its " + std::to_string(chunk_size) + " elements (internal error)");
  }
  core::range_chunk_take plan;
  try {
    plan = core::plan_range_chunks(counts, lo, hi, one_key);
  } catch (const std::logic_error& e) {
    throw error(std::string("kselect: streamed range: ") + e.what());
  }
  clock.mark("count pass");

  // 3. The take pass. Output positions [base, base + capacity) are in the buffer.
  stream_buffer out_values(static_cast<std::size_t>(layout.capacity) * sizeof(T), stream);
  stream_buffer out_indices(static_cast<std::size_t>(layout.capacity) * sizeof(std::int64_t), stream);
  stream_buffer d_taken(static_cast<std::size_t>(layout.chunks) * sizeof(std::int64_t), stream);
  stream_buffer workspace(layout.take_workspace, stream);
  std::int64_t base = 0;
  int flushes = 0;
  const auto flush = [&](std::int64_t upto) {
    if (upto > base) {
      const auto m = static_cast<std::size_t>(upto - base);
      download(h_out_values + base, out_values.get(), m * sizeof(T), stream, threads);
      if (h_out_indices) download(h_out_indices + base, out_indices.get(), m * sizeof(std::int64_t), stream, threads);
      ++flushes;
    }
    base = upto;
  };
  std::vector<std::size_t> on_device, on_host;
  pump.pass([&](const void* chunk, std::int64_t first_index, std::int64_t count) {
    const std::size_t c = chunk_of(first_index);
    const core::range_chunk_counts& cc = counts[c];
    const std::int64_t m = plan.taken(c);
    if (m == 0) return;
    // The buffer covers output positions [base, base + capacity), those of the chunks
    // the host takes too (the last copy puts garbage there, which the host overwrites).
    if (plan.starts[c + 1].out - base > layout.capacity) flush(plan.starts[c].out);
    if (plan.partial(c, cc)) {
      on_host.push_back(c);
      return;
    }
    const std::int64_t at = plan.starts[c].out - base;
    const stream_take_rule<U> rule{first, last, descending, plan.first_taken(c, cc) > 0,
                                   !one_key && plan.last_taken(c, cc) > 0};
    check(launch_stream_take<T>(static_cast<const T*>(chunk), first_index, count, rule, m,
                                static_cast<T*>(out_values.get()) + at,
                                static_cast<std::int64_t*>(out_indices.get()) + at,
                                static_cast<std::int64_t*>(d_taken.get()) + c, workspace.get(), layout.take_workspace,
                                stream),
          "the take pass");
    on_device.push_back(c);
  });
  flush(hi - lo);
  std::vector<std::int64_t> taken(static_cast<std::size_t>(layout.chunks));
  check(cudaMemcpyAsync(taken.data(), d_taken.get(), taken.size() * sizeof(std::int64_t), cudaMemcpyDeviceToHost,
                        stream),
        "copying the take's counts");
  check(cudaStreamSynchronize(stream), "the take pass");
  for (const std::size_t c : on_device)
    if (taken[c] != plan.taken(c))
      throw error("kselect: streamed range: the take pass took " + std::to_string(taken[c]) + " elements of chunk " +
                  std::to_string(c) + ", its counts say " + std::to_string(plan.taken(c)) + " (internal error)");
  // The chunks taken in part, over the garbage the last copy put in their places.
#pragma omp parallel for num_threads(threads) schedule(static, 1) if (on_host.size() > 1)
  for (std::size_t j = 0; j < on_host.size(); ++j) {
    const std::size_t c = on_host[j];
    const std::int64_t begin = static_cast<std::int64_t>(c) * layout.chunk_keys;
    core::take_range_chunk(h_values, begin, std::min(n, begin + layout.chunk_keys), first, last, key, plan,
                           plan.starts[c], h_out_values, h_out_indices);
  }
  clock.mark("take pass");

  // 4. Sorted: (key, index) order; the output is in index order.
  if (sorted) {
    cpu::stable_radix_sort<T, U>(h_out_values, h_out_indices, hi - lo, key, threads);
    clock.mark("sort");
  }
  if (stats) {
    stats->device_chunks = static_cast<std::int64_t>(on_device.size());
    stats->host_chunks = static_cast<std::int64_t>(on_host.size());
    stats->flushes = flushes;
  }
  clock.report("streamed range (" + std::string(pump.pinned_input() ? "pinned input" : "pageable input, staged") +
               ")");
}

#define KSELECT_INSTANTIATE_STREAMED_RANGE(T)                                                              \
  template void streamed_range_select<T>(const T*, std::int64_t, std::int64_t, std::int64_t, bool, bool, T*, \
                                         std::int64_t*, const options&, range_stream_stats*);
KSELECT_FOR_EACH_KEY_TYPE(KSELECT_INSTANTIATE_STREAMED_RANGE)
#undef KSELECT_INSTANTIATE_STREAMED_RANGE

}  // namespace kselect::cuda_backend
