// The CPU selection's streaming kernels (cpu/kernels.hpp), every instruction set this
// machine runs, against plain reference loops: the window pass (counts below each
// boundary, the windows' keys in input order, stopping and resuming when a buffer
// fills), the count pass (cells) and the copy pass. Raw bit patterns of every kind
// (NaN payloads, -0.0, infinities, integer extremes) go through each key map, which
// must agree with core::key_traits<T>::pre_key.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <span>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "common/rng.hpp"
#include "cpu/isa.hpp"
#include "cpu/kernels.hpp"
#include "cpu/search_tree.hpp"
#include "core/key_traits.hpp"

namespace kselect {
namespace {

using cpu::kernels::xform;

template <class K>
struct kernel_fns {
  std::int64_t (*window)(const cpu::kernels::window_job<K>&);
  void (*count)(const cpu::kernels::count_job<K>&);
  void (*copy)(const cpu::kernels::copy_job<K>&);
};

template <class K>
kernel_fns<K> fns(cpu::isa which) {
  switch (which) {
#if defined(__x86_64__)
    case cpu::isa::avx512:
      return {&cpu::kernels::avx512::window_pass, &cpu::kernels::avx512::count_cells,
              &cpu::kernels::avx512::copy_buckets};
    case cpu::isa::avx2:
      return {&cpu::kernels::avx2::window_pass, &cpu::kernels::avx2::count_cells, &cpu::kernels::avx2::copy_buckets};
#endif
    default:
      return {&cpu::kernels::scalar::window_pass, &cpu::kernels::scalar::count_cells,
              &cpu::kernels::scalar::copy_buckets};
  }
}

std::vector<cpu::isa> supported_isas() {
  std::vector<cpu::isa> out;
  for (const cpu::isa i : {cpu::isa::scalar, cpu::isa::avx2, cpu::isa::avx512})
    if (cpu::isa_supported(i)) out.push_back(i);
  return out;
}

// The reference pre-key: core::key_traits of the type the raw bits stand for.
template <class K>
K reference_pre_key(K raw, xform x) {
  using F = std::conditional_t<sizeof(K) == 4, float, double>;
  using S = std::make_signed_t<K>;
  switch (x) {
    case xform::none:
      return core::key_traits<K>::pre_key(raw);
    case xform::flip_sign:
      return core::key_traits<S>::pre_key(static_cast<S>(raw));
    case xform::float_bits: {
      F f;
      std::memcpy(&f, &raw, sizeof f);
      return core::key_traits<F>::pre_key(f);
    }
  }
  return raw;
}

// Raw words: random bits, the special floats' and integers' patterns, and the
// pre-images of each boundary and its neighbours (so keys equal boundaries).
template <class K>
std::vector<K> raw_words(std::int64_t n, std::uint64_t seed, xform x, const std::vector<K>& near) {
  using F = std::conditional_t<sizeof(K) == 4, float, double>;
  std::vector<K> specials = {K(0),
                             K(1),
                             std::numeric_limits<K>::max(),
                             static_cast<K>(std::numeric_limits<K>::max() - 1),
                             K(1) << (sizeof(K) * 8 - 1),
                             static_cast<K>((K(1) << (sizeof(K) * 8 - 1)) - 1)};
  for (const F f : {-F(0), F(0), std::numeric_limits<F>::infinity(), -std::numeric_limits<F>::infinity(),
                    std::numeric_limits<F>::quiet_NaN(), -std::numeric_limits<F>::quiet_NaN(),
                    std::numeric_limits<F>::denorm_min(), -std::numeric_limits<F>::denorm_min(), F(1), F(-1)}) {
    K k;
    std::memcpy(&k, &f, sizeof k);
    specials.push_back(k);
  }
  // Raw words whose pre-keys are `near` (the map is a bijection on the bit patterns).
  std::vector<K> preimages;
  for (const K p : near) {
    for (const K q : {p, static_cast<K>(p - 1), static_cast<K>(p + 1)}) {
      // Invert by search over a few candidates is not possible in general; the maps
      // are cheap to invert directly instead.
      K raw = q;
      if (x == xform::flip_sign) raw = static_cast<K>(q ^ (K(1) << (sizeof(K) * 8 - 1)));
      if (x == xform::float_bits) {
        const K mantissa = sizeof(K) == 4 ? K(0x007fffffu) : K(0x000fffffffffffffull);
        const K v = static_cast<K>(q + mantissa);
        const K sign = K(1) << (sizeof(K) * 8 - 1);
        raw = (v & sign) ? static_cast<K>(v ^ sign) : static_cast<K>(~v);
      }
      EXPECT_EQ(reference_pre_key(raw, x), q);
      preimages.push_back(raw);
    }
  }
  std::vector<K> out(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) {
    const std::uint64_t w = test::random_word(seed, static_cast<std::uint64_t>(i));
    switch (w % 4) {
      case 0:
        out[i] = specials[(w >> 8) % specials.size()];
        break;
      case 1:
        out[i] = preimages.empty() ? static_cast<K>(w >> 3) : preimages[(w >> 8) % preimages.size()];
        break;
      default:
        out[i] = static_cast<K>(w >> 3 ^ w << 29);
        break;
    }
  }
  return out;
}

// Sorted boundaries (pre-keys): random, with 0, the maximum, and equal neighbours
// when `repeats`.
template <class K>
std::vector<K> boundaries(int m, std::uint64_t seed, bool repeats, bool distinct) {
  std::vector<K> b;
  for (int j = 0; j < m; ++j) b.push_back(static_cast<K>(test::random_word(seed, static_cast<std::uint64_t>(j)) >> 2));
  if (m > 2 && seed % 3 == 0) b[0] = 0;
  if (m > 3 && seed % 5 == 0) b[1] = std::numeric_limits<K>::max();
  if (repeats && m > 4) b[2] = b[3];
  std::sort(b.begin(), b.end());
  if (distinct) b.erase(std::unique(b.begin(), b.end()), b.end());
  return b;
}

template <class K>
std::int64_t reference_bucket(K key, const std::vector<K>& b) {
  return std::upper_bound(b.begin(), b.end(), key) - b.begin();  // boundaries <= key
}

template <class K>
void check_window(cpu::isa which, xform x, std::int64_t n, std::int64_t begin, int m, std::uint64_t seed,
                  std::int64_t capacity) {
  SCOPED_TRACE(testing::Message() << cpu::isa_name(which) << " " << sizeof(K) * 8 << "-bit xform "
                                  << static_cast<int>(x) << " n " << n << " begin " << begin << " m " << m
                                  << " capacity " << capacity);
  const std::vector<K> b = boundaries<K>(m, seed, seed % 2 == 0, false);
  const std::vector<K> in = raw_words<K>(n, seed + 7, x, b);
  const int windows = (m + 1) / 2;
  std::vector<std::uint64_t> below(static_cast<std::size_t>(m), 0);
  std::vector<std::vector<K>> buf(static_cast<std::size_t>(windows));
  std::vector<K*> dst(static_cast<std::size_t>(windows)), dst_end(static_cast<std::size_t>(windows));
  for (int w = 0; w < windows; ++w) {
    buf[w].resize(static_cast<std::size_t>(capacity + cpu::kernels::kWindowSlack));
    // Window 1 counts only.
    dst[w] = w == 1 ? nullptr : buf[w].data();
    dst_end[w] = buf[w].data() + buf[w].size();
  }
  cpu::kernels::window_job<K> job{in.data(), begin, n, x, b.data(), m, below.data(), dst.data(), dst_end.data()};
  // Resume where the kernel stops, growing full buffers as the driver does.
  for (int rounds = 0; job.begin < n; ++rounds) {
    ASSERT_LT(rounds, 100000);
    const std::int64_t at = fns<K>(which).window(job);
    ASSERT_GE(at, job.begin);
    ASSERT_LE(at, n);
    job.begin = at;
    if (at == n) break;
    bool grew = false;
    for (int w = 0; w < windows; ++w) {
      if (!dst[w] || dst_end[w] - dst[w] >= cpu::kernels::kWindowSlack) continue;
      const auto used = dst[w] - buf[w].data();
      buf[w].resize(buf[w].size() + 64);
      dst[w] = buf[w].data() + used;
      dst_end[w] = buf[w].data() + buf[w].size();
      grew = true;
    }
    ASSERT_TRUE(grew) << "stopped at " << at << " with room in every window";
  }
  std::vector<std::uint64_t> want_below(static_cast<std::size_t>(m), 0);
  std::vector<std::vector<K>> want(static_cast<std::size_t>(windows));
  for (std::int64_t i = begin; i < n; ++i) {
    const K p = reference_pre_key(in[i], x);
    for (int j = 0; j < m; ++j) want_below[j] += p < b[j] ? 1 : 0;
    const std::int64_t bucket = reference_bucket(p, b);
    if (bucket & 1) want[static_cast<std::size_t>(bucket / 2)].push_back(p);
  }
  EXPECT_EQ(below, want_below);
  for (int w = 0; w < windows; ++w) {
    if (w == 1) continue;
    const std::vector<K> got(buf[w].data(), dst[w]);
    EXPECT_EQ(got, want[w]) << "window " << w;
  }
}

template <class K>
void check_count(cpu::isa which, xform x, std::int64_t n, std::int64_t begin, int m, std::uint64_t seed) {
  SCOPED_TRACE(testing::Message() << cpu::isa_name(which) << " " << sizeof(K) * 8 << "-bit xform "
                                  << static_cast<int>(x) << " n " << n << " begin " << begin << " m " << m);
  constexpr int fine_bits = cpu::kernels::kFineBits<K>;
  const std::vector<K> b = boundaries<K>(m, seed, false, true);
  const int mm = static_cast<int>(b.size());
  const std::vector<K> in = raw_words<K>(n, seed + 11, x, b);
  std::vector<K> base(1 << cpu::kernels::kCoarseLevels<K>, 0), shift(base.size(), 0);
  for (int j = 0; j <= mm; ++j) {
    const std::uint64_t w = test::random_word(seed + 5, static_cast<std::uint64_t>(j));
    base[j] = j > 0 ? static_cast<K>(b[j - 1] + (w % 3 == 0 ? w % 7 : 0)) : static_cast<K>(w);
    shift[j] = static_cast<K>((w >> 8) % (sizeof(K) * 8));
  }
  const cpu::search_tree<K> tree{std::span<const K>(b)};
  const std::size_t cells = (static_cast<std::size_t>(mm) + 1) << fine_bits;
  std::vector<std::uint64_t> counts(cells, 0), want(cells, 0);
  std::vector<std::uint32_t> scratch(4 * cells);
  const cpu::kernels::count_job<K> job{in.data(),     begin,         n, x, tree.view(), base.data(), shift.data(),
                                       counts.data(), scratch.data()};
  fns<K>(which).count(job);
  for (std::int64_t i = begin; i < n; ++i) {
    const K p = reference_pre_key(in[i], x);
    const auto j = static_cast<std::size_t>(reference_bucket(p, b));
    const K offset = static_cast<K>(std::max(p, base[j]) - base[j]);
    const K fine = std::min<K>(static_cast<K>(offset >> shift[j]), (K(1) << fine_bits) - 1);
    ++want[(j << fine_bits) + fine];
  }
  EXPECT_EQ(counts, want);
}

template <class K>
void check_copy(cpu::isa which, xform x, std::int64_t n, std::int64_t begin, int m, std::uint64_t seed) {
  SCOPED_TRACE(testing::Message() << cpu::isa_name(which) << " " << sizeof(K) * 8 << "-bit xform "
                                  << static_cast<int>(x) << " n " << n << " begin " << begin << " m " << m);
  const std::vector<K> b = boundaries<K>(m, seed, seed % 2 == 1, false);
  const std::vector<K> in = raw_words<K>(n, seed + 13, x, b);
  const int odd = (m + 1) / 2;
  std::vector<std::vector<K>> want(static_cast<std::size_t>(odd));
  for (std::int64_t i = begin; i < n; ++i) {
    const K p = reference_pre_key(in[i], x);
    const std::int64_t bucket = reference_bucket(p, b);
    if (bucket & 1) want[static_cast<std::size_t>(bucket / 2)].push_back(p);
  }
  std::vector<std::vector<K>> got(static_cast<std::size_t>(odd));
  std::vector<K*> dst(static_cast<std::size_t>(odd));
  for (int w = 0; w < odd; ++w) {
    got[w].resize(want[w].size());
    dst[w] = got[w].data();
  }
  const cpu::search_tree<K> tree{std::span<const K>(b)};
  const cpu::kernels::copy_job<K> job{in.data(), begin, n, x, tree.view(), dst.data()};
  fns<K>(which).copy(job);
  for (int w = 0; w < odd; ++w) {
    EXPECT_EQ(dst[w], got[w].data() + got[w].size()) << "bucket " << 2 * w + 1;
    EXPECT_EQ(got[w], want[w]) << "bucket " << 2 * w + 1;
  }
}

template <class K>
void check_all_kernels() {
  for (const cpu::isa which : supported_isas()) {
    for (const xform x : {xform::none, xform::flip_sign, xform::float_bits}) {
      std::uint64_t seed = 1;
      for (const std::int64_t n : {0, 1, 7, 15, 16, 17, 63, 64, 65, 100, 1000, 4099}) {
        for (const std::int64_t begin : {std::int64_t{0}, std::int64_t{3}}) {
          if (begin > n) continue;
          for (const int m : {1, 2, 3, 4, 7, 16}) {
            check_window<K>(which, x, n, begin, m, ++seed, 4096);
            if (testing::Test::HasFailure()) return;
          }
          check_window<K>(which, x, n, begin, 2, ++seed, 0);  // the buffers fill: stop and resume
          check_window<K>(which, x, n, begin, 9, ++seed, 0);
          const int coarse_max = (1 << cpu::kernels::kCoarseLevels<K>)-1;
          for (const int m : {1, 2, 5, 31, coarse_max}) {
            check_count<K>(which, x, n, begin, m, ++seed);
            if (testing::Test::HasFailure()) return;
          }
          // Copy trees: all in registers (up to 255 / 127 boundaries) and deeper.
          for (const int m : {1, 2, 3, 14, 15, 16, 63, 64, 127, 128, 255, 256, 1000}) {
            check_copy<K>(which, x, n, begin, m, ++seed);
            if (testing::Test::HasFailure()) return;
          }
        }
      }
    }
  }
}

TEST(SelectKernels, ThirtyTwoBit) { check_all_kernels<std::uint32_t>(); }
TEST(SelectKernels, SixtyFourBit) { check_all_kernels<std::uint64_t>(); }

TEST(SelectKernels, IsaNames) {
  EXPECT_TRUE(cpu::isa_supported(cpu::isa::scalar));
  EXPECT_NE(cpu::resolve_isa(cpu::isa::best), cpu::isa::best);
  EXPECT_EQ(cpu::resolve_isa(cpu::isa::scalar), cpu::isa::scalar);
  for (const cpu::isa i : {cpu::isa::avx2, cpu::isa::avx512})
    if (!cpu::isa_supported(i)) EXPECT_THROW(cpu::resolve_isa(i), std::invalid_argument);
  // Tests on a machine without a SIMD path still pass, but say so.
  std::string names;
  for (const cpu::isa i : supported_isas()) names += std::string(" ") + cpu::isa_name(i);
  std::printf("CPU kernels tested:%s (best: %s)\n", names.c_str(), cpu::isa_name(cpu::resolve_isa(cpu::isa::best)));
}

}  // namespace
}  // namespace kselect
