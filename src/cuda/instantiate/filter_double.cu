// The owning API's CUDA filters for double keys (one key type per translation unit:
// CUDA compiles are slow on the 2-core CI machine).
#include "cuda/owning_filter.cuh"

KSELECT_INSTANTIATE_CUDA_FILTER(double)
