// The dispatch layer of the device filters (kselect/device_filter.cuh): argument
// checks, CUB's two-phase workspace protocol, the algorithm choice and the launches.
#pragma once

#include <cub/device/device_scan.cuh>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>

#include "kselect/detail/arguments.hpp"
#include "kselect/detail/cuda_support.hpp"
#include "kselect/detail/filter_kernels.cuh"
#include "kselect/detail/filter_plan.hpp"
#include "kselect/detail/rejection.hpp"

namespace kselect::detail {

/// null when absent is allowed (`optional`), else an error naming the argument.
inline cudaError_t check_device_array(const void* p, const char* name, bool optional = false) {
  if (p == nullptr) {
    if (optional) return cudaSuccess;
    return reject_argument(std::string("kselect: ") + name + " is null");
  }
  if (!kselect::detail::is_device_accessible(p))
    return reject_argument(std::string("kselect: ") + name + " is not device memory (host pointer given to the device API?)");
  return cudaSuccess;
}

/// Whether byte ranges [a, a + a_bytes) and [b, b + b_bytes) overlap (a null
/// pointer is an absent array: no overlap).
inline bool overlaps(const void* a, std::size_t a_bytes, const void* b, std::size_t b_bytes) {
  const auto x = reinterpret_cast<std::uintptr_t>(a), y = reinterpret_cast<std::uintptr_t>(b);
  return x && y && a_bytes && b_bytes && x < y + b_bytes && y < x + a_bytes;
}

inline cudaError_t check_filter_size(std::int64_t n) { return reject_if(input_size_error(n, true)); }

inline std::size_t single_pass_state_bytes(std::int64_t n, std::size_t key_bytes) {
  std::size_t bytes = 0;
  const auto tiles = static_cast<int>(std::max<std::int64_t>(1, ceil_div(n, single_pass_tile_items(key_bytes))));
  (void)filter_tile_state::AllocationSize(tiles, bytes);
  return bytes;
}

inline std::size_t three_phase_scan_bytes(std::int64_t n) {
  std::size_t bytes = 0;
  const auto items = static_cast<std::int64_t>(ceil_div(n, three_phase_block_items) + 1);
  (void)cub::DeviceScan::ExclusiveSum(nullptr, bytes, static_cast<std::int64_t*>(nullptr),
                                      static_cast<std::int64_t*>(nullptr), items);
  return bytes;
}

/// What a public entry point asks of run_filter besides the arrays.
struct filter_request {
  filter_algorithm algo = filter_algorithm::automatic;
  const void* flags = nullptr;    ///< the flag array of a flagged filter (checked like d_in)
  bool flagged = false;
  bool keys_optional = false;     ///< d_out may be null (positions alone)
  bool indices_required = false;  ///< the *_indices entry points
  bool values_required = false;   ///< the *_pairs entry points of filters
  bool in_place = false;          ///< out.keys == d_in is intended
};

/// The checks of the flags, the outputs and the payload input. With n == 0 only
/// d_num_selected is needed (written 0).
template <class T, class V, class IndexT>
cudaError_t check_filter_arrays(const T* d_in, std::int64_t n, const filter_outputs<T, V, IndexT>& out,
                                const filter_request& req) {
  KSELECT_CUDA_TRY(check_device_array(out.num_selected, "d_num_selected"));
  if (n == 0) return cudaSuccess;
  KSELECT_CUDA_TRY(check_device_array(d_in, req.in_place ? "d_data" : "d_in"));
  if (req.flagged) KSELECT_CUDA_TRY(check_device_array(req.flags, "d_flags"));
  KSELECT_CUDA_TRY(check_device_array(out.keys, "d_out", req.keys_optional));
  KSELECT_CUDA_TRY(check_device_array(out.indices, "d_indices_out", !req.indices_required));
  if ((out.values_in == nullptr) != (out.values_out == nullptr))
    return reject_argument("kselect: d_values_in and d_values_out must both be given or both be null");
  KSELECT_CUDA_TRY(check_device_array(out.values_in, "d_values_in", !req.values_required));
  KSELECT_CUDA_TRY(check_device_array(out.values_out, "d_values_out", !req.values_required));
  if (out.keys == nullptr && out.indices == nullptr && out.values_out == nullptr)
    return reject_argument("kselect: no output given (d_out and d_indices_out are null)");
  // Outputs must not overlap the inputs (in place: the keys only, by design).
  const auto un = static_cast<std::size_t>(n);
  const std::size_t key_bytes = un * sizeof(T), index_bytes = un * sizeof(IndexT), value_bytes = un * sizeof(V);
  if (!req.in_place && overlaps(d_in, key_bytes, out.keys, key_bytes))
    return reject_argument("kselect: d_out overlaps d_in (filter in place with filter_if_inplace)");
  if (overlaps(d_in, key_bytes, out.indices, index_bytes) || overlaps(out.values_in, value_bytes, out.indices, index_bytes))
    return reject_argument("kselect: d_indices_out overlaps an input");
  if (overlaps(d_in, key_bytes, out.values_out, value_bytes) ||
      overlaps(out.values_in, value_bytes, out.values_out, value_bytes))
    return reject_argument("kselect: d_values_out overlaps an input");
  return cudaSuccess;
}

/// One single pass over d_in on `stream` (reset the look-back states, then the
/// kernel of `select`), in the workspace `ws` laid out as `sp` (plan_single_pass);
/// no checks. Also the write of a top-k whose boundary key and last tie are known
/// (cuda/dispatch/range_dispatch.cuh).
template <class T, class V, class IndexT, class Selector>
cudaError_t launch_single_pass(char* ws, const single_pass_layout& sp, const T* d_in, std::int64_t n, Selector select,
                               const filter_outputs<T, V, IndexT>& out, cudaStream_t stream) {
  const int tiles = static_cast<int>(sp.tiles);
  filter_tile_state state;
  KSELECT_CUDA_TRY(state.Init(tiles, ws + sp.tile_state, sp.tile_state_bytes));
  const auto kernel = single_pass_kernel<T, V, IndexT, Selector>;
  const int tile_bytes = static_cast<int>(single_pass_tile_items(sizeof(T)) * sizeof(T));
  // 64 KiB of dynamic shared memory needs an opt-in, and three such blocks per SM
  // the largest carveout; asked once per kernel.
  static const cudaError_t attributes = [&] {
    const cudaError_t e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, tile_bytes);
    return e != cudaSuccess ? e
                            : cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout,
                                                   cudaSharedmemCarveoutMaxShared);
  }();
  KSELECT_CUDA_TRY(attributes);
  const int init_blocks = (tiles + 32 + filter_block_threads - 1) / filter_block_threads;
  single_pass_init_kernel<<<init_blocks, filter_block_threads, 0, stream>>>(state, tiles);
  KSELECT_LAUNCH_CHECK();
  const bool bulk = reinterpret_cast<std::uintptr_t>(d_in) % 16 == 0;
  kernel<<<tiles, single_pass_threads, tile_bytes, stream>>>(d_in, n, select, out, state, tiles, bulk);
  return cudaPeekAtLastError();
}

/// Runs a filter: checks, workspace protocol, then the chosen algorithm on `stream`.
template <class T, class V, class IndexT, class Selector>
cudaError_t run_filter(void* d_workspace, std::size_t& workspace_bytes, const T* d_in, std::int64_t n,
                       Selector select, const filter_outputs<T, V, IndexT>& out, const filter_request& req,
                       cudaStream_t stream) {
  const filter_algorithm asked = req.algo;
  clear_rejection();
  KSELECT_CUDA_TRY(check_filter_size(n));
  if (asked != filter_algorithm::automatic && asked != filter_algorithm::single_pass &&
      asked != filter_algorithm::three_phase)
    return reject_argument("kselect: unknown filter_algorithm " + std::to_string(static_cast<int>(asked)));
  const filter_algorithm algo = choose_filter_algorithm(asked);
  if (algo == filter_algorithm::three_phase && req.in_place)
    return reject_argument("kselect: an in-place filter runs the single pass only");

  const bool single = algo == filter_algorithm::single_pass;
  const single_pass_layout sp = single ? plan_single_pass(n, sizeof(T), single_pass_state_bytes(n, sizeof(T)),
                                                          out.partition)
                                       : single_pass_layout{};
  const three_phase_layout tp = single ? three_phase_layout{} : plan_three_phase(n, three_phase_scan_bytes(n));
  bool answered = false;
  KSELECT_CUDA_TRY(workspace_protocol(d_workspace, workspace_bytes,
                                      std::max(single ? sp.bytes : tp.bytes, count_if_workspace_bytes), answered));
  if (answered) return cudaSuccess;

  KSELECT_CUDA_TRY(check_filter_arrays(d_in, n, out, req));
  if (n == 0) return cudaMemsetAsync(out.num_selected, 0, sizeof(std::int64_t), stream);

  auto* ws = static_cast<char*>(d_workspace);
  if (single) {
    // A partition is two passes over the input: the selected keys, then the rejected
    // ones after them (from the first pass's count, read on the device), each in input
    // order. Twice the single pass of a filter reads the input once more than the
    // three phases do, but writes every output once, in whole lines.
    filter_outputs<T, V, IndexT> selected = out;
    selected.partition = false;
    KSELECT_CUDA_TRY(launch_single_pass(ws, sp, d_in, n, select, selected, stream));
    if (!out.partition) return cudaSuccess;
    filter_outputs<T, V, IndexT> rejected = selected;
    rejected.output_offset = out.num_selected;
    rejected.num_selected = reinterpret_cast<std::int64_t*>(ws + sp.rejected_count);
    return launch_single_pass(ws, sp, d_in, n, negated_selector<Selector>{select}, rejected, stream);
  }

  auto* bits = reinterpret_cast<std::uint32_t*>(ws + tp.bits);
  auto* counts = reinterpret_cast<std::int64_t*>(ws + tp.counts);
  auto* offsets = reinterpret_cast<std::int64_t*>(ws + tp.offsets);
  const auto blocks = static_cast<unsigned>(tp.blocks);
  constexpr int vec = 16 / sizeof(T);
  const bool aligned = reinterpret_cast<std::uintptr_t>(d_in) % 16 == 0;
  if (aligned)
    three_phase_count_kernel<T, vec, Selector>
        <<<blocks, filter_block_threads, 0, stream>>>(d_in, n, select, bits, counts, tp.blocks, nullptr);
  else
    three_phase_count_kernel<T, 1, Selector>
        <<<blocks, filter_block_threads, 0, stream>>>(d_in, n, select, bits, counts, tp.blocks, nullptr);
  KSELECT_LAUNCH_CHECK();
  std::size_t scan_bytes = tp.scan_temp_bytes;
  KSELECT_CUDA_TRY(cub::DeviceScan::ExclusiveSum(ws + tp.scan_temp, scan_bytes, counts, offsets, tp.blocks + 1,
                                                   stream));
  if (aligned)
    three_phase_write_kernel<T, V, IndexT, vec>
        <<<blocks, filter_block_threads, 0, stream>>>(d_in, n, bits, offsets, tp.blocks, out);
  else
    three_phase_write_kernel<T, V, IndexT, 1>
        <<<blocks, filter_block_threads, 0, stream>>>(d_in, n, bits, offsets, tp.blocks, out);
  return cudaPeekAtLastError();
}

/// count_if: the three-phase count kernel without bits, blocks adding into *d_count.
template <class T, class Selector>
cudaError_t run_count(void* d_workspace, std::size_t& workspace_bytes, const T* d_in, std::int64_t n,
                      Selector select, std::int64_t* d_count, cudaStream_t stream) {
  clear_rejection();
  KSELECT_CUDA_TRY(check_filter_size(n));
  bool answered = false;
  KSELECT_CUDA_TRY(workspace_protocol(d_workspace, workspace_bytes, count_if_workspace_bytes, answered));
  if (answered) return cudaSuccess;
  if (n > 0) KSELECT_CUDA_TRY(check_device_array(d_in, "d_in"));
  KSELECT_CUDA_TRY(check_device_array(d_count, "d_count"));
  KSELECT_CUDA_TRY(cudaMemsetAsync(d_count, 0, sizeof(std::int64_t), stream));
  if (n == 0) return cudaSuccess;
  const auto blocks = static_cast<unsigned>(ceil_div(n, three_phase_block_items));
  auto* total = reinterpret_cast<unsigned long long*>(d_count);
  if (reinterpret_cast<std::uintptr_t>(d_in) % 16 == 0)
    three_phase_count_kernel<T, 16 / sizeof(T), Selector>
        <<<blocks, filter_block_threads, 0, stream>>>(d_in, n, select, nullptr, nullptr, 0, total);
  else
    three_phase_count_kernel<T, 1, Selector>
        <<<blocks, filter_block_threads, 0, stream>>>(d_in, n, select, nullptr, nullptr, 0, total);
  return cudaPeekAtLastError();
}

}  // namespace kselect::detail
