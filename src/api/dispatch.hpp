// Backend choice and calls for the owning API (include/kselect/kselect.hpp): the one
// place that knows whether this build has CUDA.
#pragma once

#include <cstddef>
#include <cstdint>
#include <new>
#include <stdexcept>
#include <string>

#include "kselect/filter.hpp"
#include "kselect/types.hpp"

namespace kselect::detail {

/// cuda_host: the CUDA backend on an array in host memory, streamed through the GPU
/// (select, multiselect, quantile, nanquantile, topk and rank_range only).
enum class backend { cpu, cuda, cuda_host };

/// Whether a call takes host input on CUDA (backend::cuda_host).
enum class host_input { refuse, stream };

/// Throws std::invalid_argument for a null or empty input ("values is null",
/// "n = 0: the input is empty") and for a negative options::cpu_threads.
void check_input(const void* values, std::int64_t n, const options& opt);

/// As check_input where an empty array is valid (the filters): throws for a
/// negative n, a null `name` array when n > 0, a negative options::cpu_threads.
void check_array(const void* array, std::int64_t n, const options& opt, const char* name = "values");

/// automatic: CUDA for device memory, else the CPU. options::device = cuda with host
/// memory: cuda_host where the call streams host input, else std::invalid_argument.
/// Also throws std::invalid_argument when options::device asks for the CPU with device
/// memory, or for CUDA in a build without it ("kselect was built without CUDA").
backend choose_backend(const void* values, const options& opt, host_input host = host_input::refuse);

/// out[i] = value of rank ranks[i]; ranks ascending, unique, in [0, n); out is host memory.
/// Each answer is an element of the input, bit for bit: of elements that compare equal
/// but differ in bits (-0.0 and +0.0, NaNs), the one at that position of the stable sort.
/// Failures other than caller mistakes (out of memory, CUDA errors) throw kselect::error.
template <class T>
void run_multiselect(backend b, const T* values, std::int64_t n, const std::int64_t* ranks,
                     std::int64_t num_ranks, T* out, const options& opt);

/// cpu::range_select, cuda_backend::range_select or (cuda_host)
/// cuda_backend::streamed_range_select; outputs in host memory.
template <class T>
void run_range_select(backend b, const T* values, std::int64_t n, std::int64_t lo, std::int64_t hi,
                      bool descending, bool sorted, bool deterministic, T* out_values,
                      std::int64_t* out_indices, const options& opt);

/// cpu::approx_multiselect or cuda_backend::approx_multiselect; ranks as run_multiselect.
template <class T>
void run_approx_multiselect(backend b, const T* values, std::int64_t n, const std::int64_t* ranks,
                            std::int64_t num_ranks, std::int64_t max_rank_error, T* out,
                            std::int64_t* out_ranks, const options& opt);

/// NaNs in values[0..n) (0 for integer types).
template <class T>
std::int64_t run_count_nan(backend b, const T* values, std::int64_t n, const options& opt);

/// The filters (kselect/filter.hpp) on the CPU: cpu::filter_count, then target's
/// buffers (size: the count, or n for a partition), then cpu::filter_write; returns
/// the count. On CUDA: cuda_backend::filter (src/cuda/owning_filter.cuh).
/// Arguments validated by the caller; n > 0.
template <class T>
std::int64_t run_filter(backend b, const T* values, std::int64_t n, const filter_condition<T>& cond,
                        const void* payload, std::size_t payload_bytes, bool partition, bool with_indices,
                        filter_target& target, const options& opt);

/// cpu::count_if; CUDA: cuda_backend::count_if.
template <class T>
std::int64_t run_count_if(backend b, const T* values, std::int64_t n, const predicate<T>& pred,
                          const options& opt);

/// cpu::filter_inplace; CUDA: cuda_backend::filter_inplace.
template <class T>
std::int64_t run_filter_inplace(backend b, T* values, std::int64_t n, const predicate<T>& pred,
                                const options& opt);

// The CPU backend reports failures with standard exceptions; the owning API promises
// kselect::error for everything that is not a caller mistake.
template <class F>
auto cpu_call(F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (const std::bad_alloc&) {
    throw error("kselect: out of host memory in the CPU backend");
  } catch (const std::invalid_argument&) {
    throw;  // a caller mistake, as documented
  } catch (const std::logic_error& e) {
    throw error(std::string("kselect: internal error in the CPU backend: ") + e.what());
  }
}

}  // namespace kselect::detail
