// Planning of the multiselection pre-pass (core/bin_map.hpp): after the count
// pass, which bins hold target ranks, and what each rank becomes among the keys
// of those bins once they are copied out. The device plans the same on its own
// (bin_reduce_kernel, which also places each bin's keys in a region of their
// own); these host versions are the reference its tests check against.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace kselect::core {

struct bin_reduction {
  std::vector<std::uint32_t> selected;  ///< bitmap: bit b set if bin b holds a rank
  std::int64_t kept = 0;                ///< keys in the selected bins
  std::vector<std::int64_t> ranks;      ///< each target rank, as a rank among the kept keys
};

/// `hist`: keys per bin (bins in key order); `ranks`: sorted, distinct, each below
/// the sum of `hist`. The kept keys, sorted, are the selected bins' keys in bin
/// order, so rank r in bin b becomes r - (keys before b) + (kept keys before b).
bin_reduction reduce_to_bins(std::span<const std::uint64_t> hist, std::span<const std::int64_t> ranks);

/// The fraction of n keys the reduction would keep, predicted from the sample the
/// bins were built from (`bins_of_sample`: the sorted sample keys' bins, so
/// non-decreasing): the sample keys in the bins that hold the ranks' expected
/// sample positions. Low-entropy inputs (a few values holding most keys) predict
/// a large fraction; the caller then skips the pre-pass. The device makes the
/// same prediction (bin_map_kernel) with core::predicted_sample_keys.
double predict_kept_fraction(std::span<const std::uint32_t> bins_of_sample, std::span<const std::int64_t> ranks,
                             std::int64_t n);

}  // namespace kselect::core
