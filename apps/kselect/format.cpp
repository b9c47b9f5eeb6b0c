#include "format.hpp"

#include <cstdio>
#include <nlohmann/json.hpp>

namespace kselect_cli {

std::string json_string(std::string_view s) {
  return nlohmann::json(std::string(s)).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::string json_ms(double ms) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.3f", ms);
  return buf;
}

json_object& json_object::add(std::string_view key, std::string json_value) {
  fields_.emplace_back(json_string(key), std::move(json_value));
  return *this;
}

std::string json_object::open_str() const {
  std::string out = str();
  out.pop_back();
  return out;
}

std::string json_object::str() const {
  std::string out = "{";
  for (std::size_t i = 0; i < fields_.size(); ++i) {
    if (i) out += ',';
    out += fields_[i].first + ':' + fields_[i].second;
  }
  return out + '}';
}

}  // namespace kselect_cli
