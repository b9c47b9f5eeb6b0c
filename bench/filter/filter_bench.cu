// Order-preserving filtering on the GPU (issue 4): kselect's device filters
// (kselect/device_filter.cuh) against what a user would call instead
// (cub::DeviceSelect::If, cub::DevicePartition::If), the one-read floor
// (cub::DeviceReduce::Sum over the input) and the copy bandwidth (cudaMemcpyAsync
// device to device), all in one run on the same inputs.
//
// 2^28 float keys (1 GiB, many times L2) uniform in (0, 1), made on the device;
// predicate x < t with t the selectivity (0, 0.1, 1, 50, 99, 100 %):
//   - ours: filter_if with single_pass, three_phase and automatic; at 1% and 50%
//     also filter_if_indices (int64, single pass), keys with positions and the
//     positions alone; at 50% partition (three phases);
//   - CUB: DeviceSelect::If; at 1% and 50% DeviceSelect::FlaggedIf over a counting
//     iterator with the keys as flags (the positions, CUB's way: the reference of
//     ours); at 50% DevicePartition::If.
// Then 2^27 doubles (the same 1 GiB) at 1% and 50%: single pass, three phases, CUB.
//
// Columns: "moved" = input bytes + output bytes (selected * key bytes, + 8 per
// position; n keys for a partition); ideal = moved / copy bandwidth, the copy's
// bandwidth counting its read and write bytes; GB/s and "% copy" on that basis;
// "vs cub" = CUB's time / ours (> 1: ours faster), against the CUB row producing the
// same output. Every output of ours is compared with CUB's on the device, count and
// bytes (CUB's partition writes the rejected keys in reverse order: that part is
// compared reversed): MISMATCH and exit status 1 otherwise.
// Timing: CUDA events around the whole call (its init kernel, scans and host-side
// checks included), one workspace allocated before any timing, 3 warm-ups, median
// of --reps (15) runs.
//
// Usage: kselect-filter-bench [--json FILE] [--reps N] [--commit SHA] [--quick]
//   --quick: 2^24 floats and 2^23 doubles (a smoke run: 64 MiB, near L2's size,
//   so its bandwidths are not the large-input ones).
// The command line, the timing, the floor and the JSON file: bench/harness.
#include <cub/device/device_partition.cuh>
#include <cub/device/device_select.cuh>
#include <nlohmann/json.hpp>
#include <thrust/iterator/counting_iterator.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <string>
#include <type_traits>
#include <vector>

#include "common/device_data.cuh"
#include "harness/harness.hpp"
#include "kselect/device.hpp"
#include "kselect/device_filter.cuh"
#include "core/sampling.hpp"

using kselect::bench::check_call;
using kselect::bench::time_median;
using kselect::test::cuda_check;
using kselect::test::device_buffer;
using kselect::device::filter_algorithm;

namespace {

/// kselect-filter-bench's options: the harness's and its own.
struct bench_options : kselect::bench::run_options {
  std::string commit = "unknown";
};

/// One target selectivity and the extra rows measured at it.
struct selectivity {
  const char* label;
  double fraction;         ///< also the threshold t: the keys are uniform in (0, 1)
  bool indices = false;    ///< filter_if_indices rows
  bool partition = false;  ///< partition rows
};

struct row {
  std::string type, selectivity, method, impl;  ///< impl: ours, cub, floor, copy
  std::int64_t n = 0;
  double threshold = 0;
  std::int64_t selected = 0;
  double ms = 0;
  double bytes = 0;       ///< moved: input + output
  double floor_ms = 0;
  double copy_gbps = 0;
  double cub_ms = 0;      ///< the CUB row with the same output; 0: none
  std::string check;      ///< ok, MISMATCH, ref (CUB: the reference), - (floor, copy)

  double gbps() const { return bytes / ms * 1e-6; }
  double ideal_ms() const { return bytes / (copy_gbps * 1e6); }
  double pct_copy() const { return 100.0 * ideal_ms() / ms; }
  double vs_cub() const { return cub_ms > 0 ? cub_ms / ms : 0; }
};

const char* algo_name(filter_algorithm a) {
  switch (a) {
    case filter_algorithm::single_pass: return "single_pass";
    case filter_algorithm::three_phase: return "three_phase";
    case filter_algorithm::automatic: return "automatic";
  }
  return "?";
}

/// Keys k * 2^-b, b the significand's bits and k in [1, 2^b): exact in T and inside
/// (0, 1), so t = 1 selects every key and t = 0 none (device_data.cuh's generator
/// casts a double in [0, 1) to the key type, which can round up to 1.0f), and no
/// key is 0, the value an unwritten output word could hold.
template <class T>
__global__ void unit_keys_kernel(T* out, std::int64_t n, std::uint64_t seed) {
  constexpr int bits = sizeof(T) == 4 ? 24 : 53;
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < n;
       i += std::int64_t(gridDim.x) * blockDim.x) {
    std::uint64_t k = kselect::core::mix64(seed ^ static_cast<std::uint64_t>(i)) >> (64 - bits);
    if (k == 0) k = 1;
    out[i] = static_cast<T>(k) * static_cast<T>(1.0 / static_cast<double>(std::uint64_t(1) << bits));
  }
}

/// reversed_from of a comparison without a reversed part.
constexpr std::int64_t no_reversal = INT64_MAX;

/// Counts the i < n where got[i] differs bitwise from want[i] or, from i = reversed_from
/// on, from want[n - 1 - (i - reversed_from)].
template <class U>
__global__ void count_mismatches_kernel(const U* got, const U* want, std::int64_t n, std::int64_t reversed_from,
                                        unsigned long long* mismatches) {
  unsigned long long local = 0;
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < n;
       i += std::int64_t(gridDim.x) * blockDim.x) {
    const std::int64_t j = i < reversed_from ? i : n - 1 - (i - reversed_from);
    local += got[i] != want[j];
  }
  if (local) atomicAdd(mismatches, local);
}

template <class T>
unsigned long long count_mismatches(const T* got, const T* want, std::int64_t n, std::int64_t reversed_from,
                                    cudaStream_t stream) {
  using U = std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>;
  static_assert(sizeof(T) == sizeof(U));
  device_buffer<unsigned long long> d(1);
  cuda_check(cudaMemsetAsync(d.data(), 0, sizeof(unsigned long long), stream), "memset");
  if (n > 0) {
    count_mismatches_kernel<U><<<132 * 16, 256, 0, stream>>>(reinterpret_cast<const U*>(got),
                                                             reinterpret_cast<const U*>(want), n, reversed_from,
                                                             d.data());
    cuda_check(cudaPeekAtLastError(), "count_mismatches_kernel");
  }
  cuda_check(cudaStreamSynchronize(stream), "compare");
  return d.to_host()[0];
}

/// The device count, after the stream's work (the stream does not synchronise with
/// the legacy default stream that cudaMemcpy uses).
std::int64_t read_count(const std::int64_t* d, cudaStream_t stream) {
  cuda_check(cudaStreamSynchronize(stream), "sync");
  std::int64_t h = -1;
  cuda_check(cudaMemcpy(&h, d, sizeof h, cudaMemcpyDeviceToHost), "read count");
  return h;
}

/// A sentinel in every byte (NaN for floats), so that positions a run fails to write
/// cannot keep a previous row's correct output.
template <class T>
void poison(T* p, std::int64_t count, cudaStream_t stream) {
  if (count > 0) cuda_check(cudaMemsetAsync(p, 0xff, static_cast<std::size_t>(count) * sizeof(T), stream), "poison");
}

void print_header() {
  std::printf("%-6s %5s %-50s %11s %9s %7s %9s %8s %7s %6s %6s  %s\n", "type", "sel", "method", "selected", "ms",
              "x floor", "moved MB", "ideal ms", "GB/s", "%copy", "vs cub", "check");
}

void print_row(const row& r) {
  char vs[16] = "-";
  if (r.cub_ms > 0) std::snprintf(vs, sizeof vs, "%.2f", r.vs_cub());
  std::printf("%-6s %5s %-50s %11lld %9.3f %7.2f %9.1f %8.3f %7.0f %6.1f %6s  %s\n", r.type.c_str(),
              r.selectivity.c_str(), r.method.c_str(), static_cast<long long>(r.selected), r.ms, r.ms / r.floor_ms,
              r.bytes * 1e-6, r.ideal_ms(), r.gbps(), r.pct_copy(), vs, r.check.c_str());
  std::fflush(stdout);
}

/// All rows of one key type. Returns false when an output of ours differs from CUB's.
template <class T>
bool bench_type(const char* type, std::int64_t n, const std::vector<selectivity>& sels,
                const std::vector<filter_algorithm>& algos, const bench_options& o, cudaStream_t stream,
                std::vector<row>& rows, nlohmann::json& type_info) {
  const auto un = static_cast<std::size_t>(n);
  const double key_bytes = sizeof(T), in_bytes = static_cast<double>(n) * key_bytes;
  device_buffer<T> data(un);
  unit_keys_kernel<T><<<132 * 32, 256, 0, stream>>>(data.data(), n, 1000);
  cuda_check(cudaPeekAtLastError(), "unit_keys_kernel");
  cuda_check(cudaStreamSynchronize(stream), "generate");

  device_buffer<T> ours(un), ref(un);
  device_buffer<std::int64_t> counts(2);
  std::int64_t* const our_count = counts.data();
  std::int64_t* const ref_count = counts.data() + 1;
  bool any_indices = false;
  for (const selectivity& s : sels) any_indices = any_indices || s.indices;
  device_buffer<std::int64_t> our_idx(any_indices ? un : 0), ref_idx(any_indices ? un : 0);
  const thrust::counting_iterator<std::int64_t> positions(0);

  // The predicate the calls below capture; each selectivity sets it.
  kselect::predicate<T> pred = kselect::lt(T(0));

  // One workspace for every call, sized by their size queries (none depends on the
  // threshold), so that no allocation runs between timed calls.
  std::size_t ws_bytes = 0;
  {
    auto need = [&](std::size_t b) { ws_bytes = std::max(ws_bytes, b); };
    std::size_t b = 0;
    cuda_check(cub::DeviceSelect::If(nullptr, b, data.data(), ref.data(), ref_count, n, pred, stream),
               "select query");
    need(b);
    if (any_indices) {
      cuda_check(cub::DeviceSelect::FlaggedIf(nullptr, b, positions, data.data(), ref_idx.data(), ref_count, n, pred,
                                              stream),
                 "flagged query");
      need(b);
    }
    cuda_check(cub::DevicePartition::If(nullptr, b, data.data(), ref.data(), ref_count, n, pred, stream),
               "partition query");
    need(b);
    for (const filter_algorithm a : {filter_algorithm::single_pass, filter_algorithm::three_phase}) {
      const kselect::device::filter_config cfg{a};
      check_call(kselect::device::filter_if(nullptr, b, data.data(), ours.data(), our_count, n, pred, stream, cfg),
                 "filter_if query");
      need(b);
      check_call(kselect::device::filter_if_indices(nullptr, b, data.data(), ours.data(), our_idx.data(), our_count,
                                                    n, pred, stream, cfg),
                 "filter_if_indices query");
      need(b);
    }
    check_call(kselect::device::partition(nullptr, b, data.data(), ours.data(), our_count, n, pred, stream,
                                          {filter_algorithm::three_phase}),
               "partition query");
    need(b);
  }
  device_buffer<char> ws(ws_bytes);

  // The floor (one read) and the copy bandwidth.
  const double floor_ms = kselect::bench::read_floor_ms<T>(stream, 1, o, n, [&](int) { return data.data(); });
  const double copy_ms = time_median(stream, o, [&] {
    cuda_check(cudaMemcpyAsync(ours.data(), data.data(), un * sizeof(T), cudaMemcpyDeviceToDevice, stream), "copy");
  });
  const double copy_gbps = 2 * in_bytes / copy_ms * 1e-6;
  type_info = {{"type", type},       {"n", n},           {"input_bytes", in_bytes}, {"floor_ms", floor_ms},
               {"copy_ms", copy_ms}, {"copy_gbps", copy_gbps}, {"workspace_bytes", ws_bytes}};

  auto add = [&](const char* sel, double t, const std::string& method, const char* impl, std::int64_t selected,
                 double ms, double bytes, double cub_ms, const std::string& check) {
    rows.push_back({type, sel, method, impl, n, t, selected, ms, bytes, floor_ms, copy_gbps, cub_ms, check});
    print_row(rows.back());
  };
  add("-", 0, "floor: cub::DeviceReduce::Sum (one read)", "floor", 0, floor_ms, in_bytes, 0, "-");
  add("-", 0, "copy: cudaMemcpyAsync D2D (read + write)", "copy", n, copy_ms, 2 * in_bytes, 0, "-");

  bool all_ok = true;
  // "ok" when ours matches the reference: counts equal and the first `compared`
  // elements (from `reversed_from` on, CUB's reversed tail) bitwise equal.
  auto verdict = [&](const char* sel, const std::string& method, std::int64_t got, std::int64_t want,
                     unsigned long long differing) -> std::string {
    if (got == want && differing == 0) return "ok";
    all_ok = false;
    std::fprintf(stderr, "MISMATCH %s %s %s: %lld selected, CUB %lld; %llu elements differ\n", type, sel,
                 method.c_str(), static_cast<long long>(got), static_cast<long long>(want), differing);
    return "MISMATCH";
  };

  for (const selectivity& s : sels) {
    const T t = static_cast<T>(s.fraction);
    pred = kselect::lt(t);

    // CUB first: its outputs are the references of the rows after it.
    const double cub_ms = time_median(stream, o, [&] {
      std::size_t b = ws_bytes;
      cuda_check(cub::DeviceSelect::If(ws.data(), b, data.data(), ref.data(), ref_count, n, pred, stream),
                 "DeviceSelect::If");
    });
    const std::int64_t want = read_count(ref_count, stream);
    add(s.label, t, "cub::DeviceSelect::If", "cub", want, cub_ms, in_bytes + want * key_bytes, 0, "ref");

    for (const filter_algorithm a : algos) {
      const kselect::device::filter_config cfg{a};
      poison(ours.data(), n, stream);
      const double ms = time_median(stream, o, [&] {
        check_call(kselect::device::filter_if(ws.data(), ws_bytes, data.data(), ours.data(), our_count, n, pred,
                                              stream, cfg),
                   "filter_if");
      });
      const std::int64_t got = read_count(our_count, stream);
      const std::string method = std::string("filter_if ") + algo_name(a);
      const auto differing = count_mismatches(ours.data(), ref.data(), std::min(got, want), no_reversal, stream);
      add(s.label, t, method, "ours", got, ms, in_bytes + got * key_bytes, cub_ms,
          verdict(s.label, method, got, want, differing));
    }

    if (s.indices) {
      const double flagged_ms = time_median(stream, o, [&] {
        std::size_t b = ws_bytes;
        cuda_check(cub::DeviceSelect::FlaggedIf(ws.data(), b, positions, data.data(), ref_idx.data(), ref_count, n,
                                                pred, stream),
                   "DeviceSelect::FlaggedIf");
      });
      const std::int64_t want_idx = read_count(ref_count, stream);
      add(s.label, t, "cub::DeviceSelect::FlaggedIf(counting, keys) positions", "cub", want_idx, flagged_ms,
          in_bytes + want_idx * 8.0, 0, "ref");

      const kselect::device::filter_config cfg{filter_algorithm::single_pass};
      for (const bool with_keys : {true, false}) {
        T* const keys_out = with_keys ? ours.data() : nullptr;
        if (with_keys) poison(ours.data(), n, stream);
        poison(our_idx.data(), n, stream);
        const double ms = time_median(stream, o, [&] {
          check_call(kselect::device::filter_if_indices(ws.data(), ws_bytes, data.data(), keys_out, our_idx.data(),
                                                        our_count, n, pred, stream, cfg),
                     "filter_if_indices");
        });
        const std::int64_t got = read_count(our_count, stream);
        const std::string method =
            std::string("filter_if_indices single_pass, ") + (with_keys ? "keys + int64 positions" : "int64 positions");
        auto differing =
            count_mismatches(our_idx.data(), ref_idx.data(), std::min(got, want_idx), no_reversal, stream);
        if (with_keys)
          differing += count_mismatches(ours.data(), ref.data(), std::min(got, want), no_reversal, stream);
        // Keys and positions: no CUB call writes both (its two rows above, added, would be two reads).
        add(s.label, t, method, "ours", got, ms, in_bytes + got * (8.0 + (with_keys ? key_bytes : 0)),
            with_keys ? 0 : flagged_ms, verdict(s.label, method, got, want_idx, differing));
      }
    }

    if (s.partition) {
      const double part_ms = time_median(stream, o, [&] {
        std::size_t b = ws_bytes;
        cuda_check(cub::DevicePartition::If(ws.data(), b, data.data(), ref.data(), ref_count, n, pred, stream),
                   "DevicePartition::If");
      });
      const std::int64_t want_part = read_count(ref_count, stream);
      add(s.label, t, "cub::DevicePartition::If (rejected reversed)", "cub", want_part, part_ms, 2 * in_bytes, 0,
          "ref");

      for (const filter_algorithm a : {filter_algorithm::single_pass, filter_algorithm::three_phase}) {
        poison(ours.data(), n, stream);
        const double ms = time_median(stream, o, [&] {
          check_call(kselect::device::partition(ws.data(), ws_bytes, data.data(), ours.data(), our_count, n, pred,
                                                stream, {a}),
                     "partition");
        });
        const std::int64_t got = read_count(our_count, stream);
        const std::string method = std::string("partition ") + algo_name(a);
        // Ours keeps the rejected keys in input order, CUB reverses them: the selected part is compared.
        const auto differing = count_mismatches(ours.data(), ref.data(), n, std::min(got, want_part), stream);
        add(s.label, t, method, "ours", got, ms, 2 * in_bytes, part_ms,
            verdict(s.label, method, got, want_part, differing));
      }
    }
  }
  return all_ok;
}

}  // namespace

int main(int argc, char** argv) try {
  bench_options o;
  kselect::bench::arguments args("kselect-filter-bench");
  args.value("--commit", "SHA", &o.commit);
  if (!args.parse(argc, argv, o)) return 2;
  const kselect::bench::bench_device device("kselect-filter-bench");
  if (!device.ok()) return 2;
  const cudaDeviceProp& prop = device.prop();
  const cudaStream_t stream = device.stream();
  const std::string date = kselect::bench::utc_date();

  const int float_log2n = o.quick ? 24 : 28;
  std::printf("%s (%d SMs, L2 %d MB), %s, commit %s\n", prop.name, prop.multiProcessorCount, prop.l2CacheSize >> 20,
              date.c_str(), o.commit.c_str());
  std::printf("filter x < t, keys uniform in (0, 1): float 2^%d, double 2^%d; median of %d runs after %d warm-ups%s\n",
              float_log2n, float_log2n - 1, o.reps, o.warmup, o.quick ? " (--quick)" : "");
  print_header();

  const std::vector<selectivity> float_sels = {
      {"0%", 0.0}, {"0.1%", 0.001}, {"1%", 0.01, true}, {"50%", 0.5, true, true}, {"99%", 0.99}, {"100%", 1.0}};
  const std::vector<selectivity> double_sels = {{"1%", 0.01}, {"50%", 0.5}};
  std::vector<row> rows;
  nlohmann::json types = nlohmann::json::array();
  bool all_ok = true;
  {
    nlohmann::json info;
    all_ok &= bench_type<float>(
        "float", std::int64_t(1) << float_log2n, float_sels,
        {filter_algorithm::single_pass, filter_algorithm::three_phase, filter_algorithm::automatic}, o, stream, rows,
        info);
    types.push_back(info);
  }
  {
    nlohmann::json info;
    all_ok &= bench_type<double>("double", std::int64_t(1) << (float_log2n - 1), double_sels,
                                 {filter_algorithm::single_pass, filter_algorithm::three_phase}, o, stream, rows, info);
    types.push_back(info);
  }

  if (!o.json_path.empty()) {
    nlohmann::json j;
    j["device"] = prop.name;
    j["sms"] = prop.multiProcessorCount;
    j["l2_bytes"] = prop.l2CacheSize;
    j["date"] = date;
    j["commit"] = o.commit;
    j["reps"] = o.reps;
    j["warmup"] = o.warmup;
    j["quick"] = o.quick;
    j["timing"] = "CUDA events around each whole call on one stream, median after warm-up";
    j["bytes_basis"] = "input bytes + output bytes; copy_gbps counts the D2D copy's read and write bytes";
    j["types"] = types;
    j["rows"] = nlohmann::json::array();
    for (const row& r : rows)
      j["rows"].push_back({{"type", r.type},
                           {"n", r.n},
                           {"selectivity", r.selectivity},
                           {"threshold", r.threshold},
                           {"method", r.method},
                           {"impl", r.impl},
                           {"selected", r.selected},
                           {"ms", r.ms},
                           {"bytes", r.bytes},
                           {"gbps", r.gbps()},
                           {"ideal_ms", r.ideal_ms()},
                           {"pct_copy", r.pct_copy()},
                           {"floor_ms", r.floor_ms},
                           {"copy_gbps", r.copy_gbps},
                           {"cub_ms", r.cub_ms > 0 ? nlohmann::json(r.cub_ms) : nlohmann::json()},
                           {"vs_cub", r.cub_ms > 0 ? nlohmann::json(r.vs_cub()) : nlohmann::json()},
                           {"check", r.check}});
    j["all_match"] = all_ok;
    if (!kselect::bench::write_json(o.json_path, j)) return 1;
  }
  std::printf("%s\n", all_ok ? "every output of ours matches CUB's" : "MISMATCH (details on stderr)");
  return all_ok ? 0 : 1;
} catch (const std::exception& e) {
  std::fprintf(stderr, "kselect-filter-bench: %s\n", e.what());
  return 1;
}
