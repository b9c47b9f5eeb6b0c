// What the CUDA shard offers besides make_cuda_shard (src/distributed/shard.hpp): a
// factory with a shared-memory budget, for the tests to run the count pass's
// global-memory paths (tables larger than shared memory) on small tables.
#pragma once

#include <cstdint>
#include <memory>

#include "distributed/shard.hpp"
#include "kselect/types.hpp"

namespace kselect::cuda::distributed {

/// make_cuda_shard, with the count pass's shared memory capped at shared_budget bytes
/// (-1: the device's limit; 0: histogram, table and interval extremes in global memory).
template <class T>
std::unique_ptr<kselect::distributed::shard<T>> make_cuda_shard_with_shared_budget(const T* values, std::int64_t n,
                                                                                   const kselect::options& opt,
                                                                                   std::int64_t shared_budget);

}  // namespace kselect::cuda::distributed
