// The count pass of streamed selection (src/cuda/streamed/streamed_select.cpp): one
// chunk of the host array, on the device, counted into a pass's table
// (core/stream_plan.hpp) and its kept intervals' elements appended to the kept buffer.
// Plain C++ declarations; the kernel is in stream_count.cu.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "core/key_traits.hpp"
#include "core/stream_plan.hpp"

namespace kselect::cuda_backend {

/// Counts d_chunk[0..count) into d_counts (table's buckets; atomically added to) and
/// appends the elements of kept intervals to d_kept: d_kept_keys counts every such
/// element, those at positions below `capacity` are stored. d_noncanonical counts the
/// elements whose bits are not their key's value's (-0.0, NaNs other than the
/// canonical one): where there are none, every answer is the input's element as it
/// is. `blocks` blocks of stream_count_threads threads; enqueued on `stream`, returns
/// the launch's status.
template <class T>
cudaError_t launch_stream_count(const T* d_chunk, std::int64_t count,
                                const core::stream_interval<core::key_t<T>>* d_table, int intervals,
                                std::uint32_t buckets, unsigned long long* d_counts, T* d_kept,
                                unsigned long long* d_kept_keys, unsigned long long* d_noncanonical,
                                std::int64_t capacity, int blocks, cudaStream_t stream);

inline constexpr int stream_count_threads = 256;

}  // namespace kselect::cuda_backend
