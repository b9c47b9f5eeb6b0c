// kselect-segmented-bench: segmented (batched) selection on the shapes of issue 21,
// each case timed in one run three ways: kselect's device API (its workspace
// allocated once, outside the timing); the one-pass read floor (cub::DeviceReduce
// over the same bytes, bench/harness); and CUB's segmented sort followed by a small
// kernel that reads the answers off (segmented_cub.cuh). kselect's answers must
// equal the CUB-based ones bit for bit (top-k unsorted: the same positions and keys
// per row in position order); a mismatch is reported and the exit status is 1.
// CUDA events, warm-up, the median of --reps (>= 10) runs; inputs under 200 MB
// rotate among copies so that L2 cannot hold them. Keys uniform in (0, 1] (never 0).
//
// Usage: kselect-segmented-bench [--json FILE] [--reps N] [--quick] [--case N] [--commit SHA]
// (--case N: only case N, 1 to 8; --quick: 10 runs after 1 warm-up).
#include <cuda_bf16.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "common/device_data.cuh"
#include "common/generate.hpp"
#include "common/rng.hpp"
#include "common/segmented_inputs.hpp"
#include "core/sampling.hpp"
#include "harness/harness.hpp"
#include "kselect/device_segmented.hpp"
#include "segmented_cub.cuh"

namespace {

using kselect::bench::check_call;
using kselect::bench::cub_segmented_sort;
using kselect::bench::time_median;
using kselect::test::cuda_check;
using kselect::test::device_buffer;
using kselect::test::huge_among_tiny_lengths;
using kselect::test::middle_ranks;
using kselect::test::offsets_of;
using kselect::test::row_offsets;
namespace device = kselect::device;

struct bench_options : kselect::bench::run_options {
  int only_case = 0;  ///< 0: every case
  std::string commit;
};

// Keys uniform in (0, 1]: (24 random bits + 1) * 2^-24, exact in float, never zero.
template <class T>
__global__ void uniform_kernel(T* out, std::int64_t n, std::uint64_t seed) {
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < n;
       i += std::int64_t(gridDim.x) * blockDim.x) {
    const float v =
        static_cast<float>((kselect::core::mix64(seed ^ static_cast<std::uint64_t>(i)) >> 40) + 1) * 0x1p-24f;
    if constexpr (std::is_same_v<T, __nv_bfloat16>) {
      out[i] = __float2bfloat16_rn(v);
    } else {
      out[i] = v;
    }
  }
}

// One case's input: copies of the keys in device memory, the segments, the floor.
template <class T>
struct segmented_input {
  std::int64_t n = 0, m = 0;
  bool rows = false;
  std::vector<std::int64_t> offsets;  ///< m + 1, host
  device_buffer<std::int64_t> d_offsets;
  std::vector<device_buffer<T>> copies;
  device::segment_layout layout;
  double floor_ms = 0;

  int count() const { return static_cast<int>(copies.size()); }
};

template <class T>
segmented_input<T> make_input(std::vector<std::int64_t> offsets, bool rows, const bench_options& o, cudaStream_t s) {
  segmented_input<T> in;
  in.offsets = std::move(offsets);
  in.n = in.offsets.back();
  in.m = static_cast<std::int64_t>(in.offsets.size()) - 1;
  in.rows = rows;
  in.d_offsets = device_buffer<std::int64_t>(in.offsets);
  in.layout = rows ? device::segment_layout::rows(in.m, in.offsets[1])
                   : device::segment_layout::ragged(in.d_offsets.data(), in.m, in.n);
  const std::size_t bytes = static_cast<std::size_t>(in.n) * sizeof(T);
  const int copies = static_cast<int>(std::max<std::size_t>(1, (std::size_t{200} << 20) / bytes));
  for (int c = 0; c < copies; ++c) {
    in.copies.emplace_back(static_cast<std::size_t>(in.n));
    uniform_kernel<T><<<4096, 256, 0, s>>>(in.copies.back().data(), in.n, 2100 + c);
    cuda_check(cudaPeekAtLastError(), "generate");
  }
  cuda_check(cudaStreamSynchronize(s), "generate");
  // The floor reads the same bytes as floats (bfloat16 keys: pairs of them).
  in.floor_ms =
      kselect::bench::read_floor_ms<float>(s, copies, o, static_cast<std::int64_t>(bytes / sizeof(float)),
                                           [&](int c) { return reinterpret_cast<const float*>(in.copies[c].data()); });
  return in;
}

// Lengths of lognormal distribution (sigma 1) with the given mean, at least 1, the
// last one cut so that they sum to `total`.
std::vector<std::int64_t> lognormal_lengths(double mean, std::int64_t total, std::uint64_t seed) {
  const double sigma = 1.0, mu = std::log(mean) - sigma * sigma / 2;
  std::vector<std::int64_t> lengths;
  std::int64_t sum = 0;
  for (std::uint64_t i = 0; sum < total; ++i) {
    const double z = kselect::test::detail::normal_from(kselect::test::random_word(seed, 2 * i),
                                                        kselect::test::random_word(seed, 2 * i + 1));
    const std::int64_t length =
        std::min(total - sum, std::max<std::int64_t>(1, std::llround(std::exp(mu + sigma * z))));
    lengths.push_back(length);
    sum += length;
  }
  return lengths;
}

// The bits of a device array, for exact comparison of any 2- or 4-byte key.
template <class T>
auto bits_of(const device_buffer<T>& d) {
  using U = std::conditional_t<sizeof(T) == 2, std::uint16_t, std::uint32_t>;
  static_assert(sizeof(T) == sizeof(U));
  std::vector<U> bits(d.size());
  cuda_check(cudaMemcpy(bits.data(), d.data(), d.size() * sizeof(T), cudaMemcpyDeviceToHost), "copy back");
  return bits;
}

bool is_nan_bits(std::uint32_t b) { return (b & 0x7fffffffu) > 0x7f800000u; }

// Elements where two answers differ (NaN equals NaN: empty segments' quantiles).
template <class U>
std::int64_t mismatches(const std::vector<U>& a, const std::vector<U>& b) {
  std::int64_t bad = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    bool both_nan = false;
    if constexpr (std::is_same_v<U, std::uint32_t>) both_nan = is_nan_bits(a[i]) && is_nan_bits(b[i]);
    bad += a[i] != b[i] && !both_nan;
  }
  return bad;
}

// Median time of kselect's call(workspace, bytes, copy), the workspace allocated
// once; then one more call on copy 0, whose answers the check reads.
template <class Call>
double time_kselect(const bench_options& o, cudaStream_t s, int copies, Call&& call) {
  std::size_t bytes = 0;
  check_call(call(nullptr, bytes, 0), "kselect workspace query");
  const device_buffer<char> ws(std::max<std::size_t>(bytes, 1));
  auto run = [&](int c) {
    std::size_t b = bytes;
    check_call(call(ws.data(), b, c), "kselect");
  };
  const double ms = time_median(s, copies, o, run);
  run(0);
  cuda_check(cudaStreamSynchronize(s), "kselect");
  return ms;
}

// The same for the CUB baseline's run(copy).
template <class Run>
double time_baseline(const bench_options& o, cudaStream_t s, int copies, Run&& run) {
  const double ms = time_median(s, copies, o, run);
  run(0);
  cuda_check(cudaStreamSynchronize(s), "CUB");
  return ms;
}

struct result_row {
  int case_number;
  std::string line, type;
  std::int64_t m, n;
  double kselect_ms, floor_ms, cub_ms;
  std::int64_t mismatches;
};

class bench_run {
 public:
  bench_run(const bench_options& o, cudaStream_t s) : o_(o), s_(s) {}

  // segmented_select with one k, or segmented_select_each with ks (one per segment).
  template <class T>
  void select(int c, const std::string& line, const segmented_input<T>& in, std::int64_t k,
              const std::vector<std::int64_t>* ks = nullptr) {
    const device_buffer<T> ours(static_cast<std::size_t>(in.m)), theirs(static_cast<std::size_t>(in.m));
    const device_buffer<std::int64_t> d_ks(ks ? *ks : std::vector<std::int64_t>{});
    const double ms = time_kselect(o_, s_, in.count(), [&](void* ws, std::size_t& b, int copy) {
      if (ks)
        return device::segmented_select_each(ws, b, in.copies[copy].data(), ours.data(), in.layout, d_ks.data(), s_);
      return device::segmented_select(ws, b, in.copies[copy].data(), ours.data(), in.layout, k, s_);
    });
    cub_segmented_sort<T> cub(in.n, in.m, in.d_offsets.data(), in.rows, false, false, s_);
    const double cub_ms = time_baseline(o_, s_, in.count(), [&](int copy) {
      cub.sort(in.copies[copy].data());
      cub.pick_ranks(k, ks ? d_ks.data() : nullptr, theirs.data());
    });
    add(c, line, in, ms, cub_ms, mismatches(bits_of(ours), bits_of(theirs)));
  }

  // segmented_quantile (linear, NaN not ignored) at qs.
  void quantile(int c, const std::string& line, const segmented_input<float>& in, const std::vector<double>& qs) {
    const auto nq = static_cast<int>(qs.size());
    const auto size = static_cast<std::size_t>(in.m * nq);
    const device_buffer<float> ours(size), theirs(size);
    const device_buffer<double> d_qs(qs);
    const double ms = time_kselect(o_, s_, in.count(), [&](void* ws, std::size_t& b, int copy) {
      return device::segmented_quantile(ws, b, in.copies[copy].data(), ours.data(), in.layout, qs.data(), nq,
                                        kselect::quantile_method::linear, false, s_);
    });
    cub_segmented_sort<float> cub(in.n, in.m, in.d_offsets.data(), in.rows, false, false, s_);
    const double cub_ms = time_baseline(o_, s_, in.count(), [&](int copy) {
      cub.sort(in.copies[copy].data());
      cub.pick_quantiles(d_qs.data(), nq, theirs.data());
    });
    add(c, line, in, ms, cub_ms, mismatches(bits_of(ours), bits_of(theirs)));
  }

  // segmented_topk, largest, int64 positions; CUB: pairs sorted descending, the first k.
  template <class T>
  void topk(int c, const std::string& line, const segmented_input<T>& in, std::int64_t k, bool sorted) {
    const auto size = static_cast<std::size_t>(in.m * k);
    const device_buffer<T> ours(size), theirs(size);
    const device_buffer<std::int64_t> ours_idx(size), theirs_idx(size);
    device::topk_config cfg;
    cfg.largest = true;
    cfg.sorted = sorted;
    const double ms = time_kselect(o_, s_, in.count(), [&](void* ws, std::size_t& b, int copy) {
      return device::segmented_topk(ws, b, in.copies[copy].data(), ours.data(), ours_idx.data(), in.layout, k, s_, cfg);
    });
    cub_segmented_sort<T> cub(in.n, in.m, in.d_offsets.data(), in.rows, true, true, s_);
    const double cub_ms = time_baseline(o_, s_, in.count(), [&](int copy) {
      cub.sort(in.copies[copy].data());
      cub.first_k(k, theirs.data(), theirs_idx.data());
    });
    const auto keys = bits_of(ours);
    auto want_keys = bits_of(theirs);
    using U = typename decltype(want_keys)::value_type;
    const std::vector<std::int64_t> idx = ours_idx.to_host();
    std::vector<std::int64_t> want_idx = theirs_idx.to_host();
    if (!sorted) {  // kselect's unsorted rows are in position order: put CUB's rows in it
      for (std::int64_t i = 0; i < in.m; ++i) {
        std::vector<std::pair<std::int64_t, U>> row;
        for (std::int64_t j = i * k; j < (i + 1) * k; ++j) row.emplace_back(want_idx[j], want_keys[j]);
        std::sort(row.begin(), row.end());
        for (std::int64_t j = 0; j < k; ++j) std::tie(want_idx[i * k + j], want_keys[i * k + j]) = row[j];
      }
    }
    add(c, line, in, ms, cub_ms, mismatches(keys, want_keys) + mismatches(idx, want_idx));
  }

  const std::vector<result_row>& rows() const { return rows_; }

 private:
  template <class T>
  void add(int c, const std::string& line, const segmented_input<T>& in, double ms, double cub_ms, std::int64_t bad) {
    const char* type = std::is_same_v<T, __nv_bfloat16> ? "bf16" : "f32";
    rows_.push_back({c, line, type, in.m, in.n, ms, in.floor_ms, cub_ms, bad});
    std::printf("%-4d %-40s %-5s %8lld %10lld %10.3f %9.3f %9.3f %8.2f %8.2f  %s\n", c, line.c_str(), type,
                static_cast<long long>(in.m), static_cast<long long>(in.n), ms, in.floor_ms, cub_ms, ms / in.floor_ms,
                cub_ms / ms, bad == 0 ? "ok" : ("WRONG: " + std::to_string(bad) + " mismatches").c_str());
    std::fflush(stdout);
  }

  const bench_options& o_;
  cudaStream_t s_;
  std::vector<result_row> rows_;
};

// The cases of issue 21 (float32 unless said).
void run_cases(const bench_options& o, cudaStream_t s, bench_run& b) {
  auto wanted = [&](int c) { return o.only_case == 0 || o.only_case == c; };
  if (wanted(1)) {
    const auto in = make_input<float>(row_offsets(16384, 4096), true, o, s);
    b.quantile(1, "16384 x 4096 rows, median (quantile 0.5)", in, {0.5});
    b.select(1, "16384 x 4096 rows, select k=2047", in, 2047);
  }
  if (wanted(2)) {
    const auto in = make_input<float>(row_offsets(65536, 256), true, o, s);
    b.select(2, "65536 x 256 rows, select k=127", in, 127);
  }
  if (wanted(3)) {
    const auto in = make_input<float>(row_offsets(1024, 65536), true, o, s);
    b.select(3, "1024 x 65536 rows, select k=32767", in, 32767);
  }
  if (wanted(4)) {
    const auto in = make_input<float>(row_offsets(16384, 4096), true, o, s);
    b.topk(4, "16384 x 4096 rows, top-64 largest", in, 64, false);
    b.topk(4, "16384 x 4096 rows, top-64 largest sorted", in, 64, true);
  }
  if (wanted(5)) {
    for (const int mean : {64, 1024, 16384}) {
      const auto in =
          make_input<float>(offsets_of(lognormal_lengths(mean, std::int64_t{1} << 26, 5 + mean)), false, o, s);
      b.quantile(5, "ragged lognormal mean " + std::to_string(mean) + ", median", in, {0.5});
    }
  }
  if (wanted(6)) {
    const auto in = make_input<float>(offsets_of(huge_among_tiny_lengths(6)), false, o, s);
    const std::vector<std::int64_t> ks = middle_ranks(in.offsets);
    b.select(6, "2^25 + 2^20 x (1..32), select_each len/2", in, 0, &ks);
    b.quantile(6, "2^25 + 2^20 x (1..32), median", in, {0.5});
  }
  if (wanted(7)) {
    std::vector<double> qs;
    for (int p = 0; p <= 100; ++p) qs.push_back(p / 100.0);
    const auto in = make_input<float>(row_offsets(4096, 16384), true, o, s);
    b.quantile(7, "4096 x 16384 rows, 101 percentiles", in, qs);
  }
  if (wanted(8)) {
    const auto in = make_input<float>(row_offsets(64, 151936), true, o, s);
    b.topk(8, "64 x 151936 (LLM vocab), top-50", in, 50, false);
    b.topk(8, "64 x 151936 (LLM vocab), top-50 sorted", in, 50, true);
    const auto half = make_input<__nv_bfloat16>(row_offsets(64, 151936), true, o, s);
    b.topk(8, "64 x 151936 (LLM vocab), top-50", half, 50, false);
    b.topk(8, "64 x 151936 (LLM vocab), top-50 sorted", half, 50, true);
  }
}

}  // namespace

int main(int argc, char** argv) {
  bench_options o;
  kselect::bench::arguments args("kselect-segmented-bench");
  args.value("--case", "N", &o.only_case, 0, 8);
  args.value("--commit", "SHA", &o.commit);
  if (!args.parse(argc, argv, o)) return 2;
  if (o.quick) {
    o.reps = kselect::bench::min_reps;
    o.warmup = 1;
  }
  const kselect::bench::bench_device device("kselect-segmented-bench");
  if (!device.ok()) return 2;
  const cudaStream_t stream = device.stream();
  std::printf("device: %s; median of %d runs after %d warm-up\n", device.prop().name, o.reps, o.warmup);
  std::printf("%-4s %-40s %-5s %8s %10s %10s %9s %9s %8s %8s  %s\n", "case", "what", "type", "m", "n", "kselect_ms",
              "floor_ms", "cub_ms", "ks/floor", "cub/ks", "check");
  bench_run b(o, stream);
  run_cases(o, stream, b);

  bool all_ok = true;
  nlohmann::json results = nlohmann::json::array();
  for (const result_row& r : b.rows()) {
    all_ok = all_ok && r.mismatches == 0;
    results.push_back({{"case", r.case_number},
                       {"line", r.line},
                       {"type", r.type},
                       {"m", r.m},
                       {"n", r.n},
                       {"kselect_ms", r.kselect_ms},
                       {"floor_ms", r.floor_ms},
                       {"cub_ms", r.cub_ms},
                       {"correct", r.mismatches == 0},
                       {"mismatches", r.mismatches}});
  }
  if (!o.json_path.empty()) {
    nlohmann::json j;
    j["device"] = device.prop().name;
    j["date"] = kselect::bench::utc_date();
    if (!o.commit.empty()) j["commit"] = o.commit;
    j["reps"] = o.reps;
    j["timing"] = "CUDA events around each call on one stream, median after warm-up";
    j["baseline"] = "CUB segmented sort (DeviceSegmentedRadixSort for rows, DeviceSegmentedSort for ragged) + pick";
    j["floor"] = "cub::DeviceReduce::Sum over the same bytes";
    j["results"] = results;
    if (!kselect::bench::write_json(o.json_path, j)) return 1;
  }
  return all_ok ? 0 : 1;
}
