#include "backend.hpp"

#include "errors.hpp"
#include "kselect/kselect.hpp"

namespace kselect_cli {

backend choose_backend(std::string_view device_option) {
  const bool built = gpu::built_with_cuda();
  const bool usable = built && kselect::cuda_available();
  if (device_option == "cpu") return {false, "CPU backend (--device cpu)"};
  if (device_option == "cuda" && !built)
    throw input_error("--device cuda: this kselect was built without CUDA support");
  if (device_option == "cuda" && !usable) throw input_error("--device cuda: no CUDA device found");
  if (!usable)
    return {false, built ? "CPU backend: no CUDA device found"
                         : "CPU backend: no CUDA device found (this build has no CUDA support)"};
  gpu::initialize();
  return {true, "CUDA backend: " + gpu::device_name()};
}

}  // namespace kselect_cli
