// kselect._kselect: the binary half of the Python package. A thin layer over the
// owning C++ API (kselect.hpp, segmented.hpp, filter.hpp): it takes contiguous
// arrays of any framework through DLPack or the buffer protocol (NumPy on the CPU;
// PyTorch, CuPy and other DLPack producers on a CUDA device, used in place), runs
// the call with the GIL released on the stream it is given, and returns NumPy
// arrays. The Python half (kselect/*.py) owns NumPy's semantics: axes, dtypes of
// results, quantile methods, and turning results back into the caller's kind of
// array.
//
// Errors: the library's std::invalid_argument becomes ValueError (nanobind's
// mapping); a dtype the call does not take is a TypeError naming the ones it does.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>

#include <atomic>
#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "kselect/filter.hpp"
#include "kselect/kselect.hpp"
#include "kselect/segmented.hpp"
#include "common.hpp"
#ifdef KSELECT_WITH_CUDA
#include <cuda_runtime_api.h>

#include "kselect/device.hpp"
#include "kselect/device_segmented.hpp"
#endif

namespace {

using namespace kselect_python;

/// The last input pointer handed to the library: the no-copy test compares it with
/// the caller's data pointer.
std::atomic<std::uintptr_t> last_input_pointer{0};

template <class T>
const T* data_of(const input_array& a) {
  last_input_pointer = reinterpret_cast<std::uintptr_t>(a.data());
  return static_cast<const T*>(a.data());
}

std::int64_t size_of(const input_array& a) { return static_cast<std::int64_t>(a.size()); }

std::span<const std::int64_t> span_of(const host_int64s& v) { return {v.data(), v.shape(0)}; }

/// The (m, cols) layout of a 2-D input, the segments of the batched calls.
kselect::segments rows_of(const input_array& a) {
  if (a.ndim() != 2) throw nb::value_error("kselect: the batched calls take a 2-D array (rows, cols)");
  return kselect::segments::rows(static_cast<std::int64_t>(a.shape(0)), static_cast<std::int64_t>(a.shape(1)));
}

// ---- single arrays (the six key types) ----

numpy_array multiselect(const input_array& a, const host_int64s& ranks, std::uintptr_t stream, int threads) {
  const auto opt = options_for(a, stream, threads);
  return visit_key_type<false>(a, [&]<class T>(T) {
    std::vector<T> out;
    {
      nb::gil_scoped_release release;
      out = kselect::multiselect(data_of<T>(a), size_of(a), span_of(ranks), opt);
    }
    return to_numpy(std::move(out));
  });
}

numpy_pair topk(const input_array& a, std::int64_t k, bool largest, bool sorted, bool deterministic,
                std::uintptr_t stream, int threads) {
  const auto opt = options_for(a, stream, threads);
  return visit_key_type<false>(a, [&]<class T>(T) {
    kselect::selection<T> s;
    {
      nb::gil_scoped_release release;
      s = kselect::topk(data_of<T>(a), size_of(a), k,
                        kselect::topk_options{largest, sorted, deterministic, true}, opt);
    }
    return nb::make_tuple(to_numpy(std::move(s.values)), to_numpy(std::move(s.indices)));
  });
}

numpy_pair rank_range(const input_array& a, std::int64_t lo, std::int64_t hi, bool sorted, bool deterministic,
                      std::uintptr_t stream, int threads) {
  const auto opt = options_for(a, stream, threads);
  return visit_key_type<false>(a, [&]<class T>(T) {
    kselect::selection<T> s;
    {
      nb::gil_scoped_release release;
      s = kselect::rank_range(data_of<T>(a), size_of(a), lo, hi, kselect::range_options{sorted, deterministic, true},
                              opt);
    }
    return nb::make_tuple(to_numpy(std::move(s.values)), to_numpy(std::move(s.indices)));
  });
}

numpy_pair approx_multiselect(const input_array& a, const host_int64s& ranks, std::int64_t max_rank_error,
                              std::uintptr_t stream, int threads) {
  const auto opt = options_for(a, stream, threads);
  return visit_key_type<false>(a, [&]<class T>(T) {
    std::vector<kselect::ranked_value<T>> found;
    {
      nb::gil_scoped_release release;
      found = kselect::approx_multiselect(data_of<T>(a), size_of(a), span_of(ranks), max_rank_error, opt);
    }
    std::vector<T> values(found.size());
    std::vector<std::int64_t> exact(found.size());
    for (std::size_t i = 0; i < found.size(); ++i) {
      values[i] = found[i].value;
      exact[i] = found[i].rank;
    }
    return nb::make_tuple(to_numpy(std::move(values)), to_numpy(std::move(exact)));
  });
}

/// The predicate named by op ("lt", "le", "gt", "ge", "eq", "ne", "range") with its
/// constants in the key type (the Python half converts them and checks they fit).
template <class T>
kselect::predicate<T> predicate_of(const std::string& op, nb::handle c, nb::handle hi) {
  const T v = nb::cast<T>(c);
  if (op == "lt") return kselect::lt(v);
  if (op == "le") return kselect::le(v);
  if (op == "gt") return kselect::gt(v);
  if (op == "ge") return kselect::ge(v);
  if (op == "eq") return kselect::eq(v);
  if (op == "ne") return kselect::ne(v);
  if (op == "range") return kselect::in_range(v, nb::cast<T>(hi));
  throw nb::value_error(("kselect: unknown predicate '" + op + "' (lt, le, gt, ge, eq, ne or range)").c_str());
}

numpy_filtered filter(const input_array& a, const std::string& op, nb::handle c, nb::handle hi, bool indices,
                  std::uintptr_t stream, int threads) {
  const auto opt = options_for(a, stream, threads);
  return visit_key_type<false>(a, [&]<class T>(T) {
    const auto pred = predicate_of<T>(op, c, hi);
    kselect::filtered<T> f;
    {
      nb::gil_scoped_release release;
      f = kselect::filter_if(data_of<T>(a), size_of(a), pred, kselect::filter_options{indices}, opt);
    }
    nb::object idx = indices ? to_numpy(std::move(f.indices)) : nb::none();
    return nb::make_tuple(to_numpy(std::move(f.values)), idx);
  });
}

std::int64_t count(const input_array& a, const std::string& op, nb::handle c, nb::handle hi, std::uintptr_t stream,
                   int threads) {
  const auto opt = options_for(a, stream, threads);
  return visit_key_type<false>(a, [&]<class T>(T) {
    const auto pred = predicate_of<T>(op, c, hi);
    nb::gil_scoped_release release;
    return kselect::count_if(data_of<T>(a), size_of(a), pred, opt);
  });
}

// ---- batched: rows of a 2-D array (the eight key types) ----

numpy_array rows_multiselect(const input_array& a, const host_int64s& ranks, std::uintptr_t stream, int threads) {
  const auto opt = options_for(a, stream, threads);
  const auto segs = rows_of(a);
  return visit_key_type<true>(a, [&]<class T>(T) {
    kselect::matrix<T> r;
    {
      nb::gil_scoped_release release;
      r = kselect::segmented_multiselect(data_of<T>(a), size_of(a), segs, span_of(ranks), opt);
    }
    return to_numpy(std::move(r.data), {static_cast<std::size_t>(r.rows), static_cast<std::size_t>(r.cols)});
  });
}

numpy_array rows_select_each(const input_array& a, const host_int64s& ks, std::uintptr_t stream, int threads) {
  const auto opt = options_for(a, stream, threads);
  const auto segs = rows_of(a);
  return visit_key_type<true>(a, [&]<class T>(T) {
    std::vector<T> r;
    {
      nb::gil_scoped_release release;
      r = kselect::segmented_select(data_of<T>(a), size_of(a), segs, span_of(ks), opt);
    }
    return to_numpy(std::move(r));
  });
}

numpy_pair rows_topk(const input_array& a, std::int64_t k, bool largest, bool sorted, bool deterministic,
                     std::uintptr_t stream, int threads) {
  const auto opt = options_for(a, stream, threads);
  const auto segs = rows_of(a);
  return visit_key_type<true>(a, [&]<class T>(T) {
    kselect::segmented_selection<T> s;
    {
      nb::gil_scoped_release release;
      s = kselect::segmented_topk(data_of<T>(a), size_of(a), segs, k,
                                  kselect::topk_options{largest, sorted, deterministic, true}, opt);
    }
    const std::vector<std::size_t> shape{static_cast<std::size_t>(s.values.rows),
                                         static_cast<std::size_t>(s.values.cols)};
    return nb::make_tuple(to_numpy(std::move(s.values.data), shape), to_numpy(std::move(s.indices.data), shape));
  });
}

// ---- device results: the device API writing into the caller's arrays ----
//
// For CUDA inputs the Python half allocates the outputs and the workspace with the
// caller's framework (torch.empty, cupy.empty: its caching allocator, on the same
// device), so results never pass through host memory. Each function is called
// twice, as CUB's: with ws = None it returns the workspace bytes needed; with a
// workspace (a uint8 array of at least that many bytes) it runs on `stream` and
// returns 0.

#ifdef KSELECT_WITH_CUDA
/// A writable contiguous array (the outputs and the workspace).
using output_array = nb::ndarray<nb::c_contig>;

/// Refuses an output that is not a CUDA array of `count` elements of `dtype`.
void check_output(const output_array& out, std::size_t count, nb::dlpack::dtype dtype, const char* what) {
  if (out.device_type() != nb::device::cuda::value)
    throw nb::value_error((std::string("kselect: ") + what + " must be a CUDA array").c_str());
  if (out.size() != count)
    throw nb::value_error((std::string("kselect: ") + what + " holds " + std::to_string(out.size()) +
                           " elements, " + std::to_string(count) + " expected")
                              .c_str());
  if (out.dtype() != dtype)
    throw nb::type_error((std::string("kselect: ") + what + " has dtype " + dtype_name(out.dtype()) + ", " +
                          dtype_name(dtype) + " expected")
                             .c_str());
}

/// call(workspace, bytes) with the GIL released: the bytes needed when ws is None,
/// else 0 after the call ran. The device API's refusals become ValueError.
template <class Call>
std::size_t run_device(nb::handle ws, Call&& call) {
  void* workspace = nullptr;
  std::size_t bytes = 0;
  if (!ws.is_none()) {
    const auto w = nb::cast<output_array>(ws);
    if (w.device_type() != nb::device::cuda::value || w.itemsize() != 1)
      throw nb::value_error("kselect: the workspace must be a CUDA array of bytes");
    workspace = w.data();
    bytes = w.size();
    if (!workspace) throw nb::value_error("kselect: the workspace is empty (allocate at least one byte)");
  }
  cudaError_t status;
  {
    nb::gil_scoped_release release;
    status = call(workspace, bytes);
  }
  if (status == cudaErrorInvalidValue) throw nb::value_error(kselect::device::last_error_message());
  if (status != cudaSuccess)
    throw std::runtime_error(std::string("kselect: CUDA error: ") + cudaGetErrorString(status));
  return workspace ? 0 : bytes;
}

cudaStream_t stream_of(std::uintptr_t stream) { return reinterpret_cast<cudaStream_t>(stream); }

template <class T>
T* out_of(const output_array& out) {
  return static_cast<T*>(out.data());
}

nb::dlpack::dtype int64_dtype() { return nb::dtype<std::int64_t>(); }

kselect::device::topk_config topk_config_of(bool largest, bool sorted, bool deterministic) {
  kselect::device::topk_config cfg;
  cfg.largest = largest;
  cfg.sorted = sorted;
  cfg.deterministic = deterministic;
  return cfg;
}

/// out[j] = the value at ranks[j] (sorted, unique) of the flattened a.
std::size_t device_multiselect(const input_array& a, const host_int64s& ranks, const output_array& out,
                               nb::handle ws, std::uintptr_t stream) {
  check_output(out, ranks.shape(0), a.dtype(), "out");
  return visit_key_type<false>(a, [&]<class T>(T) {
    return run_device(ws, [&](void* w, std::size_t& bytes) {
      return kselect::device::multiselect(w, bytes, data_of<T>(a), out_of<T>(out), size_of(a), ranks.data(),
                                          static_cast<std::int64_t>(ranks.shape(0)), stream_of(stream));
    });
  });
}

/// values (k) and int64 indices (k) of the k smallest or largest of the flattened a.
std::size_t device_topk(const input_array& a, std::int64_t k, bool largest, bool sorted, bool deterministic,
                        const output_array& values, const output_array& indices, nb::handle ws,
                        std::uintptr_t stream) {
  check_output(values, static_cast<std::size_t>(k), a.dtype(), "values");
  check_output(indices, static_cast<std::size_t>(k), int64_dtype(), "indices");
  const auto cfg = topk_config_of(largest, sorted, deterministic);
  return visit_key_type<false>(a, [&]<class T>(T) {
    return run_device(ws, [&](void* w, std::size_t& bytes) {
      return kselect::device::topk(w, bytes, data_of<T>(a), out_of<T>(values), out_of<std::int64_t>(indices),
                                   size_of(a), k, stream_of(stream), cfg);
    });
  });
}

/// The (rows, cols) layout of a 2-D CUDA input.
kselect::device::segment_layout device_rows_of(const input_array& a) {
  const kselect::segments rows = rows_of(a);
  return kselect::device::segment_layout::rows(rows.count, rows.row_length);
}

/// out (rows, len(ranks)): the same ranks (sorted, unique, at most 256) in every row.
std::size_t device_rows_multiselect(const input_array& a, const host_int64s& ranks, const output_array& out,
                                    nb::handle ws, std::uintptr_t stream) {
  const auto segs = device_rows_of(a);
  check_output(out, static_cast<std::size_t>(segs.count) * ranks.shape(0), a.dtype(), "out");
  return visit_key_type<true>(a, [&]<class T>(T) {
    return run_device(ws, [&](void* w, std::size_t& bytes) {
      return kselect::device::segmented_multiselect(w, bytes, data_of<T>(a), out_of<T>(out), segs, ranks.data(),
                                                    static_cast<int>(ranks.shape(0)), stream_of(stream));
    });
  });
}

/// out (rows elements, any shape): numpy.median (ignore_nan: numpy.nanmedian) of every
/// row of a 2-D a (a 1-D a is one row), in quantile_value_t of the key (float64 for
/// integers, float32 for 16-bit keys).
std::size_t device_rows_median(const input_array& a, bool ignore_nan, const output_array& out, nb::handle ws,
                               std::uintptr_t stream) {
  const auto segs = a.ndim() == 1 ? kselect::device::segment_layout::rows(1, static_cast<std::int64_t>(a.shape(0)))
                                  : device_rows_of(a);
  return visit_key_type<true>(a, [&]<class T>(T) {
    using R = kselect::quantile_value_t<T>;
    check_output(out, static_cast<std::size_t>(segs.count), nb::dtype<R>(), "out");
    return run_device(ws, [&](void* w, std::size_t& bytes) {
      return kselect::device::segmented_median(w, bytes, data_of<T>(a), out_of<R>(out), segs, ignore_nan,
                                               stream_of(stream));
    });
  });
}

/// values and int64 indices (rows, k): top-k of every row (k <= cols, so no padding).
std::size_t device_rows_topk(const input_array& a, std::int64_t k, bool largest, bool sorted,
                             const output_array& values, const output_array& indices, nb::handle ws,
                             std::uintptr_t stream) {
  const auto segs = device_rows_of(a);
  const auto cells = static_cast<std::size_t>(segs.count * k);
  check_output(values, cells, a.dtype(), "values");
  check_output(indices, cells, int64_dtype(), "indices");
  // The batched call is always deterministic (ties by the smaller index).
  const auto cfg = topk_config_of(largest, sorted, true);
  return visit_key_type<true>(a, [&]<class T>(T) {
    return run_device(ws, [&](void* w, std::size_t& bytes) {
      return kselect::device::segmented_topk(w, bytes, data_of<T>(a), out_of<T>(values),
                                             out_of<std::int64_t>(indices), segs, k, stream_of(stream), cfg);
    });
  });
}
#endif

}  // namespace

NB_MODULE(_kselect, m) {
  m.doc() = "kselect's compiled core; use the functions of the kselect package instead.";
  m.def("cuda_available", &kselect::cuda_available, "True when the CUDA backend is built and a device is usable.");
  m.def("last_input_pointer", [] { return static_cast<std::uintptr_t>(last_input_pointer); },
        "The data pointer of the last array handed to the library (for the no-copy test).");
  const auto a = nb::arg("a");
  const auto stream = nb::arg("stream") = 0;
  const auto threads = nb::arg("threads") = 0;
  m.def("multiselect", &multiselect, a, nb::arg("ranks"), stream, threads,
        "Values at ranks (int64 host array, any order) of the flattened contiguous array a.");
  m.def("topk", &topk, a, nb::arg("k"), nb::arg("largest"), nb::arg("sorted"), nb::arg("deterministic"), stream,
        threads, "(values, indices) of the k smallest or largest of a.");
  m.def("rank_range", &rank_range, a, nb::arg("lo"), nb::arg("hi"), nb::arg("sorted"), nb::arg("deterministic"),
        stream, threads, "(values, indices) at positions [lo, hi) of a's stable ascending sort.");
  m.def("approx_multiselect", &approx_multiselect, a, nb::arg("ranks"), nb::arg("max_rank_error"), stream, threads,
        "(values, exact ranks) within max_rank_error of each requested rank.");
  m.def("filter", &filter, a, nb::arg("op"), nb::arg("c"), nb::arg("hi").none(), nb::arg("indices"), stream, threads,
        "(values, indices or None) of the elements satisfying the predicate, in input order.");
  m.def("count", &count, a, nb::arg("op"), nb::arg("c"), nb::arg("hi").none(), stream, threads,
        "How many elements satisfy the predicate.");
  m.def("rows_multiselect", &rows_multiselect, a, nb::arg("ranks"), stream, threads,
        "(rows, len(ranks)): the same ranks in every row of the 2-D array a.");
  m.def("rows_select_each", &rows_select_each, a, nb::arg("ks"), stream, threads,
        "(rows,): rank ks[i] of row i.");
#ifdef KSELECT_WITH_CUDA
  const auto ws = nb::arg("ws").none();
  m.def("device_multiselect", &device_multiselect, a, nb::arg("ranks"), nb::arg("out"), ws, stream,
        "CUDA a: out[j] = value at ranks[j] (sorted, unique); ws None: the workspace bytes needed.");
  m.def("device_topk", &device_topk, a, nb::arg("k"), nb::arg("largest"), nb::arg("sorted"),
        nb::arg("deterministic"), nb::arg("values"), nb::arg("indices"), ws, stream,
        "CUDA a: top-k into values and int64 indices; ws None: the workspace bytes needed.");
  m.def("device_rows_multiselect", &device_rows_multiselect, a, nb::arg("ranks"), nb::arg("out"), ws, stream,
        "CUDA 2-D a: out (rows, len(ranks)); ws None: the workspace bytes needed.");
  m.def("device_rows_median", &device_rows_median, a, nb::arg("ignore_nan"), nb::arg("out"), ws, stream,
        "CUDA 2-D a (1-D: one row): numpy.median (or nanmedian) of every row into out; ws None: the bytes needed.");
  m.def("device_rows_topk", &device_rows_topk, a, nb::arg("k"), nb::arg("largest"), nb::arg("sorted"),
        nb::arg("values"), nb::arg("indices"), ws, stream,
        "CUDA 2-D a: top-k of every row into values and int64 indices (rows, k); ws None: the bytes needed.");
#endif
  m.def("has_device_api", [] {
#ifdef KSELECT_WITH_CUDA
    return true;
#else
    return false;
#endif
  }, "True when the extension was built with the CUDA backend's device API.");
  m.def("rows_topk", &rows_topk, a, nb::arg("k"), nb::arg("largest"), nb::arg("sorted"), nb::arg("deterministic"),
        stream, threads, "(values, indices), each (rows, k): top-k of every row; short rows padded with index -1.");
}
