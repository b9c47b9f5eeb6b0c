// The device workspace of approximate multiselection, sized and carved by one
// function for the size query and the call (as workspace.hpp for the exact
// driver). Sized for the largest bucket count, so that the size depends only on
// the type, n and the number of ranks, as the device API promises.
#pragma once

#include <cstddef>
#include <cstdint>

#include "kselect/detail/workspace_carver.hpp"
#include "cuda/tuning.hpp"
#include "core/approx.hpp"
#include "core/approx_lookup.hpp"
#include "core/key_traits.hpp"

namespace kselect::cuda {

struct approx_layout {
  std::size_t sample;                                      ///< the sample's pre-keys (approx_sample_kernel)
  std::size_t lookup, fine, boundaries, splitters, hist;  ///< the plan kernel's tables, the histogram
  std::size_t ranks, verdicts;                             ///< the ranks on the device, one verdict byte each
  std::size_t flags;                                       ///< stream-ordered: ranks valid, all within the bound
  std::size_t fallback_index, fallback_out;                ///< the exact fallback's rank indices and answers
  std::size_t fallback_workspace, fallback_bytes;          ///< device::multiselect's workspace
  std::size_t total;
  const tuning::policy* policy;                            ///< the device's, for the driver
};

/// `fallback_bytes`: the exact multiselect's workspace for any subset of the ranks
/// (approx_dispatch.cuh asks device::multiselect for it; the stream-ordered call:
/// the exact descent's, or multiselect_async's); `p`: the device's policy.
template <class T>
approx_layout plan_approx_workspace(std::int64_t num_ranks, std::size_t fallback_bytes, const tuning::policy& p) {
  using K = core::key_t<T>;
  approx_layout w{};
  w.policy = &p;
  kselect::detail::workspace_carver carve;
  const auto r = static_cast<std::size_t>(num_ranks);
  w.sample = carve.take(core::approx_sample_size * sizeof(K));
  w.lookup = carve.take(sizeof(core::approx_lookup<K>));
  w.fine = carve.take(core::approx_max_fine_slots * sizeof(std::uint32_t));
  w.boundaries = carve.take(core::approx_max_boundaries * sizeof(K));
  w.splitters = carve.take(core::approx_max_splitters * sizeof(T));
  w.hist = carve.take((2 * core::approx_max_splitters + 1) * sizeof(unsigned long long));
  w.ranks = carve.take(r * sizeof(std::int64_t));
  w.verdicts = carve.take(r);
  w.flags = carve.take(2 * sizeof(std::int32_t));
  w.fallback_index = carve.take(r * sizeof(std::int64_t));
  w.fallback_out = carve.take(r * sizeof(T));
  w.fallback_bytes = fallback_bytes;
  w.fallback_workspace = carve.take(fallback_bytes);
  w.total = carve.end;
  return w;
}

}  // namespace kselect::cuda
