// The NumPy .npy format (versions 1.0, 2.0, 3.0): preamble and header parsing, and
// the header of a file to write. Pure functions over bytes; reading and writing
// files is input.cpp's and output.cpp's job. Errors throw input_error with a message
// that does not name the file (the caller adds it).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "dtype.hpp"

namespace kselect_cli::npy {

/// The 6-byte magic string every .npy file starts with.
inline constexpr std::string_view magic{"\x93NUMPY", 6};

/// Bytes needed to read the preamble: magic, version, header length.
inline constexpr std::size_t max_preamble_bytes = 12;

struct preamble {
  int major = 0;
  int minor = 0;
  std::size_t header_offset = 0;  // where the header dict starts
  std::size_t header_bytes = 0;   // its length; data starts at header_offset + header_bytes
};

/// The header dictionary's three keys, as written.
struct header {
  std::string descr;
  bool fortran_order = false;
  std::vector<std::int64_t> shape;
};

/// Parses the preamble from the file's first bytes (at most max_preamble_bytes;
/// fewer only when the file is that short, which is an error).
preamble parse_preamble(std::string_view first_bytes);

/// Parses the header dict, e.g. "{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }".
header parse_header(std::string_view text);

/// The element type of a header's descr; throws input_error for big-endian,
/// structured or unsupported types.
dtype header_dtype(const header& h);

/// Number of elements (product of the shape; 1 for shape ()). Throws when
/// fortran_order is set on an array of more than one dimension, or when the
/// data's byte count would not fit in an int64.
std::int64_t header_count(const header& h, std::size_t item_size);

/// "(3, 4)" as Python writes a shape.
std::string shape_string(const std::vector<std::int64_t>& shape);

/// The bytes before the data of a version 1.0 file holding a one-dimensional array
/// of `count` elements of type t, as numpy.save writes them: magic, version, header
/// length, and the header dict padded with spaces and a newline to a multiple of 64.
std::string array_prefix(dtype t, std::int64_t count);

/// The same for an array of any `shape` (C order): {} is a 0-d array (one element),
/// {m, r} an (m, r) matrix.
std::string array_prefix(dtype t, const std::vector<std::int64_t>& shape);

}  // namespace kselect_cli::npy
