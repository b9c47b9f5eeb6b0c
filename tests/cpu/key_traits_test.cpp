// core::key_traits: the key order equals NumPy's sort order (NaN last, -0.0 == +0.0)
// and from_key inverts to_key.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "common/reference.hpp"
#include "common/rng.hpp"
#include "core/key_traits.hpp"

namespace kselect {
namespace {

using test::nan_last_less;

template <class T>
using bits_t = core::key_t<T>;

template <class T>
T from_bits(bits_t<T> u) {
  T x;
  std::memcpy(&x, &u, sizeof x);
  return x;
}

template <class T>
bits_t<T> bits_of(T x) {
  bits_t<T> u;
  std::memcpy(&u, &x, sizeof u);
  return u;
}

// The key order must be exactly the reference order: less, equal, greater alike.
template <class T>
void expect_same_order(T a, T b) {
  using kt = core::key_traits<T>;
  const auto ka = kt::to_key(a), kb = kt::to_key(b);
  SCOPED_TRACE(testing::Message() << "a = " << a << ", b = " << b);
  EXPECT_EQ(nan_last_less(a, b), ka < kb);
  EXPECT_EQ(nan_last_less(b, a), kb < ka);
}

// from_key(to_key(x)) is x, except -0.0 -> +0.0 and NaN -> the quiet NaN; restores_bits
// says which keys are the exceptions.
template <class T>
void expect_round_trip(T x) {
  using kt = core::key_traits<T>;
  const T y = kt::from_key(kt::to_key(x));
  SCOPED_TRACE(testing::Message() << "x = " << x);
  if constexpr (std::is_floating_point_v<T>) {
    if (std::isnan(x)) {
      EXPECT_TRUE(std::isnan(y));
      EXPECT_EQ(kt::to_key(y), kt::to_key(x));
      EXPECT_FALSE(kt::restores_bits(kt::to_key(x)));
      return;
    }
    if (x == 0) {
      EXPECT_EQ(bits_of(y), bits_of(T(0)));  // +0.0 exactly
      EXPECT_FALSE(kt::restores_bits(kt::to_key(x)));
      return;
    }
  }
  EXPECT_TRUE(kt::restores_bits(kt::to_key(x)));
  EXPECT_EQ(bits_of(y), bits_of(x));
}

template <class T>
std::vector<T> ordered_float_landmarks() {
  using lim = std::numeric_limits<T>;
  // Ascending in NumPy's order; -0.0 and +0.0 are adjacent and equal.
  return {-lim::infinity(), lim::lowest(), T(-1e30), T(-1), -lim::min(),
          -lim::denorm_min() * 5, -lim::denorm_min(), T(-0.0), T(0.0), lim::denorm_min(),
          lim::denorm_min() * 5, lim::min(), T(1), T(1e30), lim::max(), lim::infinity(),
          lim::quiet_NaN()};
}

template <class T>
void check_float_type() {
  using kt = core::key_traits<T>;
  using U = bits_t<T>;
  using lim = std::numeric_limits<T>;
  const std::vector<T> marks = ordered_float_landmarks<T>();
  for (std::size_t i = 0; i < marks.size(); ++i)
    for (std::size_t j = 0; j < marks.size(); ++j) expect_same_order(marks[i], marks[j]);
  EXPECT_EQ(kt::to_key(T(-0.0)), kt::to_key(T(0.0)));

  // Every NaN (signalling, negative, any payload) is the largest key, equal to all others.
  const U exp = kt::exponent_mask, man = kt::mantissa_mask, sign = kt::sign_bit;
  for (const U payload : {U(1), U(2), man >> 1, (man >> 1) + 1, man}) {
    for (const U s : {U(0), sign}) {
      const T nan = from_bits<T>(s | exp | payload);
      ASSERT_TRUE(std::isnan(nan));
      EXPECT_EQ(kt::to_key(nan), kt::nan_key);
      EXPECT_LT(kt::to_key(lim::infinity()), kt::to_key(nan));
      expect_round_trip(nan);
    }
  }

  // Random bit patterns (every class of float is hit), pairwise and round trip; and
  // bit patterns next to each landmark.
  std::vector<T> xs;
  for (std::uint64_t i = 0; i < 200000; ++i) xs.push_back(from_bits<T>(static_cast<U>(test::random_word(7, i))));
  for (const T m : marks)
    for (int d = -3; d <= 3; ++d) xs.push_back(from_bits<T>(static_cast<U>(bits_of(m) + static_cast<U>(d))));
  for (std::size_t i = 0; i + 1 < xs.size(); ++i) {
    expect_same_order(xs[i], xs[i + 1]);
    expect_round_trip(xs[i]);
    if (testing::Test::HasFailure()) return;
  }

  // plain_key is to_key wherever has_plain_key says so, which is everywhere but at
  // -0.0 and the NaNs (the landmarks, their neighbours and the random patterns above).
  xs.push_back(T(-0.0));
  for (const U payload : {U(1), man >> 1, (man >> 1) + 1, man})
    for (const U s : {U(0), sign}) xs.push_back(from_bits<T>(s | exp | payload));
  for (const T x : xs) {
    const bool plain = !std::isnan(x) && bits_of(x) != sign;
    ASSERT_EQ(kt::has_plain_key(x), plain) << x << " bits " << bits_of(x);
    if (plain) ASSERT_EQ(kt::plain_key(x), kt::to_key(x)) << x;
  }
}

template <class T>
void check_int_type() {
  using lim = std::numeric_limits<T>;
  std::vector<T> xs = {lim::min(), static_cast<T>(lim::min() + 1), static_cast<T>(-1), T(0), T(1),
                       static_cast<T>(lim::max() - 1), lim::max()};
  for (std::uint64_t i = 0; i < 100000; ++i) xs.push_back(static_cast<T>(test::random_word(11, i)));
  for (std::size_t i = 0; i < xs.size(); ++i) {
    expect_same_order(xs[i], xs[(i * 7 + 3) % xs.size()]);
    expect_round_trip(xs[i]);
    if (testing::Test::HasFailure()) return;
  }
  for (const T x : xs) {
    ASSERT_TRUE(core::key_traits<T>::has_plain_key(x));
    ASSERT_EQ(core::key_traits<T>::plain_key(x), core::key_traits<T>::to_key(x));
  }
  EXPECT_EQ(core::key_traits<T>::to_key(lim::min()), 0u);
  EXPECT_EQ(core::key_traits<T>::to_key(lim::max()), std::numeric_limits<bits_t<T>>::max());
}

TEST(KeyTraits, FloatOrderAndRoundTrip) { check_float_type<float>(); }
TEST(KeyTraits, DoubleOrderAndRoundTrip) { check_float_type<double>(); }
TEST(KeyTraits, Int32OrderAndRoundTrip) { check_int_type<std::int32_t>(); }
TEST(KeyTraits, Uint32OrderAndRoundTrip) { check_int_type<std::uint32_t>(); }
TEST(KeyTraits, Int64OrderAndRoundTrip) { check_int_type<std::int64_t>(); }
TEST(KeyTraits, Uint64OrderAndRoundTrip) { check_int_type<std::uint64_t>(); }

// Exhaustive over every float whose top 16 bits vary and low bits are 0 or all ones:
// 2^17 values covering every exponent and sign, sorted by value, keys must ascend.
TEST(KeyTraits, FloatKeysAscendOverAllExponents) {
  using kt = core::key_traits<float>;
  std::vector<float> xs;
  for (std::uint32_t hi = 0; hi < (1u << 16); ++hi)
    for (const std::uint32_t lo : {0u, 0xffffu}) xs.push_back(from_bits<float>((hi << 16) | lo));
  std::sort(xs.begin(), xs.end(), [](float a, float b) { return nan_last_less(a, b); });
  for (std::size_t i = 0; i + 1 < xs.size(); ++i) {
    const bool equal = !nan_last_less(xs[i], xs[i + 1]);
    if (equal) {
      ASSERT_EQ(kt::to_key(xs[i]), kt::to_key(xs[i + 1])) << xs[i] << " " << xs[i + 1];
    } else {
      ASSERT_LT(kt::to_key(xs[i]), kt::to_key(xs[i + 1])) << xs[i] << " " << xs[i + 1];
    }
  }
}

}  // namespace
}  // namespace kselect
