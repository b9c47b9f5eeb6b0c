// Names of the public enums (include/kselect/types.hpp).
#include <stdexcept>
#include <string>

#include "kselect/types.hpp"

namespace kselect {

const char* to_string(quantile_method m) noexcept {
  switch (m) {
    case quantile_method::linear: return "linear";
    case quantile_method::lower: return "lower";
    case quantile_method::higher: return "higher";
    case quantile_method::nearest: return "nearest";
    case quantile_method::midpoint: return "midpoint";
  }
  return "unknown";
}

const char* to_string(device_kind d) noexcept {
  switch (d) {
    case device_kind::automatic: return "automatic";
    case device_kind::cpu: return "cpu";
    case device_kind::cuda: return "cuda";
  }
  return "unknown";
}

const char* to_string(algorithm a) noexcept {
  switch (a) {
    case algorithm::automatic: return "automatic";
    case algorithm::sample_select: return "sample_select";
    case algorithm::window: return "window";
  }
  return "unknown";
}

quantile_method parse_quantile_method(std::string_view name) {
  for (const quantile_method m : {quantile_method::linear, quantile_method::lower,
                                  quantile_method::higher, quantile_method::nearest,
                                  quantile_method::midpoint})
    if (name == to_string(m)) return m;
  throw std::invalid_argument("kselect: unknown quantile method '" + std::string(name) +
                              "' (expected linear, lower, higher, nearest or midpoint)");
}

}  // namespace kselect
