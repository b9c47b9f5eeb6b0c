// Rank ranges and top-k for std::uint32_t (one translation unit per key type, so the build parallelises).
#include "cuda/range_api.cuh"

KSELECT_INSTANTIATE_RANGE_API(std::uint32_t)
