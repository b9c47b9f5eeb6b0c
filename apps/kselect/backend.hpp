// Choosing the backend (--device) and running a kselect call on it: the host
// array for the CPU, a device copy for CUDA, with transfer and compute timed apart.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

#include "commands.hpp"
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
  /// --gpu-memory-limit in bytes (0: not given).
  std::size_t device_memory_limit = 0;
  /// Whether the command's call streams host input through the GPU (the library's
  /// exact select, quantile, topk and range); the others copy their input to the GPU
  /// whole.
  bool streams_host_input = false;
  std::string_view name() const noexcept { return cuda ? "cuda" : "cpu"; }
};

/// --device auto|cpu|cuda. auto: CUDA when this build has it and a device is
/// usable, else the CPU. Throws input_error for "cuda" when CUDA is not usable.
backend choose_backend(std::string_view device_option);

/// choose_backend(common.device), with --gpu-memory-limit parsed (input_error when
/// malformed); streams_host_input as the command's call allows.
backend choose_backend(const common_options& common, bool streams_host_input = false);

/// "512M", "8G", "1048576": bytes (K, M, G, T: powers of 1024; "KiB" and so on too).
/// Throws input_error naming `option` for anything else, and for 0.
std::size_t parse_byte_count(const std::string& text, const std::string& option);

/// Whether an input of `bytes` stays in host memory and is streamed through the GPU
/// (the library's options::device_memory_limit) instead of being copied there whole:
/// on CUDA, for a call that streams host input, when it is larger than half of
/// --gpu-memory-limit or, without it, of the device's free memory (the other half for
/// the selection's workspace).
bool streams_through_gpu(const backend& b, std::size_t bytes);

struct timings {
  double read_ms = 0;      // reading the input file
  double transfer_ms = 0;  // host to device copy (0 on the CPU)
  double compute_ms = 0;   // the kselect call (it returns its results in host memory)
};

/// An input where a backend runs: the host array itself, or a device copy.
template <class T>
struct placed_input {
  const T* values = nullptr;
  std::int64_t n = 0;
  kselect::options options;  // the device to run on
  gpu::device_buffer copy;   // the device copy (CUDA); empty on the CPU
};

/// Places `data` where `b` runs: the host array itself, or a device copy (the
/// owning API then runs on CUDA), whose transfer time goes to t.transfer_ms. An
/// array already in device memory (read for the CUDA backend) is used as it is; one
/// that streams_through_gpu stays in host memory, and the library streams it.
template <class T>
placed_input<T> place_on_backend(const backend& b, const host_array<T>& data, timings& t) {
  placed_input<T> placed;
  placed.values = data.data();
  placed.n = data.size();
  placed.options.device = b.cuda ? kselect::device_kind::cuda : kselect::device_kind::cpu;
  placed.options.device_memory_limit = b.device_memory_limit;
  if (data.device_data() != nullptr) {
    if (!b.cuda) throw std::logic_error("an input read into device memory reached the CPU backend");
    placed.values = data.device_data();
  } else if (b.cuda && !streams_through_gpu(b, static_cast<std::size_t>(data.size()) * sizeof(T))) {
    const std::size_t bytes = static_cast<std::size_t>(data.size()) * sizeof(T);
    placed.copy = gpu::device_buffer(bytes);
    stopwatch transfer;
    placed.copy.upload(data.data(), bytes);
    t.transfer_ms = transfer.ms();
    placed.values = static_cast<const T*>(placed.copy.get());
  }
  return placed;
}

/// Calls f(values, n, options) with `data` where `b` runs (place_on_backend).
/// `operation` names the work in the progress line shown when it lasts
/// ("selecting on the cpu: 14 s").
template <class T, class F>
auto run_on_backend(const backend& b, const host_array<T>& data, timings& t, F&& f,
                    std::string_view operation = "computing") {
  const progress shown(std::string(operation) + " on the " + std::string(b.name()));
  const placed_input<T> placed = place_on_backend(b, data, t);
  stopwatch compute;
  auto result = f(placed.values, placed.n, placed.options);
  t.compute_ms = compute.ms();
  return result;
}

}  // namespace kselect_cli
