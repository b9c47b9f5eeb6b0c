// Loading the input file of select and quantile from the common options.
#pragma once

#include <sys/stat.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "backend.hpp"
#include "commands.hpp"
#include "dtype.hpp"
#include "format.hpp"
#include "host_array.hpp"

namespace kselect_cli {

struct loaded_input {
  any_array values;
  double read_ms = 0;
  std::vector<std::int64_t> shape;  // as the .npy header gives it; {n} for raw data
};

/// Reads `file` ("-": standard input) as --dtype and --raw say; throws
/// input_error when it holds no values. `on_open`, when given, is called with the
/// opened input's status before anything is read (and is not part of read_ms):
/// filter checks there that its output is not the input. `half_keys`: float16 data
/// is taken (the segmented commands; see input_spec).
loaded_input load_command_input(const common_options& common, const std::string& file,
                                const std::function<void(const struct stat&)>& on_open = {}, bool half_keys = false);

/// load_command_input() for the commands whose input goes to the backend and
/// nowhere else (select, quantile, topk, range without segments). On the CUDA
/// backend a regular file's array is read straight into device memory through
/// pinned staging buffers, chunk by chunk, each chunk's copy overlapping the
/// reading of the next (gpu::device_buffer::fill_staged): read_ms then covers
/// the copy too, and no host array is made. Anything else is read as
/// load_command_input() reads it, as is a file too large for the GPU
/// (streams_through_gpu: the library then streams it from host memory).
/// `workspace`, when given, says how many bytes of device workspace the command's
/// call will take for n values of type t: they are mapped while the file is read
/// (gpu::map_pool_memory), so that the call does not map them itself.
using workspace_estimate = std::function<std::size_t(dtype t, std::int64_t n)>;
loaded_input load_backend_input(const common_options& common, const std::string& file, const backend& b,
                                const workspace_estimate& workspace = {});

/// The --json fields select and quantile share: command, file, dtype, n, device.
json_object command_json(std::string_view command, const std::string& file, const loaded_input& in,
                         const backend& b);

/// The same fields from their values (a distributed run: n is the global size).
json_object command_json(std::string_view command, const std::string& file, dtype t, std::int64_t n,
                         std::string_view device);

/// Their "time_ms" object: read, transfer, select.
std::string timings_json(const timings& t);

}  // namespace kselect_cli
