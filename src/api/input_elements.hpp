// Answers of select, multiselect, quantile and approximate selection as elements of
// the input, bit for bit. The backends select on core::key_traits keys, which merge
// -0.0 with +0.0 and every NaN into one key, so the value they return for those two
// keys is canonical (+0.0, the positive quiet NaN). Where an answer has one of these
// keys, the element is looked up again: the one at that position of the ascending
// stable sort (ties by input index). On the CPU two passes over the input find every
// such answer (cpu::tied_elements); on CUDA, deterministic rank ranges of the
// backend, unless one or two counts show that every element of that key has one bit
// pattern (no -0.0, only -0.0, one kind of NaN), which is then every such answer.
// The lookup runs only for such answers.
#pragma once

#include <cstdint>

#include "api/dispatch.hpp"

namespace kselect::detail {

/// How the elements are looked up: `automatic` as described above; `by_rank_ranges` by rank
/// ranges on any backend (the CUDA way, so the CPU suite tests it too).
enum class element_lookup { automatic, by_rank_ranges };

/// For each i < count whose out[i] is a zero or a NaN, replaces out[i] by the element
/// at position positions[i] of the stable sort of values[0..n) (same key, so the same
/// ordering; positions in [0, n), any order). Integer types: nothing to do.
template <class T>
void restore_input_elements(backend b, const T* values, std::int64_t n, const std::int64_t* positions,
                            std::int64_t count, T* out, const options& opt,
                            element_lookup lookup = element_lookup::automatic);

}  // namespace kselect::detail
