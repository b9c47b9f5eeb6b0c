// Choosing the backend (--device) and running a kselect call on it: the host
// array for the CPU, a device copy for CUDA, with transfer and compute timed apart.
#pragma once

#include <string>
#include <string_view>

#include "gpu.hpp"
#include "host_array.hpp"
#include "progress.hpp"
#include "stopwatch.hpp"
#include "kselect/types.hpp"

namespace kselect_cli {

struct backend {
  bool cuda = false;
  /// One line for people, e.g. "CPU backend: no CUDA device found".
  std::string description;
  std::string_view name() const noexcept { return cuda ? "cuda" : "cpu"; }
};

/// --device auto|cpu|cuda. auto: CUDA when this build has it and a device is
/// usable, else the CPU. Throws input_error for "cuda" when CUDA is not usable.
backend choose_backend(std::string_view device_option);

struct timings {
  double read_ms = 0;      // reading the input file
  double transfer_ms = 0;  // host to device copy (0 on the CPU)
  double compute_ms = 0;   // the kselect call (it returns its results in host memory)
};

/// Calls f(values, n, options) with `data` where `b` runs: the host array itself,
/// or a device copy (the owning API then runs on CUDA). `operation` names the
/// work in the progress line shown when it lasts ("selecting on the cpu: 14 s").
template <class T, class F>
auto run_on_backend(const backend& b, const host_array<T>& data, timings& t, F&& f,
                    std::string_view operation = "computing") {
  const progress shown(std::string(operation) + " on the " + std::string(b.name()));
  kselect::options opt;
  opt.device = b.cuda ? kselect::device_kind::cuda : kselect::device_kind::cpu;
  gpu::device_buffer copy;
  const T* values = data.data();
  if (b.cuda) {
    copy = gpu::device_buffer(static_cast<std::size_t>(data.size()) * sizeof(T));
    stopwatch transfer;
    copy.upload(data.data(), static_cast<std::size_t>(data.size()) * sizeof(T));
    t.transfer_ms = transfer.ms();
    values = static_cast<const T*>(copy.get());
  }
  stopwatch compute;
  auto result = f(values, data.size(), opt);
  t.compute_ms = compute.ms();
  return result;
}

}  // namespace kselect_cli
