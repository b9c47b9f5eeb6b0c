// kselect --distributed select|quantile|topk: the local commands' questions over an
// MPI job (distributed.hpp). Every process parses the same command line, reads its
// part of the input (distributed_input.hpp), places it where its backend runs and
// takes part in one kselect::mpi call; process 0 gets the answers and prints them
// through the local commands' printers, so the output is the local tool's for the
// whole input (--json adds the job's fields).
//
// What can fail on one process only (a mistake, a missing file, a device copy) is
// agreed on before the next collective (mpi_job::step): every process then ends
// with the same exit code, process 0 reporting. The library agrees on its own
// arguments (its std::invalid_argument comes on every process); its other errors
// (an MPI failure) may come on one process while the others wait inside a
// collective, so they end the job with MPI_Abort.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "args.hpp"
#include "backend.hpp"
#include "command_fields.hpp"
#include "command_line.hpp"
#include "distributed.hpp"
#include "distributed_input.hpp"
#include "errors.hpp"
#include "format.hpp"
#include "gpu.hpp"
#include "kselect/kselect.hpp"
#include "kselect/mpi.hpp"
#include "loaded_input.hpp"
#include "mpi_job.hpp"
#include "progress.hpp"
#include "selection_output.hpp"
#include "stopwatch.hpp"
#include "values_output.hpp"

namespace kselect_cli {
namespace {

namespace kmpi = kselect::mpi;

/// One distributed command's run on this process: its backend, its part of the
/// input, the timings, and process 0's output.
class distributed_run {
 public:
  distributed_run(mpi_job& job, const command_line& cl) : job_(job), common_(cl.common), dist_(cl.distributed) {}

  mpi_job& job() { return job_; }
  const distributed_input& input() const { return in_; }

  /// Chooses the algorithm and this process's backend, then reads its part of `file`
  /// (or its shard). Collective; fails every process alike.
  void start(const std::string& file) {
    job_.step([&] {
      algo_ = kmpi::parse_algorithm(dist_.algorithm.c_str());
      transport_ = kmpi::parse_transport(dist_.transport.c_str());
      // A GPU of this host by the process's rank on it (before any CUDA context).
      if (common_.device != "cpu" && gpu::built_with_cuda() && kselect::cuda_available())
        gpu::bind_device(job_.local_rank());
      backend_ = choose_backend(common_.device);
      // NCCL all-reduces device buffers: every process's part must be on its GPU.
      if (transport_ == kmpi::transport::nccl && !backend_.cuda)
        throw input_error("--transport nccl: this process runs on the CPU (" +
                          std::string(common_.device == "cpu" ? "--device cpu" : "no usable GPU") +
                          "); nccl needs every process on its own GPU (--device cuda)");
    });
    in_ = load_distributed_input(job_, common_, dist_, file);
    t_.read_ms = in_.read_ms;
  }

  /// Runs call(values, n, options, report) -- a kselect::mpi call over job().comm(),
  /// answering on process 0 -- on this process's part where its backend runs.
  template <class T, class Call>
  auto call(const host_array<T>& data, std::string_view operation, Call&& f) {
    // A device copy that fails on one process fails all, before the call.
    std::optional<placed_input<T>> placed;
    job_.step([&] { placed.emplace(place_on_backend(backend_, data, t_)); });
    kmpi::options opt;
    opt.local = placed->options;
    opt.algo = algo_;
    opt.counts = transport_;
    opt.root = 0;
    // CPU processes of one host share its cores (unless OMP_NUM_THREADS says otherwise).
    if (!backend_.cuda && job_.local_size() > 1 && std::getenv("OMP_NUM_THREADS") == nullptr)
      opt.local.cpu_threads =
          std::max(1, static_cast<int>(std::thread::hardware_concurrency()) / job_.local_size());
    const progress shown(std::string(operation) + " on " + std::to_string(job_.size()) +
                         (job_.size() == 1 ? " process" : " processes"));
    stopwatch compute;
    auto result = f(placed->values, placed->n, opt, &report_);
    t_.compute_ms = compute.ms();
    return result;
  }

  /// Prints on process 0: print(fields, timings) with the --json fields of the input
  /// (n the global size), of the command (add_fields) and of the job. Collective.
  void finish(std::string_view command, const std::function<void(json_object&)>& add_fields,
              const std::function<void(const json_object&, const timings&)>& print) {
    // Every process's traffic, times and device, for --json (process 0 reports).
    std::vector<double> all;
    if (common_.json)
      all = job_.gather_to_first({static_cast<double>(report_.bytes_sent), t_.read_ms, t_.transfer_ms,
                                  t_.compute_ms, backend_.cuda ? 1.0 : 0.0});
    job_.step([&] {
      if (job_.rank() != 0) return;
      if (!common_.json) {
        print(json_object(), t_);
        return;
      }
      timings slowest;  // the job takes as long as its slowest process
      std::vector<std::int64_t> bytes_sent;
      int on_cuda = 0;
      for (int p = 0; p < job_.size(); ++p) {
        const double* mine = all.data() + 5 * static_cast<std::size_t>(p);
        bytes_sent.push_back(static_cast<std::int64_t>(mine[0]));
        slowest.read_ms = std::max(slowest.read_ms, mine[1]);
        slowest.transfer_ms = std::max(slowest.transfer_ms, mine[2]);
        slowest.compute_ms = std::max(slowest.compute_ms, mine[3]);
        on_cuda += mine[4] != 0 ? 1 : 0;
      }
      const std::string device = on_cuda == 0 ? "cpu" : on_cuda == job_.size() ? "cuda" : "mixed";
      json_object fields = command_json(command, in_.name, in_.type, in_.global_n, device);
      add_fields(fields);
      fields.add("processes", json_number(job_.size()))
          .add("input", json_string(in_.shards ? "shards" : "slices"))
          .add("process_n", json_array(in_.process_n))
          .add("algorithm", json_string(kmpi::to_string(algo_)))
          .add("transport", json_string(kmpi::to_string(transport_)))
          .add("rounds", json_number(report_.rounds))
          .add("collectives", json_number(report_.collectives))
          .add("candidates_after_round", json_array(report_.candidates_after_round))
          .add("gathered_keys", json_number(report_.gathered_keys))
          .add("bytes_sent", json_array(bytes_sent));
      print(fields, slowest);
    });
  }

 private:
  mpi_job& job_;
  const common_options& common_;
  const distributed_options& dist_;
  kmpi::algorithm algo_ = kmpi::algorithm::dibms;
  kmpi::transport transport_ = kmpi::transport::mpi;
  backend backend_;
  distributed_input in_;
  timings t_;
  kmpi::report report_;
};

int distributed_select(distributed_run& run, const common_options& common, const select_options& opts) {
  std::vector<std::int64_t> ranks;
  run.job().step([&] { ranks = parse_ranks(opts.ranks, opts.rank_option); });
  run.start(opts.file);
  run.job().step([&] { check_ranks(ranks, run.input().global_n, opts.rank_option); });
  visit_six_keys(
      [&](const auto& data) {
        using T = std::remove_cvref_t<decltype(*data.data())>;
        const MPI_Comm comm = run.job().comm();
        const std::vector<T> values =
            run.call(data, "selecting", [&](const T* v, std::int64_t n, const kmpi::options& opt, kmpi::report* r) {
              if (ranks.size() == 1) return std::vector<T>{kmpi::select(comm, v, n, ranks[0], opt, r)};
              return kmpi::multiselect(comm, v, n, std::span<const std::int64_t>(ranks), opt, r);
            });
        run.finish(
            "select", [&](json_object& fields) { fields.add("ranks", json_array(ranks)); },
            [&](const json_object& fields, const timings& t) { print_values(common, fields, values, t); });
      },
      run.input().values);
  return exit_ok;
}

int distributed_quantile(distributed_run& run, const common_options& common, const quantile_options& opts) {
  std::vector<double> qs;
  kselect::quantile_method method{};
  run.job().step([&] {
    qs = opts.percentiles ? percentile_quantiles() : parse_quantiles(opts.quantiles, opts.quantile_option);
    method = kselect::parse_quantile_method(opts.method);
  });
  run.start(opts.file);
  visit_six_keys(
      [&](const auto& data) {
        using T = std::remove_cvref_t<decltype(*data.data())>;
        const MPI_Comm comm = run.job().comm();
        const std::span<const double> q(qs);
        const auto values = run.call(
            data, "computing quantiles", [&](const T* v, std::int64_t n, const kmpi::options& opt, kmpi::report* r) {
              return opts.nan_ignore ? kmpi::nanquantile(comm, v, n, q, method, opt, r)
                                     : kmpi::quantile(comm, v, n, q, method, opt, r);
            });
        run.finish(
            "quantile", [&](json_object& fields) { add_quantile_fields(fields, method, opts, qs); },
            [&](const json_object& fields, const timings& t) { print_values(common, fields, values, t); });
      },
      run.input().values);
  return exit_ok;
}

int distributed_topk(distributed_run& run, const common_options& common, const topk_command_options& opts) {
  std::int64_t k = 0;
  run.job().step([&] { k = parse_count("-k", opts.k); });
  run.start(opts.file);
  run.job().step([&] { check_at_most_n("-k", k, run.input().global_n); });
  // Ties at the k-th value go to the lowest global indices: --deterministic is implied.
  topk_command_options asked = opts;
  asked.flags.deterministic = true;
  const kselect::topk_options t{opts.largest, opts.flags.sorted, true, opts.flags.indices};
  visit_six_keys(
      [&](const auto& data) {
        using T = std::remove_cvref_t<decltype(*data.data())>;
        const MPI_Comm comm = run.job().comm();
        const kselect::selection<T> s =
            run.call(data, "selecting", [&](const T* v, std::int64_t n, const kmpi::options& opt, kmpi::report* r) {
              return kmpi::topk(comm, v, n, k, t, opt, r);
            });
        run.finish(
            "topk", [&](json_object& fields) { add_topk_fields(fields, k, asked); },
            [&](const json_object& fields, const timings& times) {
              print_selection_result(common, fields, s, opts.flags.indices, times);
            });
      },
      run.input().values);
  return exit_ok;
}

/// Fails every process unless all were given the same arguments. A launcher can
/// start processes with different ones (mpirun's "A : B"); they would then take
/// different steps, collectives that do not match, and wait forever.
void agree_on_arguments(mpi_job& job, int argc, char** argv) {
  std::uint64_t hash = 0xcbf29ce484222325ull;  // FNV-1a over the arguments, each ended by a NUL
  for (int i = 1; i < argc; ++i)
    for (const char* c = argv[i];; ++c) {
      hash = (hash ^ static_cast<unsigned char>(*c)) * 0x100000001b3ull;
      if (*c == '\0') break;
    }
  const std::vector<std::int64_t> all = job.allgather({static_cast<std::int64_t>(hash)});
  for (int p = 1; p < job.size(); ++p)
    if (all[static_cast<std::size_t>(p)] != all[0])
      throw agreed_failure("process " + std::to_string(p) +
                               " was given other arguments than process 0 (every process of the job must run the "
                               "same kselect command line)",
                           exit_usage);
}

/// The job's work after MPI_Init: parse, run, agree. Throws agreed_failure (or the
/// library's std::invalid_argument) alike on every process; anything else may be
/// this process's alone.
int run_job(mpi_job& job, int argc, char** argv) {
  agree_on_arguments(job, argc, argv);
  command_line cl;
  std::optional<int> done;
  job.step([&] { done = cl.parse(argc, argv, job.rank() == 0); });  // --help, --version: process 0 prints
  if (done) return *done;
  distributed_run run(job, cl);
  const std::string command = cl.subcommand()->get_name();
  if (command == "select") return distributed_select(run, cl.common, cl.select);
  if (command == "quantile") return distributed_quantile(run, cl.common, cl.quantile);
  if (command == "topk") return distributed_topk(run, cl.common, cl.topk);
  // usage_check.cpp refuses the others on every process before this.
  throw std::logic_error(command + " reached the distributed mode");
}

}  // namespace

int run_distributed(int argc, char** argv) {
  std::unique_ptr<mpi_job> job;
  try {
    job = std::make_unique<mpi_job>(&argc, &argv);
  } catch (...) {
    report_error(describe_current_exception().message);
    return exit_failure;
  }
  if (job->rank() != 0) progress::silence();
  try {
    return run_job(*job, argc, argv);
  } catch (const agreed_failure& f) {
    if (job->rank() == 0) report_error(f.what());
    return f.code();
  } catch (const std::invalid_argument& e) {
    // The library's caller mistakes: it throws them alike on every process.
    if (job->rank() == 0) report_error(library_words(e));
    return exit_usage;
  } catch (...) {
    // An MPI failure (kselect::error) or another this process alone knows of: the
    // others may be waiting in a collective it will never join. Only an abort ends them.
    const failure_report f = describe_current_exception();
    report_error(job->size() > 1 ? "process " + std::to_string(job->rank()) + ": " + f.message : f.message);
    job->abort(exit_failure);
  }
}

}  // namespace kselect_cli
