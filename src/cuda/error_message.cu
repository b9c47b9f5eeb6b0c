// The thread-local reason behind the device API's cudaErrorInvalidValue: written by
// kselect::detail::reject_argument (kselect/detail/rejection.hpp), read by
// device::last_error_message().
#include <string>

#include "kselect/detail/rejection.hpp"
#include "kselect/device.hpp"

namespace {
thread_local std::string last_message;
}  // namespace

const char* kselect::device::last_error_message() noexcept { return last_message.c_str(); }

cudaError_t kselect::detail::reject_argument(const std::string& reason) {
  last_message = reason;
  return cudaErrorInvalidValue;
}

void kselect::detail::clear_rejection() noexcept { last_message.clear(); }
