// What the stream-ordered calls' graph tests share (stream_ordered_test.cu,
// range_test.cu, approx_test.cu): the calls captured once in a CUDA graph, and
// the graph replayed on new data in the same buffers.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "common/device_data.cuh"

namespace kselect::test {

/// The inputs a replay regenerates, in turn: where the sampled fast paths answer
/// (uniform, normal) and where they give way (all equal, 16 values, clustered).
inline const std::vector<device_dist>& graph_replay_dists() {
  static const std::vector<device_dist> dists{device_dist::uniform, device_dist::all_equal,
                                              device_dist::sixteen_values, device_dist::clustered,
                                              device_dist::normal};
  return dists;
}

/// The calls queue() makes on `stream`, captured in global mode (a wait or a host
/// copy inside a call fails the capture) and instantiated.
class captured_graph {
 public:
  template <class Queue>
  captured_graph(cudaStream_t stream, Queue&& queue) {
    cuda_check(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal), "begin capture");
    queue();
    cuda_check(cudaStreamEndCapture(stream, &graph_), "end capture");
    cuda_check(cudaGraphInstantiate(&exec_, graph_, 0), "instantiate");
  }
  captured_graph(const captured_graph&) = delete;
  captured_graph& operator=(const captured_graph&) = delete;
  ~captured_graph() {
    cudaGraphExecDestroy(exec_);
    cudaGraphDestroy(graph_);
  }

  /// `replays` replays on `stream`: before each, d_in[0..n) regenerated
  /// (graph_replay_dists() in turn, seed first_seed + replay); after each, the
  /// stream synchronised and check(dist, replay) called. Stops at a fatal failure.
  template <class T, class Check>
  void replay_on_new_data(cudaStream_t stream, T* d_in, std::int64_t n, std::uint64_t first_seed, Check&& check,
                          int replays = 100) const {
    const std::vector<device_dist>& dists = graph_replay_dists();
    for (int replay = 0; replay < replays; ++replay) {
      const device_dist d = dists[static_cast<std::size_t>(replay) % dists.size()];
      generate_on_device(d_in, n, d, first_seed + static_cast<std::uint64_t>(replay), stream);
      cuda_check(cudaGraphLaunch(exec_, stream), "graph launch");
      cuda_check(cudaStreamSynchronize(stream), "sync");
      check(d, replay);
      if (::testing::Test::HasFatalFailure()) return;
    }
  }

 private:
  cudaGraph_t graph_{};
  cudaGraphExec_t exec_{};
};

}  // namespace kselect::test
