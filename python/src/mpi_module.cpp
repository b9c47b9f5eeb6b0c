// kselect._kselect_mpi: the distributed calls of the Python package (comm=), over
// kselect::mpi (include/kselect/mpi.hpp). Built only where CMake finds MPI (the
// kselect_mpi library), so that the package builds and imports without MPI; the
// Python half (kselect/_mpi.py) imports it only when a call is given a communicator.
//
// The communicator comes as the Fortran handle of an mpi4py communicator
// (comm.py2f()), turned back into an MPI_Comm by MPI_Comm_f2c: no mpi4py headers are
// needed, only the same MPI library as mpi4py's (library_version() lets the Python
// half check that). Each process passes its own shard, a contiguous array of one of
// the six key types on the host or on a CUDA device (then on `stream`); ranks and k
// are global. Results come back as NumPy arrays, with what the call did (the
// library's report) as a dict.
//
// Errors: as the library throws them, the same on every process: std::invalid_argument
// (a caller's mistake on any process) becomes ValueError, kselect::error (an MPI or
// CUDA failure) RuntimeError, as nanobind maps them in kselect._kselect too.
#include <mpi.h>
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/string.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "common.hpp"
#include "kselect/mpi.hpp"

namespace {

using namespace kselect_python;

/// The MPI_Comm of an mpi4py communicator's Fortran handle (comm.py2f()).
MPI_Comm comm_of(std::int64_t handle) {
  int initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  if (!initialized || finalized)
    throw std::invalid_argument(std::string("kselect: MPI is ") + (finalized ? "finalized" : "not initialized") +
                                " in this process (import mpi4py.MPI initializes it)");
  return MPI_Comm_f2c(static_cast<MPI_Fint>(handle));
}

kselect::mpi::options options_of(const input_array& a, const std::string& algorithm, const std::string& transport,
                                 int root, std::uintptr_t stream, int threads) {
  kselect::mpi::options opt;
  opt.local = options_for(a, stream, threads);
  opt.algo = kselect::mpi::parse_algorithm(algorithm.c_str());
  opt.counts = kselect::mpi::parse_transport(transport.c_str());
  opt.root = root;
  return opt;
}

nb::dict report_of(const kselect::mpi::report& r, const kselect::mpi::options& opt) {
  nb::dict d;
  d["algorithm"] = kselect::mpi::to_string(opt.algo);
  d["transport"] = kselect::mpi::to_string(opt.counts);
  d["rounds"] = r.rounds;
  d["collectives"] = r.collectives;
  d["bytes_sent"] = r.bytes_sent;
  d["global_size"] = r.global_size;
  nb::list candidates;
  for (const std::int64_t c : r.candidates_after_round) candidates.append(c);
  d["candidates_after_round"] = candidates;
  d["gathered_keys"] = r.gathered_keys;
  return d;
}

/// The six key types only: the Python half widens 16-bit floats to float32 first.
template <class F>
decltype(auto) visit_six(const input_array& a, F&& f) {
  return visit_key_type<false>(a, std::forward<F>(f));
}

template <class T>
const T* data_of(const input_array& a) {
  return static_cast<const T*>(a.data());
}

std::int64_t size_of(const input_array& a) { return static_cast<std::int64_t>(a.size()); }

using numpy_report = nb::typed<nb::tuple, nb::ndarray<nb::numpy>, nb::dict>;
using numpy_pair_report = nb::typed<nb::tuple, nb::ndarray<nb::numpy>, nb::ndarray<nb::numpy>, nb::dict>;

numpy_report multiselect(std::int64_t comm, const input_array& a, const host_int64s& ranks,
                         const std::string& algorithm, const std::string& transport, std::uintptr_t stream,
                         int threads) {
  const MPI_Comm c = comm_of(comm);
  const auto opt = options_of(a, algorithm, transport, -1, stream, threads);
  return visit_six(a, [&]<class T>(T) {
    std::vector<T> out;
    kselect::mpi::report rep;
    {
      nb::gil_scoped_release release;
      out = kselect::mpi::multiselect(c, data_of<T>(a), size_of(a),
                                      std::span<const std::int64_t>(ranks.data(), ranks.shape(0)), opt, &rep);
    }
    return nb::make_tuple(to_numpy(std::move(out)), report_of(rep, opt));
  });
}

numpy_pair_report topk(std::int64_t comm, const input_array& a, std::int64_t k, bool largest, bool sorted, int root,
                       const std::string& algorithm, const std::string& transport, std::uintptr_t stream,
                       int threads) {
  const MPI_Comm c = comm_of(comm);
  const auto opt = options_of(a, algorithm, transport, root, stream, threads);
  kselect::topk_options t;
  t.largest = largest;
  t.sorted = sorted;
  t.deterministic = true;
  t.indices = true;
  return visit_six(a, [&]<class T>(T) {
    kselect::selection<T> s;
    kselect::mpi::report rep;
    {
      nb::gil_scoped_release release;
      s = kselect::mpi::topk(c, data_of<T>(a), size_of(a), k, t, opt, &rep);
    }
    return nb::make_tuple(to_numpy(std::move(s.values)), to_numpy(std::move(s.indices)), report_of(rep, opt));
  });
}

std::string library_version() {
  char text[MPI_MAX_LIBRARY_VERSION_STRING] = {};
  int length = 0;
  MPI_Get_library_version(text, &length);
  return std::string(text, static_cast<std::size_t>(length > 0 ? length : 0));
}

}  // namespace

NB_MODULE(_kselect_mpi, m) {
  m.doc() = "kselect's distributed calls (MPI); use the kselect functions' comm= argument instead.";
  const auto comm = nb::arg("comm");
  const auto a = nb::arg("a");
  const auto algorithm = nb::arg("algorithm") = "dibms";
  const auto transport = nb::arg("transport") = "mpi";
  const auto stream = nb::arg("stream") = 0;
  const auto threads = nb::arg("threads") = 0;
  m.def("library_version", &library_version,
        "MPI_Get_library_version of the MPI library this extension calls (it must be mpi4py's).");
  m.def("multiselect", &multiselect, comm, a, nb::arg("ranks"), algorithm, transport, stream, threads,
        "(values at the global ranks, report): kselect::mpi::multiselect over the communicator whose Fortran "
        "handle is comm, with a this process's shard; on every process.");
  m.def("topk", &topk, comm, a, nb::arg("k"), nb::arg("largest"), nb::arg("sorted"), nb::arg("root") = -1,
        algorithm, transport, stream, threads,
        "(values, global indices, report): this process's part of the global top-k (root -1), or the whole "
        "answer on process root (the others: empty arrays). Ties go to the lowest global indices.");
}
