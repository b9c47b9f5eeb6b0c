// What tests and benchmarks may force in the rank-range path (top-k, rank_range),
// kept out of the public headers: the method that puts deterministic unsorted output
// in input order. (What a call did, such as range_driver::took_exact_path, the tests
// read from the driver in cuda/dispatch/range_dispatch.cuh.)
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "kselect/device.hpp"

namespace kselect::cuda {

/// How deterministic unsorted output is put in input order (docs/algorithms.md):
/// chosen by the output's density (automatic), or forced.
enum class range_order_method : int { automatic, buckets, bitmap };

/// kselect::detail::range_select (what device::topk, topk_pairs and rank_range call)
/// with the order method forced; instantiated with it in instantiate/range_*.cu.
template <class T>
cudaError_t range_select_ordered(void* d_workspace, std::size_t& workspace_bytes, const T* d_in, T* d_keys_out,
                                 std::int64_t n, const kselect::detail::range_request& req, range_order_method order,
                                 cudaStream_t stream, const device::topk_config& cfg);

}  // namespace kselect::cuda
