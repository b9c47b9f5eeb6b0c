// The public distributed calls (include/kselect/mpi.hpp) on top of the engine
// (src/mpi/engine.hpp): argument signatures, NumPy's quantile recipe, top-k's parts.
#include <algorithm>
#include <cstring>
#include <numeric>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "core/quantile_math.hpp"
#include "core/quantile_recipe.hpp"
#include "core/ranks.hpp"
#include "kselect/detail/nvtx.hpp"
#include "kselect/mpi.hpp"
#include "mpi/device_collectives.hpp"
#include "mpi/engine.hpp"

namespace kselect::mpi {
namespace {

using detail::engine;
using detail::make_signature;

enum call_kind { call_select = 1, call_multiselect, call_quantile, call_nanquantile, call_topk };

// The report the caller asked for, reset, or a scratch one.
struct report_slot {
  report scratch;
  report& r;
  explicit report_slot(report* rep) : r(rep ? *rep : scratch) { r = report{}; }
};

template <class T>
std::vector<T> values_at(engine<T>& e, std::span<const std::int64_t> sorted_ranks, bool root_only) {
  return e.elements_at(sorted_ranks, root_only);
}

template <class T>
std::vector<quantile_value_t<T>> quantiles_of(MPI_Comm comm, const T* values, std::int64_t n,
                                              std::span<const double> qs, quantile_method m,
                                              const options& opt, report* rep, bool ignore_nan) {
  report_slot slot(rep);
  auto sig = make_signature<T>(ignore_nan ? call_nanquantile : call_quantile, opt);
  const std::uint64_t count = qs.size();
  sig.add_bytes(&count, sizeof count);
  sig.add_bytes(qs.data(), qs.size_bytes());
  sig.add_bytes(&m, sizeof m);
  constexpr bool floating = std::is_floating_point_v<T>;
  engine<T> e(comm, values, n, opt, sig, floating && ignore_nan, slot.r, [&] {
    core::validate_quantiles(qs);
    (void)core::quantile_point_for(1, 0.0, m);  // throws for an invalid method value
  });
  const std::int64_t total = e.global_size();
  if (total == 0) throw std::invalid_argument("the global input is empty (every shard has n = 0)");
  if (qs.empty()) return {};
  bool elsewhere = false;  // with options.root, only the root computes the answers
  auto answers = core::quantiles_by_order_statistics<T>(
      total, total - e.global_nans(), qs, m, ignore_nan, [&](const std::vector<std::int64_t>& ranks) {
        std::vector<T> v = values_at(e, ranks, true);
        if (v.empty()) {
          elsewhere = true;
          v.assign(ranks.size(), T{});
        }
        return v;
      });
  if (elsewhere) return {};
  return answers;
}

// Sorts a selection's elements in the answer's order: by key (descending when largest),
// ties by index.
template <class T>
void sort_selection(selection<T>& s, bool largest, bool with_indices) {
  std::vector<std::size_t> order(s.values.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  auto key = [&](std::size_t i) { return core::key_traits<T>::to_key(s.values[i]); };
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return largest ? key(a) > key(b) : key(a) < key(b);
  });
  selection<T> sorted;
  sorted.values.reserve(order.size());
  for (const std::size_t i : order) sorted.values.push_back(s.values[i]);
  if (with_indices)
    for (const std::size_t i : order) sorted.indices.push_back(s.indices[i]);
  s = std::move(sorted);
}

}  // namespace

template <class T>
T select(MPI_Comm comm, const T* values, std::int64_t n, std::int64_t k, const options& opt, report* rep) {
  KSELECT_NVTX_RANGE("kselect::mpi::select");
  report_slot slot(rep);
  auto sig = make_signature<T>(call_select, opt);
  sig.add_bytes(&k, sizeof k);
  engine<T> e(comm, values, n, opt, sig, false, slot.r, [] {});
  const std::int64_t total = e.global_size();
  if (total == 0) throw std::invalid_argument("the global input is empty (every shard has n = 0)");
  if (k < 0 || k >= total)
    throw std::invalid_argument("k = " + std::to_string(k) + " is outside [0, " + std::to_string(total) +
                                "), the global size");
  const std::int64_t rank[1] = {k};
  return values_at(e, rank, false).front();
}

template <class T>
std::vector<T> multiselect(MPI_Comm comm, const T* values, std::int64_t n, std::span<const std::int64_t> ranks,
                           const options& opt, report* rep) {
  KSELECT_NVTX_RANGE("kselect::mpi::multiselect");
  report_slot slot(rep);
  auto sig = make_signature<T>(call_multiselect, opt);
  const std::uint64_t count = ranks.size();
  sig.add_bytes(&count, sizeof count);
  sig.add_bytes(ranks.data(), ranks.size_bytes());
  engine<T> e(comm, values, n, opt, sig, false, slot.r, [] {});
  const std::int64_t total = e.global_size();
  if (total == 0 && !ranks.empty()) throw std::invalid_argument("the global input is empty (every shard has n = 0)");
  const core::rank_set set = core::normalize_ranks(ranks, total);  // the same ranks and size everywhere
  const std::vector<T> by_rank = values_at(e, set.sorted, true);
  if (by_rank.empty() && !ranks.empty()) return {};
  return core::in_caller_order(set, std::span<const T>(by_rank));
}

template <class T>
std::vector<quantile_value_t<T>> quantile(MPI_Comm comm, const T* values, std::int64_t n,
                                          std::span<const double> qs, quantile_method m, const options& opt,
                                          report* rep) {
  KSELECT_NVTX_RANGE("kselect::mpi::quantile");
  return quantiles_of(comm, values, n, qs, m, opt, rep, false);
}

template <class T>
std::vector<quantile_value_t<T>> nanquantile(MPI_Comm comm, const T* values, std::int64_t n,
                                             std::span<const double> qs, quantile_method m, const options& opt,
                                             report* rep) {
  KSELECT_NVTX_RANGE("kselect::mpi::nanquantile");
  return quantiles_of(comm, values, n, qs, m, opt, rep, true);
}

template <class T>
selection<T> topk(MPI_Comm comm, const T* values, std::int64_t n, std::int64_t k, const topk_options& t,
                  const options& opt, report* rep) {
  KSELECT_NVTX_RANGE("kselect::mpi::topk");
  using U = core::key_t<T>;
  report_slot slot(rep);
  auto sig = make_signature<T>(call_topk, opt);
  sig.add_bytes(&k, sizeof k);
  const std::uint64_t flags = (t.largest ? 1 : 0) | (t.sorted ? 2 : 0) | (t.indices ? 4 : 0);
  sig.add_bytes(&flags, sizeof flags);
  engine<T> e(comm, values, n, opt, sig, false, slot.r, [] {});
  const std::int64_t total = e.global_size();
  if (k < 0 || k > total)
    throw std::invalid_argument("k = " + std::to_string(k) + " is outside [0, " + std::to_string(total) +
                                "], the global size");
  selection<T> out;
  if (k == 0) return out;

  // The k-th value of the answer, then how many elements beyond it and equal to it
  // each process holds; the ties go to the lowest global indices (process order).
  const std::int64_t rank[1] = {t.largest ? total - k : k - 1};
  const U threshold = e.select_keys(rank, false).front();
  detail::local_failure failure;
  std::int64_t beyond = 0, equal = 0;
  detail::guarded(failure, [&] { e.local().counts_beyond_and_equal(threshold, t.largest, beyond, equal); });
  const std::int64_t mine[2] = {failure ? -1 : beyond, equal};
  const std::vector<std::int64_t> counts = e.comm().allgather(mine, 2);
  const int processes = e.comm().size(), me = e.comm().rank();
  std::int64_t beyond_total = 0;
  for (int p = 0; p < processes; ++p) {
    if (counts[2 * static_cast<std::size_t>(p)] < 0) e.comm().agree(failure.message, failure.caller_mistake);
    beyond_total += counts[2 * static_cast<std::size_t>(p)];
  }
  std::int64_t ties_left = k - beyond_total;
  std::vector<std::int64_t> part(static_cast<std::size_t>(processes));  // elements of each process's part
  std::int64_t my_ties = 0;
  for (int p = 0; p < processes; ++p) {
    const std::int64_t ties = std::min(ties_left, counts[2 * static_cast<std::size_t>(p) + 1]);
    ties_left -= ties;
    part[static_cast<std::size_t>(p)] = counts[2 * static_cast<std::size_t>(p)] + ties;
    if (p == me) my_ties = ties;
  }
  e.step([&] {
    e.local().take(threshold, t.largest, my_ties, t.indices, out.values, out.indices);
    for (std::int64_t& i : out.indices) i += e.offset();
  });
  if (opt.root < 0) {
    if (t.sorted) sort_selection(out, t.largest, t.indices);
    return out;
  }
  // Every part to the root, in process order (= global index order).
  std::vector<std::int64_t> bytes(part.size());
  for (std::size_t p = 0; p < part.size(); ++p) bytes[p] = part[p] * static_cast<std::int64_t>(sizeof(T));
  const std::vector<unsigned char> all_values = e.comm().gather_bytes(
      out.values.data(), static_cast<std::int64_t>(out.values.size() * sizeof(T)), bytes, opt.root);
  std::vector<unsigned char> all_indices;
  if (t.indices) {
    for (std::size_t p = 0; p < part.size(); ++p) bytes[p] = part[p] * static_cast<std::int64_t>(sizeof(std::int64_t));
    all_indices = e.comm().gather_bytes(out.indices.data(),
                                        static_cast<std::int64_t>(out.indices.size() * sizeof(std::int64_t)), bytes,
                                        opt.root);
  }
  selection<T> whole;
  if (me != opt.root) return whole;
  whole.values.resize(all_values.size() / sizeof(T));
  std::memcpy(whole.values.data(), all_values.data(), all_values.size());
  whole.indices.resize(all_indices.size() / sizeof(std::int64_t));
  std::memcpy(whole.indices.data(), all_indices.data(), all_indices.size());
  if (t.sorted) sort_selection(whole, t.largest, t.indices);
  return whole;
}

const char* to_string(algorithm a) noexcept {
  switch (a) {
    case algorithm::dibms: return "dibms";
    case algorithm::distributed_bms: return "distributed_bms";
    case algorithm::sort_and_choose: return "sort_and_choose";
  }
  return "unknown";
}

algorithm parse_algorithm(const char* name) {
  const std::string s = name ? name : "";
  if (s == "dibms") return algorithm::dibms;
  if (s == "distributed_bms" || s == "dbms") return algorithm::distributed_bms;
  if (s == "sort_and_choose" || s == "sort") return algorithm::sort_and_choose;
  throw std::invalid_argument("unknown distributed algorithm '" + s +
                              "': use dibms, distributed_bms (dbms) or sort_and_choose (sort)");
}

const char* to_string(transport t) noexcept {
  switch (t) {
    case transport::mpi: return "mpi";
    case transport::nccl: return "nccl";
  }
  return "unknown";
}

transport parse_transport(const char* name) {
  const std::string s = name ? name : "";
  if (s == "mpi") return transport::mpi;
  if (s == "nccl") return transport::nccl;
  throw std::invalid_argument("unknown count transport '" + s + "': use mpi or nccl");
}

bool nccl_available() noexcept { return detail::nccl_built(); }

#define KSELECT_INSTANTIATE_MPI(T)                                                                       \
  template T select<T>(MPI_Comm, const T*, std::int64_t, std::int64_t, const options&, report*);         \
  template std::vector<T> multiselect<T>(MPI_Comm, const T*, std::int64_t, std::span<const std::int64_t>, \
                                         const options&, report*);                                       \
  template std::vector<quantile_value_t<T>> quantile<T>(MPI_Comm, const T*, std::int64_t,               \
                                                        std::span<const double>, quantile_method,        \
                                                        const options&, report*);                        \
  template std::vector<quantile_value_t<T>> nanquantile<T>(MPI_Comm, const T*, std::int64_t,            \
                                                           std::span<const double>, quantile_method,     \
                                                           const options&, report*);                     \
  template selection<T> topk<T>(MPI_Comm, const T*, std::int64_t, std::int64_t, const topk_options&,     \
                                const options&, report*);
KSELECT_FOR_EACH_KEY_TYPE(KSELECT_INSTANTIATE_MPI)
#undef KSELECT_INSTANTIATE_MPI

}  // namespace kselect::mpi
