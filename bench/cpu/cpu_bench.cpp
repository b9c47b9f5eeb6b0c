// kselect-cpu-bench: the CPU backend against the standard library on uniform floats.
//   single rank n/2 : kselect::cpu::multiselect   vs std::nth_element
//   101 percentiles : kselect::cpu::multiselect   vs std::sort
// Each figure is the median of --runs timed runs after one warm-up run. The standard
// algorithms run on a fresh copy of the input each time; the copy is not timed.
// kselect runs with all OpenMP threads and with one; the std algorithms are serial.
//
// usage: kselect-cpu-bench [--log2n 22,24,26] [--runs 10]
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "common/generate.hpp"
#include "cpu/cpu_select.hpp"

namespace {

using clock_type = std::chrono::steady_clock;

// Median wall time in ms of `runs` calls of `timed`, after one warm-up; `prepare`
// runs untimed before each call.
double median_ms(int runs, const std::function<void()>& prepare, const std::function<void()>& timed) {
  std::vector<double> t;
  for (int r = 0; r <= runs; ++r) {
    prepare();
    const auto start = clock_type::now();
    timed();
    const double ms = std::chrono::duration<double, std::milli>(clock_type::now() - start).count();
    if (r > 0) t.push_back(ms);  // run 0 warms caches, pages and the thread pool
  }
  std::sort(t.begin(), t.end());
  const std::size_t h = t.size() / 2;
  return t.size() % 2 ? t[h] : 0.5 * (t[h - 1] + t[h]);
}

std::vector<int> parse_list(const char* s) {
  std::vector<int> v;
  std::stringstream in(s);
  std::string item;
  while (std::getline(in, item, ',')) v.push_back(std::atoi(item.c_str()));
  return v;
}

[[noreturn]] void fail(const char* what) {
  std::fprintf(stderr, "kselect-cpu-bench: %s\n", what);
  std::exit(1);
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<int> log2n = {22, 24, 26};
  int runs = 10;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--log2n") && i + 1 < argc) {
      log2n = parse_list(argv[++i]);
    } else if (!std::strcmp(argv[i], "--runs") && i + 1 < argc) {
      runs = std::max(1, std::atoi(argv[++i]));
    } else {
      std::fprintf(stderr, "usage: %s [--log2n 22,24,26] [--runs 10]\n", argv[0]);
      return 2;
    }
  }
  const int threads = omp_get_max_threads();
  std::printf("uniform float32, median of %d runs, kselect with %d threads (and 1), std serial\n\n",
              runs, threads);
  std::printf("%-6s %-16s %12s %12s %12s %9s %9s\n", "n", "query", "kselect ms", "kselect-1t",
              "std ms", "std/ks", "std/ks-1t");

  for (const int lg : log2n) {
    const std::int64_t n = std::int64_t{1} << lg;
    const std::vector<float> values = kselect::test::generate<float>(kselect::test::dist::uniform, n, 2024);
    std::vector<float> copy(values.size());
    const auto fresh = [&] { std::copy(values.begin(), values.end(), copy.begin()); };
    const auto nothing = [] {};

    // Single rank.
    const std::int64_t k = n / 2;
    float got = 0;
    const double ks = median_ms(runs, nothing, [&] { kselect::cpu::multiselect(values.data(), n, &k, 1, &got); });
    const double ks1 = median_ms(runs, nothing, [&] { kselect::cpu::multiselect(values.data(), n, &k, 1, &got, 1); });
    const double nth = median_ms(runs, fresh, [&] { std::nth_element(copy.begin(), copy.begin() + k, copy.end()); });
    if (got != copy[static_cast<std::size_t>(k)]) fail("single rank differs from std::nth_element");
    std::printf("2^%-4d %-16s %12.2f %12.2f %12.2f %8.2fx %8.2fx\n", lg, "rank n/2", ks, ks1, nth,
                nth / ks, nth / ks1);

    // 101 percentiles.
    std::vector<std::int64_t> ranks;
    for (int p = 0; p <= 100; ++p) ranks.push_back((n - 1) * p / 100);
    std::vector<float> out(ranks.size());
    const auto r = static_cast<std::int64_t>(ranks.size());
    const double kp = median_ms(runs, nothing, [&] { kselect::cpu::multiselect(values.data(), n, ranks.data(), r, out.data()); });
    const double kp1 = median_ms(runs, nothing, [&] { kselect::cpu::multiselect(values.data(), n, ranks.data(), r, out.data(), 1); });
    const double srt = median_ms(runs, fresh, [&] { std::sort(copy.begin(), copy.end()); });
    for (std::size_t i = 0; i < ranks.size(); ++i)
      if (out[i] != copy[static_cast<std::size_t>(ranks[i])]) fail("percentiles differ from std::sort");
    std::printf("2^%-4d %-16s %12.2f %12.2f %12.2f %8.2fx %8.2fx\n", lg, "101 percentiles", kp, kp1, srt,
                srt / kp, srt / kp1);
    std::fflush(stdout);
  }
  return 0;
}
