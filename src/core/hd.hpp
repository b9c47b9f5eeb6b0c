// Marks functions that both the CPU and the CUDA backends compile.
#pragma once
#if defined(__CUDACC__)
#define KSELECT_HD __host__ __device__ __forceinline__
#else
#define KSELECT_HD inline
#endif
