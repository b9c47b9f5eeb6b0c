// The thread-local reason behind the device API's cudaErrorInvalidValue.
#include <string>

#include "cuda/common.cuh"
#include "kselect/detail/rejection.hpp"
#include "kselect/device.hpp"

namespace kselect::cuda {
namespace {
thread_local std::string last_message;
}
void set_error_message(std::string msg) { last_message = std::move(msg); }
void clear_error_message() { last_message.clear(); }
}  // namespace kselect::cuda

const char* kselect::device::last_error_message() noexcept {
  return kselect::cuda::last_message.c_str();
}

cudaError_t kselect::device::detail::reject_argument(const std::string& reason) {
  kselect::cuda::set_error_message(reason);
  return cudaErrorInvalidValue;
}

void kselect::device::detail::clear_rejection() noexcept { kselect::cuda::clear_error_message(); }
