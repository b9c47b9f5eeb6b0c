// make_cuda_shard in builds without the CUDA backend: it throws, so that the MPI
// library links either way. With CUDA the definition is in src/cuda/distributed/.
#ifndef KSELECT_WITH_CUDA

#include <cstdint>
#include <memory>

#include "distributed/shard.hpp"
#include "kselect/types.hpp"

namespace kselect::distributed {

template <class T>
std::unique_ptr<shard<T>> make_cuda_shard(const T*, std::int64_t, const kselect::options&) {
  throw kselect::error("kselect was built without CUDA");
}

#define KSELECT_INSTANTIATE(T) \
  template std::unique_ptr<shard<T>> make_cuda_shard<T>(const T*, std::int64_t, const kselect::options&);
KSELECT_FOR_EACH_KEY_TYPE(KSELECT_INSTANTIATE)
#undef KSELECT_INSTANTIATE

}  // namespace kselect::distributed

#endif  // KSELECT_WITH_CUDA
