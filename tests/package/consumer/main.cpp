// Consumer of an installed kselect: selects from a std::vector and checks the answers.
#include <kselect/kselect.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <numeric>
#include <random>
#include <vector>

int main() {
  // 0..999 as floats, shuffled: the k-th smallest is k.
  std::vector<float> values(1000);
  std::iota(values.begin(), values.end(), 0.0f);
  std::shuffle(values.begin(), values.end(), std::mt19937(42));

  int failures = 0;
  for (std::int64_t k : {0, 1, 499, 500, 998, 999}) {
    const float got = kselect::select(values, k);
    if (got != static_cast<float>(k)) {
      std::fprintf(stderr, "kselect::select(values, %lld) = %g, expected %lld\n",
                   static_cast<long long>(k), static_cast<double>(got), static_cast<long long>(k));
      ++failures;
    }
  }

  // Integers with ties.
  std::vector<std::int64_t> ints = {5, -3, 5, 9, -3, 0, 5};  // sorted: -3 -3 0 5 5 5 9
  const std::int64_t median = kselect::select(ints, 3);
  if (median != 5) {
    std::fprintf(stderr, "kselect::select(ints, 3) = %lld, expected 5\n",
                 static_cast<long long>(median));
    ++failures;
  }

  std::printf("kselect consumer: %s (cuda_available=%d)\n", failures ? "FAILED" : "ok",
              kselect::cuda_available() ? 1 : 0);
  return failures ? 1 : 0;
}
