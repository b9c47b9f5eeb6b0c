// The distributed algorithms over one process's shard and the communicator:
// argument agreement, DIBMS (sample, rounds of count + all-reduce, exact termination,
// the final gather of few candidates), DistributedBMS and Sort&Choose. They answer
// sorted unique global ranks with order-preserving keys; src/mpi/mpi_api.cpp turns
// the public calls into these and keys back into values.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <exception>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "api/dispatch.hpp"
#include "core/key_traits.hpp"
#include "core/phase_clock.hpp"
#include "cpu/level_keys.hpp"
#include "cpu/radix_sort.hpp"
#include "distributed/dibms_plan.hpp"
#include "distributed/shard.hpp"
#include "kselect/mpi.hpp"
#include "mpi/comm.hpp"
#include "mpi/device_collectives.hpp"

namespace kselect::mpi::detail {

/// What every process must agree on before a call does any work: a fixed list of
/// words (kind of call, key type, options, a hash of the ranks or quantiles).
struct signature {
  std::vector<std::uint64_t> words;
  void add(std::uint64_t w) { words.push_back(w); }
  void add_bytes(const void* data, std::size_t bytes);  // FNV-1a hash of the bytes
};

/// A local step's failure, kept to be agreed on at the next collective.
struct local_failure {
  std::string message;
  bool caller_mistake = false;
  explicit operator bool() const { return !message.empty(); }
};

/// Runs f, catching what it throws into `failure` (if none is recorded yet).
template <class F>
void guarded(local_failure& failure, F&& f) {
  if (failure) return;
  try {
    f();
  } catch (const std::invalid_argument& e) {
    failure = {e.what(), true};
  } catch (const std::exception& e) {
    failure = {e.what(), false};
  }
}

std::uint64_t key_type_code(std::size_t key_bytes, bool floating, bool is_signed);

/// The sample seed of process `rank`: the options' seed and the rank through a
/// 64-bit finalizer, so that processes draw unrelated streams whatever generator a
/// shard builds on the seed.
std::uint64_t process_seed(std::uint64_t seed, int rank);

/// gather_and_answer sorts the gathered candidates (instead of selecting each pending
/// position) from this many positions and keys on: a hundred positions among a few
/// thousand candidates cost several partitioning passes over them, a radix sort at
/// most four (docs/performance.md, issue 26).
inline constexpr std::size_t answer_sort_min_positions = 16;
inline constexpr std::int64_t answer_sort_min_keys = 2048;

template <class T>
class engine {
 public:
  using U = core::key_t<T>;

  /// Agrees on the arguments (every process's signature must be equal) and on local
  /// failures, and learns every shard's size; counts NaNs first when count_nans.
  /// Throws (on every process) on disagreement or any process's failure.
  /// check_arguments: the call's own checks of its arguments (quantiles, method), run
  /// inside the agreement so that a process whose arguments are bad does not leave
  /// the others waiting.
  template <class Check>
  engine(MPI_Comm user, const T* values, std::int64_t n, const options& opt, const signature& sig,
         bool count_nans, report& rep, Check&& check_arguments)
      : comm_(user, rep), opt_(opt) {
    local_failure failure;
    guarded(failure, [&] {
      check_arguments();
      if (n < 0) throw std::invalid_argument("n = " + std::to_string(n) + " is negative");
      if (n > 0 && values == nullptr) throw std::invalid_argument("values is null and n = " + std::to_string(n));
      check_options();
      if (n > 0 && kselect::detail::choose_backend(values, opt.local) == kselect::detail::backend::cuda)
        shard_ = distributed::make_cuda_shard<T>(values, n, opt.local);
      else
        shard_ = distributed::make_cpu_shard<T>(values, n, opt.local);
      if (count_nans) local_nans_ = shard_->count_nan();
    });
    // One all-gather: (failure flag, n, NaNs, signature...) of every process.
    std::vector<std::int64_t> mine{failure ? 1 : 0, n, local_nans_};
    for (const std::uint64_t w : sig.words) mine.push_back(static_cast<std::int64_t>(w));
    const std::size_t width = mine.size();
    const std::vector<std::int64_t> all = comm_.allgather(mine.data(), width);
    bool any_failed = false;
    for (int p = 0; p < comm_.size(); ++p) any_failed |= all[static_cast<std::size_t>(p) * width] != 0;
    if (any_failed) comm_.agree(failure.message, failure.caller_mistake);  // throws on every process
    for (int p = 1; p < comm_.size(); ++p)
      for (std::size_t w = 3; w < width; ++w)
        if (all[static_cast<std::size_t>(p) * width + w] != all[w])
          throw std::invalid_argument("kselect::mpi: processes 0 and " + std::to_string(p) +
                                      " passed different arguments (" + describe_word(w - 3) +
                                      "); every process must pass the same");
    sizes_.resize(static_cast<std::size_t>(comm_.size()));
    for (int p = 0; p < comm_.size(); ++p) {
      sizes_[static_cast<std::size_t>(p)] = all[static_cast<std::size_t>(p) * width + 1];
      global_nans_ += all[static_cast<std::size_t>(p) * width + 2];
      if (p < comm_.rank()) offset_ += sizes_[static_cast<std::size_t>(p)];
      global_n_ += sizes_[static_cast<std::size_t>(p)];
    }
    rep.global_size = global_n_;
    // The device all-reduce of the counts, agreed on (and made, the first time) now.
    if (opt.counts == transport::nccl && opt.algo != algorithm::sort_and_choose)
      device_reduce_ = make_nccl_allreduce(comm_, opt.local.stream);
    clock_.mark("agree");
  }

  /// KSELECT_PROFILE=1: the call's phases on this process (core/phase_clock.hpp), the
  /// shard's release included.
  ~engine() {
    shard_.reset();
    clock_.mark("release");
    clock_.report("process " + std::to_string(comm_.rank()));
  }

  std::int64_t global_size() const { return global_n_; }
  std::int64_t global_nans() const { return global_nans_; }
  std::int64_t offset() const { return offset_; }
  const std::vector<std::int64_t>& sizes() const { return sizes_; }
  communicator& comm() { return comm_; }
  distributed::shard<T>& local() { return *shard_; }

  /// Keys at `ranks` (ascending, unique, in [0, global size)), on every process, or on
  /// opt.root only when root_only (the others get an empty vector).
  std::vector<U> select_keys(std::span<const std::int64_t> ranks, bool root_only);

  /// The elements at `ranks` (as select_keys), bit for bit: the element the stable sort
  /// of the concatenation (ties by global index) holds at each rank, as the owning API
  /// answers. A key maps back to its value exactly except for zeros and NaNs (one key,
  /// several bit patterns); for those, the element is found among the equal ones in
  /// global index order (equal_element()).
  std::vector<T> elements_at(std::span<const std::int64_t> ranks, bool root_only);

  /// Runs a local step on every process and agrees on its failures (one collective).
  template <class F>
  void step(F&& f) {
    local_failure failure;
    guarded(failure, f);
    comm_.agree(failure.message, failure.caller_mistake);
  }

 private:
  void check_options() const;
  std::string describe_word(std::size_t w) const;
  std::vector<U> dibms(std::span<const std::int64_t> ranks, int root, bool gather_after_first_round);
  std::vector<U> sort_and_choose(std::span<const std::int64_t> ranks, int root);
  void resolve_equal_elements(std::span<const std::int64_t> ranks, const std::vector<U>& keys, std::vector<T>& out,
                              int root);
  std::vector<U> gather_and_answer(const distributed::round_table<U>& table, std::span<const distributed::rank_target> pending,
                                   std::vector<U>& answers, int root, std::int64_t local_keys);

  core::phase_clock clock_;  ///< first: it times the rest of the construction
  communicator comm_;
  const options& opt_;
  std::unique_ptr<distributed::shard<T>> shard_;
  std::unique_ptr<distributed::device_allreduce> device_reduce_;  ///< transport::nccl
  std::vector<std::int64_t> sizes_;
  std::int64_t global_n_ = 0, offset_ = 0, local_nans_ = 0, global_nans_ = 0;
};

// ---- implementation ------------------------------------------------------------

/// The signature's first words, in this order (describe_word names them).
enum signature_word : std::size_t {
  sig_call, sig_key_type, sig_algorithm, sig_root, sig_buckets, sig_sample_size,
  sig_pivot_intervals, sig_gather_keys, sig_seed, sig_counts, sig_arguments, sig_words
};

/// The signature of a call: its kind, the key type, the options and a hash of the
/// call's own arguments (ranks, quantiles, method, k, flags), added by the caller.
template <class T>
signature make_signature(int call, const options& opt) {
  signature s;
  s.add(static_cast<std::uint64_t>(call));
  s.add(key_type_code(sizeof(T), std::is_floating_point_v<T>, std::is_signed_v<T>));
  s.add(static_cast<std::uint64_t>(opt.algo));
  s.add(static_cast<std::uint64_t>(static_cast<std::int64_t>(opt.root)));
  s.add(static_cast<std::uint64_t>(static_cast<std::int64_t>(opt.buckets)));
  s.add(static_cast<std::uint64_t>(static_cast<std::int64_t>(opt.sample_size)));
  s.add(static_cast<std::uint64_t>(static_cast<std::int64_t>(opt.pivot_intervals)));
  s.add(static_cast<std::uint64_t>(opt.gather_keys));
  s.add(opt.seed);
  s.add(static_cast<std::uint64_t>(opt.counts));
  s.add(0xcbf29ce484222325ull);  // sig_arguments: FNV-1a offset basis, hashed into by add_bytes
  return s;
}

template <class T>
std::string engine<T>::describe_word(std::size_t w) const {
  static const char* const names[] = {"the call", "the key type (dtype)", "options.algo", "options.root",
                                      "options.buckets", "options.sample_size", "options.pivot_intervals",
                                      "options.gather_keys", "options.seed", "options.counts",
                                      "the ranks, quantiles, k or flags"};
  return w < sig_words ? names[w] : "an argument";
}

template <class T>
void engine<T>::check_options() const {
  if (opt_.buckets < 4 || opt_.buckets > (1 << 24))
    throw std::invalid_argument("options.buckets = " + std::to_string(opt_.buckets) + " is outside [4, 2^24]");
  if (opt_.sample_size < 1 || opt_.sample_size > (1 << 24))
    throw std::invalid_argument("options.sample_size = " + std::to_string(opt_.sample_size) +
                                " is outside [1, 2^24]");
  if (opt_.pivot_intervals < 1 || opt_.pivot_intervals > opt_.buckets / 2)
    throw std::invalid_argument("options.pivot_intervals = " + std::to_string(opt_.pivot_intervals) +
                                " is outside [1, buckets / 2]");
  if (opt_.gather_keys < 0)
    throw std::invalid_argument("options.gather_keys = " + std::to_string(opt_.gather_keys) + " is negative");
  if (opt_.counts != transport::mpi && opt_.counts != transport::nccl)
    throw std::invalid_argument("options.counts = " + std::to_string(static_cast<int>(opt_.counts)) +
                                " is not a transport");
  if (opt_.root < -1 || opt_.root >= comm_.size())
    throw std::invalid_argument("options.root = " + std::to_string(opt_.root) + " is not -1 or a process rank below " +
                                std::to_string(comm_.size()));
}

template <class T>
std::vector<typename engine<T>::U> engine<T>::select_keys(std::span<const std::int64_t> ranks, bool root_only) {
  const int root = root_only ? opt_.root : -1;
  if (ranks.empty()) return {};
  switch (opt_.algo) {
    case algorithm::sort_and_choose: return sort_and_choose(ranks, root);
    case algorithm::distributed_bms: return dibms(ranks, root, true);
    case algorithm::dibms: break;
  }
  return dibms(ranks, root, false);
}

template <class T>
std::vector<T> engine<T>::elements_at(std::span<const std::int64_t> ranks, bool root_only) {
  const std::vector<U> keys = select_keys(ranks, root_only);
  std::vector<T> out(keys.size());
  for (std::size_t i = 0; i < keys.size(); ++i) out[i] = core::key_traits<T>::from_key(keys[i]);
  if constexpr (std::is_floating_point_v<T>) resolve_equal_elements(ranks, keys, out, root_only ? opt_.root : -1);
  clock_.mark("elements");
  return out;
}

template <class T>
void engine<T>::resolve_equal_elements(std::span<const std::int64_t> ranks, const std::vector<U>& keys,
                                       std::vector<T>& out, int root) {
  using traits = core::key_traits<T>;
  const U zero = traits::to_key(T(0)), nan = traits::nan_key;
  // The answers whose key is a zero or a NaN: (index into ranks, key). Every process
  // must know them; with a root, only the root has the answers and says.
  std::vector<std::uint64_t> ambiguous;
  for (std::size_t i = 0; i < keys.size(); ++i)
    if (keys[i] == zero || keys[i] == nan) ambiguous.insert(ambiguous.end(), {i, keys[i]});
  if (root >= 0) {
    std::uint64_t count = ambiguous.size();
    comm_.bcast(&count, sizeof count, root);
    ambiguous.resize(count);
    comm_.bcast(ambiguous.data(), static_cast<std::int64_t>(count * sizeof(std::uint64_t)), root);
  }
  if (ambiguous.empty()) return;
  // No process holds -0.0 or a NaN with other bits (the first round's pass tallied them):
  // every such answer has its key's canonical bits, already in `out`. One small
  // all-reduce instead of a pass over the data.
  const std::int64_t seen = shard_->noncanonical_seen();  // -1: this process's shard does not know
  std::int64_t tally[2] = {seen < 0 ? 1 : 0, std::max<std::int64_t>(seen, 0)};
  comm_.allreduce_sum(tally, 2);
  if (tally[0] == 0 && tally[1] == 0) return;
  // Each process's elements below, equal to and equal with other bits than the
  // canonical value's, for each of the two keys (one pass each, for the keys asked),
  // in one all-gather: (failed, then below, equal, other bits for zero, then for NaN).
  constexpr std::size_t width = 7;
  bool want[2] = {false, false};
  for (std::size_t a = 1; a < ambiguous.size(); a += 2) want[ambiguous[a] == zero ? 0 : 1] = true;
  local_failure failure;
  std::int64_t mine[width] = {0, 0, 0, 0, 0, 0, 0};
  guarded(failure, [&] {
    for (int w = 0; w < 2; ++w)
      if (want[w]) shard_->counts_of_key(w == 0 ? zero : nan, mine[1 + 3 * w], mine[2 + 3 * w], mine[3 + 3 * w]);
  });
  mine[0] = failure ? 1 : 0;
  const std::vector<std::int64_t> all = comm_.allgather(mine, width);
  for (int p = 0; p < comm_.size(); ++p)
    if (all[width * static_cast<std::size_t>(p)] != 0) comm_.agree(failure.message, failure.caller_mistake);
  // Global (below, equal, other bits) per key; where every element of a key shares
  // one bit pattern, that is each of its answers (core::shared_bit_pattern).
  std::int64_t sum[2][3] = {};
  for (int p = 0; p < comm_.size(); ++p)
    for (int w = 0; w < 2; ++w)
      for (int f = 0; f < 3; ++f) sum[w][f] += all[width * static_cast<std::size_t>(p) + 1 + 3 * w + f];
  std::optional<T> pattern[2];
  for (int w = 0; w < 2; ++w)
    if (want[w]) pattern[w] = core::shared_bit_pattern<T>(w == 0 ? zero : nan, sum[w][1], sum[w][2]);
  // Otherwise the element at rank r of key K is the (r - below)-th element of key K
  // in global index order, held by the process whose equal elements span that
  // ordinal: it reads it, and one OR all-reduce gives everyone the bits (plus a
  // failure slot).
  const std::size_t count = ambiguous.size() / 2;
  std::vector<std::uint64_t> bits(count + 1, 0);
  bool lookups = false;
  for (std::size_t a = 0; a < count; ++a) {
    const std::optional<T>& p = pattern[ambiguous[2 * a + 1] == zero ? 0 : 1];
    if (p) std::memcpy(&bits[a], &*p, sizeof(T));
    lookups |= !p;
  }
  if (lookups) {
    guarded(failure, [&] {
      for (std::size_t a = 0; a < count; ++a) {
        const int w = ambiguous[2 * a + 1] == zero ? 0 : 1;
        if (pattern[w]) continue;
        std::int64_t ordinal = ranks[ambiguous[2 * a]] - sum[w][0];
        for (int p = 0; p < comm_.size(); ++p) {
          const std::int64_t equal = all[width * static_cast<std::size_t>(p) + 2 + 3 * w];
          if (ordinal < equal) {
            if (p == comm_.rank()) {
              const T element = shard_->equal_element(static_cast<U>(ambiguous[2 * a + 1]), ordinal);
              std::memcpy(&bits[a], &element, sizeof(T));
            }
            break;
          }
          ordinal -= equal;
        }
      }
    });
    bits[count] = failure ? 1 : 0;
    comm_.allreduce(bits.data(), bits.size(), MPI_BOR);
    if (bits[count] != 0) comm_.agree(failure.message, failure.caller_mistake);
  }
  if (out.empty()) return;
  for (std::size_t a = 0; a < count; ++a) std::memcpy(&out[ambiguous[2 * a]], &bits[a], sizeof(T));
}

template <class T>
std::vector<typename engine<T>::U> engine<T>::dibms(std::span<const std::int64_t> ranks, int root,
                                                    bool gather_after_first_round) {
  report& rep = comm_.stats();
  const int processes = comm_.size();
  std::vector<U> answers(ranks.size());

  // Phase 1: every process's share of the sample (in proportion to its keys), to all.
  const std::int64_t sample_total = std::min<std::int64_t>(opt_.sample_size, global_n_);
  std::vector<std::int64_t> sample_bytes(static_cast<std::size_t>(processes));
  std::int64_t my_samples = 0;
  for (int p = 0; p < processes; ++p) {
    const std::int64_t size = sizes_[static_cast<std::size_t>(p)];
    // ceil(sample_total * size / n), the paper's share (at least 1 key from a non-empty shard).
    const std::int64_t share = size == 0 ? 0
        : static_cast<std::int64_t>((static_cast<unsigned __int128>(sample_total) * size + global_n_ - 1) / global_n_);
    sample_bytes[static_cast<std::size_t>(p)] = share * static_cast<std::int64_t>(sizeof(U));
    if (p == comm_.rank()) my_samples = share;
  }
  std::vector<U> mine(static_cast<std::size_t>(my_samples));
  local_failure failure;
  guarded(failure, [&] { shard_->sample(process_seed(opt_.seed, comm_.rank()), mine); });
  if (failure) mine.assign(mine.size(), U(0));  // still take part; the round below reports it
  const std::vector<unsigned char> gathered =
      comm_.gather_bytes(mine.data(), my_samples * static_cast<std::int64_t>(sizeof(U)), sample_bytes, -1);
  std::vector<U> sample(gathered.size() / sizeof(U));
  std::memcpy(sample.data(), gathered.data(), gathered.size());
  std::sort(sample.begin(), sample.end());
  clock_.mark("sample");

  const auto buckets = static_cast<std::uint32_t>(opt_.buckets);
  distributed::round_table<U> table = distributed::first_round_table<U>(sample, opt_.pivot_intervals, buckets);
  clock_.mark("first table");
  std::vector<distributed::rank_target> pending;
  for (std::size_t i = 0; i < ranks.size(); ++i) pending.push_back({ranks[i], i});
  // Extremes in the first round where the sample repeats a key, for the pivot table's
  // heavy keys; a slot table answers repeated values by its dense slots' one-key buckets.
  bool minmax = table.slots.slots == 0 && distributed::sample_has_repeats<U>(sample);
  bool compact = false;  // the first round counts every key
  std::int64_t local_kept = 0;

  for (;;) {
    // Count locally; one all-reduce of the counts (plus a failure slot), one of the
    // intervals' minimum and maximum when asked: over MPI on the host, or on the GPUs.
    const std::size_t nb = table.buckets, ni = table.intervals.size();
    std::vector<std::uint64_t> counts, local_counts;
    std::vector<U> imin, imax;
    if (device_reduce_) {
      distributed::reduced_counts<U> reduced;
      const std::exception_ptr error = shard_->count_and_reduce(table, minmax, compact, local_kept, bool(failure),
                                                                *device_reduce_, reduced);
      clock_.mark("count+reduce");
      comm_.count_device_collective(static_cast<std::int64_t>((nb + 1) * sizeof(std::uint64_t) +
                                                              (minmax ? 2 * ni * sizeof(U) : 0)));
      guarded(failure, [&] {
        if (error) std::rethrow_exception(error);
      });
      ++rep.rounds;
      if (reduced.global[nb] != 0) comm_.agree(failure.message, failure.caller_mistake);
      reduced.global.pop_back();
      counts = std::move(reduced.global);
      local_counts = std::move(reduced.local);
      imin = std::move(reduced.min);
      imax = std::move(reduced.max);
    } else {
      counts.assign(nb + 1, 0);
      imin.resize(minmax ? ni : 0);
      imax.resize(minmax ? ni : 0);
      guarded(failure, [&] {
        shard_->count(table, counts.data(), minmax, imin.data(), imax.data(), compact, local_kept);
      });
      clock_.mark("count");
      counts[nb] = failure ? 1 : 0;
      local_counts.assign(counts.begin(), counts.end() - 1);
      comm_.allreduce(counts.data(), counts.size(), MPI_SUM);
      clock_.mark("reduce");
      ++rep.rounds;
      if (counts[nb] != 0) comm_.agree(failure.message, failure.caller_mistake);
      counts.pop_back();
      if (minmax) {
        std::vector<std::uint64_t> extremes(2 * ni);
        for (std::size_t i = 0; i < ni; ++i) {
          extremes[i] = imin[i];
          extremes[ni + i] = static_cast<std::uint64_t>(static_cast<U>(~imax[i]));  // max through MIN
        }
        comm_.allreduce(extremes.data(), extremes.size(), MPI_MIN);
        for (std::size_t i = 0; i < ni; ++i) {
          imin[i] = static_cast<U>(extremes[i]);
          imax[i] = static_cast<U>(~static_cast<U>(extremes[ni + i]));
        }
        clock_.mark("min/max");
      }
    }
    distributed::round_outcome<U> next = distributed::plan_next_round<U>(
        table, std::span<const std::uint64_t>(counts.data(), nb), local_counts, minmax, imin, imax, pending,
        buckets, answers);
    rep.candidates_after_round.push_back(next.next_keys);
    clock_.mark("plan");
    if (next.pending.empty()) break;
    if (gather_after_first_round || next.next_keys <= opt_.gather_keys)
      return gather_and_answer(next.next, next.pending, answers, root, next.local_next_keys);
    table = std::move(next.next);
    pending = std::move(next.pending);
    local_kept = next.local_next_keys;
    compact = true;
    minmax = true;  // from the second round on: exact termination on repeated values
  }
  if (root >= 0 && comm_.rank() != root) return {};
  return answers;
}

template <class T>
std::vector<typename engine<T>::U> engine<T>::gather_and_answer(
    const distributed::round_table<U>& table, std::span<const distributed::rank_target> pending,
    std::vector<U>& answers, int root, std::int64_t local_keys) {
  // Every process's keys inside the table's intervals (their numbers first), then
  // sorted where answers are wanted: position p among them is the answer's.
  std::vector<U> keys;
  local_failure failure;
  guarded(failure, [&] {
    keys.reserve(static_cast<std::size_t>(local_keys));
    shard_->extract(table, keys, local_keys);
  });
  clock_.mark("extract");
  const std::int64_t mine[2] = {failure ? -1 : static_cast<std::int64_t>(keys.size()), 0};
  const std::vector<std::int64_t> counts = comm_.allgather(mine, 2);
  std::vector<std::int64_t> bytes(static_cast<std::size_t>(comm_.size()));
  bool any_failed = false;
  for (int p = 0; p < comm_.size(); ++p) {
    const std::int64_t c = counts[2 * static_cast<std::size_t>(p)];
    any_failed |= c < 0;
    bytes[static_cast<std::size_t>(p)] = std::max<std::int64_t>(c, 0) * static_cast<std::int64_t>(sizeof(U));
  }
  if (any_failed) comm_.agree(failure.message, failure.caller_mistake);
  const std::vector<unsigned char> all = comm_.gather_bytes(
      keys.data(), static_cast<std::int64_t>(keys.size() * sizeof(U)), bytes, root);
  comm_.stats().gathered_keys += [&] {
    std::int64_t total = 0;
    for (const std::int64_t b : bytes) total += b / static_cast<std::int64_t>(sizeof(U));
    return total;
  }();
  clock_.mark("gather");
  if (root >= 0 && comm_.rank() != root) return {};
  std::vector<U> candidates(all.size() / sizeof(U));
  std::memcpy(candidates.data(), all.data(), all.size());
  // The candidates at the pending positions: nth_element on the middle one, then each
  // side, for a few positions; a radix sort of them all (one thread: a few thousand
  // keys) where many positions would each take another partitioning pass.
  std::vector<std::int64_t> positions;
  for (const distributed::rank_target& t : pending) positions.push_back(t.position);
  std::sort(positions.begin(), positions.end());
  positions.erase(std::unique(positions.begin(), positions.end()), positions.end());
  const auto count = static_cast<std::int64_t>(candidates.size());
  if (positions.size() >= answer_sort_min_positions && count >= answer_sort_min_keys)
    cpu::stable_radix_sort<U, U>(candidates.data(), nullptr, count, [](U k) { return k; }, 1);
  else
    cpu::select_positions(candidates.data(), count, positions);
  for (const distributed::rank_target& t : pending) answers[t.slot] = candidates[static_cast<std::size_t>(t.position)];
  clock_.mark("answer");
  return answers;
}

template <class T>
std::vector<typename engine<T>::U> engine<T>::sort_and_choose(std::span<const std::int64_t> ranks, int root) {
  // Every key to one process (the root, or process 0), sorted there on its backend.
  const int target = root >= 0 ? root : 0;
  std::vector<U> keys;
  local_failure failure;
  guarded(failure, [&] {
    keys.reserve(static_cast<std::size_t>(shard_->size()));
    shard_->extract_all(keys);
  });
  comm_.agree(failure.message, failure.caller_mistake);
  std::vector<std::int64_t> bytes(sizes_.size());
  for (std::size_t p = 0; p < sizes_.size(); ++p) bytes[p] = sizes_[p] * static_cast<std::int64_t>(sizeof(U));
  std::vector<unsigned char> all = comm_.gather_bytes(keys.data(), static_cast<std::int64_t>(keys.size() * sizeof(U)),
                                                      bytes, target);
  comm_.stats().gathered_keys = global_n_;
  std::vector<U> answers(ranks.size());
  if (comm_.rank() == target) {
    guarded(failure, [&] {
      std::vector<U> sorted(all.size() / sizeof(U));
      std::memcpy(sorted.data(), all.data(), all.size());
      std::vector<unsigned char>().swap(all);
      shard_->sort_keys(sorted);
      for (std::size_t i = 0; i < ranks.size(); ++i) answers[i] = sorted[static_cast<std::size_t>(ranks[i])];
    });
  }
  if (root < 0) {
    comm_.agree(failure.message, failure.caller_mistake);
    comm_.bcast(answers.data(), static_cast<std::int64_t>(answers.size() * sizeof(U)), target);
    return answers;
  }
  if (failure) throw kselect::error(failure.message);  // only the root sorts
  if (comm_.rank() != root) return {};
  return answers;
}

}  // namespace kselect::mpi::detail
