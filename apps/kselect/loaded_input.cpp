#include "loaded_input.hpp"

#include <functional>
#include <system_error>
#include <thread>
#include <vector>

#include "kselect/kselect.hpp"

#include "dtype.hpp"
#include "errors.hpp"
#include "gpu.hpp"
#include "input.hpp"
#include "progress.hpp"
#include "stopwatch.hpp"

namespace kselect_cli {

namespace {

input_spec command_input_spec(const common_options& common, const std::string& file, bool half_keys) {
  input_spec spec{file, std::nullopt, common.raw, half_keys};
  // The parser admits only the known names (command_line.cpp).
  if (!common.dtype.empty()) spec.requested = parse_dtype_name(common.dtype);
  return spec;
}

/// Reads the whole of `source` into host memory (`file`: its name, for messages).
loaded_input read_into_host(input_source& source, const std::string& file) {
  stopwatch read;
  loaded_input in{source.read(), 0, {}};
  in.read_ms = read.ms();
  in.shape = source.shape();
  if (size_of(in.values) == 0) throw input_error(input_display_name(file) + ": holds no values");
  return in;
}

/// One small selection of type t's keys on the GPU, then the command's workspace for
/// n values mapped (when `workspace` says how much), its errors ignored (the real
/// call reports its own). The library's first call in a process pays a fixed cost
/// whatever its size, and a call whose workspace the pool has not mapped yet pays for
/// mapping it (docs/performance.md, issue 25); made while the file is read, both
/// overlap the read instead of following it.
void warm_up_library(dtype t, std::int64_t n, const workspace_estimate& workspace) noexcept {
  try {
    visit_dtype(t, [](auto tag) {
      using T = typename decltype(tag)::type;
      if constexpr (kselect::is_supported_key_v<T>) {
        constexpr std::int64_t m = std::int64_t(1) << 20;  // the size the first-call cost was measured at
        std::vector<T> ramp(static_cast<std::size_t>(m));
        for (std::int64_t i = 0; i < m; ++i) ramp[static_cast<std::size_t>(i)] = static_cast<T>(i % 1000);
        gpu::device_buffer keys(static_cast<std::size_t>(m) * sizeof(T));
        keys.upload(ramp.data(), keys.bytes());
        kselect::options opt;
        opt.device = kselect::device_kind::cuda;
        (void)kselect::select(static_cast<const T*>(keys.get()), m, m / 2, opt);
      }
    });
    if (workspace) gpu::map_pool_memory(workspace(t, n));
  } catch (...) {
  }
}

}  // namespace

loaded_input load_backend_input(const common_options& common, const std::string& file, const backend& b,
                                const workspace_estimate& workspace) {
  if (!b.cuda) return load_command_input(common, file);
  input_source source(command_input_spec(common, file, false));
  stopwatch read;
  const std::optional<file_layout> l = source.positioned_layout();
  if (!l) return read_into_host(source, file);  // a stream: read into host memory, copied after
  if (l->count == 0) throw input_error(input_display_name(file) + ": holds no values");
  const std::size_t bytes = static_cast<std::size_t>(l->count) * dtype_size(l->type);
  // Too large for the GPU (or --gpu-memory-limit): host memory, streamed by the library.
  // (A fresh read: the layout's probe moved this source past the header.)
  if (streams_through_gpu(b, bytes)) return load_command_input(common, file);
  progress shown("reading " + input_display_name(file), progress::kind::bytes, bytes);
  gpu::device_buffer on_device(bytes);
  {
    std::jthread warm_up;  // joined at the end of this scope, also when the read throws
    try {
      warm_up = std::jthread(warm_up_library, l->type, l->count, std::cref(workspace));
    } catch (const std::system_error&) {
      // No thread: the first call pays the cost itself.
    }
    on_device.fill_staged(bytes, [&](void* dst, std::uint64_t offset, std::size_t len) {
      source.read_data_at(*l, dst, len, offset, shown);
    });
  }
  loaded_input in{visit_dtype(l->type,
                              [&](auto tag) {
                                using T = typename decltype(tag)::type;
                                return any_array(host_array<T>(std::move(on_device), l->count));
                              }),
                  0, l->shape};
  in.read_ms = read.ms();
  return in;
}

loaded_input load_command_input(const common_options& common, const std::string& file,
                                const std::function<void(const struct stat&)>& on_open, bool half_keys) {
  input_source source(command_input_spec(common, file, half_keys));
  if (on_open) on_open(source.status());
  return read_into_host(source, file);
}

json_object command_json(std::string_view command, const std::string& file, const loaded_input& in,
                         const backend& b) {
  return command_json(command, file, dtype_of(in.values), size_of(in.values), b.name());
}

json_object command_json(std::string_view command, const std::string& file, dtype t, std::int64_t n,
                         std::string_view device) {
  json_object out;
  out.add("command", json_string(command))
      .add("file", json_string(file))
      .add("dtype", json_string(dtype_name(t)))
      .add("n", json_number(n))
      .add("device", json_string(device));
  return out;
}

std::string timings_json(const timings& t) {
  return json_object()
      .add("read", json_ms(t.read_ms))
      .add("transfer", json_ms(t.transfer_ms))
      .add("select", json_ms(t.compute_ms))
      .str();
}

}  // namespace kselect_cli
