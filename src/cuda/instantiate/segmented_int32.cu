// Segmented selection for std::int32_t (one translation unit per key type, so the build parallelises).
#include "cuda/segmented/dispatch.cuh"

KSELECT_INSTANTIATE_SEGMENTED(std::int32_t)
