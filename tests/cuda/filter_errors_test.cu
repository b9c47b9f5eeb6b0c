// The device filters' protocol and argument errors: the workspace size query (a
// nonzero size that depends on n alone; one byte less refused, with a message),
// and bad arguments (cudaErrorInvalidValue and a message naming the argument, no
// CUDA error left behind).
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "cuda/filter_test_util.cuh"

namespace kselect::test {
namespace {

// A null workspace answers a nonzero size, the same for the same n whatever the
// data, the predicate or the previous value of workspace_bytes; one byte less is
// refused, exactly the size accepted.
TEST(FilterGpu, WorkspaceSizeQuery) {
  const device_buffer<float> in(std::vector<float>(100000, 1.0f));
  const device_buffer<float> out(100000);
  const device_buffer<std::int64_t> count(1);
  for (const std::int64_t n : {std::int64_t{0}, std::int64_t{1}, std::int64_t{4096}, std::int64_t{8193},
                               std::int64_t{1} << 20, (std::int64_t{1} << 31) + 4097, (std::int64_t{1} << 40) - 1}) {
    SCOPED_TRACE(testing::Message() << "n = " << n);
    for (const filter_algorithm algo : all_algorithms) {
      SCOPED_TRACE(algo_name(algo));
      std::size_t first = 0, again = 12345, other = 0;
      ASSERT_EQ(device::filter_if(nullptr, first, in.data(), out.data(), count.data(), n, lt(0.5f), nullptr, {algo}),
                cudaSuccess)
          << device::last_error_message();
      EXPECT_GT(first, 0u);
      ASSERT_EQ(device::filter_if(nullptr, again, in.data(), out.data(), count.data(), n, lt(0.5f), nullptr, {algo}),
                cudaSuccess);
      EXPECT_EQ(again, first);
      ASSERT_EQ(device::filter_if(nullptr, other, in.data(), out.data(), count.data(), n, ne(2.0f), nullptr, {algo}),
                cudaSuccess);
      EXPECT_EQ(other, first);
    }
    std::size_t part = 0, part_again = 1;
    ASSERT_EQ(device::partition(nullptr, part, in.data(), out.data(), count.data(), n, lt(0.5f)), cudaSuccess);
    ASSERT_EQ(device::partition(nullptr, part_again, in.data(), out.data(), count.data(), n, lt(0.5f)), cudaSuccess);
    EXPECT_GT(part, 0u);
    EXPECT_EQ(part_again, part);
    std::size_t counting = 0;
    ASSERT_EQ(device::count_if(nullptr, counting, in.data(), count.data(), n, lt(0.5f)), cudaSuccess);
    EXPECT_GT(counting, 0u);
  }

  const std::int64_t n = 100000;
  test_stream stream;
  cuda_check(cudaDeviceSynchronize(), "the input's copy");  // the stream does not wait for it
  for (const filter_algorithm algo : all_algorithms) {
    SCOPED_TRACE(algo_name(algo));
    std::size_t bytes = 0;
    ASSERT_EQ(device::filter_if(nullptr, bytes, in.data(), out.data(), count.data(), n, lt(0.5f), stream.get(),
                                {algo}),
              cudaSuccess);
    device_buffer<char> ws(bytes);
    std::size_t small = bytes - 1;
    EXPECT_EQ(device::filter_if(ws.data(), small, in.data(), out.data(), count.data(), n, lt(0.5f), stream.get(),
                                {algo}),
              cudaErrorInvalidValue);
    const std::string msg = device::last_error_message();
    EXPECT_NE(msg.find("workspace too small"), std::string::npos) << msg;
    EXPECT_NE(msg.find(std::to_string(bytes) + " needed"), std::string::npos) << msg;
    std::size_t exact = bytes;
    EXPECT_EQ(device::filter_if(ws.data(), exact, in.data(), out.data(), count.data(), n, lt(0.5f), stream.get(),
                                {algo}),
              cudaSuccess)
        << device::last_error_message();
    EXPECT_STREQ(device::last_error_message(), "") << "a successful call leaves no message";
    cuda_check(cudaStreamSynchronize(stream.get()), "sync");
    EXPECT_EQ(count.to_host()[0], 0) << "every key is 1.0: lt(0.5) selects none";
  }
}

TEST(FilterGpu, BadArgumentsAreRejectedWithAMessage) {
  const std::int64_t n = 1000;
  const std::vector<float> host = generate<float>(dist::uniform, n, 3);
  const device_buffer<float> in(host);
  const device_buffer<float> out(static_cast<std::size_t>(n));
  const device_buffer<std::int64_t> count(1);
  const device_buffer<std::int64_t> idx64(static_cast<std::size_t>(n));
  const device_buffer<std::uint8_t> flags(std::vector<std::uint8_t>(static_cast<std::size_t>(n), 1));
  const device_buffer<triple> values_in(static_cast<std::size_t>(n));
  const device_buffer<triple> values_out(static_cast<std::size_t>(n));
  std::vector<float> host_out(static_cast<std::size_t>(n));
  std::vector<std::uint8_t> host_flags(static_cast<std::size_t>(n), 1);
  std::vector<triple> host_values(static_cast<std::size_t>(n));
  std::int64_t host_count = 0;
  const predicate<float> p = lt(0.5f);
  using fa = filter_algorithm;

  // A workspace larger than any of these calls needs (checked), so that only the
  // argument under test is wrong.
  constexpr std::size_t ws_bytes = std::size_t{1} << 20;
  for (const fa algo : all_algorithms) {
    std::size_t b = 0;
    ASSERT_EQ(device::filter_if(nullptr, b, in.data(), out.data(), count.data(), n, p, nullptr, {algo}), cudaSuccess);
    ASSERT_LE(b, ws_bytes);
  }
  const device_buffer<char> ws(ws_bytes);

  auto expect_rejected = [](cudaError_t st, const std::string& needle) {
    EXPECT_EQ(st, cudaErrorInvalidValue) << "expected a rejection mentioning '" << needle << "'";
    const std::string msg = device::last_error_message();
    EXPECT_NE(msg.find(needle), std::string::npos) << "message: " << msg;
    EXPECT_EQ(cudaGetLastError(), cudaSuccess) << "a rejected call left a CUDA error behind";
  };
  auto filter = [&](const float* d_in, float* d_out, std::int64_t* d_count, std::int64_t nn, fa algo = fa::automatic) {
    std::size_t b = ws_bytes;
    return device::filter_if(ws.data(), b, d_in, d_out, d_count, nn, p, nullptr, {algo});
  };

  // n
  for (const fa algo : all_algorithms)
    expect_rejected(filter(in.data(), out.data(), count.data(), -1, algo), "n = -1 is negative");
  std::size_t query = 0;
  expect_rejected(device::filter_if(nullptr, query, in.data(), out.data(), count.data(), -5, p), "n = -5 is negative");
  expect_rejected(filter(in.data(), out.data(), count.data(), std::int64_t{1} << 40), "exceeds 2^40");
  {
    std::size_t b = ws_bytes;
    expect_rejected(device::count_if(ws.data(), b, in.data(), count.data(), -3, p), "n = -3 is negative");
  }

  // Null and host pointers.
  for (const fa algo : all_algorithms) {
    SCOPED_TRACE(algo_name(algo));
    expect_rejected(filter(nullptr, out.data(), count.data(), n, algo), "d_in is null");
    expect_rejected(filter(in.data(), nullptr, count.data(), n, algo), "d_out is null");
    expect_rejected(filter(in.data(), out.data(), nullptr, n, algo), "d_num_selected is null");
    expect_rejected(filter(host.data(), out.data(), count.data(), n, algo), "d_in is not device memory");
    expect_rejected(filter(in.data(), host_out.data(), count.data(), n, algo), "d_out is not device memory");
    expect_rejected(filter(in.data(), out.data(), &host_count, n, algo), "d_num_selected is not device memory");
  }
  {
    std::size_t b = ws_bytes;
    expect_rejected(device::filter_if_indices(ws.data(), b, in.data(), out.data(), static_cast<std::int64_t*>(nullptr),
                                              count.data(), n, p),
                    "d_indices_out is null");
    b = ws_bytes;
    expect_rejected(device::filter_flagged(ws.data(), b, in.data(), static_cast<const std::uint8_t*>(nullptr),
                                           out.data(), count.data(), n),
                    "d_flags is null");
    b = ws_bytes;
    expect_rejected(device::filter_flagged(ws.data(), b, in.data(), host_flags.data(), out.data(), count.data(), n),
                    "d_flags is not device memory");
    b = ws_bytes;
    expect_rejected(device::count_if(ws.data(), b, in.data(), static_cast<std::int64_t*>(nullptr), n, p),
                    "d_count is null");
    b = ws_bytes;
    expect_rejected(device::count_if(ws.data(), b, host.data(), count.data(), n, p), "d_in is not device memory");
    b = ws_bytes;
    std::vector<float> host_data = host;
    expect_rejected(device::filter_if_inplace(ws.data(), b, host_data.data(), count.data(), n, p),
                    "not device memory");
  }

  // A workspace too small: the message says how many bytes are needed.
  {
    std::size_t needed = 0;
    ASSERT_EQ(device::partition(nullptr, needed, in.data(), out.data(), count.data(), n, p), cudaSuccess);
    std::size_t b = needed - 1;
    expect_rejected(device::partition(ws.data(), b, in.data(), out.data(), count.data(), n, p),
                    "workspace too small");
    b = needed / 2;
    expect_rejected(device::partition(ws.data(), b, in.data(), out.data(), count.data(), n, p),
                    std::to_string(needed) + " needed");
  }

  // d_out overlapping d_in (an in-place filter goes through filter_if_inplace);
  // adjacent arrays are fine.
  {
    device_buffer<float> both(2 * static_cast<std::size_t>(n));
    cuda_check(cudaMemcpy(both.data(), host.data(), host.size() * sizeof(float), cudaMemcpyHostToDevice), "copy");
    for (const fa algo : all_algorithms) {
      SCOPED_TRACE(algo_name(algo));
      expect_rejected(filter(both.data(), both.data(), count.data(), n, algo), "d_out overlaps d_in");
      expect_rejected(filter(both.data(), both.data() + 1, count.data(), n, algo), "d_out overlaps d_in");
      expect_rejected(filter(both.data() + 1, both.data(), count.data(), n, algo), "d_out overlaps d_in");
      expect_rejected(filter(both.data(), both.data() + n - 1, count.data(), n, algo), "d_out overlaps d_in");
      EXPECT_EQ(filter(both.data(), both.data() + n, count.data(), n, algo), cudaSuccess)
          << device::last_error_message();
      cuda_check(cudaDeviceSynchronize(), "sync");
    }
    std::size_t b = ws_bytes;
    expect_rejected(device::partition(ws.data(), b, both.data(), both.data() + 10, count.data(), n, p),
                    "d_out overlaps d_in");
  }

  // An unknown algorithm.
  {
    expect_rejected(filter(in.data(), out.data(), count.data(), n, static_cast<fa>(7)), "unknown filter_algorithm 7");
  }

  // int32_t positions need n < 2^31: refused before any pointer is looked at (no
  // memory behind these), by every entry point that writes them.
  {
    const std::int64_t big = std::int64_t{1} << 31;
    auto* no_in = static_cast<const float*>(nullptr);
    auto* no_out = static_cast<float*>(nullptr);
    auto* no_idx = static_cast<std::int32_t*>(nullptr);
    std::size_t b = 0;
    expect_rejected(device::filter_if_indices(nullptr, b, no_in, no_out, no_idx, nullptr, big, p),
                    "int32_t indices need n < 2^31");
    b = 0;
    expect_rejected(device::filter_flagged_indices(nullptr, b, no_in, static_cast<const std::uint8_t*>(nullptr),
                                                   no_out, no_idx, nullptr, big),
                    "int32_t indices need n < 2^31");
    b = 0;
    expect_rejected(device::partition_pairs(nullptr, b, no_in, static_cast<const triple*>(nullptr), no_out,
                                            static_cast<triple*>(nullptr), no_idx, nullptr, big, p),
                    "int32_t indices need n < 2^31");
    // 2^31 - 1 keys are fine (a size query only: it reads no array).
    const device_buffer<std::int32_t> idx32(1);
    b = 0;
    EXPECT_EQ(device::filter_if_indices(nullptr, b, in.data(), out.data(), idx32.data(), count.data(), big - 1, p),
              cudaSuccess)
        << device::last_error_message();
  }

  // Payloads: d_values_in without d_values_out, or neither where they are required.
  {
    std::size_t b = ws_bytes;
    expect_rejected(device::partition_pairs(ws.data(), b, in.data(), values_in.data(), out.data(),
                                            static_cast<triple*>(nullptr), idx64.data(), count.data(), n, p),
                    "d_values_in and d_values_out must both be given or both be null");
    b = ws_bytes;
    expect_rejected(device::partition_pairs(ws.data(), b, in.data(), static_cast<const triple*>(nullptr), out.data(),
                                            values_out.data(), idx64.data(), count.data(), n, p),
                    "must both be given");
    b = ws_bytes;
    expect_rejected(device::filter_if_pairs(ws.data(), b, in.data(), values_in.data(), out.data(),
                                            static_cast<triple*>(nullptr), count.data(), n, p),
                    "must both be given");
    b = ws_bytes;
    expect_rejected(device::filter_if_pairs(ws.data(), b, in.data(), static_cast<const triple*>(nullptr), out.data(),
                                            static_cast<triple*>(nullptr), count.data(), n, p),
                    "d_values_in is null");
    b = ws_bytes;
    expect_rejected(device::filter_if_pairs(ws.data(), b, in.data(), host_values.data(), out.data(),
                                            values_out.data(), count.data(), n, p),
                    "d_values_in is not device memory");
    b = ws_bytes;
    expect_rejected(device::partition_pairs(ws.data(), b, in.data(), static_cast<const triple*>(nullptr),
                                            static_cast<float*>(nullptr), static_cast<triple*>(nullptr),
                                            static_cast<std::int64_t*>(nullptr), count.data(), n, p),
                    "no output given");
  }

  // A good call after all this: no message left.
  EXPECT_EQ(filter(in.data(), out.data(), count.data(), n), cudaSuccess) << device::last_error_message();
  EXPECT_STREQ(device::last_error_message(), "");
  cuda_check(cudaDeviceSynchronize(), "sync");
}

}  // namespace
}  // namespace kselect::test
