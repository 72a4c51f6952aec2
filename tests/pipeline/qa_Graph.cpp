// The graph and its threaded run: configuration (kinds, connections, cycles), accounting on every
// edge with branches and flushes, back-pressure, overruns of live sources, bounded memory and the
// clean stop (end of input, a stop request, a failing source, stage or sink).
// The sources, stages and sinks here are small real implementations whose behaviour the tests
// control (how many samples, when to fail), so that each property is checked exactly.
#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <atomic>
#include <chrono>
#include <cstring>
#include <deque>
#include <stdexcept>
#include <thread>
#include <vector>

#include "pipeline/errors.hpp"
#include "pipeline/format.hpp"
#include "pipeline/graph.hpp"
#include "pipeline/run_summary.hpp"
#include "stage_harness.hpp"

namespace prism {
namespace {

// Counts up: sample k has the value k (as float), so any loss or reordering shows in the sums.
class RampSource : public Source {
 public:
  RampSource(std::uint64_t length, bool live = false, std::uint64_t fail_at = UINT64_MAX)
      : fail_at_(fail_at) {
    info_.format = SampleFormat::f32;
    info_.sample_rate = 1000.0;
    info_.length = length;
    info_.live = live;
    length_ = length;
  }
  const StreamInfo& info() const override { return info_; }
  std::size_t read(std::byte* dst, std::size_t max_samples) override {
    if (next_ >= fail_at_) throw std::runtime_error("device unplugged");
    const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(max_samples, length_ - next_));
    auto* out = reinterpret_cast<float*>(dst);
    for (std::size_t i = 0; i < n; ++i) out[i] = static_cast<float>(next_ + i);
    next_ += n;
    return n;
  }
  std::string describe() const override { return "ramp"; }
  std::uint64_t produced() const { return next_; }

 private:
  StreamInfo info_;
  std::uint64_t length_ = 0;
  std::uint64_t next_ = 0;
  std::uint64_t fail_at_;
};

// A source that never ends until interrupted, like a device or a pipe.
class EndlessSource : public Source {
 public:
  EndlessSource() {
    info_.format = SampleFormat::f32;
    info_.sample_rate = 1000.0;
  }
  const StreamInfo& info() const override { return info_; }
  std::size_t read(std::byte* dst, std::size_t max_samples) override {
    std::memset(dst, 0, max_samples * sizeof(float));
    return max_samples;
  }
  std::string describe() const override { return "endless"; }

 private:
  StreamInfo info_;
};

// Delivers `samples` samples, then waits without an error or an end until interrupted: a hung
// device.
class StallingSource : public Source {
 public:
  explicit StallingSource(std::uint64_t samples) : samples_(samples) {
    info_.format = SampleFormat::f32;
    info_.sample_rate = 1000.0;
    info_.live = true;
  }
  const StreamInfo& info() const override { return info_; }
  std::size_t read(std::byte* dst, std::size_t max_samples) override {
    if (next_ < samples_) {
      const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(max_samples, samples_ - next_));
      std::memset(dst, 0, n * sizeof(float));
      next_ += n;
      return n;
    }
    while (!interrupted_.load()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    return 0;
  }
  void interrupt() override { interrupted_ = true; }
  std::string describe() const override { return "stalling"; }

 private:
  StreamInfo info_;
  std::uint64_t samples_;
  std::uint64_t next_ = 0;
  std::atomic<bool> interrupted_{false};
};

// One row per chunk: [sum of samples, count, first sample index]. Optionally slow or failing.
class ChunkSumStage : public Stage {
 public:
  explicit ChunkSumStage(std::chrono::microseconds delay = {}, std::uint64_t fail_after = UINT64_MAX)
      : delay_(delay), fail_after_(fail_after) {}
  std::string name() const override { return "chunk sum"; }
  std::string describe() const override { return "sums each chunk"; }
  PortKind input_kind() const override { return PortKind::samples; }
  PortKind output_kind() const override { return PortKind::rows; }
  PortDescription configure(const PortDescription& input, std::size_t) override {
    SpectrumLayout layout;
    layout.columns = 3;
    layout.frequencies = {0, 1, 2};
    layout.row_interval = 1;
    layout.stream = input.samples;
    return PortDescription::of_rows(layout);
  }
  std::size_t max_output(std::size_t) const override { return 1; }
  std::size_t process(const Chunk& input, Chunk& output) override {
    if (rows_ >= fail_after_) throw std::runtime_error("kernel failed");
    if (delay_.count() > 0) std::this_thread::sleep_for(delay_);
    const auto* samples = input.as<float>();
    double sum = 0;
    for (std::size_t i = 0; i < input.items; ++i) sum += samples[i];
    float* row = output.as<float>();
    row[0] = static_cast<float>(sum);
    row[1] = static_cast<float>(input.items);
    row[2] = static_cast<float>(input.first_item);
    samples_in_ += input.items;
    ++rows_;
    return 1;
  }
  void reset() override { samples_in_ = rows_ = 0; }
  StageCounters counters() const override { return {samples_in_, rows_, {{"chunks", rows_.load()}}}; }

 private:
  std::chrono::microseconds delay_;
  std::uint64_t fail_after_;
  std::atomic<std::uint64_t> samples_in_{0}, rows_{0};
};

// Samples -> samples, delayed by `delay` samples: the first outputs are zeros, and the last
// `delay` samples come out at flush() (so a flush larger than one chunk is exercised too).
class DelayStage : public Stage {
 public:
  explicit DelayStage(std::size_t delay) : delay_(delay), held_(delay, 0.0f) {}
  std::string name() const override { return "delay"; }
  std::string describe() const override { return "delays by " + std::to_string(delay_) + " samples"; }
  PortKind input_kind() const override { return PortKind::samples; }
  PortKind output_kind() const override { return PortKind::samples; }
  PortDescription configure(const PortDescription& input, std::size_t) override { return input; }
  std::size_t max_output(std::size_t n) const override { return n; }
  std::size_t process(const Chunk& input, Chunk& output) override {
    const auto* in = input.as<float>();
    auto* out = output.as<float>();
    for (std::size_t i = 0; i < input.items; ++i) {
      out[i] = held_[position_ % delay_];
      held_[position_ % delay_] = in[i];
      ++position_;
    }
    in_ += input.items;
    out_ += input.items;
    return input.items;
  }
  std::size_t flush(Chunk& output) override {
    std::size_t n = 0;
    while (flushed_ < delay_ && n < output.capacity) {
      output.as<float>()[n++] = held_[(position_ + flushed_) % delay_];
      ++flushed_;
    }
    out_ += n;
    return n;
  }
  void reset() override {
    std::fill(held_.begin(), held_.end(), 0.0f);
    position_ = flushed_ = 0;
    in_ = out_ = 0;
  }
  StageCounters counters() const override { return {in_, out_, {}}; }

 private:
  std::size_t delay_;
  std::vector<float> held_;
  std::uint64_t position_ = 0, flushed_ = 0;
  std::atomic<std::uint64_t> in_{0}, out_{0};
};

// Keeps what it is given and how it ended.
class RecordingSink : public Sink {
 public:
  explicit RecordingSink(PortKind kind = PortKind::rows, std::uint64_t fail_after_items = UINT64_MAX)
      : kind_(kind), fail_after_(fail_after_items) {}
  bool accepts(PortKind kind) const override { return kind == kind_; }
  void begin(const PortDescription& input) override {
    width_ = kind_ == PortKind::rows ? input.rows.columns : 1;
    begun = true;
  }
  void write(const Chunk& chunk) override {
    if (items_ + chunk.items > fail_after_) throw std::runtime_error("disk full");
    EXPECT_EQ(chunk.first_item, items_);
    values.insert(values.end(), chunk.as<float>(), chunk.as<float>() + chunk.items * width_);
    items_ += chunk.items;
  }
  void finish(bool complete) override { finished = true; finished_complete = complete; }
  void abort() noexcept override { aborted = true; }
  std::uint64_t items_written() const override { return items_; }
  std::string describe() const override { return "recorder"; }

  std::vector<float> values;
  bool begun = false, finished = false, finished_complete = false, aborted = false;

 private:
  PortKind kind_;
  std::size_t width_ = 0;
  std::uint64_t items_ = 0;
  std::uint64_t fail_after_;
};

RunConfig small_config(std::size_t block_samples = 100, std::size_t blocks = 3) {
  RunConfig config;
  config.block_samples = block_samples;
  config.block_count = blocks;
  return config;
}

// source -> stage -> sinks, the usual shape.
RunReport run_chain(Source& source, Stage& stage, const std::vector<Sink*>& sinks, const RunConfig& config,
                    StopToken& stop) {
  Graph graph;
  const Graph::Node in = graph.add_source(source);
  const Graph::Node work = graph.add_stage(stage);
  graph.connect(in, work);
  for (Sink* sink : sinks) graph.connect(work, graph.add_sink(*sink));
  return graph.run(config, stop);
}

TEST(Graph, BatchRunBalancesExactlyAndKeepsOrder) {
  const std::uint64_t length = 100'003;  // not a multiple of the chunk size
  RampSource source(length);
  ChunkSumStage stage;
  RecordingSink a, b;
  StopToken stop;
  const RunReport report = run_chain(source, stage, {&a, &b}, small_config(), stop);
  ASSERT_EQ(report.outcome, RunOutcome::completed) << report.error;
  EXPECT_EQ(report.samples_read, length);
  EXPECT_EQ(report.node("chunk sum")->counters.items_in, length);
  EXPECT_EQ(report.samples_dropped, 0u);
  EXPECT_EQ(report.chunks, (length + 99) / 100);
  EXPECT_EQ(report.accounting_mismatch(), "");
  for (RecordingSink* sink : {&a, &b}) {
    EXPECT_TRUE(sink->finished && sink->finished_complete && !sink->aborted);
    ASSERT_EQ(sink->values.size(), report.chunks * 3);
    double total = 0, count = 0;
    for (std::size_t r = 0; r < report.chunks; ++r) {
      total += sink->values[r * 3];
      count += sink->values[r * 3 + 1];
      EXPECT_EQ(sink->values[r * 3 + 2], static_cast<float>(r * 100));  // chunks in order
    }
    EXPECT_EQ(count, static_cast<double>(length));
    EXPECT_NEAR(total, static_cast<double>(length) * (length - 1) / 2, 1e-6 * total);
  }
}

// source -+-> delay(250) -+-> chunk sum -> rows sink
//         |               +-> samples sink
//         +-> samples sink
// Every branch gets every item in order, flushes reach the end, and every edge balances.
TEST(Graph, BranchesAndFlushesBalanceOnEveryEdge) {
  const std::uint64_t length = 10'007;
  for (std::size_t chunk : {1, 7, 100, 20'000}) {
    RampSource source(length);
    DelayStage delay(250);
    ChunkSumStage sum;
    RecordingSink rows, delayed(PortKind::samples), direct(PortKind::samples);
    Graph graph;
    const Graph::Node in = graph.add_source(source);
    const Graph::Node d = graph.add_stage(delay);
    const Graph::Node s = graph.add_stage(sum);
    graph.connect(in, d);
    graph.connect(d, s);
    graph.connect(s, graph.add_sink(rows));
    graph.connect(d, graph.add_sink(delayed));
    graph.connect(in, graph.add_sink(direct));
    StopToken stop;
    const RunReport report = graph.run(small_config(chunk, 3), stop);
    const std::string where = "chunks of " + std::to_string(chunk);
    ASSERT_EQ(report.outcome, RunOutcome::completed) << where << ": " << report.error;
    EXPECT_EQ(report.accounting_mismatch(), "") << where;
    ASSERT_EQ(direct.values.size(), length) << where;
    ASSERT_EQ(delayed.values.size(), length + 250) << where;
    for (std::size_t i = 0; i < length; ++i) {
      ASSERT_EQ(direct.values[i], static_cast<float>(i)) << where;
      ASSERT_EQ(delayed.values[i + 250], static_cast<float>(i)) << where;
    }
    for (std::size_t i = 0; i < 250; ++i) ASSERT_EQ(delayed.values[i], 0.0f) << where;
    double count = 0;
    for (std::size_t r = 0; r < rows.values.size() / 3; ++r) count += rows.values[r * 3 + 1];
    EXPECT_EQ(count, static_cast<double>(length + 250)) << where << ": the chunk sums saw the flush too";
    ASSERT_EQ(report.nodes.size(), 6u);
    EXPECT_EQ(report.nodes.front().role, NodeRole::source);
    EXPECT_EQ(report.node("delay")->counters.items_out, length + 250);
  }
}

TEST(Graph, ConfigurationRefusesWhatCannotRun) {
  RampSource source(10);
  ChunkSumStage sum, other;
  RecordingSink samples(PortKind::samples), rows;
  {  // a sink of samples behind a stage that gives rows: named, before anything runs
    Graph graph;
    const Graph::Node in = graph.add_source(source);
    const Graph::Node s = graph.add_stage(sum);
    graph.connect(in, s);
    graph.connect(s, graph.add_sink(samples));
    try {
      graph.configure(small_config());
      FAIL() << "expected UsageError";
    } catch (const UsageError& e) {
      EXPECT_NE(std::string(e.what()).find("'recorder' cannot take the rows that 'chunk sum' gives"), std::string::npos)
          << e.what();
    }
    EXPECT_FALSE(samples.begun);
  }
  {  // a stage whose input is rows behind the source's samples
    Graph graph;
    const Graph::Node in = graph.add_source(source);
    const Graph::Node s = graph.add_stage(sum);
    const Graph::Node t = graph.add_stage(other);
    graph.connect(in, s);
    graph.connect(s, t);
    graph.connect(t, graph.add_sink(rows));
    EXPECT_THROW(graph.configure(small_config()), UsageError);
  }
  {  // an output that goes nowhere
    Graph graph;
    graph.connect(graph.add_source(source), graph.add_stage(sum));
    EXPECT_THROW(graph.configure(small_config()), UsageError);
  }
  {  // two inputs, a sink as a producer, a second source
    Graph graph;
    const Graph::Node in = graph.add_source(source);
    const Graph::Node s = graph.add_stage(sum);
    const Graph::Node k = graph.add_sink(rows);
    graph.connect(in, s);
    EXPECT_THROW(graph.connect(in, s), std::invalid_argument);
    EXPECT_THROW(graph.connect(k, s), std::invalid_argument);
    EXPECT_THROW(graph.add_source(source), std::invalid_argument);
  }
  {  // a cycle that the source does not reach
    Graph graph;
    const Graph::Node in = graph.add_source(source);
    graph.connect(in, graph.add_sink(samples));
    const Graph::Node a = graph.add_stage(std::make_unique<DelayStage>(1));
    const Graph::Node b = graph.add_stage(std::make_unique<DelayStage>(1));
    graph.connect(a, b);
    graph.connect(b, a);
    EXPECT_THROW(graph.configure(small_config()), UsageError);
  }
}

// Rows computed elsewhere (as a zmq: stream of a spectrogram delivers them): row r holds r, r+1.
class RowsSource : public Source {
 public:
  explicit RowsSource(std::uint64_t rows) : rows_(rows) {
    info_.format = SampleFormat::f32;
    info_.sample_rate = 1000.0;
    layout_.columns = 2;
    layout_.frequencies = {0, 500};
    layout_.row_interval = 0.5;
    layout_.stream = info_;
  }
  const StreamInfo& info() const override { return info_; }
  PortDescription output() const override { return PortDescription::of_rows(layout_); }
  std::size_t read(std::byte* dst, std::size_t max_rows) override {
    const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(max_rows, rows_ - next_));
    auto* out = reinterpret_cast<float*>(dst);
    for (std::size_t i = 0; i < n; ++i) {
      out[2 * i] = static_cast<float>(next_ + i);
      out[2 * i + 1] = static_cast<float>(next_ + i + 1);
    }
    next_ += n;
    return n;
  }
  std::string describe() const override { return "rows from elsewhere"; }

 private:
  StreamInfo info_;
  SpectrumLayout layout_;
  std::uint64_t rows_, next_ = 0;
};

TEST(Graph, ASourceOfRowsFeedsWhatTakesRowsAndNothingElse) {
  {  // straight into a sink of rows
    RowsSource source(7);
    RecordingSink rows(PortKind::rows);
    Graph graph;
    graph.connect(graph.add_source(source), graph.add_sink(rows));
    StopToken stop;
    const RunReport report = graph.run(small_config(), stop);
    ASSERT_EQ(report.outcome, RunOutcome::completed) << report.error;
    ASSERT_EQ(rows.values.size(), 14u);
    for (std::size_t r = 0; r < 7; ++r) {
      EXPECT_EQ(rows.values[2 * r], static_cast<float>(r));
      EXPECT_EQ(rows.values[2 * r + 1], static_cast<float>(r + 1));
    }
  }
  {  // a sink of samples: named before anything runs
    RowsSource source(7);
    RecordingSink samples(PortKind::samples);
    Graph graph;
    graph.connect(graph.add_source(source), graph.add_sink(samples));
    try {
      graph.configure(small_config());
      FAIL() << "expected UsageError";
    } catch (const UsageError& e) {
      EXPECT_NE(std::string(e.what()).find("cannot take the rows that 'rows from elsewhere' gives"),
                std::string::npos)
          << e.what();
    }
  }
  {  // a stage of samples
    RowsSource source(7);
    ChunkSumStage sum;
    RecordingSink rows(PortKind::rows);
    Graph graph;
    const Graph::Node s = graph.add_stage(sum);
    graph.connect(graph.add_source(source), s);
    graph.connect(s, graph.add_sink(rows));
    EXPECT_THROW(graph.configure(small_config()), UsageError);
  }
}

// A stage that says it lives on CUDA device 0 (never run here).
class DeviceRowsStage : public ChunkSumStage {
 public:
  std::string name() const override { return "device stage"; }
  MemoryDomain input_domain() const override { return MemoryDomain::cuda(0); }
};

// Between the host and a device the graph inserts h2d and d2h, each carrying what its producer
// gives (samples in, rows out). Without a GPU, configuration gets past every check of kinds and
// stops where the copies' streams are made.
TEST(Graph, TransfersAreInsertedWhereDomainsChange) {
  if (gpu::device_count() > 0) GTEST_SKIP() << "a GPU is present: qa_CudaSpectrogram runs the transfers for real";
  RampSource source(100);
  DeviceRowsStage stage;
  RecordingSink sink, copy(PortKind::samples);
  Graph graph;
  const Graph::Node in = graph.add_source(source);
  const Graph::Node s = graph.add_stage(stage);
  graph.connect(in, s);
  graph.connect(s, graph.add_sink(sink));
  graph.connect(in, graph.add_sink(copy));
  EXPECT_THROW(graph.configure(small_config()), CudaError);
  EXPECT_EQ(graph.describe(), "ramp ! h2d ! device stage ! d2h ! recorder\nramp ! recorder");
}

TEST(Graph, SlowProcessingMakesFileSourcesWaitNotDrop) {
  RampSource source(5'000);
  ChunkSumStage stage(std::chrono::microseconds(500));
  RecordingSink sink;
  StopToken stop;
  const RunReport report = run_chain(source, stage, {&sink}, small_config(100, 2), stop);
  ASSERT_EQ(report.outcome, RunOutcome::completed) << report.error;
  EXPECT_EQ(report.samples_dropped, 0u);
  EXPECT_EQ(report.node("chunk sum")->counters.items_in, 5'000u);
}

TEST(Graph, LiveSourceCountsOverrunsInsteadOfWaiting) {
  RampSource source(200'000, /*live=*/true);
  ChunkSumStage stage(std::chrono::microseconds(200));
  RecordingSink sink;
  StopToken stop;
  const RunReport report = run_chain(source, stage, {&sink}, small_config(100, 2), stop);
  ASSERT_EQ(report.outcome, RunOutcome::completed) << report.error;
  EXPECT_GT(report.samples_dropped, 0u) << "a fast live source on a slow stage must overrun";
  EXPECT_EQ(report.samples_read + report.samples_dropped, source.produced());
  EXPECT_EQ(report.node("chunk sum")->counters.items_in, report.samples_read);
  EXPECT_EQ(report.accounting_mismatch(), "");
  // What did arrive is placed at its true position in the stream, gaps and all.
  std::uint64_t last_first = 0;
  for (std::size_t r = 0; r < sink.values.size() / 3; ++r) {
    const auto first = static_cast<std::uint64_t>(sink.values[r * 3 + 2]);
    if (r > 0) {
      EXPECT_GT(first, last_first);
    }
    last_first = first;
  }
}

TEST(Graph, MaxSamplesEndsTheInputThere) {
  // A file cut inside a chunk, at a chunk boundary, and longer than the file.
  for (const std::uint64_t max : {std::uint64_t{1234}, std::uint64_t{1300}, std::uint64_t{9000}}) {
    RampSource source(5'000);
    ChunkSumStage stage;
    RecordingSink sink;
    StopToken stop;
    RunConfig config = small_config(100, 3);
    config.max_samples = max;
    const RunReport report = run_chain(source, stage, {&sink}, config, stop);
    ASSERT_EQ(report.outcome, RunOutcome::completed) << report.error;
    const std::uint64_t expected = std::min<std::uint64_t>(max, 5'000);
    EXPECT_EQ(report.samples_read, expected) << "max " << max;
    EXPECT_EQ(source.produced(), expected) << "the source was read past the limit";
    EXPECT_EQ(report.node("chunk sum")->counters.items_in, expected);
    double sum = 0;
    for (std::size_t r = 0; r < sink.values.size() / 3; ++r) sum += sink.values[r * 3];
    EXPECT_NEAR(sum, static_cast<double>(expected) * (expected - 1) / 2, 1e-3 * expected);
  }
  // A live input: the limit counts what was dropped too, so the capture spans max samples of time.
  RampSource live(200'000, /*live=*/true);
  ChunkSumStage slow(std::chrono::microseconds(200));
  RecordingSink sink;
  StopToken stop;
  RunConfig config = small_config(100, 2);
  config.max_samples = 50'000;
  const RunReport report = run_chain(live, slow, {&sink}, config, stop);
  ASSERT_EQ(report.outcome, RunOutcome::completed) << report.error;
  EXPECT_EQ(report.samples_read + report.samples_dropped, 50'000u);
  EXPECT_EQ(live.produced(), 50'000u);
  EXPECT_EQ(report.accounting_mismatch(), "");
}

TEST(Graph, StopRequestEndsAnEndlessRunAsInterrupted) {
  EndlessSource source;
  ChunkSumStage stage;
  RecordingSink sink;
  StopToken stop;
  std::thread stopper([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    stop.request_stop();
  });
  const RunReport report = run_chain(source, stage, {&sink}, small_config(), stop);
  stopper.join();
  EXPECT_EQ(report.outcome, RunOutcome::interrupted);
  EXPECT_TRUE(sink.finished);
  EXPECT_FALSE(sink.finished_complete) << "an interrupted run's output is marked incomplete";
  EXPECT_FALSE(sink.aborted);
  EXPECT_GT(report.node("chunk sum")->counters.items_in, 0u);
  EXPECT_EQ(sink.items_written(), report.node("recorder")->items_delivered);
  EXPECT_EQ(report.accounting_mismatch(), "") << "what was delivered was written";
}

TEST(Graph, FailingSourceAbortsSinksAndNamesTheStage) {
  RampSource source(1'000'000, false, /*fail_at=*/5'000);
  ChunkSumStage stage;
  RecordingSink sink;
  StopToken stop;
  const RunReport report = run_chain(source, stage, {&sink}, small_config(), stop);
  EXPECT_EQ(report.outcome, RunOutcome::failed);
  EXPECT_NE(report.error.find("input ramp"), std::string::npos) << report.error;
  EXPECT_NE(report.error.find("device unplugged"), std::string::npos) << report.error;
  EXPECT_TRUE(sink.aborted);
  EXPECT_FALSE(sink.finished);
  EXPECT_FALSE(report.outputs_kept_incomplete);
}

TEST(Graph, StalledSourceFailsAfterTheStallTimeoutKeepingWhatItDelivered) {
  StallingSource source(1'000);
  ChunkSumStage stage;
  RecordingSink sink;
  StopToken stop;
  RunConfig config = small_config(100, 4);
  config.stall_timeout_s = 0.2;
  const RunReport report = run_chain(source, stage, {&sink}, config, stop);
  EXPECT_EQ(report.outcome, RunOutcome::failed);
  EXPECT_NE(report.error.find("input stalling: delivered nothing for 0.2 s"), std::string::npos) << report.error;
  // The library names its field; a caller with names of its own (the command line) gets them.
  EXPECT_NE(report.error.find("(the stall timeout, stall_timeout_s)"), std::string::npos) << report.error;
  EXPECT_TRUE(report.outputs_kept_incomplete);
  EXPECT_TRUE(sink.finished);
  EXPECT_FALSE(sink.finished_complete);
  EXPECT_GT(report.samples_read, 0u);
  EXPECT_EQ(report.samples_read + report.samples_dropped, 1'000u) << "live: what found no chunk is dropped";
}

TEST(Graph, StallTimeoutMessageNamesTheSettingAsTheCallerDoes) {
  StallingSource source(1'000);
  ChunkSumStage stage;
  RecordingSink sink;
  StopToken stop;
  RunConfig config = small_config(100, 4);
  config.stall_timeout_s = 0.05;
  config.field_namer = [](std::string_view field) {
    return field == "stall_timeout_s" ? std::string("--stall-timeout") : std::string(field);
  };
  const RunReport report = run_chain(source, stage, {&sink}, config, stop);
  EXPECT_NE(report.error.find("(the stall timeout, --stall-timeout)"), std::string::npos) << report.error;
}

TEST(Graph, StallTimeoutCountsOnlyTheSourcesOwnWait) {
  // A slow stage holds the source back for longer than the timeout: that is no stall.
  RampSource source(1'000);
  ChunkSumStage stage(std::chrono::milliseconds(50));
  RecordingSink sink;
  StopToken stop;
  RunConfig config = small_config(100, 2);
  config.stall_timeout_s = 0.02;
  const RunReport report = run_chain(source, stage, {&sink}, config, stop);
  EXPECT_EQ(report.outcome, RunOutcome::completed) << report.error;
  EXPECT_EQ(report.samples_read, 1'000u);
}

TEST(Graph, FailingLiveSourceKeepsWhatItDeliveredMarkedIncomplete) {
  // A device unplugged mid-capture: its samples cannot be read again, so the rows stay.
  RampSource source(1'000'000, /*live=*/true, /*fail_at=*/5'000);
  ChunkSumStage stage;
  RecordingSink sink;
  StopToken stop;
  const RunReport report = run_chain(source, stage, {&sink}, small_config(100, 64), stop);
  EXPECT_EQ(report.outcome, RunOutcome::failed);
  EXPECT_NE(report.error.find("device unplugged"), std::string::npos) << report.error;
  EXPECT_TRUE(report.outputs_kept_incomplete);
  EXPECT_FALSE(sink.aborted);
  EXPECT_TRUE(sink.finished);
  EXPECT_FALSE(sink.finished_complete);
  EXPECT_GT(sink.items_written(), 0u);
  // Every row that reached the sink holds the ramp's samples at their place.
  for (std::size_t r = 0; r < sink.values.size() / 3; ++r) {
    const double n = sink.values[r * 3 + 1], first = sink.values[r * 3 + 2];
    EXPECT_NEAR(sink.values[r * 3], n * first + n * (n - 1) / 2, 1e-3 * (n * first + 1)) << "row " << r;
  }
  EXPECT_EQ(nlohmann::json::parse(run_summary_json(report))["outputs_kept_incomplete"], true);
}

TEST(Graph, FailingStageAbortsSinksAndNamesIt) {
  RampSource source(1'000'000);
  ChunkSumStage stage({}, /*fail_after=*/7);
  RecordingSink sink;
  StopToken stop;
  const RunReport report = run_chain(source, stage, {&sink}, small_config(), stop);
  EXPECT_EQ(report.outcome, RunOutcome::failed);
  EXPECT_NE(report.error.find("chunk sum: kernel failed"), std::string::npos) << report.error;
  EXPECT_TRUE(sink.aborted);
}

TEST(Graph, FailingSinkStopsTheRunAndAbortsEverySink) {
  RampSource source(1'000'000);
  ChunkSumStage stage;
  RecordingSink good, bad(PortKind::rows, /*fail_after_items=*/10);
  StopToken stop;
  const RunReport report = run_chain(source, stage, {&good, &bad}, small_config(), stop);
  EXPECT_EQ(report.outcome, RunOutcome::failed);
  EXPECT_NE(report.error.find("disk full"), std::string::npos) << report.error;
  EXPECT_TRUE(good.aborted);
  EXPECT_TRUE(bad.aborted);
  EXPECT_LT(report.node("chunk sum")->counters.items_in, 1'000'000u) << "the run stopped early";
  // The outputs were removed: the summary must not say that rows were written to them.
  const std::string text = format_run_summary(report);
  EXPECT_EQ(text.find("rows written"), std::string::npos) << text;
  EXPECT_NE(text.find("removed, as the run failed"), std::string::npos) << text;
  const nlohmann::json json = nlohmann::json::parse(run_summary_json(report));
  EXPECT_EQ(json["outputs"][0]["kept"], false);
  EXPECT_EQ(json["outputs"][0]["items_written"], 0);
}

TEST(Graph, RejectsAPoolTooSmallToOverlap) {
  RampSource source(10);
  ChunkSumStage stage;
  RecordingSink sink;
  StopToken stop;
  const RunReport report = run_chain(source, stage, {&sink}, small_config(100, 1), stop);
  EXPECT_EQ(report.outcome, RunOutcome::failed);
  EXPECT_NE(report.error.find("at least 2 blocks"), std::string::npos) << report.error;
  EXPECT_FALSE(sink.begun);
}

TEST(Graph, MemoryStaysBoundedForAnInput100TimesThePool) {
  const std::size_t block_samples = 1 << 16;  // 256 KiB chunks, 1 MiB in the source's pool
  const std::uint64_t length = std::uint64_t{100} * 4 * block_samples;  // 100 MiB of samples
  RampSource source(length);
  ChunkSumStage stage;
  RecordingSink sink;
  StopToken stop;
  const bool can_reset = reset_peak_resident_bytes();
  const std::size_t before = peak_resident_bytes();
  const RunReport report = run_chain(source, stage, {&sink}, small_config(block_samples, 4), stop);
  ASSERT_EQ(report.outcome, RunOutcome::completed) << report.error;
  EXPECT_EQ(report.node("chunk sum")->counters.items_in, length);
  EXPECT_LT(report.host_pool_bytes, 2u << 20) << "the pools are sized by chunks, not by the input";
  if (!can_reset) GTEST_SKIP() << "/proc/self/clear_refs is not writable here; peak not measurable";
  const std::size_t growth = report.peak_rss_bytes > before ? report.peak_rss_bytes - before : 0;
  EXPECT_LT(growth, 16u << 20) << "peak resident memory grew by " << format_bytes(growth) << " for "
                               << format_bytes(report.host_pool_bytes) << " of pools";
}

TEST(Graph, SummaryNamesEveryCount) {
  RampSource source(1234);
  ChunkSumStage stage;
  RecordingSink sink;
  StopToken stop;
  const RunReport report = run_chain(source, stage, {&sink}, small_config(), stop);
  const std::string text = format_run_summary(report);
  EXPECT_NE(text.find("run completed"), std::string::npos) << text;
  EXPECT_NE(text.find("1234 read, 0 dropped"), std::string::npos) << text;
  EXPECT_NE(text.find("1234 samples in, 13 rows out; chunks 13"), std::string::npos) << text;
  EXPECT_NE(text.find("recorder: 13 rows written"), std::string::npos) << text;
  EXPECT_NE(text.find("accounting  balanced"), std::string::npos) << text;
  const nlohmann::json json = nlohmann::json::parse(run_summary_json(report));
  EXPECT_EQ(json["samples_read"], 1234);
  EXPECT_EQ(json["accounting"], "balanced");
  EXPECT_EQ(json["overflows_of_unknown_length"], 0);
  ASSERT_EQ(json["stages"].size(), 2u);
  EXPECT_EQ(json["stages"][1]["name"], "chunk sum");
  EXPECT_EQ(json["stages"][1]["items_in"], 1234);
  EXPECT_EQ(json["stages"][1]["chunks"], 13);
  EXPECT_EQ(json["outputs"][0]["items_written"], 13);
  EXPECT_EQ(text.find("without saying how many"), std::string::npos) << text;
}

// A live device that reported losses without their length (an SDR driver without time stamps).
class OverflowingSource : public RampSource {
 public:
  OverflowingSource() : RampSource(1000, /*live=*/true) {}
  std::uint64_t overflows_of_unknown_length() const override { return 3; }
};

TEST(Graph, SummarySaysWhenTheDeviceLostSamplesOfUnknownLength) {
  OverflowingSource source;
  ChunkSumStage stage;
  RecordingSink sink;
  StopToken stop;
  const RunReport report = run_chain(source, stage, {&sink}, small_config(), stop);
  EXPECT_EQ(report.overflows_of_unknown_length, 3u);
  const std::string text = format_run_summary(report);
  EXPECT_NE(text.find("the device lost samples 3 time(s) without saying how many"), std::string::npos) << text;
  EXPECT_EQ(nlohmann::json::parse(run_summary_json(report))["overflows_of_unknown_length"], 3);
}

// The harness on a stage with state and a flush: bit-identical for every cutting.
TEST(Graph, HarnessAcceptsAStatefulStage) {
  StreamInfo info;
  info.format = SampleFormat::f32;
  info.sample_rate = 1000;
  std::vector<float> ramp(3001);
  for (std::size_t i = 0; i < ramp.size(); ++i) ramp[i] = static_cast<float>(i % 97) - 48.0f;
  std::vector<std::byte> bytes(ramp.size() * sizeof(float));
  std::memcpy(bytes.data(), ramp.data(), bytes.size());
  test::check_stage([] { return std::make_unique<DelayStage>(123); }, test::samples_input(info, bytes));
}

// ... and refuses one whose output depends on the cutting (a row per chunk).
TEST(Graph, HarnessCatchesAStageThatDependsOnTheCutting) {
  StreamInfo info;
  info.format = SampleFormat::f32;
  info.sample_rate = 1000;
  const std::vector<std::byte> bytes(500 * sizeof(float), std::byte{0});
  ::testing::TestPartResultArray failures;
  {
    ::testing::ScopedFakeTestPartResultReporter intercept(
        ::testing::ScopedFakeTestPartResultReporter::INTERCEPT_ONLY_CURRENT_THREAD, &failures);
    test::check_stage([] { return std::make_unique<ChunkSumStage>(); }, test::samples_input(info, bytes));
  }
  bool named = false;
  for (int i = 0; i < failures.size(); ++i)
    named = named || std::string(failures.GetTestPartResult(i).message()).find("a different amount of output") !=
                         std::string::npos;
  EXPECT_TRUE(named) << failures.size() << " failures, none about the output's amount";
}

}  // namespace
}  // namespace prism
