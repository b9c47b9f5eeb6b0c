// Device API for float (one translation unit per key type, so the build parallelises).
#include "cuda/device_api.cuh"

KSELECT_INSTANTIATE_DEVICE_API(float)
