// kselect: the CUB-style device API (needs a build with the CUDA backend).
//
// Parameters, in one order in every function here and in kselect/device_filter.cuh
// (CUB's): the workspace and its size, the input arrays, the output arrays, the
// sizes (n, then k, the ranks, the range), the operation's parameters (the
// predicate, the rank error), the stream, the configuration.
//
// Two-phase workspace, as CUB: call once with d_workspace == nullptr to get the
// bytes needed in workspace_bytes, allocate, then call again. The workspace size
// depends only on the type, n and num_ranks (top-k and rank ranges: also k or the
// range, and the configuration), never on the data. The functions do not allocate.
// They return cudaSuccess, cudaErrorInvalidValue for bad arguments (the reason is in
// last_error_message()), or the first CUDA error met. Each call is one NVTX range in
// the domain "kselect" ("kselect::device::select", ...; kselect/detail/nvtx.hpp).
//
// Synchronisation: the selections plan with bucket counts copied to the host and
// wait for them on `stream`. One rank, and 2 to 512 ranks of n >= 2^20 keys, are
// planned on the device and wait once in the common case (one host round trip);
// other multiselections and inputs of few distinct values wait once per level
// (3 or 4 levels for 2^28 uniform floats); top-k and rank ranges once per
// narrowing level (1 or 2 for 2^28 keys); approx_multiselect at most once for its
// counting pass (not when no answer can exceed the bound), then as multiselect for
// the ranks it selects exactly. count_nan and the filters of
// kselect/device_filter.cuh do not wait. Nothing waits on other streams or on the
// whole device. On return the results are being written on `stream`; they are
// ready once the stream is synchronised. The *_async forms (select_async,
// multiselect_async, topk_async, topk_pairs_async, rank_range_async,
// approx_multiselect_async) never wait (and can be captured in a CUDA graph).
// (docs/api.md says the same per function.)
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "kselect/detail/arguments.hpp"
#include "kselect/detail/nvtx.hpp"
#include "kselect/types.hpp"

namespace kselect::device {

struct select_config {
  algorithm algo = algorithm::automatic;
  /// Seed of the sampling; any value gives exact results.
  std::uint64_t seed = kselect::detail::default_seed;
};

/// The k-th smallest (0-based) of d_in[0..n) into *d_out (device pointer).
template <class T>
cudaError_t select(void* d_workspace, std::size_t& workspace_bytes, const T* d_in, T* d_out, std::int64_t n,
                   std::int64_t k, cudaStream_t stream = nullptr, const select_config& cfg = {});

/// Values at `num_ranks` ranks of d_in[0..n) (ascending order, NaN last).
///  - d_out: device array of num_ranks values; d_out[i] is the value of rank h_ranks[i].
///  - h_ranks: HOST array, sorted ascending, no duplicates, each in [0, n).
/// Auxiliary memory for one rank is at most 0.3x the input's bytes (plus a few KiB).
template <class T>
cudaError_t multiselect(void* d_workspace, std::size_t& workspace_bytes, const T* d_in, T* d_out, std::int64_t n,
                        const std::int64_t* h_ranks, std::int64_t num_ranks, cudaStream_t stream = nullptr,
                        const select_config& cfg = {});

/// Status word of the stream-ordered calls (the *_async functions), written on
/// the stream to *d_status when d_status is not null.
enum async_status : std::int32_t {
  async_answered = 0,       ///< the sampled fast path answered every rank
  async_fell_back = 1,      ///< the exact descent answered what the fast path left open
  async_invalid_ranks = 2,  ///< d_ranks were not sorted, unique and in [0, n): d_out means nothing
};

/// select, stream-ordered: queues the same kernels for every call with the same
/// type and n, never waits on the host, and can be captured in a CUDA graph
/// (cudaStreamBeginCapture) and replayed on new data. Exact on every input: where
/// select would fall back to planning on the host, this runs an exact radix
/// descent on the device. Workspace: query it as for select (it is larger).
/// cfg.algo must be automatic (algorithm::sample_select plans on the host).
template <class T>
cudaError_t select_async(void* d_workspace, std::size_t& workspace_bytes, const T* d_in, T* d_out,
                         std::int32_t* d_status, std::int64_t n, std::int64_t k, cudaStream_t stream = nullptr,
                         const select_config& cfg = {});

/// multiselect, stream-ordered (see select_async), with the ranks in DEVICE
/// memory: d_ranks[0..num_ranks), sorted, unique, in [0, n). The host cannot read
/// them without waiting, so they are checked on the device: invalid ranks set
/// *d_status to async_invalid_ranks (the call itself returns cudaSuccess). The
/// work queued depends on n and num_ranks only, not on the ranks' values.
template <class T>
cudaError_t multiselect_async(void* d_workspace, std::size_t& workspace_bytes, const T* d_in, T* d_out,
                              std::int32_t* d_status, std::int64_t n, const std::int64_t* d_ranks,
                              std::int64_t num_ranks, cudaStream_t stream = nullptr, const select_config& cfg = {});

/// Counts the NaNs of d_in[0..n) into *d_count (device pointer); 0 for integer types.
template <class T>
cudaError_t count_nan(void* d_workspace, std::size_t& workspace_bytes, const T* d_in, std::int64_t* d_count,
                      std::int64_t n, cudaStream_t stream = nullptr);

/// Options of topk / topk_pairs / rank_range (see kselect::topk_options).
struct topk_config {
  bool largest = false;        ///< topk only: the k largest (NaN counts as the largest)
  bool sorted = false;         ///< ascending (descending for largest) output
  bool deterministic = false;  ///< ties by smaller index; identical output every run
  std::uint64_t seed = kselect::detail::default_seed;  ///< sampling seed; any value is exact
};

/// Options of approx_multiselect.
struct approx_config {
  /// Buckets of the counting pass (2 to 4096): more buckets, smaller rank error
  /// after one pass, but a slower pass.
  int buckets = 1024;
  std::uint64_t seed = kselect::detail::default_seed;
  /// Narrow-window mode: when the ranks' predicted positions in the sample lie
  /// close together (one rank, or a few neighbours), the splitters (at most
  /// buckets - 1) are packed around them and the counting pass only counts the
  /// keys outside that window (docs/algorithms.md). false: always the histogram
  /// over the whole key span. Either way every answer is within the bound.
  bool window = true;
};

}  // namespace kselect::device

namespace kselect::detail {

/// What the typed wrappers below forward to (one instantiation per key type).
struct range_request {
  std::int64_t lo = 0, hi = 0;  ///< positions [lo, hi) of the stable sort
  bool descending = false;      ///< order by descending key (ties still by index)
  void* indices_out = nullptr;  ///< hi - lo indices, or null
  int index_bytes = 0;          ///< 4 (int32_t) or 8 (int64_t)
  const void* values_in = nullptr;  ///< payload paired with the keys, or null
  void* values_out = nullptr;
  int value_bytes = 0;          ///< 4 or 8
  bool stream_ordered = false;  ///< the *_async form: no host round trip (range_dispatch.cuh)
  std::int32_t* status = nullptr;  ///< stream-ordered: device status word (device::async_status), or null
};

/// The request of a top-k of k keys, and of the rank range [lo, hi).
inline range_request topk_request(std::int64_t k, bool largest) {
  range_request req;
  req.hi = k;
  req.descending = largest;
  return req;
}
inline range_request rank_range_request(std::int64_t lo, std::int64_t hi) {
  range_request req;
  req.lo = lo;
  req.hi = hi;
  return req;
}

/// req with the output positions at d_indices_out (null: none).
template <class IndexT>
range_request with_indices(range_request req, IndexT* d_indices_out) {
  req.indices_out = d_indices_out;
  req.index_bytes = d_indices_out ? static_cast<int>(sizeof(IndexT)) : 0;
  return req;
}

/// req carrying the payload d_values_in to d_values_out.
template <class V>
range_request with_values(range_request req, const V* d_values_in, V* d_values_out) {
  req.values_in = d_values_in;
  req.values_out = d_values_out;
  req.value_bytes = sizeof(V);
  return req;
}

/// The stream-ordered form of `req`, its status word at d_status.
inline range_request stream_ordered_request(range_request req, std::int32_t* d_status) {
  req.stream_ordered = true;
  req.status = d_status;
  return req;
}

template <class T>
cudaError_t range_select(void* d_workspace, std::size_t& workspace_bytes, const T* d_in, T* d_keys_out,
                         std::int64_t n, const range_request& req, cudaStream_t stream,
                         const device::topk_config& cfg);

}  // namespace kselect::detail

namespace kselect::device {

/// The k smallest (cfg.largest: largest) keys of d_in[0..n) into d_keys_out[0..k),
/// 0 <= k <= n. Unsorted unless cfg.sorted. Workspace depends on n, k and cfg.
template <class T>
cudaError_t topk(void* d_workspace, std::size_t& workspace_bytes, const T* d_in, T* d_keys_out, std::int64_t n,
                 std::int64_t k, cudaStream_t stream = nullptr, const topk_config& cfg = {}) {
  KSELECT_NVTX_RANGE("kselect::device::topk");
  return kselect::detail::range_select(d_workspace, workspace_bytes, d_in, d_keys_out, n,
                                       kselect::detail::topk_request(k, cfg.largest), stream, cfg);
}

/// topk with the keys' positions in d_in: IndexT is int32_t (needs n < 2^31) or int64_t.
template <class T, class IndexT>
  requires kselect::detail::is_index_type_v<IndexT>
cudaError_t topk(void* d_workspace, std::size_t& workspace_bytes, const T* d_in, T* d_keys_out,
                 IndexT* d_indices_out, std::int64_t n, std::int64_t k, cudaStream_t stream = nullptr,
                 const topk_config& cfg = {}) {
  KSELECT_NVTX_RANGE("kselect::device::topk");
  return kselect::detail::range_select(
      d_workspace, workspace_bytes, d_in, d_keys_out, n,
      kselect::detail::with_indices(kselect::detail::topk_request(k, cfg.largest), d_indices_out), stream, cfg);
}

/// topk carrying a payload: d_values_out[i] is the d_values_in element paired with
/// d_keys_out[i]. V is any trivially copyable type of 4 or 8 bytes.
template <class T, class V>
  requires(std::is_trivially_copyable_v<V> && (sizeof(V) == 4 || sizeof(V) == 8))
cudaError_t topk_pairs(void* d_workspace, std::size_t& workspace_bytes, const T* d_keys_in, const V* d_values_in,
                       T* d_keys_out, V* d_values_out, std::int64_t n, std::int64_t k, cudaStream_t stream = nullptr,
                       const topk_config& cfg = {}) {
  KSELECT_NVTX_RANGE("kselect::device::topk_pairs");
  return kselect::detail::range_select(
      d_workspace, workspace_bytes, d_keys_in, d_keys_out, n,
      kselect::detail::with_values(kselect::detail::topk_request(k, cfg.largest), d_values_in, d_values_out), stream,
      cfg);
}

/// The keys at positions [lo, hi) of the ascending stable sort of d_in[0..n)
/// (0 <= lo <= hi <= n), into d_keys_out[0..hi-lo) and, if d_indices_out is not
/// null, their positions (IndexT: int32_t, which needs n < 2^31, or int64_t).
/// cfg.largest is ignored.
template <class T, class IndexT = std::int64_t>
  requires kselect::detail::is_index_type_v<IndexT>
cudaError_t rank_range(void* d_workspace, std::size_t& workspace_bytes, const T* d_in, T* d_keys_out,
                       IndexT* d_indices_out, std::int64_t n, std::int64_t lo, std::int64_t hi,
                       cudaStream_t stream = nullptr, const topk_config& cfg = {}) {
  KSELECT_NVTX_RANGE("kselect::device::rank_range");
  return kselect::detail::range_select(
      d_workspace, workspace_bytes, d_in, d_keys_out, n,
      kselect::detail::with_indices(kselect::detail::rank_range_request(lo, hi), d_indices_out), stream, cfg);
}

/// rank_range without positions, d_indices_out given as nullptr (an IndexT cannot
/// be deduced from it).
template <class T>
cudaError_t rank_range(void* d_workspace, std::size_t& workspace_bytes, const T* d_in, T* d_keys_out,
                       std::nullptr_t, std::int64_t n, std::int64_t lo, std::int64_t hi,
                       cudaStream_t stream = nullptr, const topk_config& cfg = {}) {
  return rank_range(d_workspace, workspace_bytes, d_in, d_keys_out, static_cast<std::int64_t*>(nullptr), n, lo, hi,
                    stream, cfg);
}

// The stream-ordered forms of topk, topk_pairs and rank_range: the same results
// (and options), with the status word d_status (may be null): async_answered or
// async_fell_back, as select_async's for the selection of the boundary keys, or,
// for a top-k that tries the one-pass path, async_answered when that path
// answered and async_fell_back when the exact path did.
// They never wait on the host and queue the same work for every call with the
// same type, n, k or range, and options, so they can be captured in a CUDA graph.
// A top-k whose ties may come in any order (not deterministic) of a large input
// with small k first runs the synchronous call's sampled pass and finishes its
// candidates in one block. Otherwise, or when that block finds the boundary
// outside its window or too many candidates, they select the boundary keys
// exactly (select_async, or multiselect_async for a range that does not start
// at 0) and then write the range in one more pass (a top-k whose ties may come
// in any order) or two (count, then write in input order). Workspace: query it as
// for the synchronous calls (the sizes differ).

template <class T>
cudaError_t topk_async(void* d_workspace, std::size_t& workspace_bytes, const T* d_in, T* d_keys_out,
                       std::int32_t* d_status, std::int64_t n, std::int64_t k, cudaStream_t stream = nullptr,
                       const topk_config& cfg = {}) {
  KSELECT_NVTX_RANGE("kselect::device::topk_async");
  return kselect::detail::range_select(
      d_workspace, workspace_bytes, d_in, d_keys_out, n,
      kselect::detail::stream_ordered_request(kselect::detail::topk_request(k, cfg.largest), d_status), stream, cfg);
}

template <class T, class IndexT>
  requires kselect::detail::is_index_type_v<IndexT>
cudaError_t topk_async(void* d_workspace, std::size_t& workspace_bytes, const T* d_in, T* d_keys_out,
                       IndexT* d_indices_out, std::int32_t* d_status, std::int64_t n, std::int64_t k,
                       cudaStream_t stream = nullptr, const topk_config& cfg = {}) {
  KSELECT_NVTX_RANGE("kselect::device::topk_async");
  return kselect::detail::range_select(
      d_workspace, workspace_bytes, d_in, d_keys_out, n,
      kselect::detail::stream_ordered_request(
          kselect::detail::with_indices(kselect::detail::topk_request(k, cfg.largest), d_indices_out), d_status),
      stream, cfg);
}

template <class T, class V>
  requires(std::is_trivially_copyable_v<V> && (sizeof(V) == 4 || sizeof(V) == 8))
cudaError_t topk_pairs_async(void* d_workspace, std::size_t& workspace_bytes, const T* d_keys_in,
                             const V* d_values_in, T* d_keys_out, V* d_values_out, std::int32_t* d_status,
                             std::int64_t n, std::int64_t k, cudaStream_t stream = nullptr,
                             const topk_config& cfg = {}) {
  KSELECT_NVTX_RANGE("kselect::device::topk_pairs_async");
  return kselect::detail::range_select(
      d_workspace, workspace_bytes, d_keys_in, d_keys_out, n,
      kselect::detail::stream_ordered_request(
          kselect::detail::with_values(kselect::detail::topk_request(k, cfg.largest), d_values_in, d_values_out),
          d_status),
      stream, cfg);
}

/// rank_range_async; d_indices_out may be a null IndexT* (no positions).
template <class T, class IndexT = std::int64_t>
  requires kselect::detail::is_index_type_v<IndexT>
cudaError_t rank_range_async(void* d_workspace, std::size_t& workspace_bytes, const T* d_in, T* d_keys_out,
                             IndexT* d_indices_out, std::int32_t* d_status, std::int64_t n, std::int64_t lo,
                             std::int64_t hi, cudaStream_t stream = nullptr, const topk_config& cfg = {}) {
  KSELECT_NVTX_RANGE("kselect::device::rank_range_async");
  return kselect::detail::range_select(
      d_workspace, workspace_bytes, d_in, d_keys_out, n,
      kselect::detail::stream_ordered_request(
          kselect::detail::with_indices(kselect::detail::rank_range_request(lo, hi), d_indices_out), d_status),
      stream, cfg);
}

/// Approximate multiselection: for each h_ranks[i] (host array, sorted, unique,
/// each in [0, n)), an element d_out[i] of d_in and its exact rank d_out_ranks[i]
/// (device arrays), with |h_ranks[i] - d_out_ranks[i]| <= max_rank_error.
/// max_rank_error = 0 selects exactly.
template <class T>
cudaError_t approx_multiselect(void* d_workspace, std::size_t& workspace_bytes, const T* d_in, T* d_out,
                               std::int64_t* d_out_ranks, std::int64_t n, const std::int64_t* h_ranks,
                               std::int64_t num_ranks, std::int64_t max_rank_error, cudaStream_t stream = nullptr,
                               const approx_config& cfg = {});

/// approx_multiselect, stream-ordered (see select_async), with the ranks in
/// DEVICE memory (checked on the device, as multiselect_async's). The counting
/// pass always uses the histogram of cfg.buckets buckets (the window mode needs
/// the ranks on the host; cfg.window is ignored). *d_status: async_answered when
/// every answer was within the bound, async_fell_back when some was not and the
/// exact descent then selected every rank (each d_out_ranks[i] is then the rank
/// itself), async_invalid_ranks. max_rank_error = 0: multiselect_async.
template <class T>
cudaError_t approx_multiselect_async(void* d_workspace, std::size_t& workspace_bytes, const T* d_in, T* d_out,
                                     std::int64_t* d_out_ranks, std::int32_t* d_status, std::int64_t n,
                                     const std::int64_t* d_ranks, std::int64_t num_ranks, std::int64_t max_rank_error,
                                     cudaStream_t stream = nullptr, const approx_config& cfg = {});

/// Why the last call on this thread returned cudaErrorInvalidValue (empty if it did not).
const char* last_error_message() noexcept;

}  // namespace kselect::device
