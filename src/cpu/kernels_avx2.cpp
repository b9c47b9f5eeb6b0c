// The streaming kernels with AVX2: 8 32-bit or 4 64-bit keys per vector, for x86-64
// CPUs without AVX-512. Compiled for that target inside this file only (see
// kernels.hpp); run only where cpu::isa_supported(isa::avx2).
//
// AVX2 has no unsigned compare: keys and boundaries are compared with their sign
// bits flipped (signed order of the flipped values = unsigned order), and no
// compress: the window's lanes are packed by a permutation looked up from the
// compare mask (256 entries for 8 lanes, 16 for 4), then stored whole.
// Tree: levels of up to 8 boundaries (32-bit keys) are permuted from registers,
// deeper ones gathered.
#include <immintrin.h>

#include <cstddef>
#include <cstdint>

#include "cpu/kernels.hpp"

#if defined(__x86_64__)

#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx2,bmi,popcnt"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx2,bmi,popcnt")
#endif

namespace kselect::cpu::kernels::avx2 {
namespace {

// Lane permutations that move the lanes whose mask bit is set to the front, as
// 32-bit lane indices: 8 lanes (256 masks), and 4 64-bit lanes (16 masks).
struct compress_tables {
  alignas(32) std::int32_t lanes8[256][8];
  alignas(32) std::int32_t lanes4[16][8];
};

constexpr compress_tables make_compress_tables() {
  compress_tables t{};
  for (int mask = 0; mask < 256; ++mask) {
    int out = 0;
    for (int lane = 0; lane < 8; ++lane)
      if (mask & (1 << lane)) t.lanes8[mask][out++] = lane;
    for (; out < 8; ++out) t.lanes8[mask][out] = 0;
  }
  for (int mask = 0; mask < 16; ++mask) {
    int out = 0;
    for (int lane = 0; lane < 4; ++lane)
      if (mask & (1 << lane)) {
        t.lanes4[mask][out++] = 2 * lane;
        t.lanes4[mask][out++] = 2 * lane + 1;
      }
    for (; out < 8; ++out) t.lanes4[mask][out] = 0;
  }
  return t;
}

constexpr compress_tables kCompress = make_compress_tables();

template <class K>
struct ops;

template <>
struct ops<std::uint32_t> {
  using K = std::uint32_t;
  static constexpr int width = 8;
  static __m256i set1(K x) { return _mm256_set1_epi32(static_cast<int>(x)); }
  static __m256i sign() { return set1(0x80000000u); }
  static __m256i loadu(const K* p) { return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)); }
  static __m256i lanes_below(int count) {
    return _mm256_cmpgt_epi32(set1(static_cast<K>(count)), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
  }
  static __m256i load_tail(const K* p, int count) {
    return _mm256_maskload_epi32(reinterpret_cast<const int*>(p), lanes_below(count));
  }
  static unsigned bits(__m256i m) { return static_cast<unsigned>(_mm256_movemask_ps(_mm256_castsi256_ps(m))); }
  // Mask of a < b for sign-flipped operands.
  static __m256i less(__m256i a_flipped, __m256i b_flipped) { return _mm256_cmpgt_epi32(b_flipped, a_flipped); }
  static void store_compressed(K* p, unsigned mask, __m256i v) {
    const __m256i idx = _mm256_load_si256(reinterpret_cast<const __m256i*>(kCompress.lanes8[mask]));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), _mm256_permutevar8x32_epi32(v, idx));
  }
  template <xform X>
  static __m256i pre_key(__m256i u) {
    if constexpr (X == xform::none) {
      return u;
    } else if constexpr (X == xform::flip_sign) {
      return _mm256_xor_si256(u, sign());
    } else {
      const __m256i flip = _mm256_or_si256(_mm256_srai_epi32(u, 31), sign());
      return _mm256_sub_epi32(_mm256_xor_si256(u, flip), set1(0x007fffffu));
    }
  }
  // Index within the next level: 2 node + (key >= boundary) = 2 node + 1 + (key < boundary ? -1 : 0).
  static __m256i step(__m256i node, __m256i key_flipped, __m256i boundary_flipped, __m256i one) {
    return _mm256_add_epi32(_mm256_add_epi32(node, node), _mm256_add_epi32(one, less(key_flipped, boundary_flipped)));
  }
  static __m256i gather(__m256i idx, const K* base) {
    return _mm256_i32gather_epi32(reinterpret_cast<const int*>(base), idx, 4);
  }
  static __m256i clamp(__m256i node, __m256i last) { return _mm256_min_epu32(node, last); }
  static unsigned odd(__m256i v) { return bits(_mm256_slli_epi32(v, 31)); }
  static __m256i max(__m256i a, __m256i b) { return _mm256_max_epu32(a, b); }
  static __m256i min(__m256i a, __m256i b) { return _mm256_min_epu32(a, b); }
  static __m256i sub(__m256i a, __m256i b) { return _mm256_sub_epi32(a, b); }
  static __m256i add(__m256i a, __m256i b) { return _mm256_add_epi32(a, b); }
  static __m256i shift_right(__m256i a, __m256i by) { return _mm256_srlv_epi32(a, by); }
  static __m256i shift_left(__m256i a, int by) { return _mm256_slli_epi32(a, by); }
  static constexpr int register_levels = 4;  // levels 1..3 from 8-entry registers
};

template <>
struct ops<std::uint64_t> {
  using K = std::uint64_t;
  static constexpr int width = 4;
  static __m256i set1(K x) { return _mm256_set1_epi64x(static_cast<long long>(x)); }
  static __m256i sign() { return set1(0x8000000000000000ull); }
  static __m256i loadu(const K* p) { return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)); }
  static __m256i lanes_below(int count) {
    return _mm256_cmpgt_epi64(set1(static_cast<K>(count)), _mm256_setr_epi64x(0, 1, 2, 3));
  }
  static __m256i load_tail(const K* p, int count) {
    return _mm256_maskload_epi64(reinterpret_cast<const long long*>(p), lanes_below(count));
  }
  static unsigned bits(__m256i m) { return static_cast<unsigned>(_mm256_movemask_pd(_mm256_castsi256_pd(m))); }
  static __m256i less(__m256i a_flipped, __m256i b_flipped) { return _mm256_cmpgt_epi64(b_flipped, a_flipped); }
  static void store_compressed(K* p, unsigned mask, __m256i v) {
    const __m256i idx = _mm256_load_si256(reinterpret_cast<const __m256i*>(kCompress.lanes4[mask]));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), _mm256_permutevar8x32_epi32(v, idx));
  }
  template <xform X>
  static __m256i pre_key(__m256i u) {
    if constexpr (X == xform::none) {
      return u;
    } else if constexpr (X == xform::flip_sign) {
      return _mm256_xor_si256(u, sign());
    } else {
      // No 64-bit arithmetic shift in AVX2: the sign mask from a compare with 0.
      const __m256i negative = _mm256_cmpgt_epi64(_mm256_setzero_si256(), u);
      const __m256i flip = _mm256_or_si256(negative, sign());
      return _mm256_sub_epi64(_mm256_xor_si256(u, flip), set1(0x000fffffffffffffull));
    }
  }
  static __m256i step(__m256i node, __m256i key_flipped, __m256i boundary_flipped, __m256i one) {
    return _mm256_add_epi64(_mm256_add_epi64(node, node), _mm256_add_epi64(one, less(key_flipped, boundary_flipped)));
  }
  static __m256i gather(__m256i idx, const K* base) {
    return _mm256_i64gather_epi64(reinterpret_cast<const long long*>(base), idx, 8);
  }
  // Nodes are small non-negative numbers: a signed compare clamps them.
  static __m256i clamp(__m256i node, __m256i last) {
    return _mm256_blendv_epi8(node, last, _mm256_cmpgt_epi64(node, last));
  }
  static unsigned odd(__m256i v) { return bits(_mm256_slli_epi64(v, 63)); }
  // Unsigned max / min through the sign-flipped signed compare.
  static __m256i max(__m256i a, __m256i b) {
    return _mm256_blendv_epi8(a, b, less(_mm256_xor_si256(a, sign()), _mm256_xor_si256(b, sign())));
  }
  static __m256i min(__m256i a, __m256i b) {
    return _mm256_blendv_epi8(b, a, less(_mm256_xor_si256(a, sign()), _mm256_xor_si256(b, sign())));
  }
  static __m256i sub(__m256i a, __m256i b) { return _mm256_sub_epi64(a, b); }
  static __m256i add(__m256i a, __m256i b) { return _mm256_add_epi64(a, b); }
  static __m256i shift_right(__m256i a, __m256i by) { return _mm256_srlv_epi64(a, by); }
  static __m256i shift_left(__m256i a, int by) { return _mm256_slli_epi64(a, by); }
  static constexpr int register_levels = 1;  // only the root; deeper levels are gathered
};

// Software prefetch 4 KiB ahead, one line a call (see kernels_avx512.cpp).
template <int Lines>
inline void prefetch_ahead(const void* p) {
  for (int v = 0; v < Lines; ++v) _mm_prefetch(static_cast<const char*>(p) + 4096 + 64 * v, _MM_HINT_T0);
}

// ---- window pass --------------------------------------------------------------

template <class K, xform X, int M>
std::int64_t window_impl(const window_job<K>& job) {
  using O = ops<K>;
  constexpr int W = O::width;
  constexpr unsigned all = (1u << W) - 1u;
  const int m = M > 0 ? M : job.m;
  const int windows = (m + 1) / 2;
  const __m256i sign = O::sign();
  __m256i bounds[kMaxWindowBounds];
  std::uint64_t at_or_above[kMaxWindowBounds] = {};
  K* pos[kMaxWindowBounds / 2];
  for (int j = 0; j < m; ++j) bounds[j] = _mm256_xor_si256(O::set1(job.bounds[j]), sign);
  for (int w = 0; w < windows; ++w) pos[w] = job.dst[w];

  std::int64_t i = job.begin;
  std::int64_t counted = 0;
  auto room = [&] {
    for (int w = 0; w < windows; ++w)
      if (pos[w] && job.dst_end[w] - pos[w] < kWindowSlack) return false;
    return true;
  };
  auto one_vector = [&](__m256i key, unsigned lanes) {
    const __m256i flipped = _mm256_xor_si256(key, sign);
    unsigned ge[kMaxWindowBounds];
    for (int j = 0; j < m; ++j) {
      ge[j] = ~O::bits(O::less(flipped, bounds[j])) & lanes;
      at_or_above[j] += static_cast<std::uint64_t>(_mm_popcnt_u32(ge[j]));
    }
    for (int w = 0; w < windows; ++w) {
      if (!pos[w]) continue;
      const unsigned in = 2 * w + 1 < m ? ge[2 * w] & ~ge[2 * w + 1] : ge[2 * w];
      O::store_compressed(pos[w], in, key);
      pos[w] += _mm_popcnt_u32(in);
    }
  };
  static_assert(kWindowSlack % W == 0, "a block is whole vectors");
  while (i + kWindowSlack <= job.end) {
    if (!room()) break;
    prefetch_ahead<kWindowSlack* static_cast<int>(sizeof(K)) / 64>(job.in + i);
    for (int v = 0; v < kWindowSlack / W; ++v, i += W) one_vector(O::template pre_key<X>(O::loadu(job.in + i)), all);
    counted += kWindowSlack;
  }
  if (i + kWindowSlack > job.end && room()) {
    for (; i < job.end; i += W) {
      const int count = job.end - i < W ? static_cast<int>(job.end - i) : W;
      one_vector(O::template pre_key<X>(O::load_tail(job.in + i, count)), (1u << count) - 1u);
      counted += count;
    }
    i = job.end;
  }
  for (int j = 0; j < m; ++j) job.below[j] += static_cast<std::uint64_t>(counted) - at_or_above[j];
  for (int w = 0; w < windows; ++w)
    if (pos[w]) job.dst[w] = pos[w];
  return i;
}

// ---- tree classification -------------------------------------------------------

// Each vector's bucket (before the clamp to m): the node index within each level,
// 2 node + (key >= boundary) per level, ends as the number of boundaries <= key.
template <class K, int U>
inline void descend(const tree_view<K>& t, const __m256i* level_regs, const __m256i* key, __m256i* node) {
  using O = ops<K>;
  const __m256i one = O::set1(1);
  const __m256i sign = O::sign();
  __m256i flipped[U];
  for (int u = 0; u < U; ++u) {
    flipped[u] = _mm256_xor_si256(key[u], sign);
    node[u] = O::step(_mm256_setzero_si256(), flipped[u], level_regs[0], one);
  }
  const int reg = t.levels < O::register_levels ? t.levels : O::register_levels;
  for (int l = 1; l < reg; ++l)
    for (int u = 0; u < U; ++u)
      node[u] = O::step(node[u], flipped[u], _mm256_permutevar8x32_epi32(level_regs[l], node[u]), one);
  for (int l = reg; l < t.levels; ++l) {
    const K* level = t.nodes + (std::size_t{1} << l) - 1;
    for (int u = 0; u < U; ++u)
      node[u] = O::step(node[u], flipped[u], _mm256_xor_si256(O::gather(node[u], level), sign), one);
  }
}

template <class K>
struct tree_regs {
  __m256i level[4];
};

template <class K>
tree_regs<K> load_tree(const tree_view<K>& t) {
  using O = ops<K>;
  tree_regs<K> r;
  r.level[0] = _mm256_xor_si256(O::set1(t.nodes[0]), O::sign());
  // nodes has kTreePadding readable entries past its end.
  for (int l = 1; l < O::register_levels; ++l)
    r.level[l] = _mm256_xor_si256(O::loadu(t.nodes + (1 << l) - 1), O::sign());
  return r;
}

template <class K, xform X>
void count_impl(const count_job<K>& job) {
  using O = ops<K>;
  constexpr int W = O::width;
  constexpr int U = 8;
  constexpr int fine_bits = kFineBits<K>;
  const tree_view<K> t = job.tree;
  const tree_regs<K> regs = load_tree(t);
  const __m256i last = O::set1(static_cast<K>(t.m));
  const __m256i last_fine = O::set1((K(1) << fine_bits) - 1);
  const std::size_t cells = (static_cast<std::size_t>(t.m) + 1) << fine_bits;
  // Four 16-bit histograms, lane i counting into histogram i mod 4 (the offset is
  // added in the vector): see kernels_avx512.cpp.
  std::uint16_t* const hist = reinterpret_cast<std::uint16_t*>(job.scratch);
  for (std::size_t b = 0; b < 4 * cells; ++b) hist[b] = 0;
  auto flush = [&] {
    for (std::size_t b = 0; b < cells; ++b) {
      job.counts[b] += std::uint64_t{hist[b]} + hist[cells + b] + hist[2 * cells + b] + hist[3 * cells + b];
      hist[b] = hist[cells + b] = hist[2 * cells + b] = hist[3 * cells + b] = 0;
    }
  };
  alignas(32) K lane_offset[W];
  for (int lane = 0; lane < W; ++lane) lane_offset[lane] = static_cast<K>(static_cast<std::size_t>(lane & 3) * cells);
  const __m256i offset = O::loadu(lane_offset);
  alignas(32) K cell[U * W];
  auto classify = [&](const __m256i* key, int vectors) {
    __m256i node[U];
    if (vectors == U) {
      descend<K, U>(t, regs.level, key, node);
    } else {
      descend<K, 1>(t, regs.level, key, node);
    }
    for (int u = 0; u < vectors; ++u) {
      const __m256i j = O::clamp(node[u], last);
      const __m256i lo = O::gather(j, job.base);
      const __m256i fine = O::min(O::shift_right(O::sub(O::max(key[u], lo), lo), O::gather(j, job.shift)), last_fine);
      _mm256_store_si256(reinterpret_cast<__m256i*>(cell + u * W),
                         O::add(_mm256_or_si256(O::shift_left(j, fine_bits), fine), offset));
    }
  };
  std::int64_t i = job.begin;
  std::int64_t since_flush = 0;
  for (; i + U * W <= job.end; i += U * W) {
    __m256i key[U];
    prefetch_ahead<U * W* static_cast<int>(sizeof(K)) / 64>(job.in + i);
    for (int u = 0; u < U; ++u) key[u] = O::template pre_key<X>(O::loadu(job.in + i + u * W));
    classify(key, U);
    for (int lane = 0; lane < U * W; ++lane) ++hist[cell[lane]];
    // A 16-bit counter gets at most a quarter of the keys: 2^15 between flushes.
    if ((since_flush += U * W) >= (std::int64_t{1} << 17)) {
      flush();
      since_flush = 0;
    }
  }
  for (; i < job.end; i += W) {
    const int count = job.end - i < W ? static_cast<int>(job.end - i) : W;
    __m256i key[1] = {O::template pre_key<X>(O::load_tail(job.in + i, count))};
    classify(key, 1);
    for (int lane = 0; lane < count; ++lane) ++hist[cell[lane]];
  }
  flush();
}

template <class K, xform X>
void copy_impl(const copy_job<K>& job) {
  using O = ops<K>;
  constexpr int W = O::width;
  constexpr int U = 8;
  const tree_view<K> t = job.tree;
  const tree_regs<K> regs = load_tree(t);
  const __m256i last = O::set1(static_cast<K>(t.m));
  alignas(32) K buckets[W];
  alignas(32) K keys[W];
  auto take = [&](__m256i key, __m256i node, int count) {
    const __m256i b = O::clamp(node, last);
    unsigned odd = O::odd(b);
    if (count < W) odd &= (1u << count) - 1u;
    if (!odd) return;
    _mm256_store_si256(reinterpret_cast<__m256i*>(buckets), b);
    _mm256_store_si256(reinterpret_cast<__m256i*>(keys), key);
    do {
      const int lane = static_cast<int>(_tzcnt_u32(odd));
      *job.dst[buckets[lane] >> 1]++ = keys[lane];
      odd &= odd - 1;
    } while (odd);
  };
  std::int64_t i = job.begin;
  for (; i + U * W <= job.end; i += U * W) {
    __m256i key[U], node[U];
    prefetch_ahead<U * W* static_cast<int>(sizeof(K)) / 64>(job.in + i);
    for (int u = 0; u < U; ++u) key[u] = O::template pre_key<X>(O::loadu(job.in + i + u * W));
    descend<K, U>(t, regs.level, key, node);
    for (int u = 0; u < U; ++u) take(key[u], node[u], W);
  }
  for (; i < job.end; i += W) {
    const int count = job.end - i < W ? static_cast<int>(job.end - i) : W;
    __m256i key[1] = {O::template pre_key<X>(O::load_tail(job.in + i, count))}, node[1];
    descend<K, 1>(t, regs.level, key, node);
    take(key[0], node[0], count);
  }
}

template <class K>
std::int64_t window_any(const window_job<K>& job) {
  return with_xform(job.x, [&](auto x) {
    return job.m == 2 ? window_impl<K, x(), 2>(job) : window_impl<K, x(), 0>(job);
  });
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

}  // namespace kselect::cpu::kernels::avx2

#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif

#endif  // __x86_64__
