// The six key types as a test parameter: a name for test names, and a call of a
// templated function for the type a value names.
#pragma once

#include <cstdint>
#include <string>

namespace kselect::test {

enum class key_type { f32, f64, i32, u32, i64, u64 };

inline constexpr key_type all_key_types[] = {key_type::f32, key_type::f64, key_type::i32,
                                             key_type::u32, key_type::i64, key_type::u64};

inline std::string name(key_type t) {
  switch (t) {
    case key_type::f32: return "float";
    case key_type::f64: return "double";
    case key_type::i32: return "int32";
    case key_type::u32: return "uint32";
    case key_type::i64: return "int64";
    case key_type::u64: return "uint64";
  }
  return "?";
}

/// f.template operator()<T>() for the type t names.
template <class F>
void with_key_type(key_type t, F&& f) {
  switch (t) {
    case key_type::f32: return f.template operator()<float>();
    case key_type::f64: return f.template operator()<double>();
    case key_type::i32: return f.template operator()<std::int32_t>();
    case key_type::u32: return f.template operator()<std::uint32_t>();
    case key_type::i64: return f.template operator()<std::int64_t>();
    case key_type::u64: return f.template operator()<std::uint64_t>();
  }
}

}  // namespace kselect::test
