// The distributed calls' CUDA shard for std::uint32_t (one translation unit per key type, so the build parallelises).
#include "cuda/distributed/cuda_shard.cuh"

KSELECT_INSTANTIATE_CUDA_SHARD(std::uint32_t)
