// The streaming kernels in portable C++ (cpu/kernels.hpp): the fallback on CPUs
// without AVX2 and on other architectures, and the reference the SIMD versions are
// tested against. Branch-free where a branch would be a coin toss: the tree descent
// (Sanders & Winkel's super-scalar sample sort, eight keys at a time so their
// descents overlap) and the window copy (always store, advance by 0 or 1).
#include <algorithm>
#include <cstring>
#include <type_traits>

#include "cpu/kernels.hpp"

namespace kselect::cpu::kernels::scalar {
namespace {

template <class K>
constexpr K sign_bit = K(1) << (sizeof(K) * 8 - 1);
template <class K>
constexpr K mantissa_mask = sizeof(K) == 4 ? K(0x007fffffu) : K(0x000fffffffffffffull);

template <class K, xform X>
inline K load_pre_key(const K* p) {
  K u;
  std::memcpy(&u, p, sizeof u);  // the caller's floats read as bits
  if constexpr (X == xform::none) {
    return u;
  } else if constexpr (X == xform::flip_sign) {
    return static_cast<K>(u ^ sign_bit<K>);
  } else {
    using S = std::make_signed_t<K>;
    const K flip = static_cast<K>(static_cast<K>(static_cast<S>(u) >> (sizeof(K) * 8 - 1)) | sign_bit<K>);
    return static_cast<K>((u ^ flip) - mantissa_mask<K>);
  }
}

template <class K, xform X>
std::int64_t window_impl(const window_job<K>& job) {
  const int m = job.m;
  const int windows = (m + 1) / 2;
  K bounds[kMaxWindowBounds];
  std::uint64_t below[kMaxWindowBounds] = {};
  K* pos[kMaxWindowBounds / 2];
  for (int j = 0; j < m; ++j) bounds[j] = job.bounds[j];
  for (int w = 0; w < windows; ++w) pos[w] = job.dst[w];
  std::int64_t i = job.begin;
  bool full = false;
  while (i < job.end && !full) {
    // Room for a whole block in every copying window, checked once per block.
    for (int w = 0; w < windows; ++w)
      if (pos[w] && job.dst_end[w] - pos[w] < kWindowSlack) full = true;
    if (full) break;
    const std::int64_t stop = std::min<std::int64_t>(job.end, i + kWindowSlack);
    for (; i < stop; ++i) {
      const K key = load_pre_key<K, X>(job.in + i);
      bool ge[kMaxWindowBounds];
      for (int j = 0; j < m; ++j) {
        ge[j] = key >= bounds[j];
        below[j] += ge[j] ? 0 : 1;
      }
      for (int w = 0; w < windows; ++w) {
        if (!pos[w]) continue;
        const bool in = ge[2 * w] && (2 * w + 1 >= m || !ge[2 * w + 1]);
        *pos[w] = key;
        pos[w] += in ? 1 : 0;
      }
    }
  }
  for (int j = 0; j < m; ++j) job.below[j] += below[j];
  for (int w = 0; w < windows; ++w)
    if (pos[w]) job.dst[w] = pos[w];
  return i;
}

// Bucket (number of boundaries <= key, clamped to m) of B keys: their descents
// interleave.
template <class K, int B>
inline void descend(const tree_view<K>& t, const K* keys, std::size_t* bucket) {
  std::size_t node[B];
  for (int u = 0; u < B; ++u) node[u] = 0;
  for (int l = 0; l < t.levels; ++l)
    for (int u = 0; u < B; ++u) node[u] = 2 * node[u] + 1 + (keys[u] >= t.nodes[node[u]] ? 1 : 0);
  const std::size_t first_leaf = (std::size_t{1} << t.levels) - 1;
  for (int u = 0; u < B; ++u) bucket[u] = std::min(node[u] - first_leaf, static_cast<std::size_t>(t.m));
}

template <class K, xform X>
void count_impl(const count_job<K>& job) {
  constexpr int fine_bits = kFineBits<K>;
  constexpr K last_fine = (K(1) << fine_bits) - 1;
  const std::size_t cells = (static_cast<std::size_t>(job.tree.m) + 1) << fine_bits;
  std::uint32_t* const hist = job.scratch;
  std::fill(hist, hist + 4 * cells, 0u);
  auto flush = [&] {
    for (std::size_t b = 0; b < cells; ++b) {
      job.counts[b] += std::uint64_t{hist[b]} + hist[cells + b] + hist[2 * cells + b] + hist[3 * cells + b];
      hist[b] = hist[cells + b] = hist[2 * cells + b] = hist[3 * cells + b] = 0;
    }
  };
  constexpr int B = 8;
  std::int64_t since_flush = 0;
  for (std::int64_t i = job.begin; i < job.end; i += B) {
    const int count = static_cast<int>(std::min<std::int64_t>(B, job.end - i));
    K keys[B] = {};
    for (int u = 0; u < count; ++u) keys[u] = load_pre_key<K, X>(job.in + i + u);
    std::size_t bucket[B];
    descend<K, B>(job.tree, keys, bucket);
    for (int u = 0; u < count; ++u) {
      const K base = job.base[bucket[u]];
      const K offset = static_cast<K>(std::max(keys[u], base) - base);
      const K fine = std::min(static_cast<K>(offset >> job.shift[bucket[u]]), last_fine);
      ++hist[static_cast<std::size_t>(u & 3) * cells + (bucket[u] << fine_bits) + fine];
    }
    // The per-lane words count at most 2^30 keys between flushes.
    if ((since_flush += B) >= (std::int64_t{1} << 30)) {
      flush();
      since_flush = 0;
    }
  }
  flush();
}

template <class K, xform X>
void copy_impl(const copy_job<K>& job) {
  constexpr int B = 8;
  for (std::int64_t i = job.begin; i < job.end; i += B) {
    const int count = static_cast<int>(std::min<std::int64_t>(B, job.end - i));
    K keys[B] = {};
    for (int u = 0; u < count; ++u) keys[u] = load_pre_key<K, X>(job.in + i + u);
    std::size_t bucket[B];
    descend<K, B>(job.tree, keys, bucket);
    for (int u = 0; u < count; ++u)
      if (bucket[u] & 1) *job.dst[bucket[u] >> 1]++ = keys[u];
  }
}

template <class K>
std::int64_t window_any(const window_job<K>& job) {
  return with_xform(job.x, [&](auto x) { return window_impl<K, x()>(job); });
}

template <class K>
void count_any(const count_job<K>& job) {
  with_xform(job.x, [&](auto x) { count_impl<K, x()>(job); });
}

template <class K>
void copy_any(const copy_job<K>& job) {
  with_xform(job.x, [&](auto x) { copy_impl<K, x()>(job); });
}

}  // namespace

KSELECT_CPU_KERNEL_DEFS

}  // namespace kselect::cpu::kernels::scalar
