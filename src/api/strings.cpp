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
    case quantile_method::inverted_cdf: return "inverted_cdf";
    case quantile_method::averaged_inverted_cdf: return "averaged_inverted_cdf";
    case quantile_method::closest_observation: return "closest_observation";
    case quantile_method::interpolated_inverted_cdf: return "interpolated_inverted_cdf";
    case quantile_method::hazen: return "hazen";
    case quantile_method::weibull: return "weibull";
    case quantile_method::median_unbiased: return "median_unbiased";
    case quantile_method::normal_unbiased: return "normal_unbiased";
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
  for (const quantile_method m : quantile_methods)
    if (name == to_string(m)) return m;
  std::string expected;
  for (const quantile_method m : quantile_methods) expected += (expected.empty() ? "" : ", ") + std::string(to_string(m));
  throw std::invalid_argument("kselect: unknown quantile method '" + std::string(name) + "' (expected one of " +
                              expected + ")");
}

}  // namespace kselect
