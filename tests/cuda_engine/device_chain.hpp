// What the GPU stages' tests share beside the graph's harness: outputs as floats (or doubles), the relative L2
// between two of them, and a chain (a buffer source → stages → a host sink collecting the rows or
// samples) run through the graph with its report, and the copies it made.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <utility>
#include <vector>

#include "pipeline/graph.hpp"
#include "sinks/callback_sink.hpp"
#include "../pipeline/stage_harness.hpp"

namespace prism::test {

template <typename T>
std::vector<T> as_values(const std::vector<std::byte>& bytes) {
  std::vector<T> v(bytes.size() / sizeof(T));
  std::memcpy(v.data(), bytes.data(), bytes.size());
  return v;
}
inline std::vector<float> as_floats(const std::vector<std::byte>& bytes) { return as_values<float>(bytes); }

template <typename T>
double relative_l2(const std::vector<T>& a, const std::vector<T>& b) {
  double num = 0, den = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const double d = static_cast<double>(a[i]) - b[i];
    num += d * d;
    den += static_cast<double>(b[i]) * b[i];
  }
  return std::sqrt(num / std::max(den, 1e-300));
}

template <typename... Stages>
std::vector<std::unique_ptr<Stage>> chain_of(Stages&&... stages) {
  std::vector<std::unique_ptr<Stage>> chain;
  (chain.push_back(std::forward<Stages>(stages)), ...);
  return chain;
}

struct ChainRun {
  RunReport report;
  std::vector<float> items;
  bool aborted = false;
};

// source → stages → a host sink of rows, in chunks of 8192 samples from the source.
inline ChainRun run_chain(const StreamInfo& stream, const std::vector<std::byte>& input,
                          std::vector<std::unique_ptr<Stage>> stages) {
  const StageInput buffer = samples_input(stream, input);
  BufferSource source(buffer);
  ChainRun run;
  Graph graph;
  Graph::Node from = graph.add_source(source);
  for (std::unique_ptr<Stage>& stage : stages) {
    const Graph::Node node = graph.add_stage(std::move(stage));
    graph.connect(from, node);
    from = node;
  }
  auto sink = std::make_unique<CallbackSink>(
      PortKind::rows,
      CallbackSink::Functions{
          .on_begin = [](const PortDescription&) {},
          .on_chunk =
              [&](const Chunk& chunk) {
                const float* f = chunk.as<float>();
                run.items.insert(run.items.end(), f, f + chunk.bytes() / sizeof(float));
              },
          .on_end = [&](CallbackSink::End how) { run.aborted = how == CallbackSink::End::failed; }},
      "collector");
  graph.connect(from, graph.add_sink(std::move(sink)));
  RunConfig config;
  config.block_samples = 8192;
  StopToken stop;
  run.report = graph.run(config, stop);
  return run;
}

// A chain that stays on the device: one copy to it before the first GPU stage, one back after the
// last.
inline void expect_one_copy_each_way(const RunReport& report) {
  int h2d = 0, d2h = 0;
  for (const NodeReport& node : report.nodes) {
    h2d += node.name == "h2d";
    d2h += node.name == "d2h";
  }
  EXPECT_EQ(h2d, 1) << "one copy to the device, before the first GPU stage";
  EXPECT_EQ(d2h, 1) << "one copy back, after the last";
}

}  // namespace prism::test
