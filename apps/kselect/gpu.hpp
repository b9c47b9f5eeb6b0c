// The tool's own CUDA support: device buffers for copying input to the GPU and
// the demo's data generation and CUB reference sort. Implemented in gpu.cu for
// CUDA builds and in gpu_none.cpp (every operation throws) otherwise, so the
// rest of the tool is plain C++.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>

#include "dtype.hpp"

namespace kselect_cli::gpu {

/// True when the tool was built with CUDA support.
bool built_with_cuda() noexcept;

/// Creates the CUDA context now, so later timings do not include it.
void initialize();

/// Makes device `local_rank` modulo the device count current for this process,
/// before any context is created (each process of a distributed job on one host
/// its own GPU while there are enough); returns the device's number. Throws
/// kselect::error when no device is usable.
int bind_device(int local_rank);

/// Name of the current CUDA device, e.g. "NVIDIA H100 80GB HBM3".
std::string device_name();

/// Free memory of the current CUDA device, in bytes (cudaMemGetInfo).
std::size_t free_memory();

/// Device memory from cudaMalloc, freed on destruction. Operations throw
/// kselect::error with the CUDA error's text on failure.
class device_buffer {
 public:
  device_buffer() = default;
  explicit device_buffer(std::size_t bytes);
  ~device_buffer();
  device_buffer(device_buffer&& other) noexcept;
  device_buffer& operator=(device_buffer&& other) noexcept;
  device_buffer(const device_buffer&) = delete;
  device_buffer& operator=(const device_buffer&) = delete;

  void* get() const noexcept { return ptr_; }
  std::size_t bytes() const noexcept { return bytes_; }

  /// Copies host[0..bytes) to the start of the buffer; returns when done.
  void upload(const void* host, std::size_t bytes);
  /// Fills the buffer's first `bytes` bytes from a source read in chunks into
  /// pinned host staging buffers, each chunk's copy to the device running while
  /// the next chunks are read (several reader threads, each with two staging
  /// buffers and a stream of its own). read(dst, offset, len) puts the source's
  /// bytes [offset, offset + len) into dst; the readers call it at once for
  /// different chunks. Returns when every copy is done; rethrows the first
  /// exception that `read` threw, after the other readers stopped.
  using chunk_reader = std::function<void(void* dst, std::uint64_t offset, std::size_t len)>;
  void fill_staged(std::size_t bytes, const chunk_reader& read);
  /// Copies `bytes` bytes from byte offset `offset` of the buffer to host memory.
  void download(void* host, std::size_t offset, std::size_t bytes) const;

 private:
  void* ptr_ = nullptr;
  std::size_t bytes_ = 0;
};

/// The device workspace, in bytes, of the library's exact selection of `num_ranks`
/// ranks (capped at n) of n values of type t (kselect::device::multiselect's size
/// query, which the owning calls make too). Throws kselect::error when the type has no selection.
std::size_t selection_workspace_bytes(dtype t, std::int64_t n, std::int64_t num_ranks);

/// Maps `bytes` of the current device's default memory pool now, and makes the pool
/// keep what it maps from here on (this process runs one command, then exits). The
/// library's owning calls take their workspace from that pool (cudaMallocAsync): a
/// pool that grows at the call maps its pages then, a cost that grows with the
/// workspace (docs/performance.md, issue 25), which the tool instead pays while it
/// reads the input. Takes and frees the bytes on the default stream and waits for it. Throws
/// kselect::error on a CUDA failure.
void map_pool_memory(std::size_t bytes);

/// The bytes the current device's default memory pool holds mapped (its reserved
/// memory), for tests of map_pool_memory().
std::size_t pool_reserved_bytes();

/// Fills n float32 values of `buf` with demo_value(seed, i) (see demo_data.hpp).
void fill_uniform(device_buffer& buf, std::int64_t n, std::uint64_t seed);

/// Sorts the n float32 values of `in` into `out` (allocated here) with
/// cub::DeviceRadixSort::SortKeys; returns the sort's time in ms (CUDA events
/// around a second, warm sort; temporary storage allocation excluded).
double sort_floats(const device_buffer& in, device_buffer& out, std::int64_t n);

}  // namespace kselect_cli::gpu
