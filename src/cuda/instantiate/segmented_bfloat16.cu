// Segmented selection for kselect::bfloat16 (one translation unit per key type, so the build parallelises).
#include "cuda/segmented/dispatch.cuh"

KSELECT_INSTANTIATE_SEGMENTED(kselect::bfloat16)
