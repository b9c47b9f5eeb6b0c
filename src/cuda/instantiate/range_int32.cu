// Rank ranges and top-k for std::int32_t (one translation unit per key type, so the build parallelises).
#include "cuda/range_api.cuh"

KSELECT_INSTANTIATE_RANGE_API(std::int32_t)
