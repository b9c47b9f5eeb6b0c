// The streaming kernels with AVX-512 (F, BW, VL, DQ): 16 32-bit or 8 64-bit keys
// per vector. Compiled for that target inside this file only (see kernels.hpp);
// run only where cpu::isa_supported(isa::avx512).
//
// Window pass: one unsigned compare per boundary, popcounts for the counts, and the
// window's keys packed by a register compress followed by a plain full-vector
// store (the memory form of VPCOMPRESSD is microcoded and many times slower on
// AMD Zen 4).
// Tree: the first levels' boundaries live in registers (one permute per level, up
// to 16 entries; two-register permute for 32), deeper levels are gathered from the
// heap array, which stays in L1/L2 (4096 boundaries: 16 KiB for 32-bit keys).
// Eight vectors descend together: a level's permute, compare and update form a
// dependent chain, so fewer vectors leave the units idle and more gain nothing
// (docs/performance.md, "CPU tuning": vectors in flight).
// GCC 12's AVX-512 headers trip -Wmaybe-uninitialized on their own "undefined"
// vectors (GCC bug 105593, fixed in GCC 13).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif
#include <immintrin.h>

#include <cstddef>
#include <cstdint>
#include <utility>

#include "cpu/kernels.hpp"

#if defined(__x86_64__)

#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,bmi,bmi2,popcnt"))), \
                             apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx512f,avx512bw,avx512vl,avx512dq,bmi,bmi2,popcnt")
#endif

namespace kselect::cpu::kernels::avx512 {
namespace {

// Per key width: the vector operations the kernels use.
template <class K>
struct ops;

template <>
struct ops<std::uint32_t> {
  using K = std::uint32_t;
  using mask = __mmask16;
  static constexpr int width = 16;
  static __m512i set1(K x) { return _mm512_set1_epi32(static_cast<int>(x)); }
  static __m512i loadu(const K* p) { return _mm512_loadu_si512(p); }
  static __m512i load_tail(const K* p, mask lanes) { return _mm512_maskz_loadu_epi32(lanes, p); }
  static mask tail_mask(int count) { return static_cast<mask>((1u << count) - 1u); }
  static mask ge(__m512i a, __m512i b) { return _mm512_cmpge_epu32_mask(a, b); }
  static int popcount(mask k) { return _mm_popcnt_u32(k); }
  static void store_compressed(K* p, mask k, __m512i v) { _mm512_storeu_si512(p, _mm512_maskz_compress_epi32(k, v)); }
  template <xform X>
  static __m512i pre_key(__m512i u) {
    if constexpr (X == xform::none) {
      return u;
    } else if constexpr (X == xform::flip_sign) {
      return _mm512_xor_si512(u, set1(0x80000000u));
    } else {
      const __m512i flip = _mm512_or_si512(_mm512_srai_epi32(u, 31), set1(0x80000000u));
      return _mm512_sub_epi32(_mm512_xor_si512(u, flip), set1(0x007fffffu));
    }
  }
  static __m512i step(__m512i node, __m512i key, __m512i boundary, __m512i one) {
    const mask right = ge(key, boundary);
    node = _mm512_add_epi32(node, node);
    return _mm512_mask_add_epi32(node, right, node, one);
  }
  static __m512i permute(__m512i idx, __m512i table) { return _mm512_permutexvar_epi32(idx, table); }
  static __m512i permute2(__m512i idx, __m512i lo, __m512i hi) { return _mm512_permutex2var_epi32(lo, idx, hi); }
  static __m512i gather(__m512i idx, const K* base) { return _mm512_i32gather_epi32(idx, base, 4); }
  static __m512i min(__m512i a, __m512i b) { return _mm512_min_epu32(a, b); }
  static mask odd(__m512i v, __m512i one) { return _mm512_test_epi32_mask(v, one); }
  static mask bit(__m512i v, int b) { return _mm512_test_epi32_mask(v, set1(K(1) << b)); }
  static __m512i blend(mask k, __m512i a, __m512i b) { return _mm512_mask_blend_epi32(k, a, b); }
  static __m512i max(__m512i a, __m512i b) { return _mm512_max_epu32(a, b); }
  static __m512i sub(__m512i a, __m512i b) { return _mm512_sub_epi32(a, b); }
  static __m512i add(__m512i a, __m512i b) { return _mm512_add_epi32(a, b); }
  static __m512i mask_add(__m512i a, mask k, __m512i b) { return _mm512_mask_add_epi32(a, k, a, b); }
  static __m512i shift_right(__m512i a, __m512i by) { return _mm512_srlv_epi32(a, by); }
  static __m512i shift_left(__m512i a, int by) { return _mm512_slli_epi32(a, static_cast<unsigned>(by)); }
  static __m512i bit_or(__m512i a, __m512i b) { return _mm512_or_si512(a, b); }
  static constexpr int entry_bits = 4;  // log2(width)
};

template <>
struct ops<std::uint64_t> {
  using K = std::uint64_t;
  using mask = __mmask8;
  static constexpr int width = 8;
  static __m512i set1(K x) { return _mm512_set1_epi64(static_cast<long long>(x)); }
  static __m512i loadu(const K* p) { return _mm512_loadu_si512(p); }
  static __m512i load_tail(const K* p, mask lanes) { return _mm512_maskz_loadu_epi64(lanes, p); }
  static mask tail_mask(int count) { return static_cast<mask>((1u << count) - 1u); }
  static mask ge(__m512i a, __m512i b) { return _mm512_cmpge_epu64_mask(a, b); }
  static int popcount(mask k) { return _mm_popcnt_u32(k); }
  static void store_compressed(K* p, mask k, __m512i v) { _mm512_storeu_si512(p, _mm512_maskz_compress_epi64(k, v)); }
  template <xform X>
  static __m512i pre_key(__m512i u) {
    if constexpr (X == xform::none) {
      return u;
    } else if constexpr (X == xform::flip_sign) {
      return _mm512_xor_si512(u, set1(0x8000000000000000ull));
    } else {
      const __m512i flip = _mm512_or_si512(_mm512_srai_epi64(u, 63), set1(0x8000000000000000ull));
      return _mm512_sub_epi64(_mm512_xor_si512(u, flip), set1(0x000fffffffffffffull));
    }
  }
  static __m512i step(__m512i node, __m512i key, __m512i boundary, __m512i one) {
    const mask right = ge(key, boundary);
    node = _mm512_add_epi64(node, node);
    return _mm512_mask_add_epi64(node, right, node, one);
  }
  static __m512i permute(__m512i idx, __m512i table) { return _mm512_permutexvar_epi64(idx, table); }
  static __m512i permute2(__m512i idx, __m512i lo, __m512i hi) { return _mm512_permutex2var_epi64(lo, idx, hi); }
  static __m512i gather(__m512i idx, const K* base) { return _mm512_i64gather_epi64(idx, base, 8); }
  static __m512i min(__m512i a, __m512i b) { return _mm512_min_epu64(a, b); }
  static mask odd(__m512i v, __m512i one) { return _mm512_test_epi64_mask(v, one); }
  static mask bit(__m512i v, int b) { return _mm512_test_epi64_mask(v, set1(K(1) << b)); }
  static __m512i blend(mask k, __m512i a, __m512i b) { return _mm512_mask_blend_epi64(k, a, b); }
  static __m512i max(__m512i a, __m512i b) { return _mm512_max_epu64(a, b); }
  static __m512i sub(__m512i a, __m512i b) { return _mm512_sub_epi64(a, b); }
  static __m512i add(__m512i a, __m512i b) { return _mm512_add_epi64(a, b); }
  static __m512i mask_add(__m512i a, mask k, __m512i b) { return _mm512_mask_add_epi64(a, k, a, b); }
  static __m512i shift_right(__m512i a, __m512i by) { return _mm512_srlv_epi64(a, by); }
  static __m512i shift_left(__m512i a, int by) { return _mm512_slli_epi64(a, static_cast<unsigned>(by)); }
  static __m512i bit_or(__m512i a, __m512i b) { return _mm512_or_si512(a, b); }
  static constexpr int entry_bits = 3;
};

// Software prefetch of the lines a loop reads 4 KiB from now, one per vector: the
// hardware prefetcher alone left the count and window passes below the read
// bandwidth on keys in memory (docs/performance.md, "CPU tuning": prefetch distance).
template <int Vectors>
[[gnu::always_inline]] inline void prefetch_ahead(const void* p) {
  for (int v = 0; v < Vectors; ++v) _mm_prefetch(static_cast<const char*>(p) + 4096 + 64 * v, _MM_HINT_T0);
}

// ---- window pass --------------------------------------------------------------

// The counts live in vector registers, one counter a lane per boundary (a masked
// add, not a mask-to-integer move and a popcount each); the copies advance by the
// window mask's popcount.
template <class K, xform X, int M>
std::int64_t window_impl(const window_job<K>& job) {
  using O = ops<K>;
  using mask = typename O::mask;
  constexpr int W = O::width;
  const int m = M > 0 ? M : job.m;
  const int windows = (m + 1) / 2;
  const __m512i one = O::set1(1);
  __m512i bounds[kMaxWindowBounds], at_or_above[kMaxWindowBounds];
  K* pos[kMaxWindowBounds / 2];
  for (int j = 0; j < m; ++j) {
    bounds[j] = O::set1(job.bounds[j]);
    at_or_above[j] = O::set1(0);
  }
  for (int w = 0; w < windows; ++w) pos[w] = job.dst[w];

  std::int64_t i = job.begin;
  std::int64_t counted = 0;
  auto flush = [&] {
    alignas(64) K lane[W];
    for (int j = 0; j < m; ++j) {
      _mm512_store_si512(lane, at_or_above[j]);
      std::uint64_t sum = 0;
      for (int l = 0; l < W; ++l) sum += lane[l];
      job.below[j] += static_cast<std::uint64_t>(counted) - sum;
      at_or_above[j] = O::set1(0);
    }
    counted = 0;
  };
  auto room = [&] {
    for (int w = 0; w < windows; ++w)
      if (pos[w] && job.dst_end[w] - pos[w] < kWindowSlack) return false;
    return true;
  };
  auto one_vector = [&](__m512i key, mask lanes) {
    mask ge[kMaxWindowBounds];
    for (int j = 0; j < m; ++j) {
      ge[j] = static_cast<mask>(O::ge(key, bounds[j]) & lanes);
      at_or_above[j] = O::mask_add(at_or_above[j], ge[j], one);
    }
    for (int w = 0; w < windows; ++w) {
      if (!pos[w]) continue;
      const auto in = static_cast<mask>(2 * w + 1 < m ? ge[2 * w] & ~ge[2 * w + 1] : ge[2 * w]);
      O::store_compressed(pos[w], in, key);
      pos[w] += O::popcount(in);
    }
  };
  static_assert(kWindowSlack % W == 0, "a block is whole vectors");
  while (i + kWindowSlack <= job.end) {
    if (!room()) break;
    prefetch_ahead<kWindowSlack / W>(job.in + i);
    for (int v = 0; v < kWindowSlack / W; ++v, i += W)
      one_vector(O::template pre_key<X>(O::loadu(job.in + i)), static_cast<mask>(~0u));
    // A lane's counter gets one key a vector: 2^31 keys keep it below 2^32 / 16.
    if ((counted += kWindowSlack) >= (std::int64_t{1} << 31)) flush();
  }
  if (i + kWindowSlack > job.end && room()) {  // the last partial block
    for (; i < job.end; i += W) {
      const int count = job.end - i < W ? static_cast<int>(job.end - i) : W;
      const mask lanes = count == W ? static_cast<mask>(~0u) : O::tail_mask(count);
      one_vector(O::template pre_key<X>(O::load_tail(job.in + i, lanes)), lanes);
      counted += count;
    }
    i = job.end;
  }
  flush();
  for (int w = 0; w < windows; ++w)
    if (pos[w]) job.dst[w] = pos[w];
  return i;
}

// ---- tree classification -------------------------------------------------------

// Tables of up to 8 registers (8 * width entries) looked up by a vector of indices:
// one permute for one register, a two-register permute for two, then blends on the
// index's higher bits. No gathers where registers hold the table: an AVX-512 gather
// takes ~14 cycles a vector on Zen 4, a permute one.
template <class K, int R>
[[gnu::always_inline]] inline __m512i lookup(const __m512i* reg, __m512i idx) {
  using O = ops<K>;
  constexpr int pair_bit = O::entry_bits + 1;  // the index bit choosing between register pairs
  if constexpr (R == 1) {
    return O::permute(idx, reg[0]);
  } else if constexpr (R == 2) {
    return O::permute2(idx, reg[0], reg[1]);
  } else if constexpr (R == 4) {
    return O::blend(O::bit(idx, pair_bit), O::permute2(idx, reg[0], reg[1]), O::permute2(idx, reg[2], reg[3]));
  } else {
    static_assert(R == 8);
    const auto b0 = O::bit(idx, pair_bit), b1 = O::bit(idx, pair_bit + 1);
    const __m512i lo = O::blend(b0, O::permute2(idx, reg[0], reg[1]), O::permute2(idx, reg[2], reg[3]));
    const __m512i hi = O::blend(b0, O::permute2(idx, reg[4], reg[5]), O::permute2(idx, reg[6], reg[7]));
    return O::blend(b1, lo, hi);
  }
}

// Registers that level l (2^l boundaries) takes, and the most levels registers hold
// (32-bit keys: levels 0..7, 255 boundaries; 64-bit: 0..6, 127).
template <class K>
constexpr int level_regs(int l) {
  return ((1 << l) + ops<K>::width - 1) / ops<K>::width;
}
template <class K>
inline constexpr int max_register_levels = ops<K>::entry_bits + 4;
template <class K>
constexpr int regs_before(int l) {
  int sum = 0;
  for (int i = 1; i < l; ++i) sum += level_regs<K>(i);
  return sum;
}

// The first L levels of a tree in registers: the root broadcast, then level l's
// registers at reg[regs_before(l)].
template <class K, int L>
struct tree_regs {
  __m512i root;
  __m512i reg[regs_before<K>(L) > 0 ? regs_before<K>(L) : 1];
};

template <class K, int L>
tree_regs<K, L> load_tree(const tree_view<K>& t) {
  using O = ops<K>;
  tree_regs<K, L> r;
  r.root = O::set1(t.nodes[0]);
  // nodes has kTreePadding readable entries past its end, so the whole-register
  // loads of the small levels stay inside it; entries past a level are never used.
  for (int l = 1; l < L; ++l)
    for (int i = 0; i < level_regs<K>(l); ++i)
      r.reg[regs_before<K>(l) + i] = O::loadu(t.nodes + (std::size_t{1} << l) - 1 + i * O::width);
  return r;
}

// Each of U vectors' node index within the tree's last level: the number of
// (padded) boundaries <= key, before the clamp to m. Levels past L are gathered.
template <class K, int L, int U>
[[gnu::always_inline]] inline void descend(const tree_view<K>& t, const tree_regs<K, L>& r, const __m512i* key,
                                           __m512i* node) {
  using O = ops<K>;
  const __m512i one = O::set1(1);
  for (int u = 0; u < U; ++u) node[u] = O::step(O::set1(0), key[u], r.root, one);
  [&]<int... l>(std::integer_sequence<int, l...>) {
    (
        [&] {
          constexpr int level = l + 1;
          for (int u = 0; u < U; ++u)
            node[u] =
                O::step(node[u], key[u], lookup<K, level_regs<K>(level)>(r.reg + regs_before<K>(level), node[u]), one);
        }(),
        ...);
  }
  (std::make_integer_sequence<int, L - 1>{});
  for (int l = L; l < t.levels; ++l) {
    const K* level = t.nodes + (std::size_t{1} << l) - 1;
    for (int u = 0; u < U; ++u) node[u] = O::step(node[u], key[u], O::gather(node[u], level), one);
  }
}

template <class K, xform X, int L>
void count_impl(const count_job<K>& job) {
  using O = ops<K>;
  constexpr int W = O::width;
  constexpr int U = 8;
  constexpr int fine_bits = kFineBits<K>;
  constexpr int table_regs = (1 << kCoarseLevels<K>) / W;
  const tree_view<K> t = job.tree;
  const tree_regs<K, L> regs = load_tree<K, L>(t);
  __m512i base[table_regs], shift[table_regs];
  for (int i = 0; i < table_regs; ++i) {
    base[i] = O::loadu(job.base + i * W);
    shift[i] = O::loadu(job.shift + i * W);
  }
  const __m512i last = O::set1(static_cast<K>(t.m));
  const __m512i last_fine = O::set1((K(1) << fine_bits) - 1);
  const std::size_t cells = (static_cast<std::size_t>(t.m) + 1) << fine_bits;
  // Four 16-bit histograms (4096 cells: 32 KiB, as L1), lane i counting into
  // histogram i mod 4: a run of equal cells (sorted input) then chains its
  // increments through four counters, not one. The histogram's offset is added in
  // the vector, so a key costs one load and one increment.
  std::uint16_t* const hist = reinterpret_cast<std::uint16_t*>(job.scratch);
  for (std::size_t b = 0; b < 4 * cells; ++b) hist[b] = 0;
  auto flush = [&] {
    for (std::size_t b = 0; b < cells; ++b) {
      job.counts[b] += std::uint64_t{hist[b]} + hist[cells + b] + hist[2 * cells + b] + hist[3 * cells + b];
      hist[b] = hist[cells + b] = hist[2 * cells + b] = hist[3 * cells + b] = 0;
    }
  };
  alignas(64) K lane_offset[W];
  for (int lane = 0; lane < W; ++lane) lane_offset[lane] = static_cast<K>(static_cast<std::size_t>(lane & 3) * cells);
  const __m512i offset = O::loadu(lane_offset);
  alignas(64) K cell[U * W];
  auto cells_of = [&](const __m512i* key, const __m512i* node, int vectors) {
    for (int u = 0; u < vectors; ++u) {
      const __m512i j = O::min(node[u], last);
      const __m512i lo = lookup<K, table_regs>(base, j);
      const __m512i fine =
          O::min(O::shift_right(O::sub(O::max(key[u], lo), lo), lookup<K, table_regs>(shift, j)), last_fine);
      _mm512_store_si512(cell + u * W, O::add(O::bit_or(O::shift_left(j, fine_bits), fine), offset));
    }
  };

  std::int64_t i = job.begin;
  std::int64_t since_flush = 0;
  for (; i + U * W <= job.end; i += U * W) {
    __m512i key[U], node[U];
    prefetch_ahead<U>(job.in + i);
    for (int u = 0; u < U; ++u) key[u] = O::template pre_key<X>(O::loadu(job.in + i + u * W));
    descend<K, L, U>(t, regs, key, node);
    cells_of(key, node, U);
#pragma GCC unroll 16
    for (int lane = 0; lane < U * W; ++lane) ++hist[cell[lane]];
    // A 16-bit counter gets at most a quarter of the keys: 2^15 between flushes.
    if ((since_flush += U * W) >= (std::int64_t{1} << 17)) {
      flush();
      since_flush = 0;
    }
  }
  for (; i < job.end; i += W) {
    const int count = job.end - i < W ? static_cast<int>(job.end - i) : W;
    const auto lanes = count == W ? static_cast<typename O::mask>(~0u) : O::tail_mask(count);
    __m512i key[1] = {O::template pre_key<X>(O::load_tail(job.in + i, lanes))}, node[1];
    descend<K, L, 1>(t, regs, key, node);
    cells_of(key, node, 1);
    for (int lane = 0; lane < count; ++lane) ++hist[cell[lane]];
  }
  flush();
}

// The copied keys and their buckets are packed (compress) into a small staging
// area without a branch per vector, and scattered to their buckets from there: a
// vector holds a copied key about as often as not (a few percent of the keys are
// copied), a branch on it would mispredict every other vector.
template <class K, xform X, int L>
void copy_impl(const copy_job<K>& job) {
  using O = ops<K>;
  constexpr int W = O::width;
  constexpr int U = 8;
  constexpr int stage = 512;
  const tree_view<K> t = job.tree;
  const tree_regs<K, L> regs = load_tree<K, L>(t);
  const __m512i last = O::set1(static_cast<K>(t.m));
  const __m512i one = O::set1(1);
  K** const dst = job.dst;
  alignas(64) K keys[stage + W];
  alignas(64) K targets[stage + W];
  int staged = 0;
  auto scatter = [&] {
    for (int s = 0; s < staged; ++s) *dst[targets[s] >> 1]++ = keys[s];
    staged = 0;
  };
  auto take = [&](__m512i key, __m512i node, typename O::mask lanes) {
    const __m512i b = O::min(node, last);
    const auto odd = static_cast<typename O::mask>(O::odd(b, one) & lanes);
    O::store_compressed(keys + staged, odd, key);
    O::store_compressed(targets + staged, odd, b);
    staged += O::popcount(odd);
  };
  std::int64_t i = job.begin;
  for (; i + U * W <= job.end; i += U * W) {
    __m512i key[U], node[U];
    prefetch_ahead<U>(job.in + i);
    for (int u = 0; u < U; ++u) key[u] = O::template pre_key<X>(O::loadu(job.in + i + u * W));
    descend<K, L, U>(t, regs, key, node);
    for (int u = 0; u < U; ++u) take(key[u], node[u], static_cast<typename O::mask>(~0u));
    if (staged > stage - U * W) scatter();
  }
  for (; i < job.end; i += W) {
    const int count = job.end - i < W ? static_cast<int>(job.end - i) : W;
    const auto lanes = count == W ? static_cast<typename O::mask>(~0u) : O::tail_mask(count);
    __m512i key[1] = {O::template pre_key<X>(O::load_tail(job.in + i, lanes))}, node[1];
    descend<K, L, 1>(t, regs, key, node);
    take(key[0], node[0], lanes);
    if (staged > stage - W) scatter();
  }
  scatter();
}

// Calls Impl<L> for the tree's levels held in registers (1 .. max_register_levels).
template <class K, template <int> class Impl, class Job>
void with_levels(const Job& job) {
  const int levels = job.tree.levels < max_register_levels<K> ? job.tree.levels : max_register_levels<K>;
  [&]<int... l>(std::integer_sequence<int, l...>) { ((levels == l + 1 ? (Impl<l + 1>::run(job), 0) : 0), ...); }
  (std::make_integer_sequence<int, max_register_levels<K>>{});
}

template <class K, xform X>
struct count_levels {
  template <int L>
  struct impl {
    static void run(const count_job<K>& job) {
      if constexpr (L <= kCoarseLevels<K>) count_impl<K, X, L>(job);
    }
  };
};

template <class K, xform X>
struct copy_levels {
  template <int L>
  struct impl {
    static void run(const copy_job<K>& job) { copy_impl<K, X, L>(job); }
  };
};

template <class K, int M>
std::int64_t window_m(const window_job<K>& job) {
  return with_xform(job.x, [&](auto x) { return window_impl<K, x(), M>(job); });
}

template <class K>
std::int64_t window_any(const window_job<K>& job) {
  // Unrolled for one window (a rank), two, and a window between two heavy keys.
  switch (job.m) {
    case 2:
      return window_m<K, 2>(job);
    case 4:
      return window_m<K, 4>(job);
    case 6:
      return window_m<K, 6>(job);
    default:
      return window_m<K, 0>(job);
  }
}

template <class K>
void count_any(const count_job<K>& job) {
  with_xform(job.x, [&](auto x) { with_levels<K, count_levels<K, x()>::template impl>(job); });
}

template <class K>
void copy_any(const copy_job<K>& job) {
  with_xform(job.x, [&](auto x) { with_levels<K, copy_levels<K, x()>::template impl>(job); });
}

}  // namespace

KSELECT_CPU_KERNEL_DEFS

}  // namespace kselect::cpu::kernels::avx512

#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif

#endif  // __x86_64__
