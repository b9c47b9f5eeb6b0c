// Elements that compare equal but may differ in bits (-0.0 and +0.0; NaNs), picked
// by their position in the stable sort (ties by input index). The owning API uses it
// to answer selections with the input's own elements (src/api/input_elements.hpp).
#pragma once

#include <cstdint>

namespace kselect::cpu {

/// For each positions[i] (ascending, in [0, n)) whose element in the stable sort of
/// values[0..n) has the same key as `like` (core::key_traits: every zero, or every
/// NaN), out[i] = that element, bit for bit. One pass over the input counts per chunk
/// (keys below, keys equal, their bit patterns); when the equal elements are all one
/// bit pattern that is every answer, else a second pass has each chunk walk its own
/// equal elements for the ordinals that fall in it, whatever the number of positions.
/// T is float or double, `like` a zero or a NaN (the only keys of several patterns).
template <class T>
void tied_elements(const T* values, std::int64_t n, T like, const std::int64_t* positions, std::int64_t count,
                   T* out, int num_threads = 0);

}  // namespace kselect::cpu
