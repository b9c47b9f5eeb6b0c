// The distributed calls' CUDA shard for std::int32_t (one translation unit per key type, so the build parallelises).
#include "cuda/distributed/cuda_shard.cuh"

KSELECT_INSTANTIATE_CUDA_SHARD(std::int32_t)
