// kselect demo: uniform floats; the median, the 101 percentiles and the 1000
// smallest computed with kselect and checked against a full sort (std::sort on
// the CPU, cub::DeviceRadixSort on a GPU).
#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdio>
#include <span>

#include "args.hpp"
#include "backend.hpp"
#include "commands.hpp"
#include "demo_data.hpp"
#include "errors.hpp"
#include "format.hpp"
#include "gpu.hpp"
#include "kselect/kselect.hpp"
#include "output.hpp"
#include "core/quantile_math.hpp"

namespace kselect_cli {
namespace {

constexpr std::int64_t kSmallest = 1000;

/// The demo's values where the backend runs, and their sorted copy.
class demo_input {
 public:
  demo_input(const backend& b, std::int64_t n, std::uint64_t seed) : cuda_(b.cuda), n_(n) {
    stopwatch sw;
    if (cuda_) {
      device_ = gpu::device_buffer(static_cast<std::size_t>(n) * sizeof(float));
      gpu::fill_uniform(device_, n, seed);
    } else {
      host_ = host_array<float>(n);
      float* v = host_.data();
#pragma omp parallel for
      for (std::int64_t i = 0; i < n; ++i) v[i] = demo_value(seed, static_cast<std::uint64_t>(i));
    }
    generate_ms_ = sw.ms();
  }

  const float* values() const { return cuda_ ? static_cast<const float*>(device_.get()) : host_.data(); }
  std::int64_t size() const { return n_; }
  bool on_gpu() const { return cuda_; }
  double generate_ms() const { return generate_ms_; }
  const char* sort_name() const {
    return cuda_ ? "cub::DeviceRadixSort::SortKeys on the device" : "std::sort of a copy";
  }

  /// Sorts a copy; returns the sort's time in ms.
  double sort() {
    if (cuda_) return gpu::sort_floats(device_, device_sorted_, n_);
    host_sorted_ = host_array<float>(n_);
    std::copy_n(host_.data(), n_, host_sorted_.data());
    stopwatch sw;
    std::sort(host_sorted_.data(), host_sorted_.data() + n_);
    return sw.ms();
  }

  /// sorted[first, first + count)
  std::vector<float> sorted(std::int64_t first, std::int64_t count) const {
    std::vector<float> out(static_cast<std::size_t>(count));
    if (cuda_)
      device_sorted_.download(out.data(), static_cast<std::size_t>(first) * sizeof(float),
                              out.size() * sizeof(float));
    else
      std::copy_n(host_sorted_.data() + first, count, out.data());
    return out;
  }

 private:
  bool cuda_;
  std::int64_t n_;
  double generate_ms_ = 0;
  host_array<float> host_, host_sorted_;
  gpu::device_buffer device_, device_sorted_;
};

struct check {
  std::string name;     // "median", "percentiles", "smallest"
  std::string label;    // for the text output
  std::string summary;  // the answer, or a summary of a long list
  std::vector<double> quantiles;  // empty for "smallest"
  std::vector<float> values;
  double kselect_ms = 0;
  std::string failure;  // empty when the check passed
};

/// NumPy's linear quantile computed from the sorted array with the library's own
/// quantile recipe (core/quantile_math.hpp): kselect must match it exactly, since
/// both combine the same two order statistics the same way.
std::string check_quantiles(const demo_input& in, const std::vector<double>& qs,
                            const std::vector<float>& got) {
  const std::int64_t n = in.size();
  for (std::size_t i = 0; i < qs.size(); ++i) {
    const kselect::core::quantile_point p =
        kselect::core::quantile_point_for(n, qs[i], kselect::quantile_method::linear);
    const float a = in.sorted(p.lo, 1)[0], b = in.sorted(p.hi, 1)[0];
    const float ref = kselect::core::combine<float>(p, a, b);
    if (!(got[i] == ref))
      return "q=" + format_value(qs[i]) + ": kselect " + format_value(got[i]) + ", sort " + format_value(ref);
  }
  return {};
}

std::string check_smallest(const demo_input& in, const std::vector<float>& got) {
  const auto ref = in.sorted(0, static_cast<std::int64_t>(got.size()));
  for (std::size_t i = 0; i < got.size(); ++i)
    if (!(got[i] == ref[i]))
      return "rank " + std::to_string(i) + ": kselect " + format_value(got[i]) + ", sort " +
             format_value(ref[i]);
  return {};
}

std::string percentile_summary(const std::vector<float>& v) {
  std::string s;
  for (int p : {0, 1, 25, 50, 75, 99, 100}) {
    if (!s.empty()) s += ' ';
    s += 'p';
    s += std::to_string(p);
    s += '=';
    s += format_value(v[static_cast<std::size_t>(p)]);
  }
  return s;
}

std::string text_report(const demo_input& in, const std::vector<check>& checks, double sort_ms) {
  std::string out;
  char line[512];
  double total = 0;
  int failed = 0;
  for (const auto& c : checks) {
    std::snprintf(line, sizeof line, "%-16s kselect %10.3f ms   sort %10.3f ms   %-6s %s\n",
                  c.label.c_str(), c.kselect_ms, sort_ms, c.failure.empty() ? "ok" : "FAILED",
                  (c.failure.empty() ? c.summary : c.failure).c_str());
    out += line;
    total += c.kselect_ms;
    failed += !c.failure.empty();
  }
  std::snprintf(line, sizeof line, "kselect %.3f ms for all three; the reference (%s) %.3f ms%s\n",
                total, in.sort_name(), sort_ms,
                in.on_gpu() ? " (each timed after one untimed warm-up run)" : "");
  out += line;
  out += failed ? std::to_string(failed) + " of " + std::to_string(checks.size()) + " checks FAILED\n"
                : "all " + std::to_string(checks.size()) + " checks passed\n";
  return out;
}

std::string json_report(const demo_input& in, const backend& b, std::uint64_t seed,
                        const std::vector<check>& checks, double sort_ms) {
  std::string items = "[";
  bool all_ok = true;
  for (const auto& c : checks) {
    json_object o;
    o.add("name", json_string(c.name));
    if (!c.quantiles.empty()) o.add("quantiles", json_array(c.quantiles));
    else o.add("ranks", "{\"first\":0,\"count\":" + std::to_string(c.values.size()) + "}");
    o.add("values", json_array(c.values))
        .add("time_ms", json_ms(c.kselect_ms))
        .add("ok", c.failure.empty() ? "true" : "false");
    if (!c.failure.empty()) o.add("failure", json_string(c.failure));
    if (items.size() > 1) items += ',';
    items += o.str();
    all_ok = all_ok && c.failure.empty();
  }
  items += "]";
  json_object out;
  out.add("command", json_string("demo"))
      .add("device", json_string(b.name()))
      .add("backend", json_string(b.description))
      .add("dtype", json_string("float32"))
      .add("n", json_number(in.size()))
      .add("seed", json_number(seed))
      .add("reference", json_string(in.sort_name()))
      .add("checks", items)
      .add("time_ms", json_object()
                          .add("generate", json_ms(in.generate_ms()))
                          .add("sort", json_ms(sort_ms))
                          .str())
      .add("ok", all_ok ? "true" : "false");
  return out.str() + '\n';
}

}  // namespace

int run_demo(const common_options& common, const demo_options& opts) {
  const std::int64_t given_n = opts.n_given ? parse_count("--n", opts.n) : 0;
  if (opts.n_given && (given_n < 1 || given_n > INT32_MAX))
    throw input_error("--n: " + opts.n + " is not in [1, 2147483647]");
  const std::uint64_t seed = parse_unsigned("--seed", opts.seed);
  const backend b = choose_backend(common.device);
  const std::int64_t n = opts.n_given ? given_n : (b.cuda ? std::int64_t{1} << 28 : std::int64_t{1} << 24);
  if (!common.json)
    write_stdout("kselect demo: " + std::to_string(n) + " uniform float32 values in (0, 1], seed " +
                 std::to_string(seed) + "\n" + b.description + "\n");

  demo_input in(b, n, seed);
  kselect::options opt;
  opt.device = b.cuda ? kselect::device_kind::cuda : kselect::device_kind::cpu;

  std::vector<check> checks(3);
  checks[0] = {"median", "median", "", {0.5}, {}, 0, ""};
  checks[1] = {"percentiles", "101 percentiles", "", percentile_quantiles(), {}, 0, ""};
  const std::int64_t k = std::min(kSmallest, n);
  checks[2] = {"smallest", std::to_string(k) + " smallest", "", {}, {}, 0, ""};
  auto run_check = [&](check& c) {
    if (!c.quantiles.empty())
      return kselect::quantile(in.values(), n, std::span<const double>(c.quantiles),
                               kselect::quantile_method::linear, opt);
    std::vector<std::int64_t> ranks(static_cast<std::size_t>(k));
    for (std::int64_t r = 0; r < k; ++r) ranks[static_cast<std::size_t>(r)] = r;
    return kselect::multiselect(in.values(), n, std::span<const std::int64_t>(ranks), opt);
  };
  for (auto& c : checks) {
    // On a GPU the first call also loads kernels (CUDA lazy loading): warm up untimed.
    if (b.cuda) run_check(c);
    stopwatch sw;
    c.values = run_check(c);
    c.kselect_ms = sw.ms();
  }

  const double sort_ms = in.sort();
  checks[0].summary = format_value(checks[0].values[0]);
  checks[0].failure = check_quantiles(in, checks[0].quantiles, checks[0].values);
  checks[1].summary = percentile_summary(checks[1].values);
  checks[1].failure = check_quantiles(in, checks[1].quantiles, checks[1].values);
  checks[2].summary = "rank 0: " + format_value(checks[2].values.front()) + ", rank " +
                      std::to_string(k - 1) + ": " + format_value(checks[2].values.back());
  checks[2].failure = check_smallest(in, checks[2].values);

  write_stdout(common.json ? json_report(in, b, seed, checks, sort_ms)
                           : text_report(in, checks, sort_ms));
  const bool ok = std::all_of(checks.begin(), checks.end(), [](const check& c) { return c.failure.empty(); });
  return ok ? exit_ok : exit_failure;
}

}  // namespace kselect_cli
