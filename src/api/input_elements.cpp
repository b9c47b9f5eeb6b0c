#include "api/input_elements.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <type_traits>
#include <vector>

#include "api/dispatch.hpp"
#include "core/key_traits.hpp"
#include "cpu/tied_elements.hpp"
#include "kselect/filter.hpp"
#include "kselect/types.hpp"

namespace kselect::detail {
namespace {

/// The two keys that stand for several bit patterns.
enum class ambiguous { none, zero, nan };

template <class T>
ambiguous classify(T v) {
  if (std::isnan(v)) return ambiguous::nan;
  if (v == T(0)) return ambiguous::zero;
  return ambiguous::none;
}

/// On CUDA the elements come from deterministic rank ranges, one per group of answers
/// at most this many positions apart: max(2^20, n / 8), so a group's buffer stays
/// small and the input is selected at most about 8 times more, however many answers
/// fall on zeros spread over the input.
std::int64_t max_group_span(std::int64_t n) { return std::max<std::int64_t>(std::int64_t{1} << 20, n / 8); }

template <class T>
void restore_by_ranges(backend b, const T* values, std::int64_t n, const std::vector<std::int64_t>& positions,
                       std::vector<T>& found, const options& opt) {
  std::vector<T> elements;
  for (std::size_t first = 0; first < positions.size();) {
    const std::int64_t lo = positions[first];
    std::size_t last = first;
    while (last + 1 < positions.size() && positions[last + 1] - lo < max_group_span(n)) ++last;
    const std::int64_t hi = positions[last] + 1;
    // Deterministic and unsorted: the elements of [lo, hi) in index order, which is
    // their stable-sort order since they all have one key.
    elements.resize(static_cast<std::size_t>(hi - lo));
    run_range_select(b, values, n, lo, hi, /*descending=*/false, /*sorted=*/false, /*deterministic=*/true,
                     elements.data(), nullptr, opt);
    for (std::size_t j = first; j <= last; ++j) found[j] = elements[static_cast<std::size_t>(positions[j] - lo)];
    first = last + 1;
  }
}

/// core::shared_bit_pattern of the zeros or the NaNs, counted on the elements' bits as
/// integers of the same width through the backend's count_if: zeros one count (the
/// -0.0s) or two, NaNs two (all of them, those with the canonical bits).
template <class T>
std::optional<T> shared_pattern(backend b, const T* values, std::int64_t n, ambiguous key, const options& opt) {
  using traits = core::key_traits<T>;
  using I = std::make_signed_t<core::key_t<T>>;
  const auto* bits = reinterpret_cast<const I*>(values);
  const auto bits_of = [](T v) { return static_cast<I>(traits::bits_of(v)); };
  if (key == ambiguous::zero) {
    const std::int64_t other = run_count_if(b, bits, n, eq(bits_of(T(-0.0))), opt);
    const std::int64_t equal = other == 0 ? 0 : run_count_if(b, values, n, eq(T(0)), opt);
    return core::shared_bit_pattern<T>(traits::to_key(T(0)), equal, other);
  }
  const std::int64_t equal = run_count_nan(b, values, n, opt);
  const std::int64_t other = equal - run_count_if(b, bits, n, eq(bits_of(traits::from_key(traits::nan_key))), opt);
  return core::shared_bit_pattern<T>(traits::nan_key, equal, other);
}

template <class T>
void run_tied_elements(const T* values, std::int64_t n, T like, const std::vector<std::int64_t>& positions,
                       std::vector<T>& found, const options& opt) {
  cpu_call([&] {
    cpu::tied_elements(values, n, like, positions.data(), static_cast<std::int64_t>(positions.size()),
                       found.data(), opt.cpu_threads);
  });
}

}  // namespace

template <class T>
void restore_input_elements(backend b, const T* values, std::int64_t n, const std::int64_t* positions,
                            std::int64_t count, T* out, const options& opt, element_lookup lookup) {
  if constexpr (!std::is_floating_point_v<T>) {
    (void)b, (void)values, (void)n, (void)positions, (void)count, (void)out, (void)opt, (void)lookup;
  } else {
    for (const ambiguous key : {ambiguous::zero, ambiguous::nan}) {
      // The answers with this key, by position.
      std::vector<std::int64_t> todo;
      for (std::int64_t i = 0; i < count; ++i)
        if (classify(out[i]) == key) todo.push_back(i);
      if (todo.empty()) continue;
      std::sort(todo.begin(), todo.end(),
                [&](std::int64_t a, std::int64_t c) { return positions[a] < positions[c]; });
      std::vector<std::int64_t> sorted_positions(todo.size());
      for (std::size_t j = 0; j < todo.size(); ++j) sorted_positions[j] = positions[todo[j]];
      std::vector<T> found(todo.size());
      // The CPU's scan takes two passes. The lookup by rank ranges selects up to n / 8
      // elements per group of answers: first see whether one bit pattern answers them
      // all (most data has no -0.0 and one kind of NaN).
      if (b == backend::cpu && lookup == element_lookup::automatic)
        run_tied_elements(values, n, out[todo[0]], sorted_positions, found, opt);
      else if (const std::optional<T> only = shared_pattern(b, values, n, key, opt))
        found.assign(found.size(), *only);
      else
        restore_by_ranges(b, values, n, sorted_positions, found, opt);
      for (std::size_t j = 0; j < todo.size(); ++j) out[todo[j]] = found[j];
    }
  }
}

#define KSELECT_INSTANTIATE(T)                                                                        \
  template void restore_input_elements<T>(backend, const T*, std::int64_t, const std::int64_t*, std::int64_t, \
                                          T*, const options&, element_lookup);
KSELECT_FOR_EACH_KEY_TYPE(KSELECT_INSTANTIATE)
#undef KSELECT_INSTANTIATE

}  // namespace kselect::detail
