// Segmented selection for std::uint32_t (one translation unit per key type, so the build parallelises).
#include "cuda/segmented/dispatch.cuh"

KSELECT_INSTANTIATE_SEGMENTED(std::uint32_t)
