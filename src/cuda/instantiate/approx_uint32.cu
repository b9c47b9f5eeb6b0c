// Approximate multiselection for std::uint32_t (one translation unit per key type, so the build parallelises).
#include "cuda/dispatch/approx_dispatch.cuh"

KSELECT_INSTANTIATE_APPROX_API(std::uint32_t)
