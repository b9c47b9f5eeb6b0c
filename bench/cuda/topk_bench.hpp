// The top-k / rank-range benchmark (topk_bench.cu), run by kselect-gpu-bench.
#pragma once

#include <cuda_runtime_api.h>

#include <nlohmann/json.hpp>

#include <string>

#include "harness/harness.hpp"

namespace kselect::bench {

/// kselect-gpu-bench's options: the harness's and its own.
struct bench_options : run_options {
  std::string only;  ///< "TYPE:LOG2N:DIST" runs that case alone
  bool topk_only = false;
  std::string topk_case;  ///< "DIST:CASE" (a row's dist and case columns) runs that top-k row alone
};

/// Times device::topk / rank_range on 2^28 floats against the floor and CUB's
/// radix sort of (key, index) pairs, prints a table, appends one JSON object per
/// row to `rows`; false when an answer was wrong.
bool run_topk_benchmarks(const bench_options& o, cudaStream_t stream, nlohmann::json& rows);

}  // namespace kselect::bench
