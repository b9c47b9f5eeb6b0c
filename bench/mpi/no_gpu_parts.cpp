// kselect-mpi-bench's CUDA parts in a CPU-only build: built() says so and every
// other call throws (distributed_bench.cpp refuses --device cuda before calling any).
#include <stdexcept>

#include "gpu_parts.hpp"

namespace kselect::mpi_bench::gpu {
namespace {

[[noreturn]] void no_cuda() {
  throw std::runtime_error("kselect-mpi-bench was built without CUDA (a CPU-only build): --device cuda needs a CUDA build");
}

}  // namespace

bool built() { return false; }
device_info bind(int) { no_cuda(); }
void* create_stream() { no_cuda(); }
void destroy_stream(void*) {}
void synchronize(void*) { no_cuda(); }
void* allocate(std::size_t) { no_cuda(); }
void release(void*) noexcept {}
void copy_to_host(void*, const void*, std::size_t) { no_cuda(); }
void copy_to_device(void*, const void*, std::size_t) { no_cuda(); }

template <class T>
void generate(T*, std::int64_t, std::int64_t, std::int64_t, dist, std::uint64_t, void*) {
  no_cuda();
}

template <class T>
struct reducer<T>::impl {};

template <class T>
reducer<T>::reducer(const T*, std::int64_t, void*) {
  no_cuda();
}

template <class T>
reducer<T>::~reducer() = default;

template <class T>
void reducer<T>::run_and_wait() {
  no_cuda();
}

template <class T>
timing reducer<T>::time_events(int, int) {
  no_cuda();
}

template <class T>
timing radix_sort_time(const T*, std::int64_t, void*, int, int) {
  no_cuda();
}

#define KSELECT_MPI_BENCH_GPU(T)                                                                      \
  template void generate<T>(T*, std::int64_t, std::int64_t, std::int64_t, dist, std::uint64_t, void*); \
  template class reducer<T>;                                                                          \
  template timing radix_sort_time<T>(const T*, std::int64_t, void*, int, int);
KSELECT_MPI_BENCH_GPU(float)
KSELECT_MPI_BENCH_GPU(double)
#undef KSELECT_MPI_BENCH_GPU

}  // namespace kselect::mpi_bench::gpu
