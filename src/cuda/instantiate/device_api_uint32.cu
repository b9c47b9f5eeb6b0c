// Device API for std::uint32_t (one translation unit per key type, so the build parallelises).
#include "cuda/device_api.cuh"

KSELECT_INSTANTIATE_DEVICE_API(std::uint32_t)
