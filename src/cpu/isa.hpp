// Which of the streaming kernels' instruction sets (cpu/kernels.hpp) this CPU runs.
#pragma once

namespace kselect::cpu {

enum class isa : int {
  best = -1,   ///< the best one this CPU supports (the default)
  scalar = 0,  ///< portable C++
  avx2 = 1,    ///< x86-64 AVX2 (+ BMI1, POPCNT)
  avx512 = 2,  ///< x86-64 AVX-512 F, BW, VL, DQ (+ BMI1/2, POPCNT)
};

/// Whether this CPU (and OS) can run `which`; scalar always, best always.
bool isa_supported(isa which);

/// `which` itself, or for isa::best the best supported one (detected once).
/// Throws std::invalid_argument for an unsupported one.
isa resolve_isa(isa which);

const char* isa_name(isa which);

}  // namespace kselect::cpu
