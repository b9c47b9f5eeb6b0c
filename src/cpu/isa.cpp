#include "cpu/isa.hpp"

#include <stdexcept>
#include <string>

namespace kselect::cpu {

bool isa_supported(isa which) {
  switch (which) {
    case isa::best:
    case isa::scalar:
      return true;
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    // __builtin_cpu_supports also checks that the OS saves the vector registers
    // (XGETBV), so a CPU feature the kernel does not enable reads as absent.
    case isa::avx2:
      return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("bmi") && __builtin_cpu_supports("popcnt");
    case isa::avx512:
      return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
             __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq") &&
             __builtin_cpu_supports("bmi2") && __builtin_cpu_supports("bmi") && __builtin_cpu_supports("popcnt");
#else
    case isa::avx2:
    case isa::avx512:
      return false;
#endif
  }
  return false;
}

isa resolve_isa(isa which) {
  if (which == isa::best) {
    static const isa detected = isa_supported(isa::avx512) ? isa::avx512
                                : isa_supported(isa::avx2) ? isa::avx2
                                                           : isa::scalar;
    return detected;
  }
  if (!isa_supported(which))
    throw std::invalid_argument(std::string("kselect: this CPU does not support ") + isa_name(which));
  return which;
}

const char* isa_name(isa which) {
  switch (which) {
    case isa::best:
      return "best";
    case isa::scalar:
      return "scalar";
    case isa::avx2:
      return "avx2";
    case isa::avx512:
      return "avx512";
  }
  return "?";
}

}  // namespace kselect::cpu
