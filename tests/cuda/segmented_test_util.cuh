// The segmented device API (kselect/device_segmented.hpp) called as a user calls
// it (user_call.cuh: the two-phase protocol, poisoned workspace and outputs, a
// non-blocking stream), its answers brought back to the host: every output is
// checked for writes past its end, d_invalid_segment is always passed and read.
// The calls take the keys as D, kselect's type (the default) or the CUDA type of
// the same two bytes (__half, __nv_bfloat16), which the API accepts directly.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "common/device_data.cuh"
#include "common/segmented_reference.hpp"
#include "cuda/user_call.cuh"
#include "kselect/device.hpp"
#include "kselect/device_segmented.hpp"

namespace kselect::test {

/// A segmented input in device memory, as the device API takes it.
template <class T>
struct device_segments {
  const T* values = nullptr;
  device::segment_layout layout{};
};

/// A segmented input on the host and on the device. Equal rows are described by
/// their offsets too (row_offsets), which the reference reads; the device gets
/// segment_layout::rows for them, and segment_layout::ragged over a device copy of
/// the offsets otherwise.
template <class T>
class segmented_input {
 public:
  segmented_input(std::vector<T> values, std::vector<std::int64_t> offsets, bool ragged)
      : values_(std::move(values)), offsets_(std::move(offsets)), d_values_(values_) {
    const auto m = static_cast<std::int64_t>(offsets_.size()) - 1;
    const std::int64_t n = offsets_.back();
    if (ragged) {
      d_offsets_ = device_buffer<std::int64_t>(offsets_);
      layout_ = device::segment_layout::ragged(d_offsets_.data(), m, n);
    } else {
      layout_ = device::segment_layout::rows(m, offsets_[1]);
    }
  }

  std::span<const T> values() const { return values_; }
  std::span<const std::int64_t> offsets() const { return offsets_; }
  device_segments<T> device() const { return {d_values_.data(), layout_}; }

 private:
  std::vector<T> values_;
  std::vector<std::int64_t> offsets_;
  device_buffer<T> d_values_;
  device_buffer<std::int64_t> d_offsets_;
  device::segment_layout layout_{};
};

/// The first `size` elements of an output, once the stream is done; fails the
/// test if anything was written after them.
template <class V>
std::vector<V> written(const device_output<V>& out, std::int64_t size) {
  std::vector<V> all = out.host();
  const auto used = static_cast<std::size_t>(size);
  EXPECT_TRUE(all_poison(all.data() + used, static_cast<std::size_t>(guard) * sizeof(V)))
      << "written past the " << size << " results";
  all.resize(used);
  return all;
}

/// Answers of a selection call and what it reported in d_invalid_segment.
template <class T>
struct selection_answer {
  std::vector<T> values;
  std::int64_t invalid = -2;
};

/// call(workspace, bytes, d_out, stream, cfg) by the two-phase protocol, with an
/// output of `size` values and d_invalid_segment.
template <class T, class Call>
selection_answer<T> run_selection(std::int64_t size, Call&& call) {
  test_stream stream;
  const cudaStream_t s = stream.get();
  const device_output<T> out(size);
  const device_output<std::int64_t> invalid(1);
  out.poison(s);
  invalid.poison(s);
  device::segmented_config cfg;
  cfg.d_invalid_segment = invalid.data();
  const cudaError_t st =
      two_phase(s, [&](void* ws, std::size_t& bytes) { return call(ws, bytes, out.data(), s, cfg); });
  EXPECT_EQ(st, cudaSuccess) << device::last_error_message();
  return {written(out, size), written(invalid, 1)[0]};
}

/// The keys as the call takes them.
template <class D, class T>
const D* as_device_keys(const T* p) {
  return reinterpret_cast<const D*>(p);
}
template <class D, class T>
D* as_device_keys(T* p) {
  return reinterpret_cast<D*>(p);
}

template <class T, class D = T>
selection_answer<T> gpu_segmented_select(const device_segments<T>& in, std::int64_t k) {
  return run_selection<T>(
      in.layout.count, [&](void* ws, std::size_t& bytes, T* out, cudaStream_t s, const device::segmented_config& cfg) {
        return device::segmented_select(ws, bytes, as_device_keys<D>(in.values), as_device_keys<D>(out), in.layout, k,
                                        s, cfg);
      });
}

template <class T, class D = T>
selection_answer<T> gpu_segmented_select_each(const device_segments<T>& in, std::span<const std::int64_t> ks) {
  const device_buffer<std::int64_t> d_ks(std::vector<std::int64_t>(ks.begin(), ks.end()));
  return run_selection<T>(
      in.layout.count, [&](void* ws, std::size_t& bytes, T* out, cudaStream_t s, const device::segmented_config& cfg) {
        return device::segmented_select_each(ws, bytes, as_device_keys<D>(in.values), as_device_keys<D>(out), in.layout,
                                             d_ks.data(), s, cfg);
      });
}

template <class T, class D = T>
selection_answer<T> gpu_segmented_multiselect(const device_segments<T>& in, std::span<const std::int64_t> ranks) {
  const auto r = static_cast<int>(ranks.size());
  return run_selection<T>(in.layout.count * r, [&](void* ws, std::size_t& bytes, T* out, cudaStream_t s,
                                                   const device::segmented_config& cfg) {
    return device::segmented_multiselect(ws, bytes, as_device_keys<D>(in.values), as_device_keys<D>(out), in.layout,
                                         ranks.data(), r, s, cfg);
  });
}

template <class T, class D = T>
std::vector<quantile_value_t<T>> gpu_segmented_quantile(const device_segments<T>& in, std::span<const double> qs,
                                                        quantile_method method, bool ignore_nan) {
  using R = quantile_value_t<T>;
  const auto nq = static_cast<int>(qs.size());
  const std::int64_t size = in.layout.count * nq;
  test_stream stream;
  const cudaStream_t s = stream.get();
  const device_output<R> out(size);
  out.poison(s);
  const cudaError_t st = two_phase(s, [&](void* ws, std::size_t& bytes) {
    return device::segmented_quantile(ws, bytes, as_device_keys<D>(in.values), out.data(), in.layout, qs.data(), nq,
                                      method, ignore_nan, s);
  });
  EXPECT_EQ(st, cudaSuccess) << device::last_error_message();
  return written(out, size);
}

/// segmented_median (ignore_nan: nanmedian): one value per segment.
template <class T, class D = T>
std::vector<quantile_value_t<T>> gpu_segmented_median(const device_segments<T>& in, bool ignore_nan) {
  using R = quantile_value_t<T>;
  const std::int64_t size = in.layout.count;
  test_stream stream;
  const cudaStream_t s = stream.get();
  const device_output<R> out(size);
  out.poison(s);
  const cudaError_t st = two_phase(s, [&](void* ws, std::size_t& bytes) {
    return device::segmented_median(ws, bytes, as_device_keys<D>(in.values), out.data(), in.layout, ignore_nan, s);
  });
  EXPECT_EQ(st, cudaSuccess) << device::last_error_message();
  return written(out, size);
}

/// segmented_topk with IndexT indices, or none (with_indices false: the nullptr
/// overload; the answer's indices are then empty).
template <class T, class IndexT, class D = T>
topk_rows<T> gpu_segmented_topk(const device_segments<T>& in, std::int64_t k, bool largest, bool sorted,
                                bool with_indices) {
  const std::int64_t size = in.layout.count * k;
  test_stream stream;
  const cudaStream_t s = stream.get();
  const device_output<T> out(size);
  const device_output<IndexT> idx(size);
  out.poison(s);
  idx.poison(s);
  device::topk_config cfg;
  cfg.largest = largest;
  cfg.sorted = sorted;
  const cudaError_t st = two_phase(s, [&](void* ws, std::size_t& bytes) {
    const D* keys = as_device_keys<D>(in.values);
    if (with_indices)
      return device::segmented_topk(ws, bytes, keys, as_device_keys<D>(out.data()), idx.data(), in.layout, k, s, cfg);
    return device::segmented_topk(ws, bytes, keys, as_device_keys<D>(out.data()), nullptr, in.layout, k, s, cfg);
  });
  EXPECT_EQ(st, cudaSuccess) << device::last_error_message();
  topk_rows<T> answer;
  answer.values = written(out, size);
  const std::vector<IndexT> got_idx = written(idx, with_indices ? size : 0);
  answer.indices.assign(got_idx.begin(), got_idx.end());
  return answer;
}

}  // namespace kselect::test
