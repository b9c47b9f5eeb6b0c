// The CPU filters (src/cpu/filter.hpp). The predicate's comparison is chosen once
// per call (with_selector), so each sweep's inner loop is a plain comparison with a
// constant that the compiler can vectorise where it counts.
#include "cpu/filter.hpp"

#include <omp.h>

#include <algorithm>
#include <cstring>

#include "kselect/types.hpp"  // KSELECT_FOR_EACH_KEY_TYPE

namespace kselect::cpu {
namespace {

int thread_count(int num_threads) { return num_threads > 0 ? num_threads : omp_get_max_threads(); }

/// Chunks of an n-element input: one below tuning.parallel_min, else tuning.chunks
/// (one per thread when 0); at least one.
std::int64_t chunk_count(std::int64_t n, int threads, const filter_tuning& tuning) {
  if (n < tuning.parallel_min) return 1;
  return std::max<std::int64_t>(1, tuning.chunks > 0 ? tuning.chunks : threads);
}

/// A plan of an n-element input's chunks, their counts still zero.
filter_plan chunked_plan(std::int64_t n, int threads, const filter_tuning& tuning) {
  filter_plan plan;
  plan.n = n;
  plan.selected_before.assign(static_cast<std::size_t>(chunk_count(n, threads, tuning)) + 1, 0);
  return plan;
}

/// Calls f(selected) with `selected(i)` telling whether element i is selected:
/// flags[i] != 0 when flags is not null, else pred(values[i]) for pred's comparison.
template <class T, class F>
void with_selector(const T* values, const predicate<T>& pred, const std::uint8_t* flags, F&& f) {
  if (flags) return f([flags](std::int64_t i) { return flags[i] != 0; });
  const T c = pred.value, hi = pred.hi;
  switch (pred.op) {
    case filter_op::lt: return f([values, c](std::int64_t i) { return values[i] < c; });
    case filter_op::le: return f([values, c](std::int64_t i) { return values[i] <= c; });
    case filter_op::gt: return f([values, c](std::int64_t i) { return values[i] > c; });
    case filter_op::ge: return f([values, c](std::int64_t i) { return values[i] >= c; });
    case filter_op::eq: return f([values, c](std::int64_t i) { return values[i] == c; });
    case filter_op::ne: return f([values, c](std::int64_t i) { return values[i] != c; });
    case filter_op::range: return f([values, c, hi](std::int64_t i) { return c <= values[i] && values[i] < hi; });
  }
}

/// Copies one payload element of `bytes` bytes; the common sizes as fixed-size
/// copies (the branch is the same for every element of a call).
inline void copy_element(std::byte* dst, const std::byte* src, std::size_t bytes) {
  switch (bytes) {
    case 1: *dst = *src; return;
    case 2: std::memcpy(dst, src, 2); return;
    case 4: std::memcpy(dst, src, 4); return;
    case 8: std::memcpy(dst, src, 8); return;
    case 16: std::memcpy(dst, src, 16); return;
    default: std::memcpy(dst, src, bytes); return;
  }
}

/// Writes element i to output position `pos`: its value and, as the type says, its
/// index and payload element (compile-time choices: a test per element of whether
/// they are wanted made the values-only sweep ~4x slower on the development machine).
template <class T, bool Indices, bool Payload>
struct emitter {
  const T* values;
  const std::byte* payload;
  std::size_t payload_bytes;
  T* out_values;
  std::int64_t* out_indices;
  std::byte* out_payload;

  void operator()(std::int64_t pos, std::int64_t i) const {
    out_values[pos] = values[i];
    if constexpr (Indices) out_indices[pos] = i;
    if constexpr (Payload)
      copy_element(out_payload + static_cast<std::size_t>(pos) * payload_bytes,
                   payload + static_cast<std::size_t>(i) * payload_bytes, payload_bytes);
  }
};

/// Calls f(emit) with the emitter for what is asked for (indices and payload when
/// their outputs are not null).
template <class T, class F>
void with_emitter(const T* values, const void* payload, std::size_t payload_bytes, T* out_values,
                  std::int64_t* out_indices, void* out_payload, F&& f) {
  const auto* in = static_cast<const std::byte*>(payload);
  auto* out = static_cast<std::byte*>(out_payload);
  if (out_payload && out_indices)
    return f(emitter<T, true, true>{values, in, payload_bytes, out_values, out_indices, out});
  if (out_payload) return f(emitter<T, false, true>{values, in, payload_bytes, out_values, nullptr, out});
  if (out_indices) return f(emitter<T, true, false>{values, nullptr, 0, out_values, out_indices, nullptr});
  return f(emitter<T, false, false>{values, nullptr, 0, out_values, nullptr, nullptr});
}

// The writing sweep of one chunk, elements [begin, end), whose selected elements go
// to output positions [at, at_end). Branch-free: every element is written at the
// next position `at`, which advances only past selected ones (a branch per element
// mispredicts half the time at 50% selectivity, ~2x slower on the development
// machine). An element written without advancing is overwritten by the chunk's next
// selected element; the loop stops after the chunk's last one, so nothing lands
// outside [at, at_end). `selected` and `emit` are taken by value: locals that the
// output stores cannot alias stay in registers.
template <class Selected, class Emit>
void write_chunk(Selected selected, Emit emit, std::int64_t begin, std::int64_t end, std::int64_t at,
                 std::int64_t at_end) {
  for (std::int64_t i = begin; i < end && at < at_end; ++i) {
    emit(at, i);
    at += selected(i) ? 1 : 0;
  }
}

// As write_chunk for a partition of `total` selected elements: the chunk's others go
// after all selected elements and the others of the chunks before it (begin - at of
// them). Both cursors advance branch-free until one kind is done; the rest, all of
// the other kind, follow in order.
template <class Selected, class Emit>
void partition_chunk(Selected selected, Emit emit, std::int64_t begin, std::int64_t end, std::int64_t at,
                     std::int64_t at_end, std::int64_t total) {
  std::int64_t other = total + (begin - at);
  const std::int64_t other_end = total + (end - at_end);
  std::int64_t i = begin;
  for (; i < end && at < at_end && other < other_end; ++i) {
    const bool s = selected(i);
    emit(at, i);
    emit(other, i);
    at += s ? 1 : 0;
    other += s ? 0 : 1;
  }
  for (; i < end; ++i) emit(at < at_end ? at++ : other++, i);
}

// filter_inplace's first step on one chunk: its selected elements move to its start,
// in order; returns how many. The write position never passes the element being
// read, so no element is overwritten before it is read; branch-free as write_chunk
// (a write that does not advance lands on a position already read).
template <class Selected, class T>
std::int64_t compact_chunk(Selected selected, T* values, std::int64_t begin, std::int64_t end) {
  std::int64_t at = begin;
  for (std::int64_t i = begin; i < end; ++i) {
    const bool s = selected(i);
    values[at] = values[i];
    at += s ? 1 : 0;
  }
  return at - begin;
}

}  // namespace

template <class T>
filter_plan filter_count(const T* values, std::int64_t n, const predicate<T>& pred, const std::uint8_t* flags,
                         int num_threads, const filter_tuning& tuning) {
  const int threads = thread_count(num_threads);
  filter_plan plan = chunked_plan(n, threads, tuning);
  const std::int64_t chunks = plan.chunks();
  with_selector(values, pred, flags, [&](auto selected) {
#pragma omp parallel for num_threads(threads) schedule(static, 1) if (chunks > 1 && threads > 1)
    for (std::int64_t c = 0; c < chunks; ++c) {
      std::int64_t count = 0;
      for (std::int64_t i = plan.chunk_begin(c), end = plan.chunk_begin(c + 1); i < end; ++i)
        count += selected(i) ? 1 : 0;
      plan.selected_before[static_cast<std::size_t>(c) + 1] = count;
    }
  });
  // Exclusive scan: entry c + 1 held chunk c's count.
  for (std::int64_t c = 0; c < chunks; ++c)
    plan.selected_before[static_cast<std::size_t>(c) + 1] += plan.selected_before[static_cast<std::size_t>(c)];
  return plan;
}

template <class T>
void filter_write(const T* values, const predicate<T>& pred, const std::uint8_t* flags,
                  const filter_plan& plan, const void* payload, std::size_t payload_bytes, bool partition,
                  T* out_values, std::int64_t* out_indices, void* out_payload, int num_threads) {
  const int threads = thread_count(num_threads);
  const std::int64_t chunks = plan.chunks();
  const std::int64_t total = plan.selected();
  with_emitter(values, payload, payload_bytes, out_values, out_indices, out_payload, [&](auto emit) {
    with_selector(values, pred, flags, [&](auto selected) {
#pragma omp parallel for num_threads(threads) schedule(static, 1) if (chunks > 1 && threads > 1)
      for (std::int64_t c = 0; c < chunks; ++c) {
        const auto k = static_cast<std::size_t>(c);
        const std::int64_t begin = plan.chunk_begin(c), end = plan.chunk_begin(c + 1);
        const std::int64_t at = plan.selected_before[k], at_end = plan.selected_before[k + 1];
        if (partition)
          partition_chunk(selected, emit, begin, end, at, at_end, total);
        else
          write_chunk(selected, emit, begin, end, at, at_end);
      }
    });
  });
}

template <class T>
std::int64_t count_if(const T* values, std::int64_t n, const predicate<T>& pred, int num_threads,
                      const filter_tuning& tuning) {
  return filter_count(values, n, pred, nullptr, num_threads, tuning).selected();
}

template <class T>
std::int64_t filter_inplace(T* values, std::int64_t n, const predicate<T>& pred, int num_threads,
                            const filter_tuning& tuning) {
  const int threads = thread_count(num_threads);
  const filter_plan plan = chunked_plan(n, threads, tuning);  // only for its chunking
  const std::int64_t chunks = plan.chunks();
  std::vector<std::int64_t> kept(static_cast<std::size_t>(chunks), 0);
  // 1. Each chunk compacts itself to its start.
  with_selector(static_cast<const T*>(values), pred, nullptr, [&](auto selected) {
#pragma omp parallel for num_threads(threads) schedule(static, 1) if (chunks > 1 && threads > 1)
    for (std::int64_t c = 0; c < chunks; ++c) {
      const std::int64_t begin = plan.chunk_begin(c), end = plan.chunk_begin(c + 1);
      kept[static_cast<std::size_t>(c)] = compact_chunk(selected, values, begin, end);
    }
  });
  // 2. The parts move down in chunk order. Chunk c's part goes to [at, at + kept)
  //    with at <= its start: that range holds only chunk c's own part and the parts
  //    of earlier chunks, already moved, so one memmove per chunk, in order, is safe.
  std::int64_t at = kept.empty() ? 0 : kept[0];
  for (std::int64_t c = 1; c < chunks; ++c) {
    const std::int64_t k = kept[static_cast<std::size_t>(c)];
    if (k > 0 && at != plan.chunk_begin(c))
      std::memmove(values + at, values + plan.chunk_begin(c), static_cast<std::size_t>(k) * sizeof(T));
    at += k;
  }
  return at;
}

#define KSELECT_INSTANTIATE(T)                                                                                   \
  template filter_plan filter_count<T>(const T*, std::int64_t, const predicate<T>&, const std::uint8_t*, int,    \
                                       const filter_tuning&);                                                   \
  template void filter_write<T>(const T*, const predicate<T>&, const std::uint8_t*,               \
                                const filter_plan&, const void*, std::size_t, bool, T*, std::int64_t*, void*, int); \
  template std::int64_t count_if<T>(const T*, std::int64_t, const predicate<T>&, int, const filter_tuning&);    \
  template std::int64_t filter_inplace<T>(T*, std::int64_t, const predicate<T>&, int, const filter_tuning&);
KSELECT_FOR_EACH_KEY_TYPE(KSELECT_INSTANTIATE)
#undef KSELECT_INSTANTIATE

}  // namespace kselect::cpu
