// The payload gather of the owning API's filters (the rest is in owning_filter.cuh,
// instantiated per key type).
#include <algorithm>
#include <cstdint>

#include "cuda/owning_filter.cuh"
#include "cuda/tuning.hpp"

namespace kselect::cuda_backend {
namespace {

/// out[j] = payload element idx[j] of `in`, copied in W-byte words.
template <class W>
__global__ void gather_payload_kernel(const W* in, const std::int64_t* idx, W* out, std::int64_t m,
                                      std::int64_t words_per_element) {
  const std::int64_t total = m * words_per_element;
  for (std::int64_t t = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; t < total;
       t += std::int64_t(gridDim.x) * blockDim.x) {
    const std::int64_t j = t / words_per_element, w = t % words_per_element;
    out[t] = in[idx[j] * words_per_element + w];
  }
}

}  // namespace


void gather_payload(const void* in, const std::int64_t* idx, void* out, std::int64_t m, std::size_t payload_bytes,
                    cudaStream_t stream) {
  const auto aligned = [&](std::size_t w) {
    return payload_bytes % w == 0 && reinterpret_cast<std::uintptr_t>(in) % w == 0 &&
           reinterpret_cast<std::uintptr_t>(out) % w == 0;
  };
  const std::int64_t elements = m;
  constexpr int threads = cuda::tuning::compiled.common.payload_gather.threads;
  auto launch = [&](auto word) {
    using W = decltype(word);
    const auto words = static_cast<std::int64_t>(payload_bytes / sizeof(W));
    const std::int64_t total = elements * words;
    const auto blocks = static_cast<unsigned>(std::min<std::int64_t>((total + threads - 1) / threads, 1 << 20));
    gather_payload_kernel<W><<<blocks, threads, 0, stream>>>(static_cast<const W*>(in), idx, static_cast<W*>(out),
                                                             elements, words);
  };
  if (aligned(8))
    launch(std::uint64_t{});
  else if (aligned(4))
    launch(std::uint32_t{});
  else
    launch(std::uint8_t{});
  check(cudaPeekAtLastError(), "payload gather");
}

}  // namespace kselect::cuda_backend
