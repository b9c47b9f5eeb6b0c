// Approximate multiselection for std::uint32_t (one translation unit per key type, so the build parallelises).
#include "cuda/approx_api.cuh"

KSELECT_INSTANTIATE_APPROX_API(std::uint32_t)
