// kselect: common public types (errors, options, enums). No CUDA headers needed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>

namespace kselect {

/// Thrown by the owning API for failures that are not caller mistakes
/// (CUDA errors, allocation failures, internal invariants). Caller mistakes
/// (empty input, rank out of range, bad quantile) throw std::invalid_argument.
class error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Where the owning API runs. `automatic`: CUDA when the input pointer is
/// device memory, CPU otherwise. `cuda` with an input in host memory streams it
/// through the GPU (select, multiselect, quantile, nanquantile, topk, rank_range;
/// see options::device_memory_limit); the other calls refuse host input on CUDA.
enum class device_kind { automatic, cpu, cuda };

/// Selection algorithm. Every algorithm is exact; they differ in speed.
///  - sample_select: the SampleSelect recursion (sample, splitters, count with
///    1-byte oracles, filter, recurse) of Ribizel & Anzt.
///  - window: one pass that counts and extracts a narrow window predicted from a
///    sample around the rank; for one rank the levels are planned on the device
///    (one host round trip); a prediction that misses falls back to the general
///    recursion (SampleSelect with many buckets), exactly.
///  - automatic: window for one rank, the general recursion for several.
enum class algorithm { automatic, sample_select, window };

/// NumPy's quantile methods (numpy.quantile `method=`), all thirteen of numpy 2.x.
///  - linear (the default), lower, higher, nearest, midpoint: NumPy's older
///    `interpolation=` choices, on the virtual index (n - 1) * q.
///  - inverted_cdf, averaged_inverted_cdf, closest_observation,
///    interpolated_inverted_cdf, hazen, weibull, median_unbiased, normal_unbiased:
///    Hyndman & Fan's definitions 1 to 6, 8 and 9 (linear is their 7).
/// lower, higher, nearest, inverted_cdf and closest_observation answer an element;
/// the others interpolate between two neighbours. The formulas: src/core/quantile_math.hpp.
/// The first five keep the values they had before the other eight were added after them.
enum class quantile_method {
  linear,
  lower,
  higher,
  nearest,
  midpoint,
  inverted_cdf,
  averaged_inverted_cdf,
  closest_observation,
  interpolated_inverted_cdf,
  hazen,
  weibull,
  median_unbiased,
  normal_unbiased
};

/// Every quantile_method, in declaration order (to loop over them or list their names).
inline constexpr quantile_method quantile_methods[] = {
    quantile_method::linear,
    quantile_method::lower,
    quantile_method::higher,
    quantile_method::nearest,
    quantile_method::midpoint,
    quantile_method::inverted_cdf,
    quantile_method::averaged_inverted_cdf,
    quantile_method::closest_observation,
    quantile_method::interpolated_inverted_cdf,
    quantile_method::hazen,
    quantile_method::weibull,
    quantile_method::median_unbiased,
    quantile_method::normal_unbiased};

/// Options of the owning API.
struct options {
  device_kind device = device_kind::automatic;
  algorithm algo = algorithm::automatic;
  /// CPU backend threads; 0 = OpenMP default.
  int cpu_threads = 0;
  /// CUDA stream (a cudaStream_t) for the CUDA backend; nullptr = default stream.
  void* stream = nullptr;
  /// With device = cuda and values in host memory (select, multiselect, quantile,
  /// nanquantile, topk, rank_range): the most device memory, in bytes, the call takes while it streams
  /// the array through the GPU in chunks (so an array larger than the GPU is
  /// answered exactly); 0 = most of the device's free memory. A limit too small for
  /// one chunk throws std::invalid_argument saying how many bytes are needed.
  std::size_t device_memory_limit = 0;
};

/// Options of kselect::topk (and device::topk).
///  - largest: the k largest instead of the k smallest (NaN counts as the largest
///    value, as in NumPy's sort).
///  - sorted: output in order (ascending for the smallest, descending for the
///    largest); unsorted output (the default) is faster.
///  - deterministic: when several elements equal the k-th value, the ones with
///    the smaller index are taken, and the output is identical from run to run:
///    in index order when unsorted, in (value, index) order when sorted.
///  - indices: also return each element's input position (selection::indices);
///    false leaves selection::indices empty and saves 8 bytes per element, which
///    matters when k is a large part of n (the device API takes no index pointer).
struct topk_options {
  bool largest = false;
  bool sorted = false;
  bool deterministic = false;
  bool indices = true;
};

/// Options of kselect::rank_range (and device::rank_range): as topk_options,
/// for the elements whose positions in the ascending stable sort lie in [lo, hi).
struct range_options {
  bool sorted = false;
  bool deterministic = false;
  bool indices = true;
};

/// IEEE 754 binary16 (numpy.float16, torch.float16, CUDA's __half), as stored:
/// the same two bytes, so a pointer to any of those may be reinterpret_cast to a
/// pointer to float16. The segmented calls (kselect/segmented.hpp) take these keys;
/// to_float and to_float16 convert.
struct float16 {
  std::uint16_t bits;
};

/// bfloat16 (torch.bfloat16, CUDA's __nv_bfloat16), as stored; see float16.
struct bfloat16 {
  std::uint16_t bits;
};

/// Exact widening conversions.
float to_float(float16 x) noexcept;
float to_float(bfloat16 x) noexcept;
/// Narrowing conversions, rounding to nearest even (as CUDA's __float2half_rn and
/// __float2bfloat16_rn); NaN stays NaN.
float16 to_float16(float x) noexcept;
bfloat16 to_bfloat16(float x) noexcept;

/// Applies X to every key type kselect supports: the one list that explicit
/// instantiations are made from (one translation unit per type where it matters).
#define KSELECT_FOR_EACH_KEY_TYPE(X) \
  X(float)                           \
  X(double)                          \
  X(std::int32_t)                    \
  X(std::uint32_t)                   \
  X(std::int64_t)                    \
  X(std::uint64_t)

/// The key types kselect supports.
template <class T>
inline constexpr bool is_supported_key_v =
    std::is_same_v<T, float> || std::is_same_v<T, double> || std::is_same_v<T, std::int32_t> ||
    std::is_same_v<T, std::uint32_t> || std::is_same_v<T, std::int64_t> ||
    std::is_same_v<T, std::uint64_t>;

/// Applies X to every key type of the segmented calls (kselect/segmented.hpp):
/// the six above and the two 16-bit floating types.
#define KSELECT_FOR_EACH_SEGMENTED_KEY_TYPE(X) \
  KSELECT_FOR_EACH_KEY_TYPE(X)                 \
  X(kselect::float16)                          \
  X(kselect::bfloat16)

/// float16 or bfloat16.
template <class T>
inline constexpr bool is_half_key_v = std::is_same_v<T, float16> || std::is_same_v<T, bfloat16>;

/// The key types of the segmented calls.
template <class T>
inline constexpr bool is_segmented_key_v = is_supported_key_v<T> || is_half_key_v<T>;

/// Floating keys (NaN possible): float, double, float16, bfloat16.
template <class T>
inline constexpr bool is_floating_key_v = std::is_floating_point_v<T> || is_half_key_v<T>;

/// Result type of quantile(): the key type for float and double, float for
/// float16 and bfloat16 (computed in float64 from the two exact neighbours and
/// rounded once; NumPy would answer in float16), double for integers (as NumPy,
/// whose interpolating methods return float64 for integer input).
template <class T>
using quantile_value_t =
    std::conditional_t<std::is_floating_point_v<T>, T, std::conditional_t<is_half_key_v<T>, float, double>>;

const char* to_string(quantile_method m) noexcept;
const char* to_string(device_kind d) noexcept;
const char* to_string(algorithm a) noexcept;
/// Parses a method's name as NumPy spells it ("linear", "median_unbiased", ... as
/// to_string gives them); throws std::invalid_argument naming the thirteen.
quantile_method parse_quantile_method(std::string_view name);

}  // namespace kselect
