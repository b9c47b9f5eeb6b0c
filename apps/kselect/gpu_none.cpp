// gpu.hpp in builds without CUDA: nothing is available and every operation throws.
#include "gpu.hpp"

#include "kselect/types.hpp"

namespace kselect_cli::gpu {
namespace {

[[noreturn]] void unavailable() { throw kselect::error("this kselect was built without CUDA support"); }

}  // namespace

bool built_with_cuda() noexcept { return false; }
void initialize() { unavailable(); }
int bind_device(int) { unavailable(); }
std::string device_name() { unavailable(); }
std::size_t free_memory() { unavailable(); }

device_buffer::device_buffer(std::size_t) { unavailable(); }
device_buffer::~device_buffer() = default;
device_buffer::device_buffer(device_buffer&& other) noexcept : ptr_(other.ptr_), bytes_(other.bytes_) {
  other.ptr_ = nullptr;
  other.bytes_ = 0;
}
device_buffer& device_buffer::operator=(device_buffer&& other) noexcept {
  ptr_ = other.ptr_;
  bytes_ = other.bytes_;
  other.ptr_ = nullptr;
  other.bytes_ = 0;
  return *this;
}
void device_buffer::upload(const void*, std::size_t) { unavailable(); }
void device_buffer::fill_staged(std::size_t, const chunk_reader&) { unavailable(); }
void device_buffer::download(void*, std::size_t, std::size_t) const { unavailable(); }

std::size_t selection_workspace_bytes(dtype, std::int64_t, std::int64_t) { unavailable(); }
void map_pool_memory(std::size_t) { unavailable(); }
std::size_t pool_reserved_bytes() { unavailable(); }

void fill_uniform(device_buffer&, std::int64_t, std::uint64_t) { unavailable(); }
double sort_floats(const device_buffer&, device_buffer&, std::int64_t) { unavailable(); }

}  // namespace kselect_cli::gpu
