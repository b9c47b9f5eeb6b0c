// Rank ranges and top-k for float (one translation unit per key type, so the build parallelises).
#include "cuda/range_api.cuh"

KSELECT_INSTANTIATE_RANGE_API(float)
