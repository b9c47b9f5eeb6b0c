// kselect-mpi-bench's CUDA parts, behind a header without CUDA types so that
// distributed_bench.cpp builds with or without CUDA: gpu_parts.cu in CUDA builds,
// no_gpu_parts.cpp (every call but built() throws) in CPU-only builds.
//   - the process's GPU: local rank modulo the device count (processes share a GPU
//     when there are more of them than GPUs), its name and properties;
//   - a non-blocking stream, device memory, copies, synchronisation;
//   - each shard's keys generated on the device (bench_keys.hpp, from the global offset);
//   - the read floor: one cub::DeviceReduce::Sum over the keys (CUDA events, or one
//     launch that the caller times with the wall clock);
//   - CUB's radix sort of the whole data (cub::DeviceRadixSort::SortKeys, CUDA events).
// Errors throw std::runtime_error naming the CUDA call and the error.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "bench_keys.hpp"
#include "harness/wall_timing.hpp"

namespace kselect::mpi_bench {
using bench::summarize;
using bench::timing;
}  // namespace kselect::mpi_bench

namespace kselect::mpi_bench::gpu {

/// True where the CUDA parts are built (gpu_parts.cu), false in CPU-only builds.
bool built();

struct device_info {
  int ordinal = -1;  ///< the device this process uses
  int count = 0;     ///< devices the process sees
  std::string name, pci_bus_id;
  std::size_t memory_bytes = 0;
  int major = 0, minor = 0;
  int runtime_version = 0, driver_version = 0;
};

/// Makes device local_rank % count current for this process (cudaSetDevice) and
/// returns it; throws without a CUDA device.
device_info bind(int local_rank);

/// A non-blocking stream on the current device (a cudaStream_t).
void* create_stream();
void destroy_stream(void* stream);
/// cudaStreamSynchronize.
void synchronize(void* stream);

void* allocate(std::size_t bytes);
void release(void* p) noexcept;
void copy_to_host(void* host, const void* device, std::size_t bytes);
void copy_to_device(void* device, const void* host, std::size_t bytes);

/// out[j] = key_value<T>(d, offset + j, global_n, seed) for j < count, on `stream`
/// (returns before the kernel ends).
template <class T>
void generate(T* out, std::int64_t count, std::int64_t offset, std::int64_t global_n, dist d,
              std::uint64_t seed, void* stream);

/// One read of n device keys: cub::DeviceReduce::Sum into a device scalar, its
/// workspace allocated at construction.
template <class T>
class reducer {
 public:
  reducer(const T* in, std::int64_t n, void* stream);
  ~reducer();
  reducer(const reducer&) = delete;
  reducer& operator=(const reducer&) = delete;

  /// Launches one read and waits for it (for wall-clock timing by the caller).
  void run_and_wait();
  /// `runs` reads after `warmup`, each between CUDA events on the stream.
  timing time_events(int runs, int warmup);

 private:
  struct impl;
  std::unique_ptr<impl> p_;
};

/// CUB's radix sort of n device keys into a buffer of its own (keys only, all bits),
/// `runs` sorts after `warmup`, each between CUDA events. Allocates 2 n keys' worth
/// and more while it runs; throws (std::runtime_error) when that fails.
template <class T>
timing radix_sort_time(const T* in, std::int64_t n, void* stream, int runs, int warmup);

}  // namespace kselect::mpi_bench::gpu
