#include "mpi/engine.hpp"

namespace kselect::mpi::detail {

void signature::add_bytes(const void* data, std::size_t bytes) {
  std::uint64_t& h = words[sig_arguments];
  const auto* p = static_cast<const unsigned char*>(data);
  for (std::size_t i = 0; i < bytes; ++i) {
    h ^= p[i];
    h *= 0x100000001b3ull;  // FNV-1a prime
  }
}

std::uint64_t key_type_code(std::size_t key_bytes, bool floating, bool is_signed) {
  return key_bytes * 4 + (floating ? 2 : 0) + (is_signed ? 1 : 0);
}

std::uint64_t process_seed(std::uint64_t seed, int rank) {
  std::uint64_t z = seed ^ (static_cast<std::uint64_t>(rank) * 0xd1b54a32d192ed03ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;  // the splitmix64 finalizer
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

}  // namespace kselect::mpi::detail
