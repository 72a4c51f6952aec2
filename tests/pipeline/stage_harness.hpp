// The harness every stage goes through (CPU and GPU): a stage's output must not depend on how its
// input was cut into chunks, its counters must balance, and reset() must bring back its initial
// state. A new stage's test calls it in a few lines:
//
//   test::StageInput input = test::samples_input(info, bytes);
//   test::check_stage([] { return std::make_unique<MyStage>(settings); }, input);
//
// check_stage() runs the stage directly (StageDriver: configure once, process chunk by chunk,
// flush) over the whole input in one chunk, then in chunks of 1, 2, 3, 7, 64, 1000 items and one
// larger than the input, and compares each output with the whole-input one (bit for bit, or within
// a relative L2 tolerance for stages whose GPU kernels batch differently); after reset() a second
// pass must give the first pass's output again. Then it runs the stage through a Graph (source
// chunks of 97 items, threads, pools, transfers where the stage lives on a GPU) and checks the
// output and the accounting of every edge. GNU Radio 4.0's qa_ tests and MatX's streaming tests
// check the same properties.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "pipeline/chunk.hpp"
#include "pipeline/gpu_runtime.hpp"
#include "pipeline/graph.hpp"
#include "pipeline/stage.hpp"
#include "sinks/callback_sink.hpp"

namespace prism::test {

struct StageInput {
  PortDescription description;  // samples
  std::vector<std::byte> data;  // items in the description's native format
  std::size_t items() const { return data.size() / description.item_bytes(); }
};

inline StageInput samples_input(const StreamInfo& info, std::vector<std::byte> data) {
  StageInput input;
  input.description = PortDescription::of_samples(info);
  input.description.samples.length = data.size() / info.frame_bytes();
  input.data = std::move(data);
  return input;
}

// Drives a stage as the graph would, without threads: chunks in the stage's input domain, its
// output brought back to the host after each call.
class StageDriver {
 public:
  StageDriver(Stage& stage, const PortDescription& input, std::size_t max_chunk_items)
      : stage_(stage), input_(input), max_chunk_(max_chunk_items) {
    output_ = stage.configure(input, max_chunk_items);
    const std::size_t out_items = std::max<std::size_t>(stage.max_output(max_chunk_items), 1);
    in_pool_ = make_pool(stage.input_domain(), max_chunk_items, input.item_bytes());
    out_pool_ = make_pool(stage.output_domain(), out_items, output_.item_bytes());
  }

  const PortDescription& output() const { return output_; }

  // The whole input in chunks of `chunk` items, then flush(); the output's bytes.
  std::vector<std::byte> run(const std::vector<std::byte>& data, std::size_t chunk) {
    std::vector<std::byte> result;
    const std::size_t in_bytes = input_.item_bytes(), out_bytes = output_.item_bytes();
    const std::size_t items = data.size() / in_bytes;
    std::uint64_t next_out = 0;
    StopToken never;
    for (std::size_t first = 0; first < items; first += chunk) {
      const std::size_t n = std::min(chunk, items - first);
      ChunkRef in = in_pool_->acquire(never);
      put(*in, data.data() + first * in_bytes, n * in_bytes);
      in->items = n;
      in->first_item = first;
      ChunkRef out = out_pool_->acquire(never);
      const std::size_t written = stage_.process(*in, *out);
      EXPECT_LE(written, stage_.max_output(n)) << stage_.name() << ": more output than max_output(" << n << ")";
      out->items = written;
      out->first_item = next_out;
      next_out += written;
      take(*out, written * out_bytes, result);
    }
    while (true) {
      ChunkRef out = out_pool_->acquire(never);
      const std::size_t written = stage_.flush(*out);
      if (written == 0) break;
      EXPECT_LE(written, out->capacity);
      next_out += written;
      take(*out, written * out_bytes, result);
    }
    return result;
  }

 private:
  static std::unique_ptr<ChunkPool> make_pool(MemoryDomain domain, std::size_t capacity, std::size_t item_bytes) {
    ChunkPool::Shape shape;
    shape.count = 1;
    shape.capacity = capacity;
    shape.item_bytes = std::max<std::size_t>(item_bytes, 1);
    shape.domain = domain.on_device() ? domain : MemoryDomain::host();
    return std::make_unique<ChunkPool>(shape);
  }

  void put(Chunk& chunk, const std::byte* data, std::size_t bytes) {
    if (!chunk.domain.on_device()) {
      std::memcpy(chunk.data, data, bytes);
      return;
    }
    // Before the stage's stream reads it: a synchronous copy (its earlier work is done too).
    gpu::host_wait_stream(stage_.stream());
    gpu::copy_async(chunk.data, data, bytes, stage_.stream(), chunk.domain.device);
    gpu::host_wait_stream(stage_.stream());
  }

  void take(const Chunk& chunk, std::size_t bytes, std::vector<std::byte>& result) {
    if (bytes == 0) return;  // an empty result has no storage for memcpy to name
    const std::size_t at = result.size();
    result.resize(at + bytes);
    if (!chunk.domain.on_device()) {
      std::memcpy(result.data() + at, chunk.data, bytes);
      return;
    }
    gpu::host_wait_stream(stage_.stream());
    gpu::copy_async(result.data() + at, chunk.data, bytes, stage_.stream(), chunk.domain.device);
    gpu::host_wait_stream(stage_.stream());
  }

  Stage& stage_;
  PortDescription input_, output_;
  std::size_t max_chunk_;
  std::unique_ptr<ChunkPool> in_pool_, out_pool_;
};

// A source over a test's buffer, cut into reads of at most the graph's chunk size.
class BufferSource final : public Source {
 public:
  explicit BufferSource(const StageInput& input) : input_(input) { info_ = input.description.samples; }
  const StreamInfo& info() const override { return info_; }
  std::size_t read(std::byte* dst, std::size_t max_samples) override {
    const std::size_t bytes = info_.frame_bytes();
    const std::size_t n = std::min(max_samples, input_.items() - next_);
    std::memcpy(dst, input_.data.data() + next_ * bytes, n * bytes);
    next_ += n;
    return n;
  }
  std::string describe() const override { return "test buffer"; }

 private:
  const StageInput& input_;
  StreamInfo info_;
  std::size_t next_ = 0;
};

// Relative L2 distance of two outputs read as floats (rows, or f32/cf32 samples).
inline double relative_l2(const std::vector<std::byte>& a, const std::vector<std::byte>& b) {
  const std::size_t n = std::min(a.size(), b.size()) / sizeof(float);
  const auto* x = reinterpret_cast<const float*>(a.data());
  const auto* y = reinterpret_cast<const float*>(b.data());
  double diff = 0, norm = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const double d = static_cast<double>(x[i]) - y[i];
    diff += d * d;
    norm += static_cast<double>(y[i]) * y[i];
  }
  return norm > 0 ? std::sqrt(diff / norm) : std::sqrt(diff);
}

struct StageCheck {
  // 0: outputs bit-identical; otherwise the largest relative L2 distance allowed between cuttings.
  double tolerance = 0.0;
  std::vector<std::size_t> chunk_sizes = {1, 2, 3, 7, 64, 1000};
  std::size_t graph_chunk = 97;  // the source's chunks in the graph run
};

using StageChain = std::function<std::vector<std::unique_ptr<Stage>>()>;

// Runs the chain of stages made by `make` in a graph; returns the last stage's output and the report.
inline std::vector<std::byte> run_in_graph(const StageChain& make, const StageInput& input, std::size_t chunk,
                                           RunReport& report) {
  std::vector<std::byte> collected;
  BufferSource source(input);
  Graph graph;
  Graph::Node last = graph.add_source(source);
  std::vector<std::unique_ptr<Stage>> stages = make();
  const PortKind kind = stages.back()->output_kind();
  for (auto& stage : stages) {
    const Graph::Node node = graph.add_stage(std::move(stage));
    graph.connect(last, node);
    last = node;
  }
  CallbackSink sink(kind, {.on_chunk = [&](const Chunk& c) {
                      const auto* p = c.data;
                      collected.insert(collected.end(), p, p + c.items * c.item_bytes);
                    }});
  graph.connect(last, graph.add_sink(sink));
  RunConfig config;
  config.block_samples = chunk;
  config.block_count = 3;
  StopToken stop;
  report = graph.run(config, stop);
  return collected;
}

// The output of `stages` (a chain) driven directly over the whole input, for reference tests.
inline std::vector<std::byte> run_chain_directly(std::vector<std::unique_ptr<Stage>>& stages, const StageInput& input,
                                                 std::size_t chunk, PortDescription* output = nullptr) {
  std::vector<std::byte> data = input.data;
  PortDescription description = input.description;
  std::size_t max_chunk = std::max<std::size_t>(chunk, 1);
  for (auto& stage : stages) {
    StageDriver driver(*stage, description, max_chunk);
    data = driver.run(data, max_chunk);
    description = driver.output();
    max_chunk = std::max<std::size_t>(stage->max_output(max_chunk), 1);
  }
  if (output != nullptr) *output = description;
  return data;
}

inline void expect_same_output(const std::vector<std::byte>& got, const std::vector<std::byte>& want, double tolerance,
                               const std::string& where) {
  ASSERT_EQ(got.size(), want.size()) << where << ": a different amount of output";
  if (tolerance == 0.0)
    EXPECT_TRUE(got.empty() || std::memcmp(got.data(), want.data(), got.size()) == 0) << where << ": output differs";
  else
    EXPECT_LE(relative_l2(got, want), tolerance) << where;
}

// The checks of the top of this file, for a chain of one or more stages (the last one's output
// compared); `make` builds a fresh chain each time.
inline void check_chain(const StageChain& make, const StageInput& input, const StageCheck& check = {}) {
  const std::size_t items = input.items();
  ASSERT_GT(items, 0u);
  // Whole input in one chunk: the reference.
  std::vector<std::unique_ptr<Stage>> whole_chain = make();
  const std::vector<std::byte> whole = run_chain_directly(whole_chain, input, items);
  const StageCounters whole_counters = whole_chain.back()->counters();
  EXPECT_EQ(whole_chain.front()->counters().items_in, items) << "the first stage's items in";

  std::vector<std::size_t> sizes = check.chunk_sizes;
  sizes.push_back(items + 5);  // larger than the input
  for (std::size_t chunk : sizes) {
    if (chunk == 0) continue;
    std::vector<std::unique_ptr<Stage>> chain = make();
    const std::vector<std::byte> cut = run_chain_directly(chain, input, chunk);
    expect_same_output(cut, whole, check.tolerance, "chunks of " + std::to_string(chunk));
    const StageCounters c = chain.back()->counters();
    EXPECT_EQ(c.items_out, whole_counters.items_out) << "chunks of " << chunk;
    EXPECT_EQ(c.items_in, whole_counters.items_in) << "chunks of " << chunk;
  }

  // Counters balance: the last stage's items out are what came out.
  std::vector<std::unique_ptr<Stage>> counted = make();
  PortDescription out;
  const std::vector<std::byte> first = run_chain_directly(counted, input, 64, &out);
  if (out.item_bytes() > 0) {
    EXPECT_EQ(counted.back()->counters().items_out * out.item_bytes(), first.size());
  }

  // reset(): the same stages, configured once, give the same output again.
  {
    std::vector<std::unique_ptr<Stage>> chain = make();
    std::vector<StageDriver> drivers;
    PortDescription description = input.description;
    std::size_t max_chunk = 64;
    for (auto& stage : chain) {
      drivers.emplace_back(*stage, description, max_chunk);
      description = drivers.back().output();
      max_chunk = std::max<std::size_t>(stage->max_output(max_chunk), 1);
    }
    auto pass = [&] {
      std::vector<std::byte> data = input.data;
      for (auto& driver : drivers) data = driver.run(data, 64);
      return data;
    };
    const std::vector<std::byte> before = pass();
    for (auto& stage : chain) stage->reset();
    for (auto& stage : chain) EXPECT_EQ(stage->counters().items_in, 0u) << stage->name() << " after reset()";
    const std::vector<std::byte> after = pass();
    expect_same_output(after, before, check.tolerance, "after reset()");
  }

  // Through a graph: threads, pools, transfers, accounting.
  RunReport report;
  const std::vector<std::byte> graphed = run_in_graph(make, input, check.graph_chunk, report);
  ASSERT_EQ(report.outcome, RunOutcome::completed) << report.error;
  EXPECT_EQ(report.accounting_mismatch(), "");
  EXPECT_EQ(report.samples_read, items);
  expect_same_output(graphed, whole, check.tolerance, "through a graph");
}

inline void check_stage(const std::function<std::unique_ptr<Stage>()>& make, const StageInput& input,
                        const StageCheck& check = {}) {
  check_chain(
      [&] {
        std::vector<std::unique_ptr<Stage>> chain;
        chain.push_back(make());
        return chain;
      },
      input, check);
}

}  // namespace prism::test
