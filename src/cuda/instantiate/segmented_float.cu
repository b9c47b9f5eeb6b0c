// Segmented selection for float (one translation unit per key type, so the build parallelises).
#include "cuda/segmented/dispatch.cuh"

KSELECT_INSTANTIATE_SEGMENTED(float)
